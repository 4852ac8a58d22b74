package lifecycle_test

import (
	"testing"

	"github.com/tmux-mcp/tmux-mcp/domain/lifecycle"
)

// The tools report the program that runs in front of a pane, not the name
// it was started under: `exec -a bash python3 -i -q` is reported as
// python3.11 wherever the backend can tell.
func TestThePaneToolsReportTheProgramThatRuns(t *testing.T) {
	l := newLayout(t)
	l.term.SetProgram(l.top, "python3.11") // tmux would still name it bash

	f, err := l.life.Display(l.ctx, lifecycle.PaneRequest{PaneID: l.top})
	if err != nil || f.Command != "python3.11" {
		t.Errorf("Display: command %q, %v; want python3.11", f.Command, err)
	}
	d, err := l.life.GetPaneInfo(l.ctx, lifecycle.PaneRequest{PaneID: l.top})
	if err != nil || d.Command != "python3.11" {
		t.Errorf("GetPaneInfo: command %q, %v; want python3.11", d.Command, err)
	}
	list, err := l.life.ListPanes(l.ctx, lifecycle.ListPanesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range list.Panes {
		want := "bash"
		if p.ID == l.top {
			want = "python3.11"
		}
		if p.Command != want {
			t.Errorf("ListPanes: %s runs %q, want %q", p.ID, p.Command, want)
		}
	}
}
