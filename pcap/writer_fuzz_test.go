package pcap

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"testing"
)

// FuzzWriter writes arbitrary frames (empty, odd lengths, longer than the snap
// length), timestamps (negative, huge), flags and interface name / comment strings
// (empty, not UTF-8, longer than a pcapng option can hold), then reads the file
// back block by block with parsePcapng, an independent reader of the three block
// types the writer emits. Every file must parse completely and give back what was
// written. A writer whose sink fails after failAfter bytes must report an error,
// not panic, and keep reporting it.
//
// data is a list of frames: a 2-byte little-endian length (taken modulo 2048) and
// that many bytes; bigExtra adds one frame of MaxFrame+bigExtra bytes.
func FuzzWriter(f *testing.F) {
	f.Add("odroid-c1 rgmii", "mesonemu", []byte{60, 0}, int64(12304), int64(12304), uint32(FlagOutbound), uint16(0), -1)
	f.Add("", "", []byte{}, int64(0), int64(0), uint32(0), uint16(0), -1)
	f.Add("\xff\xfe", "x", []byte{1, 0, 0xaa, 3, 0, 1, 2, 3}, int64(-1), int64(1<<62), uint32(FlagCRCError|FlagSFDError), uint16(100), -1)
	f.Add("eth", "comment", []byte{0, 8, 0}, int64(1<<63-1), int64(-7), ^uint32(0), uint16(1), 0)
	f.Add("eth", "comment", []byte{64, 0}, int64(0), int64(1), uint32(FlagInbound), uint16(0), 100)
	f.Add("eth", "ab", []byte{}, int64(0), int64(0), uint32(FlagInbound), uint16(0), -1) // a 70000-byte comment
	f.Fuzz(func(t *testing.T, name, comment string, data []byte, ts0, step int64, flags uint32, bigExtra uint16, failAfter int) {
		var frames [][]byte
		for len(data) >= 2 {
			n := int(binary.LittleEndian.Uint16(data)) % 2048
			data = data[2:]
			frames = append(frames, data[:min(n, len(data))])
			data = data[min(n, len(data)):]
		}
		if bigExtra > 0 {
			big := make([]byte, MaxFrame+int(bigExtra))
			for i := range big {
				big[i] = byte(i * 13)
			}
			frames = append(frames, big)
		}
		// Names and comments are bounded by what the command line passes; the
		// fuzzer's strings are short, so a long one is built from them too.
		if len(comment) > 0 && len(comment) < 8 && flags&1 != 0 {
			comment = string(bytes.Repeat([]byte(comment), 70000/len(comment)+1))
		}
		if failAfter >= 0 {
			checkFailingSink(t, name, comment, frames, failAfter%4096)
			return
		}
		var out bytes.Buffer
		w, err := NewWriter(&out, name, comment)
		if err != nil {
			t.Fatalf("NewWriter on a buffer: %v", err)
		}
		var want []epb
		ts := ts0
		for _, fr := range frames {
			if err := w.WriteFrame(ts, fr, flags); err != nil {
				t.Fatalf("WriteFrame: %v", err)
			}
			want = append(want, epb{ts: uint64(ts), data: fr[:min(len(fr), MaxFrame)], origLen: len(fr), flags: flags})
			ts += step
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if w.Frames() != uint64(len(frames)) {
			t.Fatalf("Frames() = %d, wrote %d", w.Frames(), len(frames))
		}
		file, err := parsePcapng(out.Bytes())
		if err != nil {
			t.Fatalf("output does not parse: %v", err)
		}
		if !validOption(file.comment, comment) || !validOption(file.ifName, name) {
			t.Fatalf("comment %d bytes / name %q read back as %d bytes / %q", len(comment), name, len(file.comment), file.ifName)
		}
		if len(file.packets) != len(want) {
			t.Fatalf("%d packets read back, %d written", len(file.packets), len(want))
		}
		for i, p := range file.packets {
			if p.ts != want[i].ts || p.origLen != want[i].origLen || p.flags != want[i].flags || !bytes.Equal(p.data, want[i].data) {
				t.Fatalf("packet %d: ts %d len %d/%d flags %#x, want ts %d len %d/%d flags %#x", i,
					p.ts, len(p.data), p.origLen, p.flags, want[i].ts, len(want[i].data), want[i].origLen, want[i].flags)
			}
		}
	})
}

// validOption: an option value read back is the string written, or, when that
// does not fit an option's 16-bit length, a prefix of it that fits.
func validOption(got []byte, wrote string) bool {
	if len(wrote) <= 0xffff {
		return string(got) == wrote
	}
	return len(got) <= 0xffff && len(got) > 0xffff-4 && bytes.HasPrefix([]byte(wrote), got)
}

// failingSink accepts n bytes, then fails every write.
type failingSink struct{ n int }

var errSinkFull = errors.New("sink full")

func (s *failingSink) Write(p []byte) (int, error) {
	if len(p) <= s.n {
		s.n -= len(p)
		return len(p), nil
	}
	k := s.n
	s.n = 0
	return k, errSinkFull
}

func checkFailingSink(t *testing.T, name, comment string, frames [][]byte, n int) {
	w, err := NewWriter(&failingSink{n: n}, name, comment)
	if err != nil {
		if !errors.Is(err, errSinkFull) {
			t.Fatalf("NewWriter error %v does not wrap the sink's", err)
		}
		return
	}
	failed := false
	for _, fr := range frames {
		err := w.WriteFrame(0, fr, 0)
		if failed && err == nil {
			t.Fatal("WriteFrame succeeded after an earlier failure")
		}
		failed = failed || err != nil
	}
	err = w.Flush()
	if failed && err == nil {
		t.Fatal("Flush succeeded after a failed write")
	}
	// Everything written must reach the sink or be reported: bufio holds up to
	// 64 KiB, so a large enough output must fail by the final Flush.
	if err != nil && !errors.Is(err, errSinkFull) {
		t.Fatalf("error %v does not wrap the sink's", err)
	}
}

// pcapngFile is what parsePcapng reads back.
type pcapngFile struct {
	comment []byte
	ifName  []byte
	packets []epb
}

type epb struct {
	ts      uint64
	data    []byte
	origLen int
	flags   uint32
}

// parsePcapng reads a little-endian pcapng section with one Ethernet interface,
// written independently of the writer from the pcapng draft's block layouts.
func parsePcapng(b []byte) (pcapngFile, error) {
	var file pcapngFile
	for i := 0; len(b) > 0; i++ {
		if len(b) < 12 {
			return file, fmt.Errorf("block %d: %d trailing bytes", i, len(b))
		}
		typ, total := binary.LittleEndian.Uint32(b), binary.LittleEndian.Uint32(b[4:])
		if total < 12 || total%4 != 0 || uint64(total) > uint64(len(b)) {
			return file, fmt.Errorf("block %d (%#x): total length %d of %d bytes", i, typ, total, len(b))
		}
		if tail := binary.LittleEndian.Uint32(b[total-4:]); tail != total {
			return file, fmt.Errorf("block %d: trailing length %d, leading %d", i, tail, total)
		}
		body := b[8 : total-4]
		b = b[total:]
		var err error
		switch {
		case i == 0 && typ == 0x0a0d0d0a:
			err = file.parseSHB(body)
		case i == 1 && typ == 1:
			err = file.parseIDB(body)
		case i >= 2 && typ == 6:
			err = file.parseEPB(body)
		default:
			err = fmt.Errorf("unexpected block type %#x", typ)
		}
		if err != nil {
			return file, fmt.Errorf("block %d: %w", i, err)
		}
	}
	return file, nil
}

func (f *pcapngFile) parseSHB(body []byte) error {
	if len(body) < 16 {
		return errors.New("short section header")
	}
	if binary.LittleEndian.Uint32(body) != 0x1a2b3c4d || binary.LittleEndian.Uint16(body[4:]) != 1 ||
		binary.LittleEndian.Uint16(body[6:]) != 0 || binary.LittleEndian.Uint64(body[8:]) != ^uint64(0) {
		return fmt.Errorf("section header % x", body[:16])
	}
	return parseOptions(body[16:], func(code uint16, v []byte) error {
		if code == 1 {
			f.comment = v
		}
		return nil
	})
}

func (f *pcapngFile) parseIDB(body []byte) error {
	if len(body) < 8 {
		return errors.New("short interface description")
	}
	if binary.LittleEndian.Uint16(body) != 1 || binary.LittleEndian.Uint32(body[4:]) != MaxFrame {
		return fmt.Errorf("link type %d snap length %d", binary.LittleEndian.Uint16(body), binary.LittleEndian.Uint32(body[4:]))
	}
	return parseOptions(body[8:], func(code uint16, v []byte) error {
		switch {
		case code == 2:
			f.ifName = v
		case code == 9 && !bytes.Equal(v, []byte{9}), code == 13 && !bytes.Equal(v, []byte{4}):
			return fmt.Errorf("option %d = % x", code, v)
		}
		return nil
	})
}

func (f *pcapngFile) parseEPB(body []byte) error {
	if len(body) < 20 {
		return errors.New("short enhanced packet block")
	}
	if iface := binary.LittleEndian.Uint32(body); iface != 0 {
		return fmt.Errorf("interface %d", iface)
	}
	p := epb{ts: uint64(binary.LittleEndian.Uint32(body[4:]))<<32 | uint64(binary.LittleEndian.Uint32(body[8:]))}
	capLen, origLen := binary.LittleEndian.Uint32(body[12:]), binary.LittleEndian.Uint32(body[16:])
	padded := (uint64(capLen) + 3) &^ 3
	if capLen > MaxFrame || capLen > origLen || 20+padded > uint64(len(body)) {
		return fmt.Errorf("captured %d of %d bytes in a %d-byte body", capLen, origLen, len(body))
	}
	p.data, p.origLen = body[20:20+capLen], int(origLen)
	for _, pad := range body[20+capLen : 20+padded] {
		if pad != 0 {
			return errors.New("non-zero padding")
		}
	}
	flagsSeen := false
	err := parseOptions(body[20+padded:], func(code uint16, v []byte) error {
		if code == 2 {
			if len(v) != 4 {
				return fmt.Errorf("epb_flags of %d bytes", len(v))
			}
			p.flags, flagsSeen = binary.LittleEndian.Uint32(v), true
		}
		return nil
	})
	if err == nil && !flagsSeen {
		err = errors.New("no epb_flags")
	}
	f.packets = append(f.packets, p)
	return err
}

// parseOptions walks code/length/value options (values padded to 4 bytes) up to
// opt_endofopt, which must end the block body exactly.
func parseOptions(b []byte, each func(code uint16, v []byte) error) error {
	for len(b) >= 4 {
		code, n := binary.LittleEndian.Uint16(b), int(binary.LittleEndian.Uint16(b[2:]))
		if code == 0 {
			if n != 0 || len(b) != 4 {
				return fmt.Errorf("opt_endofopt with length %d and %d bytes after it", n, len(b)-4)
			}
			return nil
		}
		padded := (n + 3) &^ 3
		if 4+padded > len(b) {
			return fmt.Errorf("option %d of %d bytes overruns the block (%d left)", code, n, len(b)-4)
		}
		if err := each(code, b[4:4+n]); err != nil {
			return err
		}
		b = b[4+padded:]
	}
	return fmt.Errorf("options end without opt_endofopt (%d bytes left)", len(b))
}
