package domain

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// The inspect and lifecycle tools: listings, creating, selecting, resizing,
// renaming, clearing and killing sessions, windows and panes, through a
// ports.Manager.
//
// Nothing a client passes reaches the multiplexer as something it would
// run or expand: ids must have their exact forms, and names are refused
// when they hold control characters, start with "-" or hold "#(", "#{" or
// "#[" (formats; "#(" runs a command). Killing and clearing are writes:
// every pane they would end or clear is reserved, leased and checked
// against the write policy first (see checkEnd), and nothing happens if
// one of them is refused.

// WithManager gives the Service the multiplexer's lifecycle half, for the
// inspect and lifecycle tools. Without it those tools fail with an error
// wrapping ports.ErrUnsupported.
func WithManager(m ports.Manager) Option { return func(s *Service) { s.manager = m } }

// Limits on what the lifecycle tools accept.
const (
	MaxNameBytes    = 256     // a session or window name
	MaxCommandBytes = 1 << 16 // create_session's command
	MaxPaneCells    = 10_000  // a width, height or split size
)

var (
	paneIDPattern    = regexp.MustCompile(`^%[0-9]+$`)
	windowIDPattern  = regexp.MustCompile(`^@[0-9]+$`)
	sessionIDPattern = regexp.MustCompile(`^\$[0-9]+$`)
)

func (s *Service) mgr(tool string) (ports.Manager, error) {
	if s.manager == nil {
		return nil, fmt.Errorf("%s: %w", tool, ports.ErrUnsupported)
	}
	return s.manager, nil
}

// ListSessions describes every session.
//
// Errors: wrapped ports errors (ErrUnavailable, ErrUnsupported).
func (s *Service) ListSessions(ctx context.Context) (SessionList, error) {
	m, err := s.mgr("list_sessions")
	if err != nil {
		return SessionList{}, err
	}
	sessions, err := m.ListSessions(ctx)
	if err != nil {
		return SessionList{}, fmt.Errorf("list sessions: %w", err)
	}
	return SessionList{Sessions: nonNil(sessions)}, nil
}

// ListWindows describes the windows of one session, or of every session.
//
// Errors: *ArgumentError for a malformed session; wrapped ports errors
// (ErrNotFound for an unknown session).
func (s *Service) ListWindows(ctx context.Context, req ListWindowsRequest) (WindowList, error) {
	m, err := s.mgr("list_windows")
	if err != nil {
		return WindowList{}, err
	}
	if req.Session != "" {
		if err := checkSessionRef("session", req.Session); err != nil {
			return WindowList{}, err
		}
	}
	windows, err := m.ListWindows(ctx, req.Session)
	if err != nil {
		if req.Session != "" {
			return WindowList{}, fmt.Errorf("list windows of session %s: %w", req.Session, err)
		}
		return WindowList{}, fmt.Errorf("list windows: %w", err)
	}
	return WindowList{Windows: nonNil(windows)}, nil
}

// ListPanes describes the panes of one session, of one window, or all of
// them, each with what of this server holds it (Busy).
//
// Errors: *ArgumentError for a malformed session or window, or both given;
// wrapped ports errors (ErrNotFound for an unknown session or window).
func (s *Service) ListPanes(ctx context.Context, req ListPanesRequest) (PaneList, error) {
	m, err := s.mgr("list_panes")
	if err != nil {
		return PaneList{}, err
	}
	var f ports.PaneFilter
	switch {
	case req.Session != "" && req.Window != "":
		return PaneList{}, &ArgumentError{Field: "window", Reason: "cannot be given together with session; give one of them or neither"}
	case req.Session != "":
		if err := checkSessionRef("session", req.Session); err != nil {
			return PaneList{}, err
		}
		f.Session = req.Session
	case req.Window != "":
		if err := checkWindowID("windowId", req.Window); err != nil {
			return PaneList{}, err
		}
		f.Window = req.Window
	}
	panes, err := m.ListPanes(ctx, f)
	if err != nil {
		return PaneList{}, fmt.Errorf("list panes: %w", err)
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
// Errors: *ArgumentError for a malformed pane id; wrapped ports errors
// (ErrPaneNotFound).
func (s *Service) GetPaneInfo(ctx context.Context, req PaneRequest) (PaneDetails, error) {
	m, err := s.mgr("get_pane_info")
	if err != nil {
		return PaneDetails{}, err
	}
	if err := checkPaneID("paneId", req.PaneID); err != nil {
		return PaneDetails{}, err
	}
	p, err := s.listPane(ctx, m, req.PaneID)
	if err != nil {
		return PaneDetails{}, err
	}
	info, err := s.term.Pane(ctx, req.PaneID)
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
	d.Dead, d.Command, d.Width, d.Height = info.Dead, info.Command, info.Width, info.Height
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
	m, err := s.mgr("get_server_info")
	if err != nil {
		return ports.ServerInfo{}, err
	}
	info, err := m.ServerInfo(ctx)
	if err != nil {
		return ports.ServerInfo{}, fmt.Errorf("describe the server: %w", err)
	}
	return info, nil
}

// CreateSession starts a detached session and returns its first pane.
//
// Errors: *ArgumentError for a bad name, command or size; wrapped ports
// errors (ErrNameInUse when a session has the name).
func (s *Service) CreateSession(ctx context.Context, req CreateSessionRequest) (ports.Created, error) {
	m, err := s.mgr("create_session")
	if err != nil {
		return ports.Created{}, err
	}
	if req.Name != "" {
		if err := checkName("name", req.Name, true); err != nil {
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
	c, err := m.CreateSession(ctx, ports.SessionSpec{Name: req.Name, Command: req.Command, Width: req.Width, Height: req.Height})
	if err != nil {
		if req.Name != "" {
			return ports.Created{}, fmt.Errorf("create session %q: %w", req.Name, err)
		}
		return ports.Created{}, fmt.Errorf("create session: %w", err)
	}
	s.starting.add(c.Pane)
	return c, nil
}

// CreateWindow adds a window to a session, without making it the
// session's current window, and returns its pane.
//
// Errors: *ArgumentError for a bad session or name; wrapped ports errors
// (ErrNotFound for an unknown session).
func (s *Service) CreateWindow(ctx context.Context, req CreateWindowRequest) (ports.Created, error) {
	m, err := s.mgr("create_window")
	if err != nil {
		return ports.Created{}, err
	}
	if err := checkSessionRef("session", req.Session); err != nil {
		return ports.Created{}, err
	}
	if req.Name != "" {
		if err := checkName("name", req.Name, false); err != nil {
			return ports.Created{}, err
		}
	}
	c, err := m.CreateWindow(ctx, req.Session, req.Name)
	if err != nil {
		return ports.Created{}, fmt.Errorf("create a window in session %s: %w", req.Session, err)
	}
	s.starting.add(c.Pane)
	return c, nil
}

// SplitWindow divides a pane's area and returns the new pane, without
// making it the active pane.
//
// Errors: *ArgumentError for a bad pane id or size; wrapped ports errors
// (ErrPaneNotFound).
func (s *Service) SplitWindow(ctx context.Context, req SplitWindowRequest) (ports.Created, error) {
	m, err := s.mgr("split_window")
	if err != nil {
		return ports.Created{}, err
	}
	if err := checkPaneID("paneId", req.PaneID); err != nil {
		return ports.Created{}, err
	}
	if err := checkCells("size", req.Size); err != nil {
		return ports.Created{}, err
	}
	c, err := m.SplitWindow(ctx, req.PaneID, req.Vertical, req.Size)
	if err != nil {
		return ports.Created{}, fmt.Errorf("split pane %s: %w", req.PaneID, err)
	}
	s.starting.add(c.Pane)
	return c, nil
}

// SelectPane makes the pane its window's active pane and describes it.
//
// Errors: *ArgumentError for a bad pane id; wrapped ports errors
// (ErrPaneNotFound).
func (s *Service) SelectPane(ctx context.Context, req PaneRequest) (Pane, error) {
	m, err := s.mgr("select_pane")
	if err != nil {
		return Pane{}, err
	}
	if err := checkPaneID("paneId", req.PaneID); err != nil {
		return Pane{}, err
	}
	if err := m.SelectPane(ctx, req.PaneID); err != nil {
		return Pane{}, fmt.Errorf("select pane %s: %w", req.PaneID, err)
	}
	return s.listPane(ctx, m, req.PaneID)
}

// SelectWindow makes the window its session's current window and
// describes it.
//
// Errors: *ArgumentError for a bad window id; wrapped ports errors
// (ErrNotFound).
func (s *Service) SelectWindow(ctx context.Context, req SelectWindowRequest) (ports.WindowInfo, error) {
	m, err := s.mgr("select_window")
	if err != nil {
		return ports.WindowInfo{}, err
	}
	if err := checkWindowID("windowId", req.WindowID); err != nil {
		return ports.WindowInfo{}, err
	}
	if err := m.SelectWindow(ctx, req.WindowID); err != nil {
		return ports.WindowInfo{}, fmt.Errorf("select window %s: %w", req.WindowID, err)
	}
	return findWindow(ctx, m, req.WindowID)
}

// ResizePane asks for a new size and describes the pane with the size it
// got, which may be less than asked.
//
// Errors: *ArgumentError for a bad pane id or size; wrapped ports errors
// (ErrPaneNotFound).
func (s *Service) ResizePane(ctx context.Context, req ResizePaneRequest) (Pane, error) {
	m, err := s.mgr("resize_pane")
	if err != nil {
		return Pane{}, err
	}
	if err := checkPaneID("paneId", req.PaneID); err != nil {
		return Pane{}, err
	}
	if err := checkCells("width", req.Width); err != nil {
		return Pane{}, err
	}
	if err := checkCells("height", req.Height); err != nil {
		return Pane{}, err
	}
	if req.Width == 0 && req.Height == 0 {
		return Pane{}, &ArgumentError{Field: "width", Reason: "and height are both missing; give at least one"}
	}
	if err := m.ResizePane(ctx, req.PaneID, req.Width, req.Height); err != nil {
		return Pane{}, fmt.Errorf("resize pane %s: %w", req.PaneID, err)
	}
	return s.listPane(ctx, m, req.PaneID)
}

// RenameSession gives a session a new name and describes it.
//
// Errors: *ArgumentError for a bad session or name; wrapped ports errors
// (ErrNotFound, ErrNameInUse).
func (s *Service) RenameSession(ctx context.Context, req RenameSessionRequest) (ports.SessionInfo, error) {
	m, err := s.mgr("rename_session")
	if err != nil {
		return ports.SessionInfo{}, err
	}
	if err := checkSessionRef("session", req.Session); err != nil {
		return ports.SessionInfo{}, err
	}
	if err := checkName("name", req.Name, true); err != nil {
		return ports.SessionInfo{}, err
	}
	// The id, not the name, survives the renaming.
	sess, err := findSession(ctx, m, req.Session)
	if err != nil {
		return ports.SessionInfo{}, err
	}
	if err := m.RenameSession(ctx, sess.ID, req.Name); err != nil {
		return ports.SessionInfo{}, fmt.Errorf("rename session %s to %q: %w", req.Session, req.Name, err)
	}
	return findSession(ctx, m, sess.ID)
}

// RenameWindow gives a window a new name and describes it.
//
// Errors: *ArgumentError for a bad window id or name; wrapped ports errors
// (ErrNotFound).
func (s *Service) RenameWindow(ctx context.Context, req RenameWindowRequest) (ports.WindowInfo, error) {
	m, err := s.mgr("rename_window")
	if err != nil {
		return ports.WindowInfo{}, err
	}
	if err := checkWindowID("windowId", req.WindowID); err != nil {
		return ports.WindowInfo{}, err
	}
	if err := checkName("name", req.Name, false); err != nil {
		return ports.WindowInfo{}, err
	}
	if err := m.RenameWindow(ctx, req.WindowID, req.Name); err != nil {
		return ports.WindowInfo{}, fmt.Errorf("rename window %s to %q: %w", req.WindowID, req.Name, err)
	}
	return findWindow(ctx, m, req.WindowID)
}

// ClearPaneScrollback discards the pane's history, the rows above its
// screen. It is a write: the pane is reserved and leased for the call and
// checked as checkEnd says.
//
// Errors: *ArgumentError for a bad pane id; *BusyError when another writer
// holds the pane; *RefusalError when the policy forbids it; wrapped ports
// errors (ErrPaneNotFound).
func (s *Service) ClearPaneScrollback(ctx context.Context, req ClearScrollbackRequest) (ClearScrollbackResult, error) {
	m, err := s.mgr("clear_pane_scrollback")
	if err != nil {
		return ClearScrollbackResult{}, err
	}
	if err := checkPaneID("paneId", req.PaneID); err != nil {
		return ClearScrollbackResult{}, err
	}
	h, err := s.hold(ctx, []ports.PaneID{req.PaneID}, "clear_pane_scrollback")
	if err != nil {
		return ClearScrollbackResult{}, err
	}
	defer h.release()
	info, err := s.term.Pane(ctx, req.PaneID)
	if err != nil {
		return ClearScrollbackResult{}, err
	}
	if err := checkEnd(info, req.Force, "clear_pane_scrollback would discard its history"); err != nil {
		return ClearScrollbackResult{}, err
	}
	if err := m.ClearHistory(ctx, req.PaneID); err != nil {
		return ClearScrollbackResult{}, fmt.Errorf("clear the history of pane %s: %w", req.PaneID, err)
	}
	return ClearScrollbackResult{PaneID: req.PaneID, ClearedLines: info.HistorySize}, nil
}

// KillPane ends the pane's process and removes the pane, after checking it
// as checkEnd says.
//
// Errors: *ArgumentError for a bad pane id; *BusyError when another writer
// holds the pane; *RefusalError when the policy forbids ending it; wrapped
// ports errors (ErrPaneNotFound). Nothing is killed when an error returns
// before the multiplexer was asked to.
func (s *Service) KillPane(ctx context.Context, req KillPaneRequest) (KillResult, error) {
	m, err := s.mgr("kill_pane")
	if err != nil {
		return KillResult{}, err
	}
	if err := checkPaneID("paneId", req.PaneID); err != nil {
		return KillResult{}, err
	}
	killed, err := s.kill(ctx, []ports.PaneID{req.PaneID}, req.Force, "kill_pane", "kill_pane would end it",
		func() error { return m.KillPane(ctx, req.PaneID) })
	if err != nil {
		return KillResult{}, err
	}
	return KillResult{Killed: killed}, nil
}

// KillWindow removes the window and ends its panes, after checking every
// one of them as checkEnd says.
//
// Errors: *ArgumentError for a bad window id; *BusyError when another
// writer holds one of its panes; *RefusalError naming the first pane the
// policy forbids ending; wrapped ports errors (ErrNotFound). Nothing is
// killed when any pane is refused.
func (s *Service) KillWindow(ctx context.Context, req KillWindowRequest) (KillResult, error) {
	m, err := s.mgr("kill_window")
	if err != nil {
		return KillResult{}, err
	}
	if err := checkWindowID("windowId", req.WindowID); err != nil {
		return KillResult{}, err
	}
	panes, err := m.ListPanes(ctx, ports.PaneFilter{Window: req.WindowID})
	if err != nil {
		return KillResult{}, fmt.Errorf("kill window %s: list its panes: %w", req.WindowID, err)
	}
	killed, err := s.kill(ctx, paneIDs(panes), req.Force, "kill_window "+req.WindowID,
		"kill_window "+req.WindowID+" would end it", func() error { return m.KillWindow(ctx, req.WindowID) })
	if err != nil {
		return KillResult{}, err
	}
	return KillResult{Killed: killed, WindowID: req.WindowID}, nil
}

// KillSession removes the session and ends the panes of its windows, after
// checking every one of them as checkEnd says. (A window linked into
// another session too outlives it, but its panes are checked all the
// same.)
//
// Errors: *ArgumentError for a bad session; *BusyError when another writer
// holds one of its panes; *RefusalError naming the first pane the policy
// forbids ending; wrapped ports errors (ErrNotFound). Nothing is killed
// when any pane is refused.
func (s *Service) KillSession(ctx context.Context, req KillSessionRequest) (KillResult, error) {
	m, err := s.mgr("kill_session")
	if err != nil {
		return KillResult{}, err
	}
	if err := checkSessionRef("session", req.Session); err != nil {
		return KillResult{}, err
	}
	// Everything after this goes by id, which no rename can change.
	sess, err := findSession(ctx, m, req.Session)
	if err != nil {
		return KillResult{}, err
	}
	panes, err := m.ListPanes(ctx, ports.PaneFilter{Session: sess.ID})
	if err != nil {
		return KillResult{}, fmt.Errorf("kill session %s: list its panes: %w", req.Session, err)
	}
	what := fmt.Sprintf("kill_session %s (%q)", sess.ID, sess.Name)
	killed, err := s.kill(ctx, paneIDs(panes), req.Force, what, what+" would end it",
		func() error { return m.KillSession(ctx, sess.ID) })
	if err != nil {
		return KillResult{}, err
	}
	return KillResult{Killed: killed, Session: sess.SessionRef}, nil
}

// kill holds every pane, checks each against checkEnd and, if none is
// refused, calls do. It returns the panes checked (those that still
// existed). Panes made after the listing are not checked: the kill tools
// check what the caller could have seen. Refusals and busy panes are
// returned as they are, like those of the other writes; do's errors carry
// the Manager's own context.
func (s *Service) kill(ctx context.Context, panes []ports.PaneID, force bool, holder, what string, do func() error) ([]ports.PaneID, error) {
	h, err := s.hold(ctx, panes, holder)
	if err != nil {
		return nil, err
	}
	defer h.release()
	killed := make([]ports.PaneID, 0, len(panes))
	for _, id := range panes {
		info, err := s.term.Pane(ctx, id)
		switch {
		case errors.Is(err, ports.ErrPaneNotFound):
			continue // gone already: nothing to protect
		case err != nil:
			return nil, err
		}
		if err := checkEnd(info, force, what); err != nil {
			return nil, err
		}
		killed = append(killed, id)
	}
	if err := do(); err != nil {
		return nil, err
	}
	return killed, nil
}

// checkEnd is the write policy for ending a pane or clearing its history:
// CheckWrite's rules about who would be affected, without those about
// where input would go. A pane a person watches is refused, with or
// without force; the server's own pane is refused unless force; a backend
// that cannot tell either is refused. A dead pane, a pane in a mode and a
// pane with synchronized input may be ended or cleared. (Another writer
// holding the pane is a *BusyError, from hold.) what says what the call
// would do to the pane, e.g. "kill_window @1 would end it".
func checkEnd(info ports.PaneInfo, force bool, what string) error {
	refuse := func(reason, hint string) error {
		return &RefusalError{Pane: info.ID, Reason: what + ", and " + reason, Hint: hint}
	}
	for _, f := range []ports.Fact{ports.FactWatched, ports.FactSelf} {
		if hasFact(info.Unknown, f) {
			return refuse(fmt.Sprintf("the terminal backend cannot tell %s", describeFact(f)),
				"use a backend that can tell it, or end the pane by hand")
		}
	}
	switch {
	case len(info.Watchers) > 0:
		return refuse(fmt.Sprintf("a person is watching it (%s)", strings.Join(info.Watchers, ", ")),
			"leave panes that people have on screen alone; force does not override this")
	case info.Self && !force:
		return refuse("it is the pane this server itself runs in",
			"pass force: true if you mean to")
	}
	return nil
}

// heldPanes are panes reserved and leased for one call.
type heldPanes struct {
	reservations []*Reservation
	leases       []*paneLease
}

// hold reserves and then leases every pane for the writer holder, or none
// of them: the first that another writer holds is reported as a
// *BusyError.
func (s *Service) hold(ctx context.Context, panes []ports.PaneID, holder string) (*heldPanes, error) {
	h := &heldPanes{}
	for _, id := range panes {
		rv, err := s.res.Acquire(id, holder)
		if err != nil {
			h.release()
			return nil, err
		}
		h.reservations = append(h.reservations, rv)
	}
	leases, err := s.takeLeases(ctx, panes)
	if err != nil {
		h.release()
		return nil, err
	}
	h.leases = leases
	return h, nil
}

// release gives the leases back, then the reservations (see lease.go for
// why in that order).
func (h *heldPanes) release() {
	releaseLeases(h.leases)
	for _, rv := range h.reservations {
		rv.Release()
	}
}

// paneOf decorates a listing entry with what holds the pane here.
func (s *Service) paneOf(p ports.PaneSummary) Pane {
	var holder string
	if rv, _, ok := s.res.Lookup(p.ID); ok {
		holder = rv.Holder()
	}
	p.Watchers = nonNil(p.Watchers)
	return Pane{PaneSummary: p, Busy: holder}
}

// listPane returns the listing entry of one pane.
func (s *Service) listPane(ctx context.Context, m ports.Manager, id ports.PaneID) (Pane, error) {
	panes, err := m.ListPanes(ctx, ports.PaneFilter{Pane: id})
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

// findSession returns the session whose id or name is ref.
func findSession(ctx context.Context, m ports.Manager, ref string) (ports.SessionInfo, error) {
	sessions, err := m.ListSessions(ctx)
	if err != nil {
		return ports.SessionInfo{}, fmt.Errorf("find session %s: %w", ref, err)
	}
	byID := sessionIDPattern.MatchString(ref)
	for _, sess := range sessions {
		if byID && sess.ID == ref || !byID && sess.Name == ref {
			return sess, nil
		}
	}
	return ports.SessionInfo{}, fmt.Errorf("find session %s: %w", ref, ports.ErrNotFound)
}

// findWindow returns the window with id, as first listed.
func findWindow(ctx context.Context, m ports.Manager, id string) (ports.WindowInfo, error) {
	windows, err := m.ListWindows(ctx, "")
	if err != nil {
		return ports.WindowInfo{}, fmt.Errorf("find window %s: %w", id, err)
	}
	for _, w := range windows {
		if w.ID == id {
			return w, nil
		}
	}
	return ports.WindowInfo{}, fmt.Errorf("find window %s: %w", id, ports.ErrNotFound)
}

func paneIDs(panes []ports.PaneSummary) []ports.PaneID {
	ids := make([]ports.PaneID, len(panes))
	for i, p := range panes {
		ids[i] = p.ID
	}
	return ids
}

// nonNil makes an empty list a list, so that it reaches JSON as [] and
// not null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// Argument checks. Each returns an *ArgumentError naming field.

func checkPaneID(field string, id ports.PaneID) error {
	if !paneIDPattern.MatchString(string(id)) {
		return &ArgumentError{Field: field, Reason: fmt.Sprintf("%q is not a pane id (pane ids look like %%3; list_panes lists them)", id)}
	}
	return nil
}

func checkWindowID(field, id string) error {
	if !windowIDPattern.MatchString(id) {
		return &ArgumentError{Field: field, Reason: fmt.Sprintf("%q is not a window id (window ids look like @2; list_windows lists them)", id)}
	}
	return nil
}

// checkSessionRef accepts a session id, or anything that could be a
// session's name.
func checkSessionRef(field, ref string) error {
	if sessionIDPattern.MatchString(ref) {
		return nil
	}
	if ref == "" {
		return &ArgumentError{Field: field, Reason: "is empty; give a session id (like $1) or name"}
	}
	return checkName(field, ref, true)
}

// checkName accepts a name that no multiplexer would read as anything but
// text: not empty, at most MaxNameBytes of UTF-8, without control
// characters, not starting with "-" (an option), without "#(", "#{" or
// "#[" (formats and styles; "#(" runs a command). A session name also may
// not hold ":" or "." (they separate the parts of a target) nor look like
// a session id.
func checkName(field, name string, session bool) error {
	bad := func(reason string) error { return &ArgumentError{Field: field, Reason: reason} }
	switch {
	case name == "":
		return bad("is empty")
	case len(name) > MaxNameBytes:
		return bad(fmt.Sprintf("is %d bytes long; at most %d are allowed", len(name), MaxNameBytes))
	case !utf8.ValidString(name):
		return bad("is not valid UTF-8")
	case strings.HasPrefix(name, "-"):
		return bad(fmt.Sprintf("%q starts with \"-\", which would be read as an option", name))
	}
	for _, r := range name {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return bad(fmt.Sprintf("%q holds the control character %U", name, r))
		}
	}
	for _, f := range []string{"#(", "#{", "#["} {
		if strings.Contains(name, f) {
			return bad(fmt.Sprintf("%q holds %q, which a terminal multiplexer would expand as a format (\"#(\" even runs a command); leave it out", name, f))
		}
	}
	if session {
		if strings.ContainsAny(name, ":.") {
			return bad(fmt.Sprintf("%q holds \":\" or \".\", which separate the parts of a target; use \"_\" or \"-\" instead", name))
		}
		if sessionIDPattern.MatchString(name) {
			return bad(fmt.Sprintf("%q would be read as a session id", name))
		}
	}
	return nil
}

// checkCommand accepts a shell command line for a new pane.
func checkCommand(field, cmd string) error {
	bad := func(reason string) error { return &ArgumentError{Field: field, Reason: reason} }
	switch {
	case len(cmd) > MaxCommandBytes:
		return bad(fmt.Sprintf("is %d bytes long; at most %d are allowed", len(cmd), MaxCommandBytes))
	case !utf8.ValidString(cmd):
		return bad("is not valid UTF-8")
	case strings.ContainsRune(cmd, 0):
		return bad("holds a NUL byte")
	case strings.TrimSpace(cmd) == "":
		return bad("is blank")
	case strings.HasPrefix(strings.TrimSpace(cmd), "-"):
		return bad("starts with \"-\", which would be read as an option")
	}
	return nil
}

// checkCells accepts a size in cells: 0 (not given) to MaxPaneCells.
func checkCells(field string, n int) error {
	if n < 0 || n > MaxPaneCells {
		return &ArgumentError{Field: field, Reason: fmt.Sprintf("is %d; it must be between 1 and %d cells, or left out", n, MaxPaneCells)}
	}
	return nil
}
