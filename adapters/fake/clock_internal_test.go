package fake

import (
	"testing"
	"time"
)

// Callbacks show the order in which the clock fires: by due time, then in
// the order they were scheduled, each seeing its own due time as Now, and
// one scheduled during the advance fires in it if it falls due in time.
func TestClockFiresInDueThenSchedulingOrder(t *testing.T) {
	start := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	c := NewClock(start)
	type firing struct {
		name string
		at   time.Duration
	}
	var got []firing
	record := func(name string) func() {
		return func() { got = append(got, firing{name, c.Now().Sub(start)}) }
	}
	c.afterFunc(3*time.Second, record("third"))
	c.afterFunc(2*time.Second, record("second-a"))
	c.afterFunc(2*time.Second, record("second-b"))
	c.afterFunc(time.Second, func() {
		record("first")()
		c.afterFunc(500*time.Millisecond, record("chained"))
		c.afterFunc(time.Hour, record("too late"))
	})
	c.Advance(5 * time.Second)

	want := []firing{{"first", time.Second}, {"chained", 1500 * time.Millisecond}, {"second-a", 2 * time.Second}, {"second-b", 2 * time.Second}, {"third", 3 * time.Second}}
	if len(got) != len(want) {
		t.Fatalf("fired %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("firing %d = %v, want %v", i, got[i], want[i])
		}
	}
}

func TestStoppedCallbackDoesNotRun(t *testing.T) {
	c := NewClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	ran := false
	tm := c.afterFunc(time.Second, func() { ran = true })
	if !tm.Stop() {
		t.Fatal("Stop of a pending callback reported false")
	}
	c.Advance(time.Minute)
	if ran {
		t.Error("stopped callback ran")
	}
}
