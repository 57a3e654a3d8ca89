package iperf3

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"sync"
)

// newPayload is the block a sender repeats. 3.12 fills it from
// /dev/urandom; --repeating-payload writes "0123456789" over and over; with
// -Z a TCP sender's sendfile() sends the never-written temp file its buffer
// maps, so all zeros (observed in a capture; UDP does not use sendfile).
// The random bytes come from the test's seeded generator, so a run repeats.
func newPayload(p testParams, rng *rand.Rand) []byte {
	b := make([]byte, p.Len)
	switch {
	case p.ZeroCopy && !p.UDP:
	case p.Repeating:
		for i := range b {
			b[i] = '0' + byte(i%10)
		}
	default:
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
	}
	return b
}

// diskFile is a client's -F source: every stream's next block is the
// file's next bytes; a TCP sender sends the short last block as it is (3.12's
// pending_size), a UDP datagram keeps its size with the rest of the buffer
// as it was; at end of file the senders stop and the test ends early.
type diskFile struct {
	mu   sync.Mutex
	r    io.Reader
	name string
	sent uint64
	size int64
}

func openDiskFile(name string) (*diskFile, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fail(CodeFile, unwrapPathError(err))
	}
	size := int64(0)
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		size = st.Size()
	}
	return &diskFile{r: f, name: name, size: size}, nil
}

// unwrapPathError is the bare strerror-like cause, capitalised as C's
// strerror is ("No such file or directory").
func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	msg := err.Error()
	if msg != "" && msg[0] >= 'a' && msg[0] <= 'z' {
		msg = string(msg[0]-'a'+'A') + msg[1:]
	}
	return errors.New(msg)
}

// fill reads the next bytes of the file into b and returns how many: fewer
// than len(b) only at the end of the file, 0 after it.
func (d *diskFile) fill(b []byte) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	n, _ := io.ReadFull(d.r, b)
	d.sent += uint64(n)
	return n
}

func (d *diskFile) close() {
	if c, ok := d.r.(io.Closer); ok {
		_ = c.Close()
	}
}

// diskFileLine prints the -F line after a stream's sender summary.
func (s *session) diskFileLine(sender bool, sent, received uint64) {
	if s.file == nil {
		return
	}
	if sender {
		s.out.printf("%s", s.file.summaryLine(sent))
	} else {
		s.out.printf("%s", s.file.summaryLine(received))
	}
}

// summaryLine is 3.12's report_diskfile line.
func (d *diskFile) summaryLine(bytes uint64) string {
	return fmt.Sprintf("        Sent %s / %s (%d%%) of %s\n", formatBytes(float64(bytes)), formatBytes(float64(d.size)), d.percent(bytes), d.name)
}

// percent is bytes as a share of the file, truncated as 3.12's (int) cast;
// an empty file counts as all sent.
func (d *diskFile) percent(bytes uint64) int {
	if d.size <= 0 {
		return 100
	}
	return int(float64(bytes) / float64(d.size) * 100)
}

// diskFileJSON is a stream's "diskfile" object; nil without -F.
func (s *session) diskFileJSON(sent, received uint64) *EndDiskFile {
	d := s.file
	if d == nil {
		return nil
	}
	return &EndDiskFile{Sent: sent, Received: received, Size: d.size, PercentSent: d.percent(sent),
		PercentReceived: d.percent(received), Filename: d.name}
}
