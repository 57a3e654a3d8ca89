package iperf3

import (
	"context"
	"errors"
	"net/netip"
)

// Family is iperf3's -4 / -6: the address family its getaddrinfo asks for
// (settings->domain). FamilyAny is 3.12's default, AF_UNSPEC: the client
// takes the address as given, the server listens dual-stack.
type Family int

// Families.
const (
	FamilyAny Family = 0
	Family4   Family = 4
	Family6   Family = 6
)

// errAddrFamily is glibc's gai_strerror(EAI_ADDRFAMILY), what 3.12 appends
// to "unable to connect to server" when -4 meets an IPv6 literal or -6 an
// IPv4 one.
//
//lint:ignore ST1005 glibc's gai_strerror text, printed verbatim as 3.12 does
var errAddrFamily = errors.New("Address family for hostname not supported")

// checkFamily is getaddrinfo's verdict on a numeric host under hints of
// family f. A name that is not an address literal is left to the dialer; so
// is an IPv4-mapped IPv6 literal, which glibc resolves under either family
// (it reaches the IPv4 host both ways).
func checkFamily(host string, f Family) error {
	a, err := netip.ParseAddr(host)
	if err != nil || f == FamilyAny || a.Is4In6() {
		return nil
	}
	if is4 := a.Is4(); (f == Family4) != is4 {
		return errAddrFamily
	}
	return nil
}

// network is Go's name for a TCP socket of family f.
func (f Family) network() string {
	switch f {
	case Family4:
		return "tcp4"
	case Family6:
		return "tcp6"
	}
	return "tcp"
}

type networkKey struct{}

// WithNetwork returns a context telling Env.Listen which socket to open:
// "tcp" (dual-stack where the host has IPv6), "tcp4" or "tcp6" (iperf3 -4,
// -6).
func WithNetwork(ctx context.Context, network string) context.Context {
	return context.WithValue(ctx, networkKey{}, network)
}

// Network is the listening network asked for in ctx; "tcp" if none.
func Network(ctx context.Context) string {
	if n, ok := ctx.Value(networkKey{}).(string); ok {
		return n
	}
	return "tcp"
}

// UsesIPv6 reports whether a command line needs IPv6 on the emulated hosts:
// -6, or a client's IPv6 address (an IPv4-mapped one is IPv4).
func (c Config) UsesIPv6() bool {
	if c.Mode == ModeClient {
		a, err := netip.ParseAddr(c.Client.Host)
		return c.Client.Family == Family6 || (err == nil && !a.Unmap().Is4())
	}
	return c.Server.Family == Family6
}
