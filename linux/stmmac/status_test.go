package stmmac

import "testing"

// TestCountStatus: a bit counts only under its summary bit, and bumps its
// net_device counter with its extra stat.
func TestCountStatus(t *testing.T) {
	for _, tt := range []struct {
		name  string
		table []statusCounter
		st    uint32
		x     map[xstat]uint64
		net   map[netStat]uint64
	}{
		{"RDES0 CRC without ES", rxStatusCounters, rdes0CRCError, nil, nil},
		{"RDES0 CRC under ES", rxStatusCounters, rdes0ErrorSummary | rdes0CRCError,
			map[xstat]uint64{xRxCRCErrors: 1}, map[netStat]uint64{nRxCRCErrors: 1}},
		{"RDES0 dribbling needs no ES", rxStatusCounters, rdes0Dribbling | rdes0VLANTag,
			map[xstat]uint64{xDribblingBit: 1, xVLANTag: 1}, nil},
		{"TDES0 both carrier errors", txStatusCounters, tdes0ErrorSummary | tdes0NoCarrier | tdes0LossCarrier,
			map[xstat]uint64{xTxCarrier: 1, xTxLossCarrier: 1}, map[netStat]uint64{nTxCarrierErrors: 2}},
		{"CSR5 FBI without AIS", dmaStatusCounters, dmaStatusFBI | dmaStatusNIS | dmaStatusTI,
			map[xstat]uint64{xNormalIRQN: 1, xTxNormalIRQN: 1}, nil},
		{"CSR5 abnormal", dmaStatusCounters, dmaStatusAIS | dmaStatusFBI | dmaStatusTPS | dmaStatusTI,
			map[xstat]uint64{xFatalBusErrorIRQ: 1, xTxProcessStoppedIRQ: 1}, nil},
	} {
		var c counters
		c.countStatus(tt.st, tt.table)
		for i := range c.x {
			if got, want := c.x[i].Load(), tt.x[xstat(i)]; got != want {
				t.Errorf("%s: xstat %d = %d, want %d", tt.name, i, got, want)
			}
		}
		for i := range c.net {
			if got, want := c.net[i].Load(), tt.net[netStat(i)]; got != want {
				t.Errorf("%s: net stat %d = %d, want %d", tt.name, i, got, want)
			}
		}
	}
}
