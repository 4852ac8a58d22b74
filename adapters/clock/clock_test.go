package clock_test

import (
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/adapters/clock"
)

func TestNowReadsTheSystemClock(t *testing.T) {
	before := time.Now()
	got := clock.New().Now()
	after := time.Now()
	if got.Before(before) || got.After(after) {
		t.Errorf("Now() = %v, want between %v and %v", got, before, after)
	}
}

func TestATimerOfZeroFiresAtOnce(t *testing.T) {
	tm := clock.New().NewTimer(0)
	if got := <-tm.C(); got.IsZero() {
		t.Error("fired with the zero time")
	}
	if tm.Stop() {
		t.Error("Stop() = true after the timer fired, want false")
	}
}

func TestStopKeepsATimerFromFiring(t *testing.T) {
	tm := clock.New().NewTimer(time.Hour)
	if !tm.Stop() {
		t.Fatal("first Stop() = false, want true")
	}
	if tm.Stop() {
		t.Error("second Stop() = true, want false")
	}
	select {
	case v := <-tm.C():
		t.Errorf("stopped timer fired with %v", v)
	default:
	}
}
