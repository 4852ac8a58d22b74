package domain

import (
	"testing"

	"github.com/tmux-mcp/tmux-mcp/domain/frame"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

func TestShellsSeenAreRememberedByProcessWithinAGeneration(t *testing.T) {
	var ss shellsSeen
	if got := ss.seen("%1", "g1", 10); got != (shellSeen{}) {
		t.Fatalf("a shell never met: %+v", got)
	}
	ss.note("%1", "g1", 10, func(s *shellSeen) { s.editing = true })
	ss.note("%1", "g1", 11, func(s *shellSeen) { s.framed = true })
	if got := ss.seen("%1", "g1", 10); got != (shellSeen{editing: true}) {
		t.Errorf("shell 10: %+v", got)
	}
	if got := ss.seen("%1", "g1", 11); got != (shellSeen{framed: true}) {
		t.Errorf("shell 11, another process in the same pane: %+v", got)
	}
	if got := ss.seen("%2", "g1", 10); got != (shellSeen{}) {
		t.Errorf("the same pid in another pane: %+v", got)
	}
	// The pane's process replaced: what was seen of its shells is gone.
	if got := ss.seen("%1", "g2", 10); got != (shellSeen{}) {
		t.Errorf("after a respawn: %+v", got)
	}
	ss.note("%1", "g2", 12, func(s *shellSeen) { s.editing = true })
	if got := ss.seen("%1", "g1", 10); got != (shellSeen{}) {
		t.Errorf("the old generation after a new one was noted: %+v", got)
	}

	// Bounded: past maxShellsSeen shells, the pane's memory starts again;
	// a shell already known is updated in place.
	for pid := range maxShellsSeen - 1 {
		ss.note("%3", "g", 100+pid, func(s *shellSeen) { s.editing = true })
	}
	ss.note("%3", "g", 1000, func(s *shellSeen) { s.framed = true })
	ss.note("%3", "g", 100, func(s *shellSeen) { s.framed = true })
	if got := ss.seen("%3", "g", 100); got != (shellSeen{editing: true, framed: true}) {
		t.Errorf("a known shell at the bound: %+v", got)
	}
	ss.note("%3", "g", 2000, func(s *shellSeen) { s.editing = true })
	if got, now := ss.seen("%3", "g", 100), ss.seen("%3", "g", 2000); got != (shellSeen{}) || now != (shellSeen{editing: true}) {
		t.Errorf("past the bound: the oldest %+v, the newest %+v; want the memory started again", got, now)
	}
}

func TestShellPIDAndTheFirstZshFrame(t *testing.T) {
	fg := ports.Foreground{Group: 42}
	if shellPID(fg, false) != 42 || shellPID(fg, true) != 0 {
		t.Errorf("shellPID = %d, %d; want the group, and 0 when the backend cannot tell", shellPID(fg, false), shellPID(fg, true))
	}
	s := &Service{}
	ids := frame.IDs{ID: "a", Secret: "b", Unread: "c"}
	if c := s.frameFor("%1", "g", 42, frame.ShellZsh, ids, "ls"); !c.NoPreview || c.Text != "ls" || c.Shell != frame.ShellZsh || c.IDs != ids {
		t.Errorf("first zsh frame: %+v", c)
	}
	if c := s.frameFor("%1", "g", 42, frame.ShellBash, ids, "ls"); c.NoPreview {
		t.Errorf("first bash frame: %+v; bash deletes its line", c)
	}
	s.typed("%1", "g", 42)
	if c := s.frameFor("%1", "g", 42, frame.ShellZsh, ids, "ls"); c.NoPreview {
		t.Errorf("second zsh frame: %+v", c)
	}
	if c := s.frameFor("%1", "g", 43, frame.ShellZsh, ids, "ls"); !c.NoPreview {
		t.Errorf("another zsh in the pane: %+v", c)
	}
}
