package tap

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"mesonemu/emu"
	"mesonemu/sim"
)

// hogEnv, set to a count (MESONEMU_TEST_HOG=2), runs every TAP and wire test
// beside that many `yes` processes: the host under load the real-time modes
// must keep time on.
const hogEnv = "MESONEMU_TEST_HOG"

// hogLimit bounds a hog in time even if the test never ends it.
const hogLimit = 5 * time.Minute

// maxHogs bounds the count asked for.
const maxHogs = 4

// hogFromEnv starts the hog MESONEMU_TEST_HOG asks for (none when unset).
func hogFromEnv(t testing.TB) {
	v := os.Getenv(hogEnv)
	if v == "" {
		return
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > maxHogs {
		t.Fatalf("%s=%q: want a count of 0 to %d", hogEnv, v, maxHogs)
	}
	hog(t, n)
}

// hog runs n `yes` processes (output discarded) for the rest of the test, each
// bounded by hogLimit, and kills them, by their own ids, when it ends.
func hog(t testing.TB, n int) {
	t.Helper()
	if _, err := exec.LookPath("yes"); err != nil {
		t.Fatalf("a CPU hog needs yes in PATH: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), hogLimit)
	var cmds []*exec.Cmd
	for range n {
		c := exec.CommandContext(ctx, "yes") // Stdout nil: /dev/null
		if err := c.Start(); err != nil {
			cancel()
			t.Fatalf("start yes: %v", err)
		}
		cmds = append(cmds, c)
	}
	t.Cleanup(func() {
		cancel() // kills each by its pid
		for _, c := range cmds {
			_ = c.Wait()
		}
	})
}

// laggedSkip turns a failed check into a skip when the host truly could not
// keep up: when the engine's lag passed the model's smallest interval (the
// run's lag warning); otherwise it reports the failure.
func laggedSkip(t testing.TB, p emu.PacingReport, d sim.Description, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if warn := lagWarning(p, d); warn != "" {
		t.Skipf("%s; the host could not keep up (events behind the wall clock: p99 %v, max %v, beyond the model's %v)",
			msg, time.Duration(p.Behind.P99Ns), time.Duration(p.Behind.MaxNs), smallestInterval(d))
	}
	t.Error(msg)
}
