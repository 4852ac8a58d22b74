package fake

import (
	"context"
	"sync"
	"time"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// Clock is a ports.Clock whose time moves only when a test moves it, with
// Advance or Set. Timers fire during those calls, in order of their due
// time (timers due at the same instant fire in the order they were made),
// and the clock reads each timer's due time while it fires.
//
// Code under test usually waits on a timer from another goroutine; a test
// calls WaitForTimers to learn that the code has made its timers before it
// moves time, so no test needs to sleep.
//
// Clock is safe for concurrent use. Advance and Set are serialized with
// each other.
type Clock struct {
	advancing sync.Mutex // serializes Advance and Set, so timers fire in order

	mu      sync.Mutex
	now     time.Time
	seq     uint64
	pending []*timer      // not yet fired nor stopped, in no particular order
	waiting int           // pending timers made by NewTimer
	changed chan struct{} // closed and replaced when waiting changes
}

// NewClock returns a Clock that reads start until it is moved.
func NewClock(start time.Time) *Clock {
	return &Clock{now: start, changed: make(chan struct{})}
}

// Now returns the clock's current time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// NewTimer returns a timer that fires once the clock has moved d past now.
// A d of zero or less fires at once.
func (c *Clock) NewTimer(d time.Duration) ports.Timer {
	t := &timer{clock: c, ch: make(chan time.Time, 1)}
	c.schedule(t, d)
	return t
}

// WithTimeout returns a copy of parent that is done once the clock has
// moved d past now (with context.DeadlineExceeded), or when parent is.
// Like the fake terminal's timers, and unlike NewTimer's, its timer is
// not counted by WaitForTimers: it bounds a call the code under test
// makes, and is not what the code waits on.
func (c *Clock) WithTimeout(parent context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	t := c.afterFunc(d, func() { cancel(context.DeadlineExceeded) })
	return deadlineCtx{ctx}, func() {
		t.Stop()
		cancel(context.Canceled)
	}
}

// deadlineCtx reports the cause of its end as its error, so that a
// context ended by the fake clock says context.DeadlineExceeded, as one
// ended by the system clock does.
type deadlineCtx struct{ context.Context }

func (d deadlineCtx) Err() error {
	if d.Context.Err() == nil {
		return nil
	}
	return context.Cause(d.Context)
}

// afterFunc calls f, without any of the clock's locks held, once the clock
// has moved d past now. Unlike NewTimer's timers these are not counted by
// WaitForTimers: the fake terminal schedules its scripted output with them,
// and a test waits for the code under test, not for the fake.
func (c *Clock) afterFunc(d time.Duration, f func()) *timer {
	t := &timer{clock: c, fn: f}
	c.schedule(t, d)
	return t
}

func (c *Clock) schedule(t *timer, d time.Duration) {
	c.mu.Lock()
	t.when = c.now.Add(d)
	c.seq++
	t.seq = c.seq
	if d <= 0 {
		now := c.now
		t.done = true
		c.mu.Unlock()
		t.fire(now)
		return
	}
	c.pending = append(c.pending, t)
	if t.ch != nil {
		c.setWaiting(c.waiting + 1)
	}
	c.mu.Unlock()
}

// Advance moves the clock d forward, firing every timer that falls due on
// the way. A timer made while Advance runs (by a callback, or by a goroutine
// woken by an earlier timer) fires in the same call if it falls due by the
// end. Advance panics if d is negative: use Set to move the clock back.
func (c *Clock) Advance(d time.Duration) {
	if d < 0 {
		panic("fake.Clock.Advance: negative duration")
	}
	c.advancing.Lock()
	defer c.advancing.Unlock()
	c.moveTo(c.Now().Add(d))
}

// Set moves the clock to t. Moving forward fires the timers due by t, as
// Advance does; moving back fires nothing, and timers keep their due times.
func (c *Clock) Set(t time.Time) {
	c.advancing.Lock()
	defer c.advancing.Unlock()
	c.moveTo(t)
}

func (c *Clock) moveTo(target time.Time) {
	for {
		c.mu.Lock()
		next := -1
		for i, t := range c.pending {
			if t.when.After(target) {
				continue
			}
			if next < 0 || t.before(c.pending[next]) {
				next = i
			}
		}
		if next < 0 {
			c.now = target
			c.mu.Unlock()
			return
		}
		t := c.pending[next]
		c.removeLocked(next)
		if t.when.After(c.now) {
			c.now = t.when
		}
		c.mu.Unlock()
		t.fire(t.when)
	}
}

// WaitForTimers blocks until at least n timers made by NewTimer are pending
// (made, not yet fired and not stopped), or ctx is done. Timers the fake
// terminal uses for scripted output are not counted.
func (c *Clock) WaitForTimers(ctx context.Context, n int) error {
	for {
		c.mu.Lock()
		waiting, changed := c.waiting, c.changed
		c.mu.Unlock()
		if waiting >= n {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// WaitForTimer blocks until a timer made by NewTimer is pending that is
// due d from now, or ctx is done: for tests that must know which of the
// code's timers is there before they move time.
func (c *Clock) WaitForTimer(ctx context.Context, d time.Duration) error {
	for {
		c.mu.Lock()
		found, changed := false, c.changed
		for _, t := range c.pending {
			if t.ch != nil && t.when.Equal(c.now.Add(d)) {
				found = true
			}
		}
		c.mu.Unlock()
		if found {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// BlockUntil is WaitForTimers without a way out: it waits as long as it
// takes for n timers to be pending. Prefer WaitForTimers with a deadline in
// tests, so that a bug shows as a failure rather than a hung test.
func (c *Clock) BlockUntil(n int) { _ = c.WaitForTimers(context.Background(), n) }

// PendingTimers returns how many timers made by NewTimer are pending.
func (c *Clock) PendingTimers() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.waiting
}

// removeLocked drops pending[i] and marks it done.
func (c *Clock) removeLocked(i int) {
	t := c.pending[i]
	last := len(c.pending) - 1
	c.pending[i] = c.pending[last]
	c.pending[last] = nil
	c.pending = c.pending[:last]
	t.done = true
	if t.ch != nil {
		c.setWaiting(c.waiting - 1)
	}
}

func (c *Clock) setWaiting(n int) {
	c.waiting = n
	close(c.changed)
	c.changed = make(chan struct{})
}

// timer is both a ports.Timer (ch set) and a callback (fn set).
type timer struct {
	clock *Clock
	when  time.Time
	seq   uint64
	ch    chan time.Time
	fn    func()
	done  bool // fired or stopped; guarded by clock.mu
}

func (t *timer) before(u *timer) bool {
	if !t.when.Equal(u.when) {
		return t.when.Before(u.when)
	}
	return t.seq < u.seq
}

func (t *timer) fire(now time.Time) {
	if t.fn != nil {
		t.fn()
		return
	}
	select {
	case t.ch <- now:
	default: // cannot happen: a timer fires once into a buffer of one
	}
}

// C returns the channel the timer's time is sent on when it fires.
func (t *timer) C() <-chan time.Time { return t.ch }

// Stop keeps the timer from firing and reports whether it did so; false
// means it had already fired or been stopped.
func (t *timer) Stop() bool {
	c := t.clock
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.done {
		return false
	}
	for i, p := range c.pending {
		if p == t {
			c.removeLocked(i)
			return true
		}
	}
	return false
}
