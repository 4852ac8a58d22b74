package lifecycle

import (
	"context"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/domain/frame"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// CreateSession starts a detached session and returns its first pane.
//
// Errors: *fault.ArgumentError for a bad name, command or size; wrapped
// ports errors (ErrNameInUse when a session has the name, ErrInvalidName
// for a name the backend would not store as given).
func (s *Service) CreateSession(ctx context.Context, req CreateSessionRequest) (ports.Created, error) {
	c, err := require("create_session", s.b.Creator)
	if err != nil {
		return ports.Created{}, err
	}
	if req.Name != "" {
		if err := checkName("name", req.Name); err != nil {
			return ports.Created{}, err
		}
	}
	if req.Command != "" {
		if err := checkCommand("command", req.Command); err != nil {
			return ports.Created{}, err
		}
	}
	if err := checkCells("width", req.Width); err != nil {
		return ports.Created{}, err
	}
	if err := checkCells("height", req.Height); err != nil {
		return ports.Created{}, err
	}
	created, err := c.CreateSession(ctx, ports.SessionSpec{Name: req.Name, Command: req.Command, Width: req.Width, Height: req.Height})
	if err != nil {
		return ports.Created{}, err // named by the port, with the name
	}
	if runsShell(req.Command) {
		s.created(created.Pane)
	}
	return created, nil
}

// runsShell reports whether a pane made to run command (empty: the
// default shell) runs a shell, whose start the pane tools wait for; a
// pane made for another program is that program's from the start.
func runsShell(command string) bool {
	words := strings.Fields(command)
	if len(words) == 0 {
		return true
	}
	_, ok := frame.ShellFor(words[0])
	return ok
}

// CreateWindow adds a window to a session, without making it the
// session's current window, and returns its pane.
//
// Errors: *fault.ArgumentError for a bad session or name; wrapped ports
// errors (ErrNotFound for an unknown session).
func (s *Service) CreateWindow(ctx context.Context, req CreateWindowRequest) (ports.Created, error) {
	c, err := require("create_window", s.b.Creator)
	if err != nil {
		return ports.Created{}, err
	}
	if err := checkRef("session", req.Session); err != nil {
		return ports.Created{}, err
	}
	if req.Name != "" {
		if err := checkName("name", req.Name); err != nil {
			return ports.Created{}, err
		}
	}
	created, err := c.CreateWindow(ctx, req.Session, req.Name)
	if err != nil {
		return ports.Created{}, err // named by the port, with the session
	}
	s.created(created.Pane)
	return created, nil
}

// SplitWindow divides a pane's area and returns the new pane, without
// making it the active pane.
//
// Errors: *fault.ArgumentError for a bad size; wrapped ports errors
// (ErrPaneNotFound).
func (s *Service) SplitWindow(ctx context.Context, req SplitWindowRequest) (ports.Created, error) {
	c, err := require("split_window", s.b.Creator)
	if err != nil {
		return ports.Created{}, err
	}
	if err := checkCells("size", req.Size); err != nil {
		return ports.Created{}, err
	}
	created, err := c.SplitWindow(ctx, req.PaneID, req.Vertical, req.Size)
	if err != nil {
		return ports.Created{}, err // named by the port, with the pane
	}
	s.created(created.Pane)
	return created, nil
}
