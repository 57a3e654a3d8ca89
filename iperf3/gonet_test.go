package iperf3

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"testing"
	"time"

	"gvisor.dev/gvisor/pkg/tcpip"
	"gvisor.dev/gvisor/pkg/tcpip/adapters/gonet"
	"gvisor.dev/gvisor/pkg/tcpip/faketime"
	"gvisor.dev/gvisor/pkg/tcpip/header"
	"gvisor.dev/gvisor/pkg/tcpip/link/loopback"
	"gvisor.dev/gvisor/pkg/tcpip/network/ipv4"
	"gvisor.dev/gvisor/pkg/tcpip/stack"
	"gvisor.dev/gvisor/pkg/tcpip/transport/tcp"

	"mesonemu/socket"
)

// gvisorLoopback is an in-process gVisor stack with 127.0.0.1 on a loopback
// NIC: the transport the emulator uses, without the emulated hardware. clock
// nil is gVisor's default (the host's).
func gvisorLoopback(t *testing.T, clock tcpip.Clock) (*stack.Stack, tcpip.Address) {
	t.Helper()
	s := stack.New(stack.Options{
		NetworkProtocols:   []stack.NetworkProtocolFactory{ipv4.NewProtocol},
		TransportProtocols: []stack.TransportProtocolFactory{tcp.NewProtocol},
		Clock:              clock,
	})
	t.Cleanup(func() { s.Close(); s.Wait() })
	if err := s.CreateNIC(1, loopback.New()); err != nil {
		t.Fatalf("CreateNIC: %v", err)
	}
	addr := tcpip.AddrFrom4([4]byte{127, 0, 0, 1})
	if err := s.AddProtocolAddress(1, tcpip.ProtocolAddress{Protocol: ipv4.ProtocolNumber, AddressWithPrefix: addr.WithPrefix()},
		stack.AddressProperties{}); err != nil {
		t.Fatalf("AddProtocolAddress: %v", err)
	}
	s.SetRouteTable([]tcpip.Route{{Destination: header.IPv4EmptySubnet, NIC: 1}})
	return s, addr
}

// gonetDial dials through the gVisor stack, binding socket.LocalPort(ctx) if set.
func gonetDial(s *stack.Stack) socket.DialFunc {
	return func(ctx context.Context, addr string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		ip := net.ParseIP(host).To4()
		p, err := strconv.Atoi(port)
		if ip == nil || err != nil {
			return nil, fmt.Errorf("address %q", addr)
		}
		remote := tcpip.FullAddress{NIC: 1, Addr: tcpip.AddrFrom4([4]byte(ip)), Port: uint16(p)}
		var local tcpip.FullAddress
		if lp, ok := socket.LocalPort(ctx); ok {
			local = tcpip.FullAddress{NIC: 1, Port: uint16(lp)}
		}
		return gonet.DialTCPWithBind(ctx, s, local, remote, ipv4.ProtocolNumber)
	}
}

// TestOverGVisor runs client and server over gVisor's gonet connections.
func TestOverGVisor(t *testing.T) {
	tests := []struct {
		name    string
		opts    ClientOptions
		streams int
	}{
		{"forward", ClientOptions{Bytes: 8 << 20, Parallel: 2, ClientPort: 40000}, 2},
		{"reverse", ClientOptions{Bytes: 8 << 20, Reverse: true}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, addr := gvisorLoopback(t, nil)
			ln, err := gonet.ListenTCP(s, tcpip.FullAddress{NIC: 1, Addr: addr, Port: DefaultPort}, ipv4.ProtocolNumber)
			if err != nil {
				t.Fatal(err)
			}
			clock := s.Clock()
			done := make(chan error, 1)
			var server *Result
			go func() {
				var err error
				server, err = ServeOne(context.Background(), ln, ServerOptions{Clock: clock, IdleTimeout: 10 * time.Second})
				done <- err
			}()
			o := tc.opts
			o.Host, o.Dial, o.Clock, o.IdleTimeout = "127.0.0.1", gonetDial(s), clock, 10*time.Second
			client, err := Run(context.Background(), o)
			if err != nil {
				t.Fatalf("client: %v", err)
			}
			if err := <-done; err != nil {
				t.Fatalf("server: %v", err)
			}
			if len(client.End.Streams) != tc.streams || client.End.SumSent.Bytes != 8<<20 {
				t.Fatalf("client end: %d streams, %d bytes sent", len(client.End.Streams), client.End.SumSent.Bytes)
			}
			if o.Reverse && (server.End.SumSent.Bytes != 8<<20 || client.End.SumReceived.Bytes != 8<<20) {
				t.Errorf("server sent %d, client received %d", server.End.SumSent.Bytes, client.End.SumReceived.Bytes)
			}
			if !o.Reverse && sumPeer(server.Peer) != 8<<20 {
				t.Errorf("server heard %d bytes sent", sumPeer(server.Peer))
			}
			for i, c := range client.Start.Connected {
				if o.ClientPort > 0 && c.LocalPort != o.ClientPort+i {
					t.Errorf("stream %d bound port %d, --cport %d", i, c.LocalPort, o.ClientPort)
				}
				if c.RemotePort != DefaultPort || c.RemoteHost != "127.0.0.1" {
					t.Errorf("stream %d connected to %s:%d", i, c.RemoteHost, c.RemotePort)
				}
			}
		})
	}
}

// TestVirtualTime runs a -t 2 test over gVisor with a manual clock that the
// test advances 2 ms per wall millisecond. Every protocol time must come
// from that clock: the test ends after 2 virtual seconds with reports at 1
// and 2 s, although far less wall time passes.
func TestVirtualTime(t *testing.T) {
	clk := faketime.NewManualClock()
	s, addr := gvisorLoopback(t, clk)
	ln, err := gonet.ListenTCP(s, tcpip.FullAddress{NIC: 1, Addr: addr, Port: DefaultPort}, ipv4.ProtocolNumber)
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
				clk.Advance(2 * time.Millisecond)
				time.Sleep(time.Millisecond)
			}
		}
	}()
	done := make(chan error, 1)
	go func() {
		_, err := ServeOne(context.Background(), ln, ServerOptions{Clock: clk})
		done <- err
	}()
	res, err := Run(context.Background(), ClientOptions{Host: "127.0.0.1", Seconds: 2, Dial: gonetDial(s), Clock: clk})
	if err != nil {
		t.Fatalf("client: %v", err)
	}
	if err := <-done; err != nil {
		t.Fatalf("server: %v", err)
	}
	var ends []float64
	for _, iv := range res.Intervals {
		ends = append(ends, iv.Sum.End)
	}
	// Upper bounds leave room for a loaded host: the clock keeps running
	// while the loop gets round to a deadline, 0.5 virtual s being 250 ms of
	// wall time at this rate (at 10 ms per ms a 50 ms stall under load once
	// sufficed). Wall time leaking in would show as twice the virtual
	// durations.
	if len(ends) != 2 || ends[0] < 1 || ends[0] >= 1.5 || ends[1] < 2 || ends[1] >= 2.5 {
		t.Errorf("interval ends %v virtual s, want about [1 2]", ends)
	}
	if d := res.End.SumSent.Seconds; d < 2 || d >= 2.5 {
		t.Errorf("measured %.3f virtual s", d)
	}
	if res.Start.Timestamp.TimeSecs != 0 {
		t.Errorf("timestamp %+v is not the manual clock's", res.Start.Timestamp)
	}
}
