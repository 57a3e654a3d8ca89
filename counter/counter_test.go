package counter

import "testing"

type inner struct {
	Hits uint32
	Name string
}

type sample struct {
	Frames, Bytes uint64
	Small         uint8
	Per           [2]uint16
	In            inner
	Signed        int64 // not a counter: kept as now
	hidden        uint64
}

func TestSub(t *testing.T) {
	now := sample{Frames: 10, Bytes: 15000, Small: 3, Per: [2]uint16{7, 9}, In: inner{Hits: 5, Name: "now"}, Signed: -4, hidden: 8}
	base := sample{Frames: 4, Bytes: 6000, Small: 1, Per: [2]uint16{2, 9}, In: inner{Hits: 1, Name: "base"}, Signed: 3, hidden: 2}
	want := sample{Frames: 6, Bytes: 9000, Small: 2, Per: [2]uint16{5, 0}, In: inner{Hits: 4, Name: "now"}, Signed: -4, hidden: 8}
	if got := Sub(now, base); got != want {
		t.Errorf("Sub = %+v, want %+v", got, want)
	}
	// A counter that went down (reset) wraps, as the counter's own type does.
	if got := Sub(sample{Frames: 1}, sample{Frames: 2}); got.Frames != ^uint64(0) {
		t.Errorf("reset counter: %d, want the wrapped %d", got.Frames, ^uint64(0))
	}
	if got := Sub(uint64(7), uint64(3)); got != 7 {
		t.Errorf("a non-struct is returned as it was: got %d", got)
	}
}
