package stmmac

import (
	"slices"
	"testing"

	"mesonemu/reg"
)

// TestModelFieldsAreTableFields checks that every field the model reads or writes is
// the entry its register table decodes (same name, bits and access): the bit is
// declared once, so `mesonemu regs` and the behaviour agree.
func TestModelFieldsAreTableFields(t *testing.T) {
	r := newRig(t, Config{})
	byName := map[string]*reg.Register{}
	for _, b := range r.mac.Blocks() {
		for i := range b.Registers {
			byName[b.Registers[i].Name] = &b.Registers[i]
		}
	}
	cases := []struct {
		reg    string
		fields []reg.Field
	}{
		{"GMAC_CONTROL", []reg.Field{cfgRE, cfgTE, cfgACS, cfgIPC, cfgDM, cfgLM, cfgFES, cfgPS, cfgIFG, cfgJE, cfgJD, cfgWD, cfgCST, cfg2K}},
		{"GMAC_FRAME_FILTER", []reg.Field{ffPR, ffHUC, ffHMC, ffDAIF, ffPM, ffDBF, ffPCF, ffHPF, ffRA}},
		{"GMAC_MII_ADDR", []reg.Field{miiGB, miiGW, miiCR, miiGR, miiPA}},
		{"GMAC_FLOW_CTRL", []reg.Field{fcFCB}},
		{"GMAC_PMT", []reg.Field{pmtRWKFILTRST}},
		{"GMAC_INT_STATUS", []reg.Field{intRGMII, intPMT, intMMC, intTS, intLPI}},
		{"GMAC_ADDR_HIGH1", []reg.Field{addrHI, addrMBC, addrSA, addrAE}},
		{"GMAC_ADDR_HIGH15", []reg.Field{addrHI, addrMBC, addrSA, addrAE}},
		{"GMAC_S_R_GMII", []reg.Field{rgmiiFullDuplex, rgmiiSpeed, rgmiiLinkUp}},
		{"MMC_CNTRL", []reg.Field{mmcCntReset, mmcCntStopRoll, mmcRstOnRead, mmcCntFreeze, mmcCntPreset, mmcPresetFull}},
		{"DMA_BUS_MODE", []reg.Field{busSWR, busDSL, busATDS}},
		{"DMA_STATUS", []reg.Field{stTI, stTPS, stTU, stTJT, stOVF, stUNF, stRI, stRU, stRPS, stRWT, stETI, stFBI, stERI, stAIS, stNIS, stRS, stTS, stEB, stGLI}},
		{"DMA_CONTROL", []reg.Field{opSR, opRTC, opFUF, opFEF, opST, opFTF, opRSF}},
		{"DMA_MISSED_FRAME_CTR", []reg.Field{missedCount, missedOverflow, missedFIFOCount, missedFIFOOverflw}},
		{"DMA_RX_WATCHDOG", []reg.Field{riwtCount}},
	}
	for _, c := range cases {
		rr := byName[c.reg]
		if rr == nil {
			t.Errorf("no register %s", c.reg)
			continue
		}
		for _, f := range c.fields {
			if got := rr.Field(f.Name); got == nil || *got != f {
				t.Errorf("%s.%s: the table has %+v, the model uses %+v", c.reg, f.Name, got, f)
			}
		}
	}
	// Address 0's AE is the same bit, read-only.
	if ae := byName["GMAC_ADDR_HIGH0"].Field("AE"); ae == nil || ae.Mask() != addrAE.Mask() || ae.Access != reg.RO {
		t.Errorf("GMAC_ADDR_HIGH0.AE = %+v", ae)
	}
	// Enables and masks gate the status bit at the same position.
	for _, g := range []struct {
		gate, status string
		want         uint32
	}{{"DMA_INTR_ENA", "DMA_STATUS", 0x0001_e7ff}, {"GMAC_INT_MASK", "GMAC_INT_STATUS", 0x0000_060f}} {
		for _, f := range byName[g.gate].Fields {
			if !slices.ContainsFunc(byName[g.status].Fields, func(s reg.Field) bool { return s.Mask() == f.Mask() }) {
				t.Errorf("%s.%s gates no %s field", g.gate, f.Name, g.status)
			}
		}
		if got := reg.Masks(byName[g.gate].Fields...); got != g.want {
			t.Errorf("%s bits %#x, want %#x", g.gate, got, g.want)
		}
	}
	// The derived source sets are exactly the databook's bits.
	for _, m := range []struct {
		name      string
		got, want uint32
	}{
		{"intSources", intSources, 0x0000_0619},
		{"stNormal", stNormal, 0x0000_4045},
		{"stAbnormal", stAbnormal, 0x0000_27ba},
	} {
		if m.got != m.want {
			t.Errorf("%s = %#x, want %#x", m.name, m.got, m.want)
		}
	}
}

const offCRCErrors = mmcBase + 0x94 // mmc_rx_crc_error

// countCRC programs MMC_CNTRL, counts three CRC errors and reads the counter once
// if read is set.
func countCRC(ctl uint32, read bool) func(r *rig) {
	return func(r *rig) {
		r.w(offMMCCntrl, ctl)
		r.m.Lock()
		r.mac.mmcAdd(mmcRxCRCError, 3)
		r.m.Unlock()
		if read {
			r.rd(offCRCErrors)
		}
	}
}

// TestDeclaredSideEffects drives the registers whose hooks other tests do not reach
// and checks what the guest sees afterwards.
func TestDeclaredSideEffects(t *testing.T) {
	cases := []struct {
		name string
		do   func(r *rig)
		off  uint32
		want uint32
	}{
		{"FLOW_CTRL: FCB_BPA completes at once, the rest is stored", func(r *rig) { r.w(offFlowCtrl, 0xffff_00b7) }, offFlowCtrl, 0xffff_00b6},
		{"PMT: RWKFILTRST completes at once", func(r *rig) { r.w(offPMT, 0x8000_0207) }, offPMT, 0x0000_0207},
		{"TX poll demand reads 0", func(r *rig) { r.w(offTxPoll, 0xffff_ffff) }, offTxPoll, 0},
		{"RX poll demand reads 0", func(r *rig) { r.w(offRxPoll, 0xffff_ffff) }, offRxPoll, 0},
		{"MMC counter ignores guest writes", func(r *rig) { r.w(mmcBase+0x18, 123) }, mmcBase + 0x18, 0},
		{"MMC counter keeps its value on read without RSTONRD", countCRC(0, true), offCRCErrors, 3},
		{"MMC counter clears on read with RSTONRD", countCRC(mmcRstOnRead.Mask(), true), offCRCErrors, 0},
		{"MMC freeze stops counting", countCRC(mmcCntFreeze.Mask(), false), offCRCErrors, 0},
		{"missed-frame FIFO counter counts in bits 27:17", func(r *rig) {
			r.m.Lock()
			r.mac.countOverflowMiss()
			r.mac.countOverflowMiss()
			r.m.Unlock()
		}, offMissed, 2 << 17},
		{"missed-frame counters saturate and set their overflow bits", func(r *rig) {
			r.m.Lock()
			r.mac.dmaRegs.Set(offMissed, 0x0ffe_ffff)
			r.mac.rxNoDescriptor()
			r.mac.countOverflowMiss()
			r.m.Unlock()
		}, offMissed, 0x1fff_ffff},
		{"missed-frame register reads 0 after a read", func(r *rig) {
			r.m.Lock()
			r.mac.dmaRegs.Set(offMissed, 0x1fff_ffff)
			r.m.Unlock()
			r.rd(offMissed)
		}, offMissed, 0},
		{"TX base written while stopped moves the engine", func(r *rig) { r.w(offTxBase, 0x4000) }, offTxBase, 0x4000},
	}
	for _, c := range cases {
		r := newRig(t, Config{})
		c.do(r)
		r.m.Lock()
		got, _ := r.mac.Peek(c.off)
		r.m.Unlock()
		if got != c.want {
			t.Errorf("%s: %s = %#x, want %#x", c.name, r.mac.RegName(c.off), got, c.want)
		}
		if c.off == offTxBase && r.mac.tx.cur != c.want {
			t.Errorf("%s: engine at %#x", c.name, r.mac.tx.cur)
		}
	}
}
