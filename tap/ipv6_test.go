package tap

import (
	"context"
	"strings"
	"testing"
	"time"
)

// The test link's IPv6 addresses, from RFC 5180's range, in the test's
// namespace only.
const (
	hostIP6  = "2001:2:0:1::1"
	boardIP6 = "2001:2:0:1::2"
)

// interop6NS is interopNS with IPv6 on the host side of the TAP: the address
// without duplicate address detection (usable at once) and no link-local
// address, so the host's neighbour solicitations come from its one address.
func interop6NS(t *testing.T) (*netns, context.Context) {
	ns := newNetns(t)
	ns.ip("tuntap", "add", "dev", tapName, "mode", "tap")
	for _, kv := range []string{"disable_ipv6=0", "addr_gen_mode=1", "accept_ra=0"} {
		run(t, "ip", "netns", "exec", ns.name, "sysctl", "-q", "-w", "net.ipv6.conf."+tapName+"."+kv)
	}
	ns.ip("addr", "add", hostIP+"/24", "dev", tapName)
	ns.ip("-6", "addr", "add", hostIP6+"/64", "dev", tapName, "nodad")
	ns.ip("link", "set", tapName, "up")
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	t.Cleanup(cancel)
	return ns, ctx
}

var interop6Cases = []interopCase{
	{"tcp", nil, []string{"sum_received"}, false, 128 * 1024},
	{"udp -b 300M", []string{"-u", "-b", "300M", "-l", "1400"}, []string{"sum_received"}, true, 0},
}

// checkIPv6Connected: both ends' JSON name the IPv6 addresses.
func checkIPv6Connected(t *testing.T, who string, d jsonDoc, local, remote string) {
	t.Helper()
	start, _ := d["start"].(map[string]any)
	conns, _ := start["connected"].([]any)
	if len(conns) == 0 {
		t.Fatalf("%s: no connected streams", who)
	}
	c, _ := conns[0].(map[string]any)
	if c["local_host"] != local || c["remote_host"] != remote {
		t.Fatalf("%s: connected %v, want %s to %s", who, c, local, remote)
	}
}

// TestInteropIPv6HostClientBoardServer: Debian's iperf3 -6 -c against the
// board's iperf3 -s -6 -1 -J, TCP and UDP. The host finds the board with a
// neighbour solicitation to the board's solicited-node group, which crosses
// the bridge, the wire and the stmmac MAC's hash filter.
func TestInteropIPv6HostClientBoardServer(t *testing.T) {
	need(t, "iperf3", "ss")
	for _, tc := range interop6Cases {
		t.Run(tc.name, func(t *testing.T) {
			ns, ctx := interop6NS(t)
			client, server, r := hostClientBoardServerWith(t, ns, ctx, "", []string{"-s", "-6", "-1", "-J"},
				append([]string{"-6", "-c", boardIP6}, tc.argsWith("")...))
			checkAgree(t, tc, client, server)
			checkIPv6Connected(t, "client", client, hostIP6, boardIP6)
			checkIPv6Connected(t, "board server", server, boardIP6, hostIP6)
			if !strings.Contains(r.stderr.String(), "at "+boardIP+"/24 and "+boardIP6+"/64") {
				t.Errorf("board status line: %s", r.stderr.String())
			}
		})
	}
}

// TestInteropIPv6BoardClientHostServer: the board's iperf3 -c with an IPv6
// address against Debian's iperf3 -s -1 -J bound to the host's IPv6 address,
// TCP (the UDP case adds nothing the other direction does not show).
func TestInteropIPv6BoardClientHostServer(t *testing.T) {
	need(t, "iperf3", "ss")
	for _, tc := range interop6Cases[:1] {
		t.Run(tc.name, func(t *testing.T) {
			ns, ctx := interop6NS(t)
			client, server := boardClientHostServerAt(t, ns, ctx, "", hostIP6, tc.argsWith(""))
			checkAgree(t, tc, client, server)
			checkIPv6Connected(t, "board client", client, boardIP6, hostIP6)
			checkIPv6Connected(t, "Debian server", server, hostIP6, boardIP6)
		})
	}
}
