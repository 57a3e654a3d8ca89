package clk

import "fmt"

// setParentBefore is __clk_set_parent_before: a prepared clock keeps running
// across the switch by holding the new parent prepared and enabled and itself
// enabled; then the tree topology changes. It returns the old parent.
func (fw *Framework) setParentBefore(c, parent *Clock) *Clock {
	old := c.parent
	if c.prepareCount > 0 {
		fw.note(fw.prepareEnable(parent))
		fw.note(fw.enable(c))
	}
	fw.reparent(c, parent)
	return old
}

// setParentAfter is __clk_set_parent_after: drop what setParentBefore took and
// the old parent's prepare/enable share.
func (fw *Framework) setParentAfter(c, old *Clock) {
	if c.prepareCount > 0 {
		fw.disable(c)
		fw.disableUnprepare(old)
	}
}

// setParentNolock is clk_core_set_parent_nolock.
func (fw *Framework) setParentNolock(c, parent *Clock) error {
	if c.parent == parent {
		return nil
	}
	if _, ok := c.ops.(ParentSetter); len(c.parentNames) > 1 && !ok {
		return fmt.Errorf("%s: no .set_parent: %w", c.name, ErrPerm)
	}
	if c.flags&SetParentGate != 0 && c.prepareCount > 0 {
		return fmt.Errorf("%s: prepared, CLK_SET_PARENT_GATE: %w", c.name, ErrBusy)
	}
	if c.protectCount > 0 {
		return fmt.Errorf("%s: rate protected: %w", c.name, ErrBusy)
	}
	index := 0
	if parent != nil {
		if isAncestorOrSelf(c, parent) {
			return fmt.Errorf("%s: %s is below it: %w", c.name, parent.name, ErrInvalid)
		}
		if index = fw.fetchParentIndex(c, parent); index < 0 {
			return fmt.Errorf("%s can not be parent of %s: %w", parent.name, c.name, ErrInvalid)
		}
	}

	// __clk_set_parent
	old := fw.setParentBefore(c, parent)
	var err error
	if s, ok := c.ops.(ParentSetter); ok && parent != nil {
		err = s.SetParent(hwOf(c), uint8(index))
	}
	if err != nil {
		fw.reparent(c, old)
		fw.setParentAfter(c, parent)
		fw.recalcRates(c)
		return fmt.Errorf("%s: set_parent: %w", c.name, err)
	}
	fw.setParentAfter(c, old)
	fw.recalcRates(c)
	fw.recalcAccuracy(c)
	return nil
}

// SetParent is clk_set_parent: switch a mux to parent (which must be one of its
// possible parents) and recompute the rates below it.
func (fw *Framework) SetParent(c, parent *Clock) error {
	return fw.locked(c, func(c *Clock) error {
		if err := fw.check(parent); err != nil {
			return err
		}
		return fw.setParentNolock(c, parent)
	})
}

// GetParent is clk_get_parent: the current parent, nil for a root or an orphan.
func (fw *Framework) GetParent(c *Clock) *Clock {
	fw.mu.Lock()
	defer fw.mu.Unlock()
	if c == nil {
		return nil
	}
	return c.parent
}
