package domain_test

import (
	"context"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
	"github.com/tmux-mcp/tmux-mcp/domain"
)

// A range that starts and ends at the same row is that row.
func TestCapturePaneOfARangeOfOneRowIsThatRow(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.fill(30) // the screen shows lines 8 to 30
	res, err := r.svc.CapturePane(context.Background(), domain.CaptureRequest{PaneID: r.pane, Start: i64(3), End: i64(3)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "line 11\n" || res.TotalLines != 1 || *res.EffectiveStart != 3 || *res.EffectiveEnd != 3 {
		t.Errorf("got %+v, text %q; want row 3 alone, line 11", res, res.Text)
	}
}

// One capture_pane call reads at most MaxCaptureRows rows: a range of
// that many is read whole, and a longer one keeps its newest rows and says
// rangeClamped.
func TestCapturePaneReadsAtMostMaxCaptureRowsRows(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.pane = r.term.AddPane(fake.PaneSpec{HistoryLimit: 2 * domain.MaxCaptureRows})
	// More rows than MaxCaptureRows in the history, and 24 on the screen.
	r.fill(domain.MaxCaptureRows + 100)
	const last = 23 // the screen's bottom row
	newest := int64(last - domain.MaxCaptureRows + 1)
	for _, c := range []struct {
		name    string
		start   int64
		clamped bool
	}{
		{"a range of MaxCaptureRows rows", newest, false},
		{"a row more", newest - 1, true},
		{"far more than the pane holds", -1 << 40, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := r.svc.CapturePane(context.Background(), domain.CaptureRequest{PaneID: r.pane, Start: i64(c.start), End: i64(last), MaxLines: 1})
			if err != nil {
				t.Fatal(err)
			}
			if res.RangeClamped != c.clamped || res.TotalLines != domain.MaxCaptureRows || *res.EffectiveStart != newest || *res.EffectiveEnd != last {
				t.Errorf("rangeClamped %v, %d rows from %d to %d; want rangeClamped %v, the newest %d rows, from %d to %d",
					res.RangeClamped, res.TotalLines, *res.EffectiveStart, *res.EffectiveEnd, c.clamped, domain.MaxCaptureRows, newest, last)
			}
		})
	}
}
