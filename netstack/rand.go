package netstack

import (
	"math/rand"
	"sync"
)

// lockedSource is a seeded, goroutine-safe math/rand source for a stack, so port
// numbers and initial sequence numbers repeat from run to run.
type lockedSource struct {
	mu  sync.Mutex
	src rand.Source64
}

func newLockedSource(seed int64) *lockedSource {
	return &lockedSource{src: rand.NewSource(seed).(rand.Source64)}
}

func (s *lockedSource) Int63() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.src.Int63()
}

func (s *lockedSource) Uint64() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.src.Uint64()
}

func (s *lockedSource) Seed(seed int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.src.Seed(seed)
}

// seededReader is a deterministic io.Reader for a stack's "secure" random
// numbers: in an emulation the ISN secrets must repeat from run to run too.
type seededReader struct {
	mu  sync.Mutex
	src *rand.Rand
}

func newSeededReader(seed int64) *seededReader {
	return &seededReader{src: rand.New(rand.NewSource(seed))}
}

func (r *seededReader) Read(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.src.Read(p)
}
