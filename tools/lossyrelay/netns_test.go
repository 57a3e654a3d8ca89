package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"mesonemu/tap"
)

// needRoot skips the test on a machine that cannot make namespaces and TAPs,
// naming what is missing; under CI=true that is a failure instead.
func needRoot(t *testing.T) {
	t.Helper()
	var missing []string
	if os.Geteuid() != 0 {
		missing = append(missing, "root (namespaces and TAP devices need CAP_NET_ADMIN and CAP_SYS_ADMIN)")
	}
	if _, err := os.Stat(tap.TunPath); err != nil {
		missing = append(missing, tap.TunPath)
	}
	if _, err := exec.LookPath("ip"); err != nil {
		missing = append(missing, "ip in PATH")
	}
	if len(missing) == 0 {
		return
	}
	msg := "needs " + strings.Join(missing, ", ")
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// testConfig is a link between two namespaces of this test's own, addressed
// from 198.18.0.0/15.
func testConfig(t *testing.T, loss float64, delay time.Duration) config {
	var r [3]byte
	if _, err := rand.Read(r[:]); err != nil {
		t.Fatal(err)
	}
	id := hex.EncodeToString(r[:])
	return config{
		A:    End{Netns: "lossyrelay-test-a-" + id, Device: "lra", Addr: netip.MustParsePrefix("198.18.77.2/24")},
		B:    End{Netns: "lossyrelay-test-b-" + id, Device: "lrb", Addr: netip.MustParsePrefix("198.18.77.1/24")},
		AtoB: Direction{Loss: loss, Delay: delay, Rate: 1e9, Seed: 1},
		BtoA: Direction{Rate: 1e9, Seed: 2},
	}
}

// udpIn opens a UDP socket inside namespace ns (it stays there).
func udpIn(t *testing.T, ns string, laddr *net.UDPAddr) *net.UDPConn {
	t.Helper()
	var c *net.UDPConn
	err := tap.InNetns(ns, func() error {
		var err error
		c, err = net.ListenUDP("udp4", laddr)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestLinkBetweenNamespaces sends 1472-byte datagrams (1514-byte frames) from
// A to B through the relay: with no loss all arrive, each no earlier than the
// one-way delay after it was sent; with loss 1 (every full frame lost) none
// does, and the relay counts each as dropped. The test waits on the relay's
// counters, not on time; the deadline only bounds a broken run.
func TestLinkBetweenNamespaces(t *testing.T) {
	needRoot(t)
	const n = 20
	tests := []struct {
		name    string
		loss    float64
		delay   time.Duration
		arrives bool
	}{
		{"no loss, 20 ms", 0, 20 * time.Millisecond, true},
		{"every full frame lost", 1, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(t, tc.loss, tc.delay)
			seen := make(chan struct{})
			var once sync.Once
			l, err := Start(cfg, func(c Counters) {
				// n datagrams and the ARP request before them have been decided.
				if c.Passed+c.Dropped >= n+1 && (tc.arrives || c.Dropped >= n) {
					once.Do(func() { close(seen) })
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				if err := l.Stop(); err != nil {
					t.Error(err)
				}
				for _, ns := range []string{cfg.A.Netns, cfg.B.Netns} {
					if _, err := os.Stat("/run/netns/" + ns); !errors.Is(err, os.ErrNotExist) {
						t.Errorf("namespace %s left behind: %v", ns, err)
					}
				}
			}()
			rx := udpIn(t, cfg.B.Netns, &net.UDPAddr{IP: cfg.B.Addr.Addr().AsSlice(), Port: 5301})
			tx := udpIn(t, cfg.A.Netns, &net.UDPAddr{IP: cfg.A.Addr.Addr().AsSlice()})
			var mu sync.Mutex
			sent := make([]time.Time, n) // monotonic send times, by the datagram's first byte
			got := make(chan time.Duration, n)
			go func() {
				buf := make([]byte, 2048)
				for {
					k, err := rx.Read(buf)
					if err != nil {
						return
					}
					if k == 1472 && int(buf[0]) < n {
						mu.Lock()
						got <- time.Since(sent[buf[0]])
						mu.Unlock()
					}
				}
			}()
			payload := make([]byte, 1472)
			for i := range n {
				payload[0] = byte(i)
				mu.Lock()
				sent[i] = time.Now()
				mu.Unlock()
				if _, err := tx.WriteToUDP(payload, rx.LocalAddr().(*net.UDPAddr)); err != nil {
					t.Fatal(err)
				}
			}
			deadline := time.After(30 * time.Second)
			select {
			case <-seen:
			case <-deadline:
				t.Fatalf("the relay decided only %+v of %d frames", l.ab.Counters(), n+1)
			}
			if !tc.arrives {
				if c := l.ab.Counters(); c.Dropped < n {
					t.Errorf("dropped %d, want all %d datagrams", c.Dropped, n)
				}
				select {
				case d := <-got:
					t.Errorf("a datagram arrived (after %v) through a link that loses every full frame", d)
				default:
				}
				return
			}
			for i := range n {
				select {
				case d := <-got:
					if d < tc.delay {
						t.Errorf("datagram %d arrived after %v, before the %v delay", i, d, tc.delay)
					}
				case <-deadline:
					t.Fatalf("%d of %d datagrams arrived", i, n)
				}
			}
		})
	}
}
