package domain_test

import (
	"context"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
	"github.com/tmux-mcp/tmux-mcp/domain"
)

// received returns what a call running in the background returned. Tests
// that wait for it never move the clock, so a call that keeps waiting
// instead of returning would hang the test; this fails it instead.
func received[T any](t *testing.T, reply <-chan T, call string) T {
	t.Helper()
	select {
	case res := <-reply:
		return res
	case <-time.After(10 * time.Second):
		t.Fatalf("%s never returned: the gap did not end its wait", call)
		var zero T
		return zero
	}
}

// A terminal may lose output and have nothing after the gap yet: a read
// then finds the gap alone, bytes missed and no data. Each call that
// follows output counts such a gap in missedBytes, once: the reader moves
// past it.
func TestAGapWithoutDataAfterItIsCountedAsMissed(t *testing.T) {
	ctx := context.Background()

	t.Run("run_shell_command", func(t *testing.T) {
		r := newRig(t, domain.DefaultConfig())
		r.term.Expect(r.pane, fake.Run{Output: "before\n", Hang: true})
		reply := r.runAsync(ctx, domain.RunRequest{Command: "flood", TimeoutMs: 1000})
		r.waitTimers(2)
		r.term.LoseOutput(r.pane, 500)
		r.clock.Advance(time.Second)
		got := r.await(reply)
		if got.err != nil || got.res.Outcome != domain.OutcomeTimedOut || got.res.MissedBytes != 500 || got.res.OutputComplete {
			t.Errorf("run = %+v, %v; want timed_out with 500 bytes missed, output incomplete", got.res, got.err)
		}
	})

	t.Run("wait_for_text", func(t *testing.T) {
		r := newRig(t, domain.DefaultConfig())
		reply := waitText(r, ctx, domain.WaitForTextRequest{Patterns: []string{"ready"}})
		r.waitTimers(1)
		r.term.LoseOutput(r.pane, 500)
		res := received(t, reply, "wait_for_text")
		if res.Outcome != domain.WaitOutputLost || res.MissedBytes != 500 || res.Output != "" {
			t.Fatalf("wait_for_text = %+v; want output_lost, 500 bytes missed, no output", res)
		}
		if after := since(t, r, res.Cursor, 0); after.MissedBytes != 0 {
			t.Errorf("its cursor is before the gap: capture_since from it misses %d bytes again", after.MissedBytes)
		}
	})

	t.Run("capture_since", func(t *testing.T) {
		r := newRig(t, domain.DefaultConfig())
		c := *since(t, r, "", 0).Cursor
		r.term.LoseOutput(r.pane, 300)
		res := since(t, r, c, 0)
		if res.MissedBytes != 300 || res.Text != "" {
			t.Fatalf("capture_since = %+v; want 300 bytes missed, no text", res)
		}
		if again := since(t, r, *res.Cursor, 0); again.MissedBytes != 0 {
			t.Errorf("the cursor it returned is before the gap: the next call misses %d bytes again", again.MissedBytes)
		}
	})

	t.Run("capture_since waiting", func(t *testing.T) {
		// A gap is news: a call waiting for output returns at once.
		r := newRig(t, domain.DefaultConfig())
		c := *since(t, r, "", 0).Cursor
		done := make(chan domain.CaptureSinceResult, 1)
		r.calls.start("capture_since", func() (any, error) { res := since(t, r, c, 5000); done <- res; return res, nil })
		r.waitTimers(1)
		r.term.LoseOutput(r.pane, 300)
		if res := received(t, done, "capture_since"); res.MissedBytes != 300 || res.Text != "" {
			t.Errorf("capture_since = %+v; want 300 bytes missed, no text, before the wait is over", res)
		}
	})
}
