package stmmac

import "encoding/binary"

// IP protocol numbers the checksum offload engine understands.
const (
	protoICMP   = 1
	protoTCP    = 6
	protoUDP    = 17
	protoICMPv6 = 58
)

// sum16 adds b to the one's-complement accumulator s as big-endian 16-bit words
// (32 bits at a time: 2^16 = 1 modulo 0xffff, so folding later gives the same sum).
// b must start at an even offset of the checksummed data.
func sum16(s uint64, b []byte) uint64 {
	for len(b) >= 4 {
		s += uint64(binary.BigEndian.Uint32(b))
		b = b[4:]
	}
	if len(b) >= 2 {
		s += uint64(binary.BigEndian.Uint16(b))
		b = b[2:]
	}
	if len(b) == 1 {
		s += uint64(b[0]) << 8
	}
	return s
}

func fold(s uint64) uint16 {
	for s>>16 != 0 {
		s = s&0xffff + s>>16
	}
	return uint16(s)
}

// l4Field is where a transport protocol keeps its checksum, and its minimum header.
func l4Field(proto uint8, v6 bool) (off, minLen int, pseudo, ok bool) {
	switch {
	case proto == protoTCP:
		return 16, 20, true, true
	case proto == protoUDP:
		return 6, 8, true, true
	case proto == protoICMP && !v6:
		return 2, 4, false, true
	case proto == protoICMPv6 && v6:
		return 2, 4, true, true
	}
	return 0, 0, false, false
}

// ipDatagram is the part of a frame the checksum engine looks at.
type ipDatagram struct {
	v6       bool
	hdrErr   bool   // version/length inconsistent or IPv4 header checksum wrong
	lenErr   bool   // the datagram claims more bytes than the frame holds
	frag     bool   // IPv4 fragment: payload not checked
	proto    uint8  // transport protocol
	header   []byte // IP header (IPv4 with options; IPv6 fixed header)
	payload  []byte // transport segment
	pseudo   uint64 // pseudo-header sum (addresses, protocol, length)
	totalLen int    // IP datagram bytes
}

// parseIP finds the IP datagram of an Ethernet frame (FCS excluded). ok is false for
// frames that are neither IPv4 nor IPv6 type frames.
func parseIP(frame []byte) (d ipDatagram, ok bool) {
	typ, l3, _, known := etherType(frame)
	if !known || (typ != etherTypeIPv4 && typ != etherTypeIPv6) {
		return d, false
	}
	ip := frame[l3:]
	if typ == etherTypeIPv4 {
		if len(ip) < 20 || ip[0]>>4 != 4 {
			d.hdrErr = true
			return d, true
		}
		ihl := int(ip[0]&0xf) * 4
		total := int(binary.BigEndian.Uint16(ip[2:4]))
		if ihl < 20 || len(ip) < ihl || total < ihl {
			d.hdrErr = true
			return d, true
		}
		d.header = ip[:ihl]
		d.proto = ip[9]
		d.frag = binary.BigEndian.Uint16(ip[6:8])&0x3fff != 0
		if total > len(ip) {
			d.lenErr = true
			total = len(ip)
		}
		d.totalLen = total
		d.payload = ip[ihl:total]
		d.pseudo = sum16(0, ip[12:20]) + uint64(d.proto) + uint64(len(d.payload))
		return d, true
	}
	d.v6 = true
	if len(ip) < 40 || ip[0]>>4 != 6 {
		d.hdrErr = true
		return d, true
	}
	d.header = ip[:40]
	d.proto = ip[6] // Assumption: extension headers are not walked (payload bypassed)
	plen := int(binary.BigEndian.Uint16(ip[4:6]))
	if 40+plen > len(ip) {
		d.lenErr = true
		plen = len(ip) - 40
	}
	d.totalLen = 40 + plen
	d.payload = ip[40 : 40+plen]
	d.pseudo = sum16(0, ip[8:40]) + uint64(d.proto) + uint64(plen)
	return d, true
}

// insertChecksums is the TX checksum offload engine for CIC = 1 (IPv4 header), 2
// (header and payload, pseudo-header supplied by software in the checksum field) and
// 3 (everything). It returns TDES0 error bits (IP header error, payload error) and
// whether it wrote anything. Non-IP frames pass untouched.
func insertChecksums(frame []byte, cic uint32) (errs uint32, inserted bool) {
	d, ok := parseIP(frame)
	if !ok {
		return 0, false
	}
	if d.hdrErr {
		return tdes0IPHeader, false
	}
	if !d.v6 {
		h := d.header
		h[10], h[11] = 0, 0
		binary.BigEndian.PutUint16(h[10:], ^fold(sum16(0, h)))
		inserted = true
	}
	if cic < 2 || d.frag {
		return 0, inserted
	}
	if d.lenErr {
		return tdes0PayloadCE, inserted
	}
	off, minLen, pseudo, known := l4Field(d.proto, d.v6)
	if !known {
		return 0, inserted
	}
	seg := d.payload
	if len(seg) < minLen {
		return tdes0PayloadCE, inserted
	}
	var s uint64
	if cic == 3 {
		seg[off], seg[off+1] = 0, 0
		if pseudo {
			s = d.pseudo
		}
	}
	cs := ^fold(sum16(s, seg))
	if d.proto == protoUDP && cs == 0 {
		cs = 0xffff
	}
	binary.BigEndian.PutUint16(seg[off:], cs)
	return 0, true
}

// rxChecksumStatus is the type-2 RX checksum engine (IPC = 1). It returns the RDES0
// bits 5 (frame type), 7 (IP header error) and 0 (payload error) with the encoding of
// the normal descriptor table (Assumption: as the STM32F107 manual, RM0008, documents
// this IP): 802.3 frame 0/0/0; IP ok 1/0/0; payload error 1/0/1; header error 1/1/0;
// both 1/1/1; IP with unsupported payload 0/0/1; type frame neither IPv4 nor IPv6
// 0/1/1. It also counts the MMC IPC counters.
func (c *MAC) rxChecksumStatus(frame []byte) uint32 {
	typ, _, _, known := etherType(frame)
	if !known || typ < etherTypeMin {
		return 0
	}
	d, ok := parseIP(frame)
	if !ok {
		return rdes0IPCGiant | rdes0PayloadCE
	}
	hdrErr := d.hdrErr || d.lenErr
	if !hdrErr && !d.v6 && fold(sum16(0, d.header)) != 0xffff {
		hdrErr = true
	}
	good, hdr, nopay := mmcRxIPv4Gd, mmcRxIPv4HdErr, mmcRxIPv4NoPay
	goodOct, hdrOct, nopayOct := mmcRxIPv4GdOctets, mmcRxIPv4HdErrOctets, mmcRxIPv4NoPayOctets
	if d.v6 {
		good, hdr, nopay = mmcRxIPv6Gd, mmcRxIPv6HdErr, mmcRxIPv6NoPay
		goodOct, hdrOct, nopayOct = mmcRxIPv6GdOctets, mmcRxIPv6HdErrOctets, mmcRxIPv6NoPayOctets
	}
	if hdrErr {
		c.mmcAdd(hdr, 1)
		c.mmcAdd(hdrOct, uint32(d.totalLen))
		return rdes0FrameType | rdes0IPCGiant
	}
	if d.frag {
		c.mmcAdd(mmcRxIPv4Frag, 1)
		c.mmcAdd(mmcRxIPv4FragOctets, uint32(d.totalLen))
		return rdes0PayloadCE
	}
	off, minLen, pseudo, known := l4Field(d.proto, d.v6)
	if !known {
		c.mmcAdd(nopay, 1)
		c.mmcAdd(nopayOct, uint32(d.totalLen))
		return rdes0PayloadCE
	}
	c.mmcAdd(good, 1)
	c.mmcAdd(goodOct, uint32(d.totalLen))
	seg := d.payload
	payErr := len(seg) < minLen
	udpOff := !payErr && d.proto == protoUDP && !d.v6 && binary.BigEndian.Uint16(seg[off:]) == 0
	if udpOff {
		c.mmcAdd(mmcRxIPv4UDSbl, 1)
		c.mmcAdd(mmcRxIPv4UDSblOctets, uint32(len(seg)))
	}
	if !payErr && !udpOff {
		var s uint64
		if pseudo {
			s = d.pseudo
		}
		payErr = fold(sum16(s, seg)) != 0xffff
	}
	gd, gdOct, bad, badOct := mmcRxICMPGd, mmcRxICMPGdOctets, mmcRxICMPErr, mmcRxICMPErrOctets
	switch d.proto {
	case protoTCP:
		gd, gdOct, bad, badOct = mmcRxTCPGd, mmcRxTCPGdOctets, mmcRxTCPErr, mmcRxTCPErrOctets
	case protoUDP:
		gd, gdOct, bad, badOct = mmcRxUDPGd, mmcRxUDPGdOctets, mmcRxUDPErr, mmcRxUDPErrOctets
	}
	if payErr {
		c.mmcAdd(bad, 1)
		c.mmcAdd(badOct, uint32(len(seg)))
		return rdes0FrameType | rdes0PayloadCE
	}
	c.mmcAdd(gd, 1)
	c.mmcAdd(gdOct, uint32(len(seg)))
	return rdes0FrameType
}
