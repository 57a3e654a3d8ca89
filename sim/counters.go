package sim

import (
	"fmt"
	"io"
)

// Counter is one named counter of a run's link report (ethtool -S style),
// grouped by the stage that counts it; the main job and `wire` list theirs as
// these.
type Counter struct {
	Where string `json:"where"`
	Name  string `json:"name"`
	Value uint64 `json:"value"`
}

// WriteCounters prints counters under a heading, one group per stage.
func WriteCounters(w io.Writer, cs []Counter) {
	fmt.Fprintf(w, "\nLink counters (ethtool -S style):\n")
	last := ""
	for _, c := range cs {
		if c.Where != last {
			fmt.Fprintf(w, "  %s:\n", c.Where)
			last = c.Where
		}
		fmt.Fprintf(w, "    %-28s %d\n", c.Name, c.Value)
	}
}
