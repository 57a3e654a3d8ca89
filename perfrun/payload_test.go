package perfrun

import (
	"os"
	"path/filepath"
	"testing"
)

// TestPayloadChoosesTheWiresLoss: the payload options pick the bytes that
// cross the pre-fix wire, and its loss follows those bytes. The wire model's
// prediction for the frames' own bits is set beside its prediction for
// random bits of the same length: iperf3's random buffer sits on it, a file
// of zeros (few line transitions) far under it, and the receiver's loss
// agrees with the own-bits prediction each time (3 binomial sigma).
func TestPayloadChoosesTheWiresLoss(t *testing.T) {
	if testing.Short() {
		t.Skip("three emulated UDP tests; skipped with -short")
	}
	zeros := filepath.Join(t.TempDir(), "zeros.bin")
	if err := os.WriteFile(zeros, make([]byte, 64<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		args     string
		min, max float64 // the own-bits prediction over the random-bits one
	}{
		{"random (default)", "", 0.95, 1.05},
		{"--repeating-payload", "--repeating-payload", 0.5, 0.95},
		{"-F zeros", "-F " + zeros, 0, 0.2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, run := udpRun(t, "pre-fix", "-c 198.18.0.1 -u -b 500M -l 1472 -t 1 "+tc.args)
			w := run.BoardToPC
			if w.RandomPayload <= 0 {
				t.Fatalf("no random-payload prediction: %+v", w)
			}
			if r := w.Predicted / w.RandomPayload; r < tc.min || r > tc.max {
				t.Errorf("predicted loss %.4f %% for these bytes, %.4f %% for random ones (ratio %.3f), want %.2f..%.2f",
					100*w.Predicted, 100*w.RandomPayload, r, tc.min, tc.max)
			}
			checkWireLoss(t, tc.name, res, w, hostDrops(run))
		})
	}
}
