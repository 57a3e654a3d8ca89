// Package pcap writes pcapng files of the frames that crossed the emulated cable.
// The medium: a file format, used by capture; neither hardware nor guest.
//
// It writes the frames that crossed the emulated cable as a pcapng file
// that Wireshark and tshark read: link type Ethernet with the 4-byte FCS kept
// (if_fcslen = 4), nanosecond timestamps in virtual time, and per-frame flags for
// direction, CRC errors and lost start-of-frame delimiters.
package pcap

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"unicode/utf8"
)

// Block and option codes from the pcapng specification (draft-ietf-opsawg-pcapng).
const (
	blockSHB = 0x0a0d0d0a
	blockIDB = 0x00000001
	blockEPB = 0x00000006

	byteOrderMagic = 0x1a2b3c4d
	linkEthernet   = 1

	optEnd      = 0
	optComment  = 1
	optIfName   = 2
	optTSResol  = 9
	optFCSLen   = 13
	optEPBFlags = 2
)

// Flag bits of epb_flags.
const (
	FlagInbound  uint32 = 1 << 0
	FlagOutbound uint32 = 2 << 0
	FlagCRCError uint32 = 1 << 24
	FlagSFDError uint32 = 1 << 29
	// FlagPreambleError marks damage in the preamble that did not lose the frame.
	FlagPreambleError uint32 = 1 << 30
)

// MaxFrame bounds what one record may hold; longer frames are truncated to it
// (the snap length), so a hostile frame cannot make the file grow unboundedly.
const MaxFrame = 16384

// Writer writes one pcapng section with one Ethernet interface.
type Writer struct {
	w   *bufio.Writer
	err error
	n   uint64
}

// NewWriter writes the section and interface headers. name labels the interface
// (for example "odroid-c1 rgmii").
func NewWriter(w io.Writer, name, comment string) (*Writer, error) {
	pw := &Writer{w: bufio.NewWriterSize(w, 1<<16)}
	var shb []byte
	shb = binary.LittleEndian.AppendUint32(shb, byteOrderMagic)
	shb = binary.LittleEndian.AppendUint16(shb, 1) // major
	shb = binary.LittleEndian.AppendUint16(shb, 0) // minor
	shb = binary.LittleEndian.AppendUint64(shb, ^uint64(0))
	shb = appendOption(shb, optComment, optionText(comment))
	shb = appendOption(shb, optEnd, nil)
	pw.block(blockSHB, shb)
	var idb []byte
	idb = binary.LittleEndian.AppendUint16(idb, linkEthernet)
	idb = binary.LittleEndian.AppendUint16(idb, 0)
	idb = binary.LittleEndian.AppendUint32(idb, MaxFrame)
	idb = appendOption(idb, optIfName, optionText(name))
	idb = appendOption(idb, optTSResol, []byte{9}) // 10^-9 s
	idb = appendOption(idb, optFCSLen, []byte{4})
	idb = appendOption(idb, optEnd, nil)
	pw.block(blockIDB, idb)
	if err := pw.w.Flush(); err != nil {
		return nil, fmt.Errorf("pcap: write header: %w", err)
	}
	return pw, pw.err
}

// maxOptionLen is the most an option value can hold: its length field is 16 bits.
const maxOptionLen = 0xffff

// optionText is a string option's value: UTF-8 as pcapng wants it, cut at a rune
// boundary to fit maxOptionLen (the comment and name come from the user).
func optionText(s string) []byte {
	if len(s) <= maxOptionLen {
		return []byte(s)
	}
	// A rune is at most 4 bytes: look back no further (text that is not UTF-8 there
	// is cut at the limit).
	for cut := maxOptionLen; cut > maxOptionLen-utf8.UTFMax; cut-- {
		if utf8.RuneStart(s[cut]) {
			return []byte(s[:cut])
		}
	}
	return []byte(s[:maxOptionLen])
}

func appendOption(b []byte, code uint16, val []byte) []byte {
	val = val[:min(len(val), maxOptionLen)] // a longer value would wrap the length field
	b = binary.LittleEndian.AppendUint16(b, code)
	b = binary.LittleEndian.AppendUint16(b, uint16(len(val)))
	b = append(b, val...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

func (pw *Writer) block(typ uint32, body []byte) {
	if pw.err != nil {
		return
	}
	total := uint32(12 + len(body))
	var hdr [8]byte
	binary.LittleEndian.PutUint32(hdr[0:], typ)
	binary.LittleEndian.PutUint32(hdr[4:], total)
	_, _ = pw.w.Write(hdr[:])
	_, _ = pw.w.Write(body)
	var tail [4]byte
	binary.LittleEndian.PutUint32(tail[:], total)
	if _, err := pw.w.Write(tail[:]); err != nil {
		pw.err = fmt.Errorf("pcap: write: %w", err)
	}
}

// WriteFrame records one frame (FCS included) at tsNanos with epb_flags.
func (pw *Writer) WriteFrame(tsNanos int64, frame []byte, flags uint32) error {
	if pw.err != nil {
		return pw.err
	}
	capLen := min(len(frame), MaxFrame)
	body := make([]byte, 0, 20+capLen+3+12)
	ts := uint64(tsNanos)
	body = binary.LittleEndian.AppendUint32(body, 0) // interface 0
	body = binary.LittleEndian.AppendUint32(body, uint32(ts>>32))
	body = binary.LittleEndian.AppendUint32(body, uint32(ts))
	body = binary.LittleEndian.AppendUint32(body, uint32(capLen))
	body = binary.LittleEndian.AppendUint32(body, uint32(len(frame)))
	body = append(body, frame[:capLen]...)
	for len(body)%4 != 0 {
		body = append(body, 0)
	}
	var fl [4]byte
	binary.LittleEndian.PutUint32(fl[:], flags)
	body = appendOption(body, optEPBFlags, fl[:])
	body = appendOption(body, optEnd, nil)
	pw.block(blockEPB, body)
	pw.n++
	return pw.err
}

// Frames is how many frames were written.
func (pw *Writer) Frames() uint64 { return pw.n }

// Flush writes buffered records out.
func (pw *Writer) Flush() error {
	if pw.err != nil {
		return pw.err
	}
	if err := pw.w.Flush(); err != nil {
		pw.err = fmt.Errorf("pcap: flush: %w", err)
	}
	return pw.err
}
