package domain_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
	"github.com/tmux-mcp/tmux-mcp/domain"
)

// A cursor at the very start of a pane's output, before its program wrote
// anything, is as good as any other.
func TestACursorAtTheStartOfAPanesOutputReadsFromThere(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.pane = r.term.AddPane(fake.PaneSpec{Command: "sleep"}) // no shell, no prompt: nothing written yet
	c := *since(t, r, "", 0).Cursor
	r.term.Inject(r.pane, []byte("first words\r\n"))
	if res := since(t, r, c, 0); res.Text != "first words\n" || res.MissedBytes != 0 {
		t.Errorf("from the first cursor: %+v; want the first words", res)
	}
}

// One capture_since call reads at most 8 MiB: of more it keeps the newest,
// says rangeClamped and counts what it skipped in omittedBytes, and its
// cursor is at the end of all it was given. 8 MiB exactly is read whole.
func TestCaptureSinceReadsAtMost8MiB(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.pane = r.term.AddPane(fake.PaneSpec{Command: "sleep", OutputWindow: 9 << 20})
	for _, c := range []struct {
		name    string
		size    int
		clamped bool
	}{
		{"8 MiB", 8 << 20, false},
		{"a byte more", 8<<20 + 1, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			from := *since(t, r, "", 0).Cursor
			r.term.Inject(r.pane, bytes.Repeat([]byte("x"), c.size)) // one line, over the byte ceiling
			res := since(t, r, from, 0)
			if res.RangeClamped != c.clamped || !res.ByteClamped || res.ReturnedBytes+res.OmittedBytes != int64(c.size) || res.MissedBytes != 0 {
				t.Errorf("rangeClamped %v, %d bytes returned and %d omitted, %d missed; want rangeClamped %v and all %d bytes accounted for",
					res.RangeClamped, res.ReturnedBytes, res.OmittedBytes, res.MissedBytes, c.clamped, c.size)
			}
			if next := since(t, r, *res.Cursor, 0); next.Text != "" || next.MissedBytes != 0 {
				t.Errorf("the cursor it returned is not at the end: the next call reads %d bytes", len(next.Text))
			}
		})
	}
}

// byteClamped says that the byte ceiling shortened the text, and only
// then.
func TestCaptureSinceSaysByteClampedOnlyWhenTheCeilingCutTheText(t *testing.T) {
	cfg := domain.DefaultConfig()
	cfg.MaxResultBytes = 10
	r := newRig(t, cfg)
	c := *since(t, r, "", 0).Cursor
	r.term.Inject(r.pane, []byte("fits\r\n"))
	res := since(t, r, c, 0)
	if res.Text != "fits\n" || res.ByteClamped || res.OmittedBytes != 0 {
		t.Errorf("text that fits: %+v; want it whole, not byteClamped", res)
	}
	r.term.Inject(r.pane, []byte("does not fit\r\n"))
	if res := since(t, r, *res.Cursor, 0); res.Text != "s not fit\n" || !res.ByteClamped || res.OmittedBytes != 3 {
		t.Errorf("text over the ceiling: %+v; want its last 10 bytes, byteClamped, 3 omitted", res)
	}
}

// Only output lost is an event: calls that read all there was tell the
// operator nothing.
func TestCallsThatLoseNoOutputTellNoLoss(t *testing.T) {
	var h heard
	r := newRig(t, domain.DefaultConfig(), domain.WithEvents(h.hear))
	c := *since(t, r, "", 0).Cursor
	r.term.Inject(r.pane, []byte("all there\r\n"))
	since(t, r, c, 0)
	reply := waitText(r, context.Background(), domain.WaitForTextRequest{Patterns: []string{"done"}})
	r.waitTimers(1)
	r.term.Inject(r.pane, []byte("done\r\n"))
	received(t, reply, "wait_for_text")
	r.run(domain.RunRequest{Command: "echo hi"})
	if lost := h.of(domain.EventOutputLost); len(lost) != 0 {
		t.Errorf("events %+v; want none about lost output", lost)
	}
}
