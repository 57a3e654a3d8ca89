package iperf3

import (
	"context"
	"fmt"
	"net"
	"testing"
)

func listenLoopback() (net.Listener, error) { return net.Listen("tcp", "127.0.0.1:0") }

func dialLoopback(port int) (net.Conn, error) {
	return net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
}

// loopbackPort is a loopback listener for a test and its port.
func loopbackPort(t *testing.T) (net.Listener, int) {
	t.Helper()
	ln, err := listenLoopback()
	if err != nil {
		t.Fatal(err)
	}
	_, port := splitAddr(ln.Addr())
	return ln, port
}

// serveOneAsync runs ServeOne on ln in the background; wait returns its
// result.
func serveOneAsync(ln net.Listener, o ServerOptions) (wait func() (*Result, error)) {
	return async(func() (*Result, error) { return ServeOne(context.Background(), ln, o) })
}

// runAsync runs the client in the background; wait returns its result.
func runAsync(o ClientOptions) (wait func() (*Result, error)) {
	return async(func() (*Result, error) { return Run(context.Background(), o) })
}

func async(f func() (*Result, error)) func() (*Result, error) {
	type result struct {
		res *Result
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := f()
		done <- result{res, err}
	}()
	return func() (*Result, error) {
		r := <-done
		return r.res, r.err
	}
}

// acceptClient takes our client's control connection on ln, closed when
// the test ends, and reads its cookie.
func acceptClient(t *testing.T, ln net.Listener) (fakePeer, []byte) {
	t.Helper()
	c, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	cookie := make([]byte, CookieSize)
	if _, err := c.Read(cookie); err != nil {
		t.Fatal(err)
	}
	return fakePeer{t, c}, cookie
}
