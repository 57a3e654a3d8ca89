package link

import (
	"bytes"
	"testing"
)

func TestNewFrame(t *testing.T) {
	for _, c := range []struct {
		n      int
		pooled bool
	}{{60, true}, {1514, true}, {FrameBufSize, true}, {FrameBufSize + 1, false}, {9018, false}} {
		src := make([]byte, c.n)
		for i := range src {
			src[i] = byte(i * 7)
		}
		b := NewFrame(src)
		if !bytes.Equal(b, src) || (cap(b) == FrameBufSize) != c.pooled {
			t.Errorf("NewFrame(%d bytes): len %d cap %d equal %v, want pooled %v", c.n, len(b), cap(b), bytes.Equal(b, src), c.pooled)
		}
		src[0]++ // a copy: the source's owner may reuse its buffer
		if b[0] == src[0] {
			t.Errorf("NewFrame(%d bytes) shares the source", c.n)
		}
		ReleaseFrame(b)
	}
}
