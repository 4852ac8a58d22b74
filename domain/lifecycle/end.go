package lifecycle

import (
	"context"
	"errors"
	"fmt"

	"github.com/tmux-mcp/tmux-mcp/domain/policy"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// ClearPaneScrollback discards the pane's history, the rows above its
// screen. It is a write: the pane is held for the call and checked as
// policy.End says.
//
// Errors: *fault.BusyError when another writer holds the pane;
// *fault.RefusalError when the policy forbids it; wrapped ports errors
// (ErrPaneNotFound).
func (s *Service) ClearPaneScrollback(ctx context.Context, req ClearScrollbackRequest) (ClearScrollbackResult, error) {
	r, err := require("clear_pane_scrollback", s.b.Remover)
	if err != nil {
		return ClearScrollbackResult{}, err
	}
	var cleared int
	_, err = s.end(ctx, []ports.PaneID{req.PaneID}, req.Force, false, "clear_pane_scrollback",
		"clear_pane_scrollback would discard its history",
		func(infos []ports.PaneInfo) error {
			if len(infos) == 0 {
				return fmt.Errorf("clear the history of pane %s: %w", req.PaneID, ports.ErrPaneNotFound)
			}
			cleared = infos[0].HistorySize
			return r.ClearHistory(ctx, req.PaneID) // named by the port, with the pane
		})
	if err != nil {
		return ClearScrollbackResult{}, err
	}
	return ClearScrollbackResult{PaneID: req.PaneID, ClearedLines: cleared}, nil
}

// KillPane ends the pane's process and removes the pane, after checking it
// as policy.End says.
//
// Errors: *fault.BusyError when another writer holds the pane;
// *fault.RefusalError when the policy forbids ending it; wrapped ports
// errors (ErrPaneNotFound). Nothing is killed when an error returns
// before the multiplexer was asked to.
func (s *Service) KillPane(ctx context.Context, req KillPaneRequest) (KillResult, error) {
	r, err := require("kill_pane", s.b.Remover)
	if err != nil {
		return KillResult{}, err
	}
	killed, err := s.end(ctx, []ports.PaneID{req.PaneID}, req.Force, req.Force, "kill_pane", "kill_pane would end it",
		func([]ports.PaneInfo) error { return r.KillPane(ctx, req.PaneID) })
	if err != nil {
		return KillResult{}, err
	}
	return KillResult{Killed: killed}, nil
}

// KillWindow removes the window and ends its panes, after checking every
// one of them as policy.End says.
//
// Errors: *fault.ArgumentError for an empty window; *fault.BusyError when
// another writer holds one of its panes; *fault.RefusalError naming the
// first pane the policy forbids ending; wrapped ports errors
// (ErrNotFound). Nothing is killed when any pane is refused.
func (s *Service) KillWindow(ctx context.Context, req KillWindowRequest) (KillResult, error) {
	r, err := require("kill_window", s.b.Remover)
	if err != nil {
		return KillResult{}, err
	}
	l, err := require("kill_window", s.b.Lister)
	if err != nil {
		return KillResult{}, err
	}
	if err := checkRef("windowId", req.WindowID); err != nil {
		return KillResult{}, err
	}
	panes, err := l.ListPanes(ctx, ports.PaneFilter{Window: req.WindowID})
	if err != nil {
		return KillResult{}, fmt.Errorf("kill window %s: %w", req.WindowID, err)
	}
	killed, err := s.end(ctx, paneIDs(panes), req.Force, req.Force, "kill_window "+req.WindowID,
		"kill_window "+req.WindowID+" would end it", func([]ports.PaneInfo) error { return r.KillWindow(ctx, req.WindowID) })
	if err != nil {
		return KillResult{}, err
	}
	return KillResult{Killed: killed, WindowID: req.WindowID}, nil
}

// KillSession removes the session and ends the panes of its windows, after
// checking every one of them as policy.End says. (A window linked into
// another session too outlives it, but its panes are checked all the
// same.)
//
// Errors: *fault.ArgumentError for an empty session; *fault.BusyError when
// another writer holds one of its panes; *fault.RefusalError naming the
// first pane the policy forbids ending; wrapped ports errors
// (ErrNotFound). Nothing is killed when any pane is refused.
func (s *Service) KillSession(ctx context.Context, req KillSessionRequest) (KillResult, error) {
	r, err := require("kill_session", s.b.Remover)
	if err != nil {
		return KillResult{}, err
	}
	l, err := require("kill_session", s.b.Lister)
	if err != nil {
		return KillResult{}, err
	}
	if err := checkRef("session", req.Session); err != nil {
		return KillResult{}, err
	}
	// Everything after this goes by id, which no rename can change.
	sess, err := findSession(ctx, l, req.Session)
	if err != nil {
		return KillResult{}, err
	}
	panes, err := l.ListPanes(ctx, ports.PaneFilter{Session: sess.ID})
	if err != nil {
		return KillResult{}, fmt.Errorf("kill session %s: %w", req.Session, err)
	}
	what := fmt.Sprintf("kill_session %s (%q)", sess.ID, sess.Name)
	killed, err := s.end(ctx, paneIDs(panes), req.Force, req.Force, what, what+" would end it",
		func([]ports.PaneInfo) error { return r.KillSession(ctx, sess.ID) })
	if err != nil {
		return KillResult{}, err
	}
	return KillResult{Killed: killed, Session: sess.SessionRef}, nil
}

// end holds every pane for holder, checks each as policy.End says (action
// is what the call would do to a pane) and, if none is refused, calls do
// with the descriptions of the panes that still exist. It returns those
// panes. Panes made after the listing are not checked: the kill tools
// check what the caller could have seen. Refusals and busy panes are
// returned as they are, like those of the other writes; do's errors carry
// the backend's own context. With takeOver, a pane that a command of
// run_shell_command of this process holds is not busy (see
// writers.Pool.HoldAll): the kills take it when told to with force, since
// a command that ignores its interrupts would otherwise keep the pane for
// good; that command's call, or wait_for_command, then reports the pane's
// end.
func (s *Service) end(ctx context.Context, panes []ports.PaneID, force, takeOver bool, holder, action string, do func([]ports.PaneInfo) error) ([]ports.PaneID, error) {
	holds, err := s.writers.HoldAll(ctx, panes, holder, takeOver)
	if err != nil {
		return nil, err
	}
	defer holds.Release()
	var infos []ports.PaneInfo
	ended := make([]ports.PaneID, 0, len(panes))
	for _, id := range panes {
		info, err := s.panes.Pane(ctx, id)
		switch {
		case errors.Is(err, ports.ErrPaneNotFound):
			continue // gone already: nothing to protect
		case err != nil:
			return nil, err
		}
		if err := policy.Check(info, policy.End, force, action); err != nil {
			return nil, err
		}
		infos = append(infos, info)
		ended = append(ended, id)
	}
	if err := do(infos); err != nil {
		return nil, err
	}
	return ended, nil
}

func paneIDs(panes []ports.PaneSummary) []ports.PaneID {
	ids := make([]ports.PaneID, len(panes))
	for i, p := range panes {
		ids[i] = p.ID
	}
	return ids
}
