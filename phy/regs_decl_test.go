package phy

import (
	"testing"

	"mesonemu/reg"
)

// TestModelFieldsAreTableFields checks that every field the model reads or writes is
// the entry its register table decodes (name, bits, access): each bit is declared
// once. ANLPAR shares ANAR's layout read-only, INSR shares INER's bit clear-on-read.
func TestModelFieldsAreTableFields(t *testing.T) {
	r := newRig(t, Config{})
	find := func(block, name string) *reg.Register {
		for _, b := range r.p.Blocks() {
			if b.Name == block {
				return b.Register(name)
			}
		}
		return nil
	}
	ro := func(fs ...reg.Field) []reg.Field {
		out := make([]reg.Field, len(fs))
		for i, f := range fs {
			out[i] = as(f, reg.RO, "")
		}
		return out
	}
	cases := []struct {
		block, reg string
		fields     []reg.Field
	}{
		{"rtl8211f", "BMCR", []reg.Field{bmcrSpeed1000, bmcrFullDplx, bmcrANRestart, bmcrIsolate, bmcrPowerDown, bmcrANEnable, bmcrSpeed100, bmcrReset}},
		{"rtl8211f", "BMSR", []reg.Field{bmsrLinkStatus, bmsrANComplete}},
		{"rtl8211f", "ANAR", advFields},
		{"rtl8211f", "ANLPAR", append(ro(advFields...), lpaAck)},
		{"rtl8211f", "ANER", []reg.Field{anerLPANAble, anerLPNPAble}},
		{"rtl8211f", "GBCR", []reg.Field{gbcr1000Half, gbcr1000Full}},
		{"rtl8211f", "GBSR", []reg.Field{gbsrLP1000Half, gbsrLP1000Full, gbsrRemoteRxOK, gbsrLocalRxOK}},
		{"rtl8211f.page0xd08", "TXDLY_CR", []reg.Field{txDelayBit}},
		{"rtl8211f.page0xd08", "RXDLY_CR", []reg.Field{rxDelayBit}},
		{"rtl8211f.page0xa42", "INER", []reg.Field{intrLinkChange}},
		{"rtl8211f.page0xa43", "INSR", []reg.Field{as(intrLinkChange, reg.RC, "link status changed")}},
		{"rtl8211f.page0xa43", "PHYSR", []reg.Field{physrLink, physrFullDuplex, physrSpeed, physrSpeedResolv}},
	}
	for _, c := range cases {
		rr := find(c.block, c.reg)
		if rr == nil {
			t.Errorf("no register %s in %s", c.reg, c.block)
			continue
		}
		if c.reg == "ANAR" || c.reg == "ANLPAR" {
			if len(rr.Fields) != len(c.fields) {
				t.Errorf("%s has %d fields, want %d", c.reg, len(rr.Fields), len(c.fields))
			}
		}
		for _, f := range c.fields {
			if got := rr.Field(f.Name); got == nil || *got != f {
				t.Errorf("%s.%s: the table has %+v, the model uses %+v", c.reg, f.Name, got, f)
			}
		}
	}
	// The partner page the model writes into ANLPAR decodes with that table.
	if got, want := advSelector.Get(uint32(r.p.partnerPage(Mode100Full))), uint32(selector802_3); got != want {
		t.Errorf("partner page selector %d, want %d", got, want)
	}
}
