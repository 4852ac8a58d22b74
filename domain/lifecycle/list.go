package lifecycle

import (
	"context"
	"fmt"
	"slices"

	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// ListSessions describes every session.
//
// Errors: wrapped ports errors (ErrUnavailable, ErrUnsupported).
func (s *Service) ListSessions(ctx context.Context) (SessionList, error) {
	l, err := require("list_sessions", s.b.Lister)
	if err != nil {
		return SessionList{}, err
	}
	sessions, err := l.ListSessions(ctx)
	if err != nil {
		return SessionList{}, err // named by the port ("list sessions: …")
	}
	return SessionList{Sessions: nonNil(sessions)}, nil
}

// ListWindows describes the windows of one session, or of every session.
//
// Errors: wrapped ports errors (ErrNotFound for an unknown session).
func (s *Service) ListWindows(ctx context.Context, req ListWindowsRequest) (WindowList, error) {
	l, err := require("list_windows", s.b.Lister)
	if err != nil {
		return WindowList{}, err
	}
	windows, err := l.ListWindows(ctx, req.Session)
	if err != nil {
		return WindowList{}, err // named by the port, with the session
	}
	return WindowList{Windows: nonNil(windows)}, nil
}

// ListPanes describes the panes of one session, of one window, or all of
// them, each with what of this server holds it (Busy).
//
// Errors: *fault.ArgumentError for both a session and a window; wrapped
// ports errors (ErrNotFound for an unknown session or window).
func (s *Service) ListPanes(ctx context.Context, req ListPanesRequest) (PaneList, error) {
	l, err := require("list_panes", s.b.Lister)
	if err != nil {
		return PaneList{}, err
	}
	if req.Session != "" && req.Window != "" {
		return PaneList{}, &fault.ArgumentError{Field: "windowId", Reason: "cannot be given together with session; give one of them or neither"}
	}
	panes, err := l.ListPanes(ctx, ports.PaneFilter{Session: req.Session, Window: req.Window})
	if err != nil {
		return PaneList{}, err // named by the port, with the session or window
	}
	out := PaneList{Panes: make([]Pane, 0, len(panes))}
	for _, p := range panes {
		out.Panes = append(out.Panes, s.paneOf(p))
	}
	return out, nil
}

// GetPaneInfo describes one pane: where it is, what it runs, and the facts
// a write to it is checked against, taken from the same description of
// the pane a write would use.
//
// Errors: wrapped ports errors (ErrPaneNotFound).
func (s *Service) GetPaneInfo(ctx context.Context, req PaneRequest) (PaneDetails, error) {
	l, err := require("get_pane_info", s.b.Lister)
	if err != nil {
		return PaneDetails{}, err
	}
	p, err := s.listPane(ctx, l, req.PaneID)
	if err != nil {
		return PaneDetails{}, err
	}
	info, err := s.panes.Pane(ctx, req.PaneID)
	if err != nil {
		return PaneDetails{}, err
	}
	d := PaneDetails{
		Pane:         p,
		Mode:         info.Mode,
		HistorySize:  info.HistorySize,
		HistoryLimit: info.HistoryLimit,
		AlsoReaches:  nonNil(info.AlsoReaches),
		Attended:     info.Attended,
	}
	d.Dead, d.Command, d.Width, d.Height = info.Dead, running(info.Program, info.Command), info.Width, info.Height
	d.Watchers, d.Self = nonNil(info.Watchers), info.Self
	for _, f := range info.Unknown {
		if !slices.Contains(d.Unknown, f) {
			d.Unknown = append(d.Unknown, f)
		}
	}
	return d, nil
}

// GetServerInfo describes the multiplexer server.
//
// Errors: wrapped ports errors (ErrUnavailable).
func (s *Service) GetServerInfo(ctx context.Context) (ports.ServerInfo, error) {
	l, err := require("get_server_info", s.b.Lister)
	if err != nil {
		return ports.ServerInfo{}, err
	}
	info, err := l.ServerInfo(ctx)
	if err != nil {
		return ports.ServerInfo{}, err // named by the port
	}
	return info, nil
}

// paneOf decorates a listing entry with what holds the pane here.
func (s *Service) paneOf(p ports.PaneSummary) Pane {
	holder, _, _ := s.writers.Lookup(p.ID)
	p.Watchers = nonNil(p.Watchers)
	p.Command = running(p.Program, p.Command)
	return Pane{PaneSummary: p, Busy: holder}
}

// running is the foreground program as the tools report it: what runs
// (program) where the backend can tell, and only otherwise the name it
// was started under, which its starter chose (`exec -a bash python3`).
func running(program, name string) string {
	if program != "" {
		return program
	}
	return name
}

// listPane returns the listing entry of one pane.
func (s *Service) listPane(ctx context.Context, l ports.Lister, id ports.PaneID) (Pane, error) {
	panes, err := l.ListPanes(ctx, ports.PaneFilter{Pane: id})
	if err != nil {
		return Pane{}, err
	}
	for _, p := range panes {
		if p.ID == id {
			return s.paneOf(p), nil
		}
	}
	return Pane{}, fmt.Errorf("describe pane %s: %w", id, ports.ErrPaneNotFound)
}

// findSession returns the session whose id, or else whose name, is ref.
func findSession(ctx context.Context, l ports.Lister, ref string) (ports.SessionInfo, error) {
	sessions, err := l.ListSessions(ctx)
	if err != nil {
		return ports.SessionInfo{}, fmt.Errorf("find session %s: %w", ref, err)
	}
	if i := slices.IndexFunc(sessions, func(s ports.SessionInfo) bool { return s.ID == ref }); i >= 0 {
		return sessions[i], nil
	}
	if i := slices.IndexFunc(sessions, func(s ports.SessionInfo) bool { return s.Name == ref }); i >= 0 {
		return sessions[i], nil
	}
	return ports.SessionInfo{}, fmt.Errorf("find session %s: %w", ref, ports.ErrNotFound)
}

// findWindow returns the window with id, as first listed.
func findWindow(ctx context.Context, l ports.Lister, id string) (ports.WindowInfo, error) {
	windows, err := l.ListWindows(ctx, "")
	if err != nil {
		return ports.WindowInfo{}, fmt.Errorf("find window %s: %w", id, err)
	}
	if i := slices.IndexFunc(windows, func(w ports.WindowInfo) bool { return w.ID == id }); i >= 0 {
		return windows[i], nil
	}
	return ports.WindowInfo{}, fmt.Errorf("find window %s: %w", id, ports.ErrNotFound)
}
