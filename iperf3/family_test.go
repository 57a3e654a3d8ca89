package iperf3

import (
	"bytes"
	"context"
	"errors"
	"net"
	"strings"
	"testing"
)

// TestFamilyOptions: -4 and -6 set the family for both roles (the last one
// given wins, as in 3.12's getopt loop); the client refuses an address of the
// other family before dialling, with 3.12's words and exit status, and the
// server asks its listener for tcp4, tcp6 or (by default) tcp.
func TestFamilyOptions(t *testing.T) {
	for _, tc := range []struct {
		args    string
		refused bool   // the client fails before dialling
		network string // what the server's Listen is asked for
	}{
		{"-c 2001:2::1", false, ""},
		{"-c 198.18.0.1", false, ""},
		{"-6 -c 2001:2::1", false, ""},
		{"-4 -c 198.18.0.1", false, ""},
		{"-4 -c 2001:2::1", true, ""},
		{"-6 -c 198.18.0.1", true, ""},
		{"-6 -4 -c 2001:2::1", true, ""},
		{"-4 -c ::ffff:198.18.0.1", false, ""}, // glibc takes a mapped address as IPv4
		{"-6 -c ::ffff:198.18.0.1", false, ""},
		{"-s", false, "tcp"},
		{"-s -4", false, "tcp4"},
		{"-s -6", false, "tcp6"},
	} {
		t.Run(tc.args, func(t *testing.T) {
			dialed := false
			var network string
			var errOut bytes.Buffer
			env := Env{Stderr: &errOut,
				Dial: func(context.Context, string) (net.Conn, error) {
					dialed = true
					return nil, errors.New("no route to host")
				},
				Listen: func(ctx context.Context, _ int) (net.Listener, error) {
					network = Network(ctx)
					return nil, errors.New("no listener here")
				}}
			code := Main(context.Background(), strings.Fields(tc.args), env)
			if code != 1 {
				t.Fatalf("exit %d", code)
			}
			if network != tc.network {
				t.Fatalf("Listen asked for %q, want %q", network, tc.network)
			}
			if tc.network != "" {
				return
			}
			want := "iperf3: error - unable to connect to server: no route to host\n"
			if tc.refused {
				want = "iperf3: error - unable to connect to server: Address family for hostname not supported\n"
			}
			if dialed == tc.refused || errOut.String() != want {
				t.Fatalf("dialed %v, stderr %q; want %q", dialed, errOut.String(), want)
			}
		})
	}
}
