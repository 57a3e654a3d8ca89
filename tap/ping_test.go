package tap

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"mesonemu/sim"
)

// pingFromNetns sends ICMP echo requests to dst from inside the namespace
// (a raw socket opened there) and counts the replies.
func pingFromNetns(ns string, dst netip.Addr, count int) (int, error) {
	var fd int
	err := InNetns(ns, func() error {
		var err error
		fd, err = unix.Socket(unix.AF_INET, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.IPPROTO_ICMP)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("raw ICMP socket: %w", err)
	}
	defer unix.Close(fd)
	tv := unix.NsecToTimeval(int64(2 * time.Second))
	if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv); err != nil {
		return 0, err
	}
	to := &unix.SockaddrInet4{Addr: dst.As4()}
	got := 0
	buf := make([]byte, 1500)
	for seq := 1; seq <= count; seq++ {
		req := []byte{8, 0, 0, 0, 0x4d, 0x45, 0, byte(seq), 'm', 'e', 's', 'o', 'n'}
		binary.BigEndian.PutUint16(req[2:], inetChecksum(req))
		if err := unix.Sendto(fd, req, 0, to); err != nil {
			return got, fmt.Errorf("send echo %d: %w", seq, err)
		}
		for {
			n, _, err := unix.Recvfrom(fd, buf, 0)
			if errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.EINTR) {
				break // timed out: this echo is lost
			}
			if err != nil {
				return got, err
			}
			// The raw socket gives the IP header too; the reply is type 0 with our id and sequence.
			if n < 20 {
				continue
			}
			ihl := int(buf[0]&0x0f) * 4
			icmp := buf[ihl:n]
			if len(icmp) >= 8 && icmp[0] == 0 && icmp[4] == 0x4d && icmp[5] == 0x45 && icmp[7] == byte(seq) {
				got++
				break
			}
		}
	}
	return got, nil
}

func inetChecksum(b []byte) uint16 {
	var sum uint32
	for i := 0; i+1 < len(b); i += 2 {
		sum += uint32(b[i])<<8 | uint32(b[i+1])
	}
	if len(b)%2 == 1 {
		sum += uint32(b[len(b)-1]) << 8
	}
	for sum > 0xffff {
		sum = sum>>16 + sum&0xffff
	}
	return ^uint16(sum)
}

// TestTAPPing: on a TAP the test made with `ip tuntap add`, the board answers
// ARP and ping with no iperf3, Run stops on cancel, and the interface stays.
// A TCP connection to a closed port is refused by the board's stack (RST),
// which proves a second protocol's round trip.
func TestTAPPing(t *testing.T) {
	need(t)
	ns := newNetns(t)
	ns.ip("tuntap", "add", "dev", tapName, "mode", "tap")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	type outcome struct {
		replies int
		pingErr error
		dialErr error
		neigh   string
	}
	res := make(chan outcome, 1)
	ready := func(name string) {
		defer cancel()
		ns.configure(name)
		var o outcome
		o.replies, o.pingErr = pingFromNetns(ns.name, netip.MustParseAddr(boardIP), 3)
		o.dialErr = InNetns(ns.name, func() error {
			c, err := net.DialTimeout("tcp", boardIP+":9", 3*time.Second)
			if err == nil {
				c.Close()
			}
			return err
		})
		o.neigh = ns.ip("neigh", "show", boardIP)
		res <- o
	}
	code, c, err := Run(ctx, Options{Sim: sim.Options{Seed: 1}, TAP: tapName, Netns: ns.name, Ready: func(n string) { go ready(n) }})
	if err != nil || code != 0 {
		t.Fatalf("Run: code %d, %v", code, err)
	}
	o := <-res
	t.Logf("counters: %+v", *c)
	if o.pingErr != nil || o.replies != 3 {
		t.Errorf("ping: %d of 3 replies, %v", o.replies, o.pingErr)
	}
	if !errors.Is(o.dialErr, syscall.ECONNREFUSED) {
		t.Errorf("TCP to the board's closed port 9: got %v, want connection refused", o.dialErr)
	}
	if !strings.Contains(o.neigh, "lladdr") {
		t.Errorf("host has no ARP entry for the board: %q", o.neigh)
	}
	if !ns.exists(tapName) {
		t.Errorf("TAP %s vanished when Run returned", tapName)
	}
	checkConservation(t, c)
	// The host sent an ARP request, 3 echo requests and a SYN; the board an ARP
	// reply, 3 echo replies and a RST. IPv6 is off on the TAP, so nothing else.
	if c.TapRead != 5 || c.SentToBoard != 5 || c.FromBoard != 5 || c.WrittenToHost != 5 {
		t.Errorf("frames: read %d, to board %d, from board %d, to host %d; want 5 each", c.TapRead, c.SentToBoard, c.FromBoard, c.WrittenToHost)
	}
}

// checkConservation asserts the bridge's accounting after Close: every frame
// read ended in exactly one counter, and so did every frame from the board.
func checkConservation(t *testing.T, c *Counters) {
	t.Helper()
	if in := c.SentToBoard + c.TooLong + c.Runt + c.QueueFull + c.SendErrors + c.NotOffered; in != c.TapRead {
		t.Errorf("host->board: read %d, accounted %d (%+v)", c.TapRead, in, *c)
	}
	if out := c.WrittenToHost + c.WriterBusy + c.WriteErrors + c.Unwritten; out != c.FromBoard {
		t.Errorf("board->host: from board %d, accounted %d (%+v)", c.FromBoard, out, *c)
	}
}

// TestIdleLinkUsesNoCPU: with the TAP attached and nothing to do, the engine
// sleeps until its next event instead of spinning: a second of idle link costs
// the process (loop, stacks, reader goroutines) almost no CPU.
func TestIdleLinkUsesNoCPU(t *testing.T) {
	need(t)
	ns := newNetns(t)
	ns.ip("tuntap", "add", "dev", tapName, "mode", "tap")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	used := make(chan float64, 1)
	ready := func(name string) {
		defer cancel()
		ns.configure(name)
		time.Sleep(300 * time.Millisecond) // the host's own link-up chatter
		before := cpuSeconds()
		time.Sleep(time.Second)
		used <- cpuSeconds() - before
	}
	code, _, err := Run(ctx, Options{Sim: sim.Options{Seed: 1}, TAP: tapName, Netns: ns.name, Ready: func(n string) { go ready(n) }})
	if err != nil || code != 0 {
		t.Fatalf("Run: code %d, %v", code, err)
	}
	cpu := <-used
	t.Logf("1 s of idle link: %.1f ms of CPU", cpu*1000)
	// A spinning loop would take a whole core (1000 ms).
	if cpu > 0.05 {
		t.Errorf("an idle link used %.0f ms of CPU in 1 s; want < 50 ms (nothing may spin)", cpu*1000)
	}
}
