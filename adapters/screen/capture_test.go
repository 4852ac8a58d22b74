package screen

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

func TestCaptureFollowsTheRowConvention(t *testing.T) {
	s := newSession(t, Options{})
	id := s.window()
	s.typeLine(id, `clear; printf '\033[1mrow-%s\033[0m   \n' $(seq 1 40)`)
	s.waitRow(id, "row-40")
	var info ports.PaneInfo
	eventually(t, 10*time.Second, "the history to hold the rows that scrolled away", func() bool {
		var err error
		info, err = s.term.Pane(t.Context(), id)
		return err == nil && info.HistorySize > 0
	})
	hs, h := info.HistorySize, info.Height
	full, err := s.term.Capture(t.Context(), id, ports.CaptureRange{Start: -hs, End: h - 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(full) != hs+h {
		t.Fatalf("rows -%d..%d: %d rows, want %d", hs, h-1, len(full), hs+h)
	}
	// The screen ends with the prompt under row-40, so row-1 to row-40
	// are the 40 rows above it, blanks and escapes gone.
	last := slices.Index(full, "row-40")
	if last < 39 {
		t.Fatalf("row-40 at index %d of %q", last, full)
	}
	for i := 0; i < 40; i++ {
		if want := fmt.Sprintf("row-%d", i+1); full[last-39+i] != want {
			t.Errorf("row %d of the capture = %q, want %q", last-39+i-hs, full[last-39+i], want)
		}
	}
	for _, tc := range []struct{ start, end int }{{0, h - 1}, {-1, -1}, {-hs, -hs}, {-2, 1}} {
		got, err := s.term.Capture(t.Context(), id, ports.CaptureRange{Start: tc.start, End: tc.end})
		if want := full[hs+tc.start : hs+tc.end+1]; err != nil || !slices.Equal(got, want) {
			t.Errorf("rows %d..%d = %q, %v; want %q", tc.start, tc.end, got, err, want)
		}
	}
}

func TestCaptureCannotJoinWrappedRows(t *testing.T) {
	s := newSession(t, Options{})
	id := s.window()
	_, err := s.term.Capture(t.Context(), id, ports.CaptureRange{Start: 0, End: 1, JoinWrapped: true})
	if !errors.Is(err, ports.ErrUnsupported) {
		t.Errorf("Capture with JoinWrapped = %v, want an error wrapping ErrUnsupported", err)
	}
}
