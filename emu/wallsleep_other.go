//go:build !linux

package emu

import "time"

func sleepKernel(d time.Duration) { time.Sleep(d) }

func preciseThread() func() { return func() {} }
