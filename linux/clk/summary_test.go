package clk

import (
	"encoding/json"
	"testing"
)

func summaryTree(t *testing.T) *Framework {
	t.Helper()
	_, m := newTestRegs(t, 0)
	fw := New()
	mustRegister(t, fw, Init{Name: "xtal"}, &FixedRate{Rate: 24000000})
	mustRegister(t, fw, Init{Name: "half", ParentNames: []string{"xtal"}}, &FixedFactor{Mult: 1, Div: 2})
	g := mustRegister(t, fw, Init{Name: "gate", ParentNames: []string{"half"}}, &Gate{Reg: Reg{m, 0}, Bit: 0})
	mustRegister(t, fw, Init{Name: "lost", ParentNames: []string{"nowhere"}}, &FixedFactor{Mult: 1, Div: 1})
	if err := fw.PrepareEnable(g); err != nil {
		t.Fatal(err)
	}
	return fw
}

func TestSummaryLayouts(t *testing.T) {
	fw := summaryTree(t)
	tests := []struct {
		layout SummaryLayout
		want   string
	}{
		{SummaryV54, "" +
			"                                 enable  prepare  protect                                duty\n" +
			"   clock                          count    count    count        rate   accuracy phase  cycle\n" +
			"---------------------------------------------------------------------------------------------\n" +
			" xtal                                 1        1        0    24000000          0     0  50000\n" +
			"    half                              1        1        0    12000000          0     0  50000\n" +
			"       gate                           1        1        0    12000000          0     0  50000\n" +
			" lost                                 0        0        0           0          0     0  50000\n"},
		{SummaryLegacy, "" +
			"   clock                         enable_cnt  prepare_cnt        rate   accuracy   phase\n" +
			"----------------------------------------------------------------------------------------\n" +
			" xtal                                     1            1    24000000          0 0  \n" +
			"    half                                  1            1    12000000          0 0  \n" +
			"       gate                               1            1    12000000          0 0  \n" +
			" lost                                     0            0           0          0 0  \n"},
	}
	for _, tt := range tests {
		got, err := fw.Summary(tt.layout)
		if err != nil {
			t.Fatal(err)
		}
		if got != tt.want {
			t.Errorf("layout %d:\n%s\nwant:\n%s", tt.layout, got, tt.want)
		}
	}
	if _, err := fw.Summary(SummaryLayout(9)); err == nil {
		t.Error("unknown layout accepted")
	}
}

func TestList(t *testing.T) {
	fw := summaryTree(t)
	got, err := json.Marshal(fw.List())
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"name":"xtal","rate_hz":24000000,"parent":"","enable_count":1,"prepare_count":1},` +
		`{"name":"half","rate_hz":12000000,"parent":"xtal","enable_count":1,"prepare_count":1},` +
		`{"name":"gate","rate_hz":12000000,"parent":"half","enable_count":1,"prepare_count":1},` +
		`{"name":"lost","rate_hz":0,"parent":"","enable_count":0,"prepare_count":0}]`
	if string(got) != want {
		t.Errorf("List JSON\n%s\nwant\n%s", got, want)
	}
}
