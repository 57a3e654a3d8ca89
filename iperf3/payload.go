package iperf3

import (
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"os"
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

// diskFile is one stream's -F file, opened as 3.12's iperf_new_stream opens
// it on either end: a sending stream reads it from its start (so every
// stream of -P sends the file's first bytes), a receiving stream truncates it
// and writes what it receives (3.12 ignores write errors, and so does this).
// A TCP sender sends the short last block as it is (3.12's pending_size), a
// UDP datagram keeps its size with the rest of the buffer as it was; the
// first sender at end of file ends the test for all (3.12's test->done).
//
// A receiver writes each read before it counts it, and close cuts the file
// back to the stream's count (the omit period's bytes too): a read the final
// count missed (the test ended between the two, or the drain after it) is
// not kept, so the file holds what was reported received, as 3.12's single
// loop leaves it.
type diskFile struct {
	f      *os.File
	name   string
	sender bool
}

func openDiskFile(name string, sender bool) (*diskFile, error) {
	var f *os.File
	var err error
	if sender {
		f, err = os.Open(name)
	} else {
		f, err = os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	}
	if err != nil {
		return nil, fail(CodeFile, unwrapPathError(err))
	}
	return &diskFile{f: f, name: name, sender: sender}, nil
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

// fill reads the file's next bytes into b and returns how many: fewer than
// len(b) only at the end of the file, 0 after it.
func (d *diskFile) fill(b []byte) int {
	n, _ := io.ReadFull(d.f, b)
	return n
}

// write appends received bytes; like 3.12, a failed write is not an error.
func (d *diskFile) write(b []byte) { _, _ = d.f.Write(b) }

// summarySize is the file's size for a stream's summary (3.12's fstat): a
// sender's file as it is, a receiver's the bytes it counted, which close
// leaves in it.
func (d *diskFile) summarySize(counted uint64) (int64, bool) {
	if !d.sender {
		return int64(counted), true
	}
	st, err := d.f.Stat()
	if err != nil {
		return 0, false
	}
	return st.Size(), true
}

// close closes the file, a receiver's cut back to the counted bytes.
func (d *diskFile) close(counted uint64) {
	if !d.sender {
		_ = d.f.Truncate(int64(counted))
	}
	_ = d.f.Close()
}

// addFileStream is addStream for a stream that also gets the test's -F
// file: opened first, so a file that cannot be opened fails the test before
// the stream is reported, as 3.12's iperf_new_stream does.
func (s *session) addFileStream(conn net.Conn, sender bool) (*stream, error) {
	var f *diskFile
	if s.fileName != "" {
		var err error
		if f, err = openDiskFile(s.fileName, sender); err != nil {
			return nil, err
		}
	}
	st := s.addStream(conn, sender)
	st.file = f
	return st, nil
}

// closeFiles closes every stream's -F file, once its activity has ended.
func (s *session) closeFiles() {
	for _, st := range s.streams {
		if st.file != nil {
			st.file.close(st.allBytes())
		}
	}
}

// diskFileLine prints the -F line after a stream's sender summary.
func (s *session) diskFileLine(st *stream, sender bool, sent, received uint64) {
	if st.file == nil {
		return
	}
	size, ok := st.file.summarySize(st.allBytes())
	if !ok {
		return
	}
	bytes := received
	if sender {
		bytes = sent
	}
	s.out.printf("        Sent %s / %s (%d%%) of %s\n", formatBytes(float64(bytes)), formatBytes(float64(size)), percentOf(bytes, size), st.file.name)
}

// percentOf is bytes as a share of the file, truncated as 3.12's (int)
// cast; an empty file counts as all sent.
func percentOf(bytes uint64, size int64) int {
	if size <= 0 {
		return 100
	}
	return int(float64(bytes) / float64(size) * 100)
}

// diskFileJSON is a stream's "diskfile" object; nil without -F.
func (s *session) diskFileJSON(st *stream, sent, received uint64) *EndDiskFile {
	if st.file == nil {
		return nil
	}
	size, ok := st.file.summarySize(st.allBytes())
	if !ok {
		return nil
	}
	return &EndDiskFile{Sent: sent, Received: received, Size: size, PercentSent: percentOf(sent, size),
		PercentReceived: percentOf(received, size), Filename: st.file.name}
}
