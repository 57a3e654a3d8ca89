package tap

import (
	"context"
	"testing"
	"time"
)

// TestCancelMidTest: ctx ends (Ctrl-C in the command line) while the board's
// client is sending; Run stops the machine, closes the TAP and returns the
// final counters, with every frame accounted for, and the persistent TAP is
// left as it was.
func TestCancelMidTest(t *testing.T) {
	need(t, "iperf3", "ss")
	ns := newNetns(t)
	ns.addPersistentTAP(tapName)
	srvCtx, srvCancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer srvCancel()
	srv := ns.exec(srvCtx, 15*time.Second, "iperf3", "-s", "-1", "-B", hostIP)
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { srvCancel(); _ = srv.Wait() }()
	ns.waitListening(srvCtx, 5201)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// 1.5 s after the board is on the link (the paced boot takes real time).
	r := runBoard(ctx, ns, fixedBoard, "", []string{"-c", hostIP, "-t", "30"}, func() {
		time.Sleep(1500 * time.Millisecond)
		cancel()
	})
	if r.err != nil || r.c == nil {
		t.Fatalf("Run after cancel: %v, counters %v", r.err, r.c)
	}
	t.Logf("exit %d; counters %+v; stderr %s", r.code, *r.c, r.stderr.String())
	checkConservation(t, r.c)
	checkClock(t, r)
	if r.c.WrittenToHost < 1000 {
		t.Errorf("only %d frames reached the host in 1.5 s", r.c.WrittenToHost)
	}
	if !ns.exists(tapName) {
		t.Error("persistent TAP gone after cancel")
	}
}
