package main

import (
	"testing"

	"mesonemu/linktest"
)

// TestSigmaNote: the prediction note gives a sigma only where the wire is
// expected to lose something; where it expects no frame at all it says so.
func TestSigmaNote(t *testing.T) {
	for _, c := range []struct {
		d    linktest.DirResult
		want string
	}{
		{linktest.DirResult{PredictedLoss: 0}, "exact"},
		{linktest.DirResult{Sent: 200000, PredictedLoss: 0.003761, Sigmas: -1.7}, "measured is -1.7 binomial sigma from it"},
		{linktest.DirResult{Sent: 100000, PredictedLoss: 1.68e-85, Sigmas: 2.9e43}, "it expects 1.7e-80 bad-FCS frames of 100000; none came"},
		{linktest.DirResult{Sent: 1000, PredictedLoss: 1e-9, CRCErrors: 2}, "it expects 1e-06 bad-FCS frames of 1000; 2 came"},
	} {
		if got := sigmaNote(&c.d); got != c.want {
			t.Errorf("%+v: %q, want %q", c.d, got, c.want)
		}
	}
}
