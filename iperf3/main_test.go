package iperf3

import (
	"bytes"
	"context"
	"net"
	"strings"
	"testing"
)

// TestMainCommandLines runs whole command lines: both roles over loopback, a parameter
// error and a connection error, with iperf3's exit codes and messages.
func TestMainCommandLines(t *testing.T) {
	ln, port := loopbackPort(t)
	env := func(stdout, stderr *bytes.Buffer) Env {
		e := HostEnv()
		e.Stdout, e.Stderr = stdout, stderr
		e.Listen = func(context.Context, int) (net.Listener, error) { return ln, nil }
		return e
	}
	var srvOut, srvErr bytes.Buffer
	served := make(chan int, 1)
	go func() {
		served <- Main(context.Background(), []string{"-s", "-1", "-p", itoa(port)}, env(&srvOut, &srvErr))
	}()

	var out, errOut bytes.Buffer
	if code := Main(context.Background(), []string{"-c", "127.0.0.1", "-p", itoa(port), "-n", "1M"}, env(&out, &errOut)); code != 0 {
		t.Fatalf("client exit %d: %s", code, errOut.String())
	}
	if code := <-served; code != 0 || srvErr.Len() != 0 {
		t.Fatalf("server exit %d: %s", code, srvErr.String())
	}
	if !strings.HasSuffix(out.String(), "\niperf Done.\n") || !strings.HasPrefix(srvOut.String(), "-----------------------------------------------------------\nServer listening on "+itoa(port)+" (test #1)\n") {
		t.Errorf("client:\n%s\nserver:\n%s", out.String(), srvOut.String())
	}

	tests := []struct {
		args   string
		stderr string
	}{
		{"-c 127.0.0.1 -x", "iperf3: parameter error - unknown option(s): -x\n\n"},
		// 3.12's iperf_err stamps a parameter error once --timestamps is set.
		{"--timestamps=T> -c 127.0.0.1 -u -l 8", "T>iperf3: parameter error - block size invalid (minimum = 16 bytes, maximum = 65507 bytes)\n\n"},
		{"-c 127.0.0.1 -p " + itoa(port) + " -n 1", "iperf3: error - unable to connect to server: dial 127.0.0.1:" + itoa(port) + ": "},
	}
	for _, tc := range tests {
		out.Reset()
		errOut.Reset()
		if code := Main(context.Background(), strings.Fields(tc.args), env(&out, &errOut)); code != 1 || !strings.HasPrefix(errOut.String(), tc.stderr) {
			t.Errorf("%s: exit %d, stderr %q, want prefix %q", tc.args, code, errOut.String(), tc.stderr)
		}
	}
}
