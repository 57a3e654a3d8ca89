package clk

import "fmt"

// prepare is clk_core_prepare: prepare the parents first, then this clock.
func (fw *Framework) prepare(c *Clock) error {
	if c == nil {
		return nil
	}
	if c.prepareCount == 0 {
		if err := fw.prepare(c.parent); err != nil {
			return err
		}
		if p, ok := c.ops.(Preparer); ok {
			if err := p.Prepare(hwOf(c)); err != nil {
				fw.unprepare(c.parent)
				return fmt.Errorf("%s: prepare: %w", c.name, err)
			}
		}
	}
	c.prepareCount++
	if c.flags&SetRateGate != 0 {
		fw.rateProtect(c)
	}
	return nil
}

// unprepare is clk_core_unprepare.
func (fw *Framework) unprepare(c *Clock) {
	if c == nil {
		return
	}
	if c.prepareCount == 0 {
		fw.warnf("%s already unprepared", c.name)
		return
	}
	if c.prepareCount == 1 && c.flags&IsCritical != 0 {
		fw.warnf("Unpreparing critical %s", c.name)
		return
	}
	if c.flags&SetRateGate != 0 {
		fw.rateUnprotect(c)
	}
	c.prepareCount--
	if c.prepareCount > 0 {
		return
	}
	if c.enableCount > 0 {
		fw.warnf("Unpreparing enabled %s", c.name)
	}
	if p, ok := c.ops.(Preparer); ok {
		fw.note(p.Unprepare(hwOf(c)))
	}
	fw.unprepare(c.parent)
}

// enable is clk_core_enable: enable the parents first, then this clock.
func (fw *Framework) enable(c *Clock) error {
	if c == nil {
		return nil
	}
	if c.prepareCount == 0 {
		fw.warnf("Enabling unprepared %s", c.name)
		return fmt.Errorf("%s: %w", c.name, ErrShutdown)
	}
	if c.enableCount == 0 {
		if err := fw.enable(c.parent); err != nil {
			return err
		}
		if e, ok := c.ops.(Enabler); ok {
			if err := e.Enable(hwOf(c)); err != nil {
				fw.disable(c.parent)
				return fmt.Errorf("%s: enable: %w", c.name, err)
			}
		}
	}
	c.enableCount++
	return nil
}

// disable is clk_core_disable.
func (fw *Framework) disable(c *Clock) {
	if c == nil {
		return
	}
	if c.enableCount == 0 {
		fw.warnf("%s already disabled", c.name)
		return
	}
	if c.enableCount == 1 && c.flags&IsCritical != 0 {
		fw.warnf("Disabling critical %s", c.name)
		return
	}
	c.enableCount--
	if c.enableCount > 0 {
		return
	}
	if e, ok := c.ops.(Enabler); ok {
		fw.note(e.Disable(hwOf(c)))
	}
	fw.disable(c.parent)
}

// prepareEnable is clk_core_prepare_enable.
func (fw *Framework) prepareEnable(c *Clock) error {
	if err := fw.prepare(c); err != nil {
		return err
	}
	if err := fw.enable(c); err != nil {
		fw.unprepare(c)
		return err
	}
	return nil
}

func (fw *Framework) disableUnprepare(c *Clock) {
	fw.disable(c)
	fw.unprepare(c)
}

// rateProtect is clk_core_rate_protect (used by CLK_SET_RATE_GATE).
func (fw *Framework) rateProtect(c *Clock) {
	if c == nil {
		return
	}
	if c.protectCount == 0 {
		fw.rateProtect(c.parent)
	}
	c.protectCount++
}

// rateUnprotect is clk_core_rate_unprotect.
func (fw *Framework) rateUnprotect(c *Clock) {
	if c == nil {
		return
	}
	if c.protectCount == 0 {
		fw.warnf("%s already unprotected", c.name)
		return
	}
	c.protectCount--
	if c.protectCount > 0 {
		return
	}
	fw.rateUnprotect(c.parent)
}

// nukeProtect is clk_core_rate_nuke_protect: lift the protection for a rounding
// walk, returning the count restoreProtect puts back.
func (fw *Framework) nukeProtect(c *Clock) uint32 {
	if c == nil || c.protectCount == 0 {
		return 0
	}
	n := c.protectCount
	c.protectCount = 1
	fw.rateUnprotect(c)
	return n
}

func (fw *Framework) restoreProtect(c *Clock, n uint32) {
	if c == nil || n == 0 {
		return
	}
	fw.rateProtect(c)
	c.protectCount = n
}

// Prepare is clk_prepare.
func (fw *Framework) Prepare(c *Clock) error { return fw.locked(c, fw.prepare) }

// Unprepare is clk_unprepare.
func (fw *Framework) Unprepare(c *Clock) error { return fw.locked(c, noError(fw.unprepare)) }

// Enable is clk_enable: the clock must be prepared (else ErrShutdown).
func (fw *Framework) Enable(c *Clock) error { return fw.locked(c, fw.enable) }

// Disable is clk_disable.
func (fw *Framework) Disable(c *Clock) error { return fw.locked(c, noError(fw.disable)) }

// PrepareEnable is clk_prepare_enable: prepare and enable the clock and, up the
// chain, every parent that is not yet.
func (fw *Framework) PrepareEnable(c *Clock) error { return fw.locked(c, fw.prepareEnable) }

// DisableUnprepare is clk_disable_unprepare.
func (fw *Framework) DisableUnprepare(c *Clock) error {
	return fw.locked(c, noError(fw.disableUnprepare))
}

// locked runs op on a checked clock under the framework lock and returns op's error
// together with what the clock ops noted meanwhile (finish). A nil clock is a no-op,
// as Linux's NULL clk.
func (fw *Framework) locked(c *Clock, op func(*Clock) error) error {
	fw.mu.Lock()
	defer fw.mu.Unlock()
	if c == nil {
		return nil
	}
	if err := fw.check(c); err != nil {
		return err
	}
	return fw.finish(op(c))
}

// noError adapts an operation that cannot fail to locked.
func noError(op func(*Clock)) func(*Clock) error {
	return func(c *Clock) error {
		op(c)
		return nil
	}
}
