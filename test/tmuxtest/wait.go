package tmuxtest

import (
	"testing"
	"time"
)

// Interval is how often Eventually and Poll look again.
const Interval = 10 * time.Millisecond

// Eventually waits until ok returns true, failing the test after timeout
// with what it waited for.
func Eventually(t testing.TB, timeout time.Duration, what string, ok func() bool) {
	t.Helper()
	if !Poll(timeout, ok) {
		t.Fatalf("gave up after %v waiting for %s", timeout, what)
	}
}

// Poll reports whether ok returns true within timeout, asking every
// Interval; it asks once more at the deadline.
func Poll(timeout time.Duration, ok func() bool) bool {
	deadline := time.After(timeout)
	tick := time.NewTicker(Interval)
	defer tick.Stop()
	for !ok() {
		select {
		case <-deadline:
			return ok()
		case <-tick.C:
		}
	}
	return true
}
