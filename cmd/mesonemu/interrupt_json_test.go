package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"syscall"
	"testing"
)

// TestStoppedJSONIsOneObject: compare and scan --tcp stopped by a signal
// before any iperf3 test finished still print one JSON object, saying
// interrupted, and exit 128 + the signal. The signal's cancellation is in
// place before the run starts, so nothing depends on when it comes.
func TestStoppedJSONIsOneObject(t *testing.T) {
	cases := []struct {
		args []string
		sig  syscall.Signal
		list string // the object's list of results ("": none yet, scan stopped in its frame tests)
	}{
		{[]string{"compare", "--json", "--time", "1s", "--jobs", "1"}, syscall.SIGINT, "rows"},
		{[]string{"compare", "--json", "--time", "1s", "--jobs", "1"}, syscall.SIGTERM, "rows"},
		{[]string{"scan", "--tcp", "--json", "--time", "1s", "--jobs", "1"}, syscall.SIGTERM, ""},
	}
	for _, c := range cases {
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(signalError{c.sig})
		var out, errb bytes.Buffer
		code := run(ctx, c.args, &out, &errb)
		if want := exitStatus(c.sig); code != want {
			t.Errorf("%v after %v: exit %d, want %d; stderr %q", c.args, c.sig, code, want, errb.String())
		}
		var doc map[string]any
		dec := json.NewDecoder(&out)
		if err := dec.Decode(&doc); err != nil {
			t.Errorf("%v after %v: stdout is not a JSON object: %v\n%s", c.args, c.sig, err, out.String())
			continue
		}
		if dec.More() {
			t.Errorf("%v after %v: more than one JSON value on stdout", c.args, c.sig)
		}
		if doc["interrupted"] != true {
			t.Errorf("%v after %v: interrupted = %v, want true", c.args, c.sig, doc["interrupted"])
		}
		if _, ok := doc[c.list].([]any); c.list != "" && !ok {
			t.Errorf("%v after %v: %q = %v, want a list", c.args, c.sig, c.list, doc[c.list])
		}
		if !strings.Contains(errb.String(), "stopped by "+signalName(c.sig)) {
			t.Errorf("%v after %v: stderr %q lacks the signal", c.args, c.sig, errb.String())
		}
	}
}
