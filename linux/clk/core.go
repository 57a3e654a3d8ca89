package clk

import (
	"fmt"
	"math"
	"sync"
)

// Limits on what Register accepts. Linux has a u8 num_parents; the others bound
// the work any walk can do.
const (
	MaxParents  = 255
	MaxNameLen  = 128
	MaxClocks   = 4096
	maxWarnings = 64
)

// Framework is the clock tree: what Linux keeps in clk_root_list, clk_orphan_list
// and the prepare lock. One Framework serves one guest.
type Framework struct {
	mu       sync.Mutex
	byName   map[string]*Clock
	roots    []*Clock // clk_root_list, newest first (hlist_add_head)
	orphans  []*Clock // clk_orphan_list, newest first
	opErr    error    // first access failure of the running call (see note)
	depth    int      // recursion depth of the running walk (see enter)
	warnings []string
}

// New makes an empty clock tree.
func New() *Framework {
	return &Framework{byName: make(map[string]*Clock)}
}

// Clock is struct clk_core, and also the consumer handle: drivers pass it to the
// Framework's methods as they pass a struct clk to the clk API.
type Clock struct {
	fw          *Framework
	name        string
	ops         Ops
	flags       Flags
	parentNames []string
	parentCache []*Clock
	parent      *Clock
	children    []*Clock // newest first, like the kernel's hlist
	orphan      bool
	gone        bool // unregistered

	rate, reqRate, newRate uint32
	newParent, newChild    *Clock
	newParentIndex         uint8

	enableCount, prepareCount, protectCount uint32
	minRate, maxRate                        uint32
	accuracy                                uint32
}

// Name is the clock's name (immutable, safe without the lock).
func (c *Clock) Name() string { return c.name }

// Init is struct clk_init_data: the clock's name, its possible parents by name
// (index order is the mux's selector order) and its framework flags.
type Init struct {
	Name        string
	ParentNames []string
	Flags       Flags
}

func (in Init) validate() error {
	if in.Name == "" {
		return fmt.Errorf("clock without a name: %w", ErrInvalid)
	}
	if len(in.Name) > MaxNameLen {
		return fmt.Errorf("clock name of %d bytes (max %d): %w", len(in.Name), MaxNameLen, ErrInvalid)
	}
	if len(in.ParentNames) > MaxParents {
		return fmt.Errorf("%s: %d parents (max %d): %w", in.Name, len(in.ParentNames), MaxParents, ErrInvalid)
	}
	for i, p := range in.ParentNames {
		if p == "" || len(p) > MaxNameLen {
			return fmt.Errorf("%s: parent %d has an invalid name: %w", in.Name, i, ErrInvalid)
		}
	}
	if in.Flags&^knownFlags != 0 {
		return fmt.Errorf("%s: unsupported flags %#x: %w", in.Name, uint32(in.Flags&^knownFlags), ErrInvalid)
	}
	return nil
}

func (fw *Framework) warnf(format string, args ...any) {
	if len(fw.warnings) >= maxWarnings {
		fw.warnings = fw.warnings[1:]
	}
	fw.warnings = append(fw.warnings, fmt.Sprintf(format, args...))
}

// Warnings returns the kernel WARNs the framework and the ops raised so far (the
// newest 64), oldest first.
func (fw *Framework) Warnings() []string {
	fw.mu.Lock()
	defer fw.mu.Unlock()
	return append([]string(nil), fw.warnings...)
}

// enter guards every recursive walk. An acyclic tree never recurses deeper than
// the number of clocks; a malformed description (a mux that lists a clock below
// itself as a possible parent) would make Linux recurse until the stack overflows.
// The caller must run `defer fw.leave()`.
func (fw *Framework) enter(c *Clock) error {
	fw.depth++
	if fw.depth > len(fw.byName)+2 {
		fw.warnf("%s: clock walk deeper than the number of clocks (parent loop)", c.name)
		return fmt.Errorf("%s: parent loop: %w", c.name, ErrInvalid)
	}
	return nil
}

func (fw *Framework) leave() { fw.depth-- }

func (fw *Framework) check(c *Clock) error {
	if c == nil {
		return nil
	}
	if c.fw != fw {
		return fmt.Errorf("%s: clock of another framework: %w", c.name, ErrInvalid)
	}
	if c.gone {
		return fmt.Errorf("%s: unregistered: %w", c.name, ErrNoDevice)
	}
	return nil
}

// Lookup finds a registered clock by name (clk_core_lookup), nil if none.
func (fw *Framework) Lookup(name string) *Clock {
	fw.mu.Lock()
	defer fw.mu.Unlock()
	return fw.byName[name]
}

// isAncestorOrSelf reports whether a is b or one of b's ancestors.
func isAncestorOrSelf(a, b *Clock) bool {
	for n := 0; b != nil && n <= MaxClocks; n++ {
		if a == b {
			return true
		}
		b = b.parent
	}
	return false
}

// parentByIndex is clk_core_get_parent_by_index: the registered clock named by
// parent slot i, cached once found. A candidate that is the clock itself or below
// it is refused (Linux would build a loop).
func (fw *Framework) parentByIndex(c *Clock, i int) *Clock {
	if c == nil || i < 0 || i >= len(c.parentNames) {
		return nil
	}
	p := c.parentCache[i]
	if p == nil {
		if p = fw.byName[c.parentNames[i]]; p != nil {
			c.parentCache[i] = p
		}
	}
	if p != nil && isAncestorOrSelf(c, p) {
		return nil
	}
	return p
}

// initParent is __clk_init_parent: slot 0, or what .get_parent reads for a clock
// with several parents.
func (fw *Framework) initParent(c *Clock) *Clock {
	index := uint8(0)
	if len(c.parentNames) > 1 {
		if g, ok := c.ops.(ParentGetter); ok {
			idx, err := g.GetParent(hwOf(c))
			if err != nil {
				fw.note(err)
				return nil
			}
			index = idx
		}
	}
	return fw.parentByIndex(c, int(index))
}

// fetchParentIndex is clk_fetch_parent_index: the first slot naming parent, -1 if
// none.
func (fw *Framework) fetchParentIndex(c, parent *Clock) int {
	if parent == nil {
		return -1
	}
	for i := range c.parentNames {
		if c.parentCache[i] == parent {
			return i
		}
		if c.parentCache[i] != nil {
			continue
		}
		if c.parentNames[i] == parent.name {
			c.parentCache[i] = parent
			return i
		}
	}
	return -1
}

// getRateNolock is clk_core_get_rate_nolock: an orphan reports 0.
func getRateNolock(c *Clock) uint32 {
	if c == nil {
		return 0
	}
	if len(c.parentNames) == 0 || c.parent != nil {
		return c.rate
	}
	return 0
}

// recalc is clk_recalc: .recalc_rate, or the parent's rate for a clock without it.
func (fw *Framework) recalc(c *Clock, parentRate uint32) uint32 {
	r, ok := c.ops.(RateRecalcer)
	if !ok {
		return parentRate
	}
	rate, err := r.RecalcRate(hwOf(c), parentRate)
	fw.note(err)
	return rate
}

func (fw *Framework) recalcAccuracy(c *Clock) {
	var parentAcc uint32
	if c.parent != nil {
		parentAcc = c.parent.accuracy
	}
	if r, ok := c.ops.(AccuracyRecalcer); ok {
		acc, err := r.RecalcAccuracy(hwOf(c), parentAcc)
		fw.note(err)
		c.accuracy = acc
		return
	}
	c.accuracy = parentAcc
}

func prepend(list []*Clock, c *Clock) []*Clock {
	return append([]*Clock{c}, list...)
}

func without(list []*Clock, c *Clock) []*Clock {
	for i, x := range list {
		if x == c {
			return append(list[:i:i], list[i+1:]...)
		}
	}
	return list
}

// unlink is hlist_del(&core->child_node): out of whatever list holds the clock.
func (fw *Framework) unlink(c *Clock) {
	if c.parent != nil {
		c.parent.children = without(c.parent.children, c)
		return
	}
	fw.roots = without(fw.roots, c)
	fw.orphans = without(fw.orphans, c)
}

func updateOrphanStatus(c *Clock, orphan bool) {
	c.orphan = orphan
	for _, ch := range c.children {
		updateOrphanStatus(ch, orphan)
	}
}

// reparent is clk_reparent: move c under newParent (nil: onto the orphan list).
func (fw *Framework) reparent(c, newParent *Clock) {
	wasOrphan := c.orphan
	fw.unlink(c)
	if newParent != nil {
		if newParent.newChild == c {
			newParent.newChild = nil // avoid a second change_rate through new_child
		}
		newParent.children = prepend(newParent.children, c)
		if wasOrphan != newParent.orphan {
			updateOrphanStatus(c, newParent.orphan)
		}
	} else {
		fw.orphans = prepend(fw.orphans, c)
		if !wasOrphan {
			updateOrphanStatus(c, true)
		}
	}
	c.parent = newParent
}

// recalcRates is __clk_recalc_rates for c's subtree.
func (fw *Framework) recalcRates(c *Clock) {
	var parentRate uint32
	if c.parent != nil {
		parentRate = c.parent.rate
	}
	c.rate = fw.recalc(c, parentRate)
	for _, ch := range append([]*Clock(nil), c.children...) {
		fw.recalcRates(ch)
	}
}

func checkOpsSanity(name string, ops Ops, numParents int) error {
	_, setRate := ops.(RateSetter)
	_, round := ops.(RateRounder)
	_, determine := ops.(RateDeterminer)
	_, recalc := ops.(RateRecalcer)
	_, setParent := ops.(ParentSetter)
	_, getParent := ops.(ParentGetter)
	switch {
	case setRate && !((round || determine) && recalc):
		return fmt.Errorf("%s must implement .round_rate or .determine_rate in addition to .recalc_rate: %w", name, ErrInvalid)
	case setParent && !getParent:
		return fmt.Errorf("%s must implement .get_parent & .set_parent: %w", name, ErrInvalid)
	case numParents > 1 && !getParent:
		return fmt.Errorf("%s must implement .get_parent as it has multi parents: %w", name, ErrInvalid)
	}
	return nil
}

// Register is clk_hw_register + __clk_core_init: it validates the clock, runs its
// .init, finds its parent (or makes it an orphan), caches its rate, enables it if
// it is critical, and then gives every orphan that can now find its parent that
// parent.
func (fw *Framework) Register(init Init, ops Ops) (*Clock, error) {
	ops, err := checkRegistration(init, ops)
	if err != nil {
		return nil, err
	}

	fw.mu.Lock()
	defer fw.mu.Unlock()
	fw.opErr = nil
	if _, dup := fw.byName[init.Name]; dup {
		return nil, fmt.Errorf("register %s: %w", init.Name, ErrExist)
	}
	if len(fw.byName) >= MaxClocks {
		return nil, fmt.Errorf("register %s: more than %d clocks: %w", init.Name, MaxClocks, ErrInvalid)
	}
	c := &Clock{
		fw:          fw,
		name:        init.Name,
		ops:         ops,
		flags:       init.Flags,
		parentNames: append([]string(nil), init.ParentNames...),
		parentCache: make([]*Clock, len(init.ParentNames)),
		maxRate:     math.MaxUint32,
	}
	if in, ok := ops.(Initializer); ok {
		if err := in.Init(hwOf(c)); err != nil {
			return nil, fw.finish(fmt.Errorf("register %s: init: %w", c.name, err))
		}
	}
	c.parent = fw.initParent(c)
	if fw.opErr != nil {
		return nil, fw.finish(fmt.Errorf("register %s: read parent", c.name))
	}
	fw.link(c)
	fw.initRate(c)
	if err := fw.enableCritical(c); err != nil {
		fw.drop(c)
		return nil, fw.finish(err)
	}
	if fw.opErr != nil {
		fw.drop(c)
		return nil, fw.finish(fmt.Errorf("register %s", c.name))
	}
	fw.reparentOrphans()
	return c, fw.finish(nil)
}

// checkRegistration validates a clock before the framework is locked and returns the
// ops it will run (a selector's choice).
func checkRegistration(init Init, ops Ops) (Ops, error) {
	if err := init.validate(); err != nil {
		return nil, fmt.Errorf("register clock: %w", err)
	}
	if ops == nil {
		return nil, fmt.Errorf("register %s: no ops: %w", init.Name, ErrInvalid)
	}
	if s, ok := ops.(opsSelector); ok {
		ops = s.selectOps()
	}
	if v, ok := ops.(Validator); ok {
		if err := v.Validate(); err != nil {
			return nil, fmt.Errorf("register %s: %w", init.Name, err)
		}
	}
	if err := checkOpsSanity(init.Name, ops, len(init.ParentNames)); err != nil {
		return nil, fmt.Errorf("register: %w", err)
	}
	return ops, nil
}

// link puts a new clock under its parent, among the roots, or among the orphans, and
// makes it findable by name; unlink and drop undo it.
func (fw *Framework) link(c *Clock) {
	switch {
	case c.parent != nil:
		c.parent.children = prepend(c.parent.children, c)
		c.orphan = c.parent.orphan
	case len(c.parentNames) == 0:
		fw.roots = prepend(fw.roots, c)
	default:
		fw.orphans = prepend(fw.orphans, c)
		c.orphan = true
	}
	fw.byName[c.name] = c
}

// initRate caches a new clock's accuracy and rate: its .recalc_rate, or its parent's
// rate without one.
func (fw *Framework) initRate(c *Clock) {
	fw.recalcAccuracy(c)
	if _, ok := c.ops.(RateRecalcer); ok {
		c.rate = fw.recalc(c, getRateNolock(c.parent))
	} else if c.parent != nil {
		c.rate = c.parent.rate
	}
	c.reqRate = c.rate
}

// enableCritical prepares and enables a CLK_IS_CRITICAL clock; on failure nothing of
// it stays prepared or enabled.
func (fw *Framework) enableCritical(c *Clock) error {
	if c.flags&IsCritical == 0 {
		return nil
	}
	if err := fw.prepare(c); err != nil {
		return fmt.Errorf("register %s: prepare critical clock: %w", c.name, err)
	}
	if err := fw.enable(c); err != nil {
		fw.unprepare(c)
		return fmt.Errorf("register %s: enable critical clock: %w", c.name, err)
	}
	return nil
}

// drop undoes a failed registration (the `unlock:` path of __clk_core_init).
func (fw *Framework) drop(c *Clock) {
	fw.unlink(c)
	delete(fw.byName, c.name)
	c.gone = true
}

// reparentOrphans is clk_core_reparent_orphans_nolock.
func (fw *Framework) reparentOrphans() {
	for _, o := range append([]*Clock(nil), fw.orphans...) {
		parent := fw.initParent(o)
		if parent == nil {
			continue
		}
		fw.setParentBefore(o, parent)
		fw.setParentAfter(o, nil)
		fw.recalcAccuracy(o)
		fw.recalcRates(o)
		o.reqRate = o.rate
	}
}

// Unregister is clk_unregister, used when a probe fails: the clock's children
// become orphans, every cached reference to it is dropped and later calls with it
// fail with ErrNoDevice. Unlike Linux, the children are moved to the orphan list
// directly rather than through clk_set_parent(child, NULL).
func (fw *Framework) Unregister(c *Clock) error { return fw.locked(c, fw.unregister) }

func (fw *Framework) unregister(c *Clock) error {
	if c.prepareCount > 0 {
		fw.warnf("unregistering prepared clock: %s", c.name)
	}
	for _, ch := range append([]*Clock(nil), c.children...) {
		fw.reparent(ch, nil)
		fw.recalcRates(ch)
	}
	for _, other := range fw.byName {
		for i, p := range other.parentCache {
			if p == c {
				other.parentCache[i] = nil
			}
		}
	}
	fw.drop(c)
	return nil
}
