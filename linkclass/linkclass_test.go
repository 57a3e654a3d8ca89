package linkclass

import "testing"

func TestClassify(t *testing.T) {
	for _, c := range []struct {
		name   string
		tx, rx DirectionLoss
		want   string
	}{
		{"nothing sent", DirectionLoss{}, DirectionLoss{}, Dead},
		{"board's frames all lost", DirectionLoss{Sent: 3, Lost: 3}, DirectionLoss{Sent: 5}, Dead},
		{"PC's frames all lost", DirectionLoss{Sent: 5}, DirectionLoss{Sent: 2, Lost: 2}, Dead},
		{"one of many lost", DirectionLoss{Sent: 20000, Lost: 76}, DirectionLoss{}, Lossy},
		{"one lost the other way", DirectionLoss{Sent: 10}, DirectionLoss{Sent: 10, Lost: 1}, Lossy},
		{"none lost", DirectionLoss{Sent: 20000}, DirectionLoss{Sent: 7}, Clean},
		{"one way only, none lost", DirectionLoss{Sent: 1}, DirectionLoss{}, Clean},
	} {
		v := Judge(c.tx, c.rx)
		if v.Class != c.want || !Valid(v.Class) || v.Why == "" {
			t.Errorf("%s: %s (%q), want %s", c.name, v.Class, v.Why, c.want)
		}
	}
	if Valid("broken") {
		t.Error(`Valid("broken") is true`)
	}
}
