package iperf3

import (
	"fmt"
	"runtime"
)

// defaultSystemInfo stands in for iperf3's uname line in the JSON output.
func defaultSystemInfo() string {
	return fmt.Sprintf("Go %s %s/%s (mesonemu iperf3)", runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
