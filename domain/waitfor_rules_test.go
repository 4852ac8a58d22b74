package domain_test

import (
	"context"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/domain"
)

// A cursor at the end of the output, as capture_since just returned it,
// is where wait_for_text waits from: for what comes next.
func TestWaitForTextFromACursorAtTheEndWaitsForWhatComesNext(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.term.Inject(r.pane, []byte("before\r\n"))
	c := *since(t, r, "", 0).Cursor
	reply := waitText(r, context.Background(), domain.WaitForTextRequest{Patterns: []string{"next"}, Cursor: c})
	r.waitTimers(1)
	r.term.Inject(r.pane, []byte("next\r\n"))
	if res := received(t, reply, "wait_for_text"); res.Outcome != domain.WaitMatched || res.Output != "next\n" {
		t.Errorf("got %+v; want matched on what came after the cursor", res)
	}
}

// screenClamped says that maxLines or the byte ceiling trimmed the screen
// that wait_for_text returns, and only then.
func TestWaitForTextSaysScreenClampedOnlyWhenTheScreenWasTrimmed(t *testing.T) {
	for _, c := range []struct {
		name     string
		maxBytes int
		maxLines int64
		clamped  bool
	}{
		{"the whole screen", 0, 0, false},
		{"maxLines", 0, 2, true},
		{"the byte ceiling", 10, 0, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := domain.DefaultConfig()
			if c.maxBytes > 0 {
				cfg.MaxResultBytes = c.maxBytes
			}
			r := newRig(t, cfg)
			r.fill(5)
			reply := waitText(r, context.Background(), domain.WaitForTextRequest{Patterns: []string{"go"}, MaxLines: c.maxLines})
			r.waitTimers(1)
			r.term.Inject(r.pane, []byte("go\r\n"))
			if res := received(t, reply, "wait_for_text"); res.Outcome != domain.WaitMatched || res.ScreenClamped != c.clamped {
				t.Errorf("outcome %s, screenClamped %v, screen %q; want matched, screenClamped %v", res.Outcome, res.ScreenClamped, res.Screen, c.clamped)
			}
		})
	}
}
