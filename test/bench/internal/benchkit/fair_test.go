package benchkit

import (
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/domain/frame"
)

func TestFairRatioIsTheCallsMedianOverTheFloorsPlusThePings(t *testing.T) {
	ms := time.Millisecond
	r := fairRow{
		calls:  []time.Duration{9 * ms, 3 * ms, 4 * ms},
		floors: []time.Duration{1 * ms, 5 * ms, 1 * ms},
		pings:  []time.Duration{1 * ms, 1 * ms, 7 * ms},
	}
	if got := r.ratio(); got != 2 {
		t.Errorf("ratio = %v, want 4 ms / (1 ms + 1 ms) = 2", got)
	}
	if got := (fairRow{}).ratio(); got != 0 {
		t.Errorf("ratio of an empty row = %v, want 0", got)
	}
}

// The frame-part variants cut what they name out of the frame the server
// types; a part the frame no longer has is reported, not measured as if
// cut.
func TestFramePartsCutWhatTheyNameOrSayItIsGone(t *testing.T) {
	c := frame.Command{Shell: frame.ShellBash, IDs: frame.IDs{ID: "i1", Secret: "s1", Unread: "u1"}, Text: "true"}
	path := "/dev/shm/d/f"
	line, script := c.Line(frame.Files{Script: path}), string(c.Script(frame.Files{Script: path}))
	fallback := "[ -r '" + path + "' ] || builtin printf '\\033]7717;tmcp;X;u1\\007'; "
	l, s, ok := without("fallback", "", fallback).make(line, script)
	if !ok || strings.Contains(l, "[ -r") || s != script || len(l) != len(line)-len(fallback) {
		t.Errorf("without the fallback: %q, ok %v (line %q)", l, ok, line)
	}
	if _, _, ok := without("gone", "", "no such part").make(line, script); ok {
		t.Error("a part the frame lacks was reported cut")
	}
}
