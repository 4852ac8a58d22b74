package lifecycle

import (
	"context"

	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// SelectPane makes the pane its window's active pane and describes it.
//
// Errors: wrapped ports errors (ErrPaneNotFound).
func (s *Service) SelectPane(ctx context.Context, req PaneRequest) (Pane, error) {
	a, err := require("select_pane", s.b.Arranger)
	if err != nil {
		return Pane{}, err
	}
	l, err := require("select_pane", s.b.Lister)
	if err != nil {
		return Pane{}, err
	}
	if err := a.SelectPane(ctx, req.PaneID); err != nil {
		return Pane{}, err // named by the port, with the pane
	}
	return s.listPane(ctx, l, req.PaneID)
}

// SelectWindow makes the window its session's current window and
// describes it.
//
// Errors: *fault.ArgumentError for an empty window; wrapped ports errors
// (ErrNotFound).
func (s *Service) SelectWindow(ctx context.Context, req SelectWindowRequest) (ports.WindowInfo, error) {
	a, err := require("select_window", s.b.Arranger)
	if err != nil {
		return ports.WindowInfo{}, err
	}
	l, err := require("select_window", s.b.Lister)
	if err != nil {
		return ports.WindowInfo{}, err
	}
	if err := checkRef("windowId", req.WindowID); err != nil {
		return ports.WindowInfo{}, err
	}
	if err := a.SelectWindow(ctx, req.WindowID); err != nil {
		return ports.WindowInfo{}, err
	}
	return findWindow(ctx, l, req.WindowID)
}

// ResizePane asks for a new size and describes the pane with the size it
// got, which may be less than asked.
//
// Errors: *fault.ArgumentError for a bad size; wrapped ports errors
// (ErrPaneNotFound).
func (s *Service) ResizePane(ctx context.Context, req ResizePaneRequest) (Pane, error) {
	a, err := require("resize_pane", s.b.Arranger)
	if err != nil {
		return Pane{}, err
	}
	l, err := require("resize_pane", s.b.Lister)
	if err != nil {
		return Pane{}, err
	}
	if err := checkSize(req.Width, req.Height); err != nil {
		return Pane{}, err
	}
	if err := a.ResizePane(ctx, req.PaneID, req.Width, req.Height); err != nil {
		return Pane{}, err
	}
	return s.listPane(ctx, l, req.PaneID)
}

// ResizeWindow asks for a new window size and describes the window with
// the size it got. Its panes share the new size as the multiplexer lays
// them out.
//
// Errors: *fault.ArgumentError for an empty window or a bad size; wrapped
// ports errors (ErrNotFound).
func (s *Service) ResizeWindow(ctx context.Context, req ResizeWindowRequest) (ports.WindowInfo, error) {
	a, err := require("resize_window", s.b.Arranger)
	if err != nil {
		return ports.WindowInfo{}, err
	}
	l, err := require("resize_window", s.b.Lister)
	if err != nil {
		return ports.WindowInfo{}, err
	}
	if err := checkRef("windowId", req.WindowID); err != nil {
		return ports.WindowInfo{}, err
	}
	if err := checkSize(req.Width, req.Height); err != nil {
		return ports.WindowInfo{}, err
	}
	if err := a.ResizeWindow(ctx, req.WindowID, req.Width, req.Height); err != nil {
		return ports.WindowInfo{}, err
	}
	return findWindow(ctx, l, req.WindowID)
}

// checkSize accepts a resize's width and height: each a size in cells or
// left out (0), not both left out.
func checkSize(width, height int) error {
	if err := checkCells("width", width); err != nil {
		return err
	}
	if err := checkCells("height", height); err != nil {
		return err
	}
	if width == 0 && height == 0 {
		return &fault.ArgumentError{Field: "width", Reason: "and height are both missing; give at least one"}
	}
	return nil
}

// RenameSession gives a session a new name and describes it.
//
// Errors: *fault.ArgumentError for a bad session or name; wrapped ports
// errors (ErrNotFound, ErrNameInUse, ErrInvalidName).
func (s *Service) RenameSession(ctx context.Context, req RenameSessionRequest) (ports.SessionInfo, error) {
	r, err := require("rename_session", s.b.Renamer)
	if err != nil {
		return ports.SessionInfo{}, err
	}
	l, err := require("rename_session", s.b.Lister)
	if err != nil {
		return ports.SessionInfo{}, err
	}
	if err := checkRef("session", req.Session); err != nil {
		return ports.SessionInfo{}, err
	}
	if err := checkName("name", req.Name); err != nil {
		return ports.SessionInfo{}, err
	}
	// The id, not the name, survives the renaming.
	sess, err := findSession(ctx, l, req.Session)
	if err != nil {
		return ports.SessionInfo{}, err
	}
	if err := r.RenameSession(ctx, sess.ID, req.Name); err != nil {
		return ports.SessionInfo{}, err
	}
	return findSession(ctx, l, sess.ID)
}

// RenameWindow gives a window a new name and describes it.
//
// Errors: *fault.ArgumentError for a bad window or name; wrapped ports
// errors (ErrNotFound, ErrInvalidName).
func (s *Service) RenameWindow(ctx context.Context, req RenameWindowRequest) (ports.WindowInfo, error) {
	r, err := require("rename_window", s.b.Renamer)
	if err != nil {
		return ports.WindowInfo{}, err
	}
	l, err := require("rename_window", s.b.Lister)
	if err != nil {
		return ports.WindowInfo{}, err
	}
	if err := checkRef("windowId", req.WindowID); err != nil {
		return ports.WindowInfo{}, err
	}
	if err := checkName("name", req.Name); err != nil {
		return ports.WindowInfo{}, err
	}
	if err := r.RenameWindow(ctx, req.WindowID, req.Name); err != nil {
		return ports.WindowInfo{}, err
	}
	return findWindow(ctx, l, req.WindowID)
}
