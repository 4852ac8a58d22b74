package fake_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

var epoch = time.Date(2030, 6, 1, 12, 0, 0, 0, time.UTC)

var _ ports.Clock = (*fake.Clock)(nil)

// fired returns the time a timer fired with, and false if it has not.
func fired(tm ports.Timer) (time.Time, bool) {
	select {
	case at := <-tm.C():
		return at, true
	default:
		return time.Time{}, false
	}
}

func TestClockReadsItsTimeUntilMoved(t *testing.T) {
	c := fake.NewClock(epoch)
	if got := c.Now(); !got.Equal(epoch) {
		t.Fatalf("Now() = %v, want %v", got, epoch)
	}
	c.Advance(90 * time.Second)
	if got, want := c.Now(), epoch.Add(90*time.Second); !got.Equal(want) {
		t.Errorf("after Advance(90s) Now() = %v, want %v", got, want)
	}
	c.Set(epoch.Add(-time.Hour))
	if got, want := c.Now(), epoch.Add(-time.Hour); !got.Equal(want) {
		t.Errorf("after Set back Now() = %v, want %v", got, want)
	}
}

func TestTimerFiresOnlyOnceDue(t *testing.T) {
	c := fake.NewClock(epoch)
	tm := c.NewTimer(2 * time.Second)
	c.Advance(1999 * time.Millisecond)
	if _, ok := fired(tm); ok {
		t.Fatal("timer fired 1ms early")
	}
	c.Advance(time.Millisecond)
	at, ok := fired(tm)
	if !ok {
		t.Fatal("timer did not fire when due")
	}
	if want := epoch.Add(2 * time.Second); !at.Equal(want) {
		t.Errorf("timer sent %v, want its due time %v", at, want)
	}
	c.Advance(time.Hour)
	if _, ok := fired(tm); ok {
		t.Error("timer fired a second time")
	}
}

func TestTimerOfZeroOrLessFiresAtOnce(t *testing.T) {
	for _, d := range []time.Duration{0, -time.Second} {
		c := fake.NewClock(epoch)
		tm := c.NewTimer(d)
		if at, ok := fired(tm); !ok || !at.Equal(epoch) {
			t.Errorf("NewTimer(%v): fired = %v at %v, want at once at %v", d, ok, at, epoch)
		}
		if tm.Stop() {
			t.Errorf("NewTimer(%v): Stop after firing reported true", d)
		}
	}
}

func TestStoppedTimerNeverFires(t *testing.T) {
	c := fake.NewClock(epoch)
	tm := c.NewTimer(time.Second)
	if !tm.Stop() {
		t.Fatal("Stop of a pending timer reported false")
	}
	if tm.Stop() {
		t.Error("second Stop reported true")
	}
	c.Advance(time.Minute)
	if _, ok := fired(tm); ok {
		t.Error("stopped timer fired")
	}
	if n := c.PendingTimers(); n != 0 {
		t.Errorf("PendingTimers() = %d after Stop, want 0", n)
	}
}

func TestAdvanceFiresEveryTimerDueOnTheWay(t *testing.T) {
	c := fake.NewClock(epoch)
	late := c.NewTimer(3 * time.Second)
	early := c.NewTimer(time.Second)
	beyond := c.NewTimer(time.Minute)
	c.Advance(10 * time.Second)
	for name, w := range map[string]struct {
		tm ports.Timer
		at time.Duration
	}{"early": {early, time.Second}, "late": {late, 3 * time.Second}} {
		if at, ok := fired(w.tm); !ok || !at.Equal(epoch.Add(w.at)) {
			t.Errorf("%s: fired %v at %v, want at %v", name, ok, at, epoch.Add(w.at))
		}
	}
	if _, ok := fired(beyond); ok {
		t.Error("a timer due after the advance fired")
	}
	if got, want := c.Now(), epoch.Add(10*time.Second); !got.Equal(want) {
		t.Errorf("Now() = %v after Advance, want %v", got, want)
	}
}

// The order in which timers fire is observable through the fake terminal's
// scripted output, which runs inside Advance: steps scheduled out of order,
// or at one instant, print in due order and then in the order given.
func TestAdvanceRunsScheduledOutputInOrder(t *testing.T) {
	term := fake.New()
	id := term.AddPane(fake.PaneSpec{})
	term.Expect(id, fake.Run{
		Steps: []fake.Step{{At: 3 * time.Second, Output: "c"}, {At: time.Second, Output: "a"}, {At: 3 * time.Second, Output: "d"}, {At: 2 * time.Second, Output: "b"}},
		Delay: 5 * time.Second,
	})
	out := openStream(t, term, id)
	typeFramed(t, term, id, "x1", "make")
	term.Clock().Advance(time.Minute)
	if got, want := between(t, out, "x1"), "abcd"; got != want {
		t.Errorf("output = %q, want %q", got, want)
	}
}

func TestSetForwardFiresDueTimers(t *testing.T) {
	c := fake.NewClock(epoch)
	tm := c.NewTimer(time.Hour)
	c.Set(epoch.Add(59 * time.Minute))
	if _, ok := fired(tm); ok {
		t.Fatal("timer fired before due")
	}
	c.Set(epoch.Add(2 * time.Hour))
	if at, ok := fired(tm); !ok || !at.Equal(epoch.Add(time.Hour)) {
		t.Errorf("fired = %v at %v, want at %v", ok, at, epoch.Add(time.Hour))
	}
}

func TestAdvancePanicsOnNegativeDuration(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Advance(-1s) did not panic")
		}
	}()
	fake.NewClock(epoch).Advance(-time.Second)
}

// The pattern that keeps tests of waiting code free of sleeps: the test
// waits until the code under test has made its timer, then moves time.
func TestWaitForTimersLetsATestAdvanceOnceCodeWaits(t *testing.T) {
	c := fake.NewClock(epoch)
	done := make(chan time.Time)
	go func() {
		tm := c.NewTimer(30 * time.Second)
		done <- <-tm.C()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.WaitForTimers(ctx, 1); err != nil {
		t.Fatalf("WaitForTimers: %v", err)
	}
	c.Advance(30 * time.Second)
	if at := <-done; !at.Equal(epoch.Add(30 * time.Second)) {
		t.Errorf("the waiting code woke with %v, want %v", at, epoch.Add(30*time.Second))
	}
	if n := c.PendingTimers(); n != 0 {
		t.Errorf("PendingTimers() = %d after the timer fired, want 0", n)
	}
}

func TestWaitForTimersGivesUpWithItsContext(t *testing.T) {
	c := fake.NewClock(epoch)
	c.NewTimer(time.Second)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := c.WaitForTimers(ctx, 2); !errors.Is(err, context.Canceled) {
		t.Errorf("WaitForTimers(cancelled, 2) with 1 pending = %v, want context.Canceled", err)
	}
	if err := c.WaitForTimers(ctx, 1); err != nil {
		t.Errorf("WaitForTimers(cancelled, 1) with 1 pending = %v, want nil: the count is met", err)
	}
}

func TestBlockUntilReturnsOnceTimersArePending(t *testing.T) {
	c := fake.NewClock(epoch)
	go c.NewTimer(time.Second)
	go c.NewTimer(time.Second)
	c.BlockUntil(2)
	if n := c.PendingTimers(); n != 2 {
		t.Errorf("PendingTimers() = %d after BlockUntil(2), want 2", n)
	}
}

// The fake terminal's own scheduled output is not something a test waits
// for, so it does not count as a pending timer.
func TestScriptedOutputIsNotAPendingTimer(t *testing.T) {
	term := fake.New()
	id := term.AddPane(fake.PaneSpec{})
	term.Expect(id, fake.Run{Delay: time.Minute})
	typeFramed(t, term, id, "x1", "make")
	if n := term.Clock().PendingTimers(); n != 0 {
		t.Errorf("PendingTimers() = %d while a scripted command sleeps, want 0", n)
	}
}
