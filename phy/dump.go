package phy

import (
	"fmt"
	"sort"
	"strings"

	"mesonemu/reg"
)

// RegName names Clause-22 register r as the current page makes it, for MDIO
// traces: "BMCR", "0xd08:TXDLY_CR", or "0xa42:0x10" for a register the page
// does not declare.
func (p *RTL8211F) RegName(r uint8) string {
	if isBase(r) {
		if rr := p.base.Lookup(off(r)); rr != nil {
			return rr.Name
		}
		return fmt.Sprintf("%#02x", r)
	}
	page := p.Page()
	if f := p.pages[page]; f != nil {
		if rr := f.Lookup(off(r)); rr != nil {
			return fmt.Sprintf("%#x:%s", page, rr.Name)
		}
	}
	return fmt.Sprintf("%#x:%#02x", page, r)
}

// Dump renders every register with its fields decoded, base registers first,
// then each page, as `mesonemu regs` prints them. It shows stored values and
// has no read side effects (BMSR's link bit is shown as a read would return it
// now; INSR is not cleared).
func (p *RTL8211F) Dump() string {
	var b strings.Builder
	dumpFile(&b, "", p.base)
	pages := make([]int, 0, len(p.pages))
	for page := range p.pages {
		pages = append(pages, int(page))
	}
	sort.Ints(pages)
	for _, page := range pages {
		dumpFile(&b, fmt.Sprintf("page %#x ", page), p.pages[uint16(page)])
	}
	return b.String()
}

// dumpFile prints each register of f as a read would show it (Value hooks
// applied), without the read's side effects.
func dumpFile(b *strings.Builder, prefix string, f *reg.File) {
	blk := f.Block()
	for i := range blk.Registers {
		r := &blk.Registers[i]
		v, _ := f.Read(r.Offset)
		fmt.Fprintf(b, "%sreg %#02x ", prefix, r.Offset/4)
		b.WriteString(reg.Format(r, v))
	}
}
