package lifecycle_test

import (
	"errors"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/domain/lifecycle"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// The recovery tools: resize_window, respawn_pane, search_panes and
// display, on the layout of lifecycle_test.go.

func TestResizeWindowReportsTheWindowWithTheSizeItGot(t *testing.T) {
	l := newLayout(t)
	w, err := l.life.ResizeWindow(l.ctx, lifecycle.ResizeWindowRequest{WindowID: "@0", Width: 200})
	if err != nil {
		t.Fatal(err)
	}
	if w.ID != "@0" || w.Width != 200 || w.Height != 40 || w.Panes != 2 || w.Session.Name != "work" {
		t.Errorf("ResizeWindow(width 200) = %+v, want @0 of work at 200x40, the height kept", w)
	}
	for _, id := range []ports.PaneID{l.top, l.bottom} {
		if info, err := l.term.Pane(l.ctx, id); err != nil || info.Width != 200 {
			t.Errorf("pane %s after the resize = %+v, %v; want 200 columns, as a write sees it", id, info, err)
		}
	}
	if info, _ := l.term.Pane(l.ctx, l.logs); info.Width != 100 {
		t.Errorf("pane %s of another window = %d columns, want its 100 kept", l.logs, info.Width)
	}
}

func TestResizeWindowChecksItsArgumentsBeforeTheBackend(t *testing.T) {
	life, _ := mockBackend(t) // any call would fail the test
	bad := []lifecycle.ResizeWindowRequest{
		{Width: 80},                 // no window
		{WindowID: "@0"},            // no size
		{WindowID: "@0", Width: -1}, // negative
		{WindowID: "@0", Height: lifecycle.MaxPaneCells + 1}, // too tall
	}
	for _, req := range bad {
		if _, err := life.ResizeWindow(t.Context(), req); !errors.Is(err, fault.ErrInvalidArgument) {
			t.Errorf("ResizeWindow(%+v): err = %v, want an argument error", req, err)
		}
	}
	l := newLayout(t)
	if _, err := l.life.ResizeWindow(l.ctx, lifecycle.ResizeWindowRequest{WindowID: "@9", Width: 80}); !errors.Is(err, ports.ErrNotFound) {
		t.Errorf("ResizeWindow(@9): err = %v, want ErrNotFound", err)
	}
}
