package fake

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// Manager is an in-memory ports.Manager over a Terminal: it arranges the
// Terminal's panes into sessions and windows, and makes and removes panes
// with the Terminal's controls, so a pane it creates is an ordinary fake
// pane (a scripted shell unless a command says otherwise).
//
// The model is deliberately plain, closer to tmux than to nothing:
//
//   - Ids count up from 0 and are never reused: sessions "$0", "$1", ...,
//     windows "@0", ..., panes as the Terminal numbers them. A session
//     made without a name is named after its id's number, as tmux does.
//   - A window's index is one more than the highest in its session; a
//     pane's index is its place in its window. A window without a name of
//     its own is named after its active pane's program.
//   - Panes added with Terminal.AddPane rather than through the Manager are
//     adopted, in id order, each into a window of its own in the first
//     session (made when there is none). Panes removed with
//     Terminal.RemovePane leave the layout, and so do windows and sessions
//     left empty.
//   - Sizes are only bookkeeping: a split divides the pane's width or
//     height (one cell goes to the divider), ResizePane changes the pane
//     alone, within its window's size, ResizeWindow scales the window's
//     panes with it, and a narrower pane keeps only the cells that fit
//     (nothing is reflowed).
//   - Watchers, Self, Dead, the program, its pid (new with each
//     generation), the cursor and unknown facts are the Terminal's
//     (Attach, SetSelf, KillPane, SetCommand, SetUnknown). A session's
//     Clients counts the distinct watchers of its panes.
//   - Killing the last session leaves an empty server running, unlike
//     tmux, which exits.
//
// Test controls (SetTitle, SetPath) panic when the pane does not exist.
// Manager is safe for concurrent use. Use one Manager per Terminal.
type Manager struct {
	t *Terminal

	mu          sync.Mutex // held while t.mu is taken, never the other way
	started     time.Time
	sessions    []*fakeSession // in creation order
	nextSession int
	nextWindow  int
	titles      map[ports.PaneID]string
	paths       map[ports.PaneID]string
}

type fakeSession struct {
	id, name string
	created  time.Time
	windows  []*fakeWindow // in index order
	current  *fakeWindow
}

type fakeWindow struct {
	id            string
	index         int
	name          string // "" to be named after the active pane's program
	session       *fakeSession
	panes         []ports.PaneID // in index order
	active        ports.PaneID
	width, height int
}

var _ ports.Manager = (*Manager)(nil)

// DefaultPath is the working directory the Manager reports for a pane
// whose path no test set.
const DefaultPath = "/home/fake"

// NewManager returns a Manager over t, adopting the panes t already has.
func NewManager(t *Terminal) *Manager {
	m := &Manager{t: t, started: t.clock.Now(), titles: map[ports.PaneID]string{}, paths: map[ports.PaneID]string{}}
	m.mu.Lock()
	m.sync()
	m.mu.Unlock()
	return m
}

// SetTitle sets the title the pane reports (by default its host's name,
// "fake").
func (m *Manager) SetTitle(id ports.PaneID, title string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.mustPane(id)
	m.titles[id] = title
}

// SetPath sets the pane's working directory (by default DefaultPath).
func (m *Manager) SetPath(id ports.PaneID, path string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.mustPane(id)
	m.paths[id] = path
}

func (m *Manager) mustPane(id ports.PaneID) {
	m.t.mu.Lock()
	defer m.t.mu.Unlock()
	m.t.must(id)
}

// begin starts a port method: it checks ctx and the Terminal's
// availability, locks the Manager and brings the layout up to date with the
// Terminal's panes. The caller unlocks m.mu.
func (m *Manager) begin(ctx context.Context, what string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	m.mu.Lock()
	m.t.mu.Lock()
	unavailable := m.t.unavailable
	m.t.mu.Unlock()
	if unavailable {
		m.mu.Unlock()
		return fmt.Errorf("%s: %w", what, ports.ErrUnavailable)
	}
	m.sync()
	return nil
}

// sync drops panes the Terminal no longer has, and windows and sessions
// left empty, and adopts the panes it does not place yet.
func (m *Manager) sync() {
	m.t.mu.Lock()
	live := make(map[ports.PaneID]*pane, len(m.t.panes))
	for id, p := range m.t.panes {
		live[id] = p
	}
	m.t.mu.Unlock()

	placed := map[ports.PaneID]bool{}
	for _, s := range m.sessions {
		for _, w := range s.windows {
			w.panes = slices.DeleteFunc(w.panes, func(id ports.PaneID) bool { return live[id] == nil })
			for _, id := range w.panes {
				placed[id] = true
			}
			if !slices.Contains(w.panes, w.active) && len(w.panes) > 0 {
				w.active = w.panes[0]
			}
		}
		s.windows = slices.DeleteFunc(s.windows, func(w *fakeWindow) bool { return len(w.panes) == 0 })
		if !slices.Contains(s.windows, s.current) && len(s.windows) > 0 {
			s.current = s.windows[0]
		}
	}
	m.sessions = slices.DeleteFunc(m.sessions, func(s *fakeSession) bool { return len(s.windows) == 0 })
	for id := range m.titles {
		if live[id] == nil {
			delete(m.titles, id)
			delete(m.paths, id)
		}
	}

	var orphans []ports.PaneID
	for id := range live {
		if !placed[id] {
			orphans = append(orphans, id)
		}
	}
	slices.SortFunc(orphans, comparePaneIDs)
	for _, id := range orphans {
		if len(m.sessions) == 0 {
			m.newSession("")
		}
		p := live[id]
		m.t.mu.Lock()
		w, h := p.spec.Width, p.spec.Height
		m.t.mu.Unlock()
		m.newWindow(m.sessions[0], "", id, w, h)
	}
}

func (m *Manager) newSession(name string) *fakeSession {
	id := m.nextSession
	m.nextSession++
	if name == "" {
		name = strconv.Itoa(id)
	}
	s := &fakeSession{id: "$" + strconv.Itoa(id), name: name, created: m.t.clock.Now()}
	m.sessions = append(m.sessions, s)
	return s
}

func (m *Manager) newWindow(s *fakeSession, name string, pane ports.PaneID, width, height int) *fakeWindow {
	index := 0
	if n := len(s.windows); n > 0 {
		index = s.windows[n-1].index + 1
	}
	w := &fakeWindow{id: "@" + strconv.Itoa(m.nextWindow), index: index, name: name, session: s,
		panes: []ports.PaneID{pane}, active: pane, width: width, height: height}
	m.nextWindow++
	s.windows = append(s.windows, w)
	if s.current == nil {
		s.current = w
	}
	return w
}

// session finds a session by id or exact name.
func (m *Manager) session(ref string) (*fakeSession, error) {
	for _, s := range m.sessions {
		if s.id == ref || s.name == ref {
			return s, nil
		}
	}
	return nil, fmt.Errorf("session %s: %w", ref, ports.ErrNotFound)
}

func (m *Manager) window(id string) (*fakeWindow, error) {
	for _, s := range m.sessions {
		for _, w := range s.windows {
			if w.id == id {
				return w, nil
			}
		}
	}
	return nil, fmt.Errorf("window %s: %w", id, ports.ErrNotFound)
}

// windowOf finds the window holding pane.
func (m *Manager) windowOf(id ports.PaneID) (*fakeWindow, error) {
	for _, s := range m.sessions {
		for _, w := range s.windows {
			if slices.Contains(w.panes, id) {
				return w, nil
			}
		}
	}
	return nil, fmt.Errorf("pane %s: %w", id, ports.ErrPaneNotFound)
}

func (s *fakeSession) ref() ports.SessionRef { return ports.SessionRef{ID: s.id, Name: s.name} }

// ref names the window; m.t.mu must be held, for the automatic name.
func (w *fakeWindow) ref(t *Terminal) ports.WindowRef {
	name := w.name
	if name == "" {
		if p, ok := t.panes[w.active]; ok {
			name = p.command()
		}
	}
	return ports.WindowRef{ID: w.id, Index: w.index, Name: name}
}

// ListSessions describes every session, in creation order.
func (m *Manager) ListSessions(ctx context.Context) ([]ports.SessionInfo, error) {
	if err := m.begin(ctx, "list sessions"); err != nil {
		return nil, err
	}
	defer m.mu.Unlock()
	m.t.mu.Lock()
	defer m.t.mu.Unlock()
	out := make([]ports.SessionInfo, 0, len(m.sessions))
	for _, s := range m.sessions {
		out = append(out, ports.SessionInfo{SessionRef: s.ref(), Windows: len(s.windows), Clients: m.clients(s), Created: s.created})
	}
	return out, nil
}

// clients counts the distinct watchers of the session's panes; m.t.mu
// must be held.
func (m *Manager) clients(s *fakeSession) int {
	seen := map[string]bool{}
	for _, w := range s.windows {
		for _, id := range w.panes {
			for _, who := range m.watchers(id) {
				seen[who] = true
			}
		}
	}
	return len(seen)
}

// watchers returns who watches the pane, as far as the Terminal tells;
// m.t.mu must be held.
func (m *Manager) watchers(id ports.PaneID) []string {
	p := m.t.panes[id]
	if p == nil || slices.Contains(p.unknown, ports.FactWatched) {
		return nil
	}
	return p.watchers
}

// ListWindows describes the windows of the session, or of every session.
func (m *Manager) ListWindows(ctx context.Context, session string) ([]ports.WindowInfo, error) {
	if err := m.begin(ctx, "list windows"); err != nil {
		return nil, err
	}
	defer m.mu.Unlock()
	sessions := m.sessions
	if session != "" {
		s, err := m.session(session)
		if err != nil {
			return nil, fmt.Errorf("list windows: %w", err)
		}
		sessions = []*fakeSession{s}
	}
	m.t.mu.Lock()
	defer m.t.mu.Unlock()
	var out []ports.WindowInfo
	for _, s := range sessions {
		for _, w := range s.windows {
			out = append(out, ports.WindowInfo{WindowRef: w.ref(m.t), Session: s.ref(), Active: s.current == w,
				Panes: len(w.panes), Width: w.width, Height: w.height})
		}
	}
	return out, nil
}

// ListPanes describes the panes f selects.
func (m *Manager) ListPanes(ctx context.Context, f ports.PaneFilter) ([]ports.PaneSummary, error) {
	if err := m.begin(ctx, "list panes"); err != nil {
		return nil, err
	}
	defer m.mu.Unlock()
	var windows []*fakeWindow
	switch {
	case f.Pane != "":
		w, err := m.windowOf(f.Pane)
		if err != nil {
			return nil, fmt.Errorf("list panes: %w", err)
		}
		windows = []*fakeWindow{w}
	case f.Window != "":
		w, err := m.window(f.Window)
		if err != nil {
			return nil, fmt.Errorf("list panes: %w", err)
		}
		windows = []*fakeWindow{w}
	case f.Session != "":
		s, err := m.session(f.Session)
		if err != nil {
			return nil, fmt.Errorf("list panes: %w", err)
		}
		windows = s.windows
	default:
		for _, s := range m.sessions {
			windows = append(windows, s.windows...)
		}
	}
	m.t.mu.Lock()
	defer m.t.mu.Unlock()
	var out []ports.PaneSummary
	for _, w := range windows {
		for i, id := range w.panes {
			if f.Pane != "" && id != f.Pane || m.t.panes[id] == nil {
				continue // another pane, or one removed since begin
			}
			out = append(out, m.summary(w, i, id))
		}
	}
	return out, nil
}

// summary describes pane id, the i-th of w; m.t.mu must be held.
func (m *Manager) summary(w *fakeWindow, i int, id ports.PaneID) ports.PaneSummary {
	p := m.t.panes[id]
	title, ok := m.titles[id]
	if !ok {
		title = "fake"
	}
	path, ok := m.paths[id]
	if !ok {
		path = DefaultPath
	}
	sum := ports.PaneSummary{
		ID: id, Session: w.session.ref(), Window: w.ref(m.t), Index: i, Active: w.active == id,
		Dead: p.dead, Command: p.command(), Program: p.program(), Path: path, Width: p.spec.Width, Height: p.spec.Height,
		PID: p.pid, CursorX: p.scr.cx, CursorY: p.scr.cy,
		Title: title, Watchers: slices.Clone(p.watchers), Self: p.self,
	}
	for _, f := range p.unknown {
		switch f {
		case ports.FactWatched:
			sum.Watchers = nil
		case ports.FactSelf:
			sum.Self = false
		case ports.FactCommand:
			sum.Command, sum.Program = "", ""
		case ports.FactPID:
			sum.PID = 0
		case ports.FactCursor:
			sum.CursorX, sum.CursorY = 0, 0
		default:
			continue
		}
		sum.Unknown = append(sum.Unknown, f)
	}
	return sum
}

// ServerInfo describes the fake server: address and version "fake", pid 0.
func (m *Manager) ServerInfo(ctx context.Context) (ports.ServerInfo, error) {
	if err := m.begin(ctx, "describe the server"); err != nil {
		return ports.ServerInfo{}, err
	}
	defer m.mu.Unlock()
	m.t.mu.Lock()
	defer m.t.mu.Unlock()
	info := ports.ServerInfo{Address: "fake", Version: "fake", Started: m.started, Sessions: len(m.sessions)}
	clients := map[string]bool{}
	for _, s := range m.sessions {
		info.Windows += len(s.windows)
		for _, w := range s.windows {
			info.Panes += len(w.panes)
			for _, id := range w.panes {
				for _, who := range m.watchers(id) {
					clients[who] = true
				}
			}
		}
	}
	info.Clients = len(clients)
	return info, nil
}

// CreateSession makes a session whose pane runs spec.Command's program
// (its first word, without a path; a shell gets the scripted shell) or
// bash, 80x24 unless spec says otherwise.
func (m *Manager) CreateSession(ctx context.Context, spec ports.SessionSpec) (ports.Created, error) {
	if err := m.begin(ctx, "create session"); err != nil {
		return ports.Created{}, err
	}
	defer m.mu.Unlock()
	if spec.Name != "" {
		if _, err := m.session(spec.Name); err == nil {
			return ports.Created{}, fmt.Errorf("create session: %q: %w", spec.Name, ports.ErrNameInUse)
		}
	}
	w, h := spec.Width, spec.Height
	if w <= 0 {
		w = 80
	}
	if h <= 0 {
		h = 24
	}
	var prog string
	if f := strings.Fields(spec.Command); len(f) > 0 {
		prog = f[0][strings.LastIndexByte(f[0], '/')+1:]
	}
	id := m.t.AddPane(PaneSpec{Width: w, Height: h, Command: prog})
	s := m.newSession(spec.Name)
	win := m.newWindow(s, "", id, w, h)
	return m.created(win, id), nil
}

func (m *Manager) created(w *fakeWindow, id ports.PaneID) ports.Created {
	m.t.mu.Lock()
	defer m.t.mu.Unlock()
	return ports.Created{Session: w.session.ref(), Window: w.ref(m.t), Pane: id}
}

// CreateWindow adds a window with one bash pane, the size of the
// session's current window.
func (m *Manager) CreateWindow(ctx context.Context, session, name string) (ports.Created, error) {
	if err := m.begin(ctx, "create window"); err != nil {
		return ports.Created{}, err
	}
	defer m.mu.Unlock()
	s, err := m.session(session)
	if err != nil {
		return ports.Created{}, fmt.Errorf("create window: %w", err)
	}
	id := m.t.AddPane(PaneSpec{Width: s.current.width, Height: s.current.height})
	win := m.newWindow(s, name, id, s.current.width, s.current.height)
	return m.created(win, id), nil
}

// SplitWindow divides the pane's height (vertical) or width between it,
// a one-cell divider and a new bash pane placed after it. It fails when
// either pane would be left without a cell.
func (m *Manager) SplitWindow(ctx context.Context, id ports.PaneID, vertical bool, size int) (ports.Created, error) {
	if err := m.begin(ctx, "split pane "+string(id)); err != nil {
		return ports.Created{}, err
	}
	defer m.mu.Unlock()
	w, err := m.windowOf(id)
	if err != nil {
		return ports.Created{}, fmt.Errorf("split pane: %w", err)
	}
	m.t.mu.Lock()
	p := m.t.panes[id]
	width, height := p.spec.Width, p.spec.Height
	m.t.mu.Unlock()
	total := width
	if vertical {
		total = height
	}
	if size == 0 {
		size = (total - 1) / 2
	}
	if size < 1 || total-1-size < 1 {
		return ports.Created{}, fmt.Errorf("split pane %s: no room for a %d-cell pane in %d cells", id, size, total)
	}
	spec := PaneSpec{Width: size, Height: height}
	if vertical {
		spec = PaneSpec{Width: width, Height: size}
	}
	m.t.mu.Lock()
	if vertical {
		resizeScreen(p, width, total-1-size)
	} else {
		resizeScreen(p, total-1-size, height)
	}
	m.t.mu.Unlock()
	nid := m.t.AddPane(spec)
	at := slices.Index(w.panes, id) + 1
	w.panes = slices.Insert(w.panes, at, nid)
	return m.created(w, nid), nil
}

// SelectPane makes the pane its window's active pane.
func (m *Manager) SelectPane(ctx context.Context, id ports.PaneID) error {
	if err := m.begin(ctx, "select pane "+string(id)); err != nil {
		return err
	}
	defer m.mu.Unlock()
	w, err := m.windowOf(id)
	if err != nil {
		return fmt.Errorf("select pane: %w", err)
	}
	w.active = id
	return nil
}

// SelectWindow makes the window its session's current window.
func (m *Manager) SelectWindow(ctx context.Context, id string) error {
	if err := m.begin(ctx, "select window "+id); err != nil {
		return err
	}
	defer m.mu.Unlock()
	w, err := m.window(id)
	if err != nil {
		return fmt.Errorf("select window: %w", err)
	}
	w.session.current = w
	return nil
}

// ResizePane resizes the pane alone, to at most its window's size.
func (m *Manager) ResizePane(ctx context.Context, id ports.PaneID, width, height int) error {
	if err := m.begin(ctx, "resize pane "+string(id)); err != nil {
		return err
	}
	defer m.mu.Unlock()
	w, err := m.windowOf(id)
	if err != nil {
		return fmt.Errorf("resize pane: %w", err)
	}
	m.t.mu.Lock()
	defer m.t.mu.Unlock()
	p := m.t.panes[id]
	if width <= 0 {
		width = p.spec.Width
	}
	if height <= 0 {
		height = p.spec.Height
	}
	resizeScreen(p, min(width, w.width), min(height, w.height))
	return nil
}

// ResizeWindow gives the window a new size and its panes their share of
// it: a pane that spanned the window's old width (or height) spans the
// new one, and any other pane is scaled in proportion, keeping at least
// one cell. (The fake keeps no geometry of its panes, so dividers may
// gain or lose a cell.)
func (m *Manager) ResizeWindow(ctx context.Context, id string, width, height int) error {
	if err := m.begin(ctx, "resize window "+id); err != nil {
		return err
	}
	defer m.mu.Unlock()
	w, err := m.window(id)
	if err != nil {
		return fmt.Errorf("resize window: %w", err)
	}
	if width <= 0 {
		width = w.width
	}
	if height <= 0 {
		height = w.height
	}
	m.t.mu.Lock()
	defer m.t.mu.Unlock()
	for _, pid := range w.panes {
		p := m.t.panes[pid]
		resizeScreen(p, share(p.spec.Width, w.width, width), share(p.spec.Height, w.height, height))
	}
	w.width, w.height = width, height
	return nil
}

// share scales a pane's n cells of a window's was cells to its now.
func share(n, was, now int) int {
	if n >= was || was <= 0 {
		return now
	}
	return max(1, n*now/was)
}

// RenameSession renames the session; another session's name is refused.
func (m *Manager) RenameSession(ctx context.Context, session, name string) error {
	if err := m.begin(ctx, "rename session "+session); err != nil {
		return err
	}
	defer m.mu.Unlock()
	s, err := m.session(session)
	if err != nil {
		return fmt.Errorf("rename session: %w", err)
	}
	if other, err := m.session(name); err == nil && other != s {
		return fmt.Errorf("rename session %s: %q: %w", session, name, ports.ErrNameInUse)
	}
	s.name = name
	return nil
}

// RenameWindow renames the window for good.
func (m *Manager) RenameWindow(ctx context.Context, id, name string) error {
	if err := m.begin(ctx, "rename window "+id); err != nil {
		return err
	}
	defer m.mu.Unlock()
	w, err := m.window(id)
	if err != nil {
		return fmt.Errorf("rename window: %w", err)
	}
	w.name = name
	return nil
}

// ClearHistory drops the rows above the pane's screen.
func (m *Manager) ClearHistory(ctx context.Context, id ports.PaneID) error {
	if err := m.begin(ctx, "clear the history of pane "+string(id)); err != nil {
		return err
	}
	defer m.mu.Unlock()
	m.t.mu.Lock()
	defer m.t.mu.Unlock()
	p, ok := m.t.panes[id]
	if !ok {
		return fmt.Errorf("clear the history of pane %s: %w", id, ports.ErrPaneNotFound)
	}
	p.scr.rows = slices.Clone(p.scr.rows[p.scr.historySize():])
	return nil
}

// KillPane removes the pane (Terminal.RemovePane): its streams end with
// ErrPaneNotFound.
func (m *Manager) KillPane(ctx context.Context, id ports.PaneID) error {
	if err := m.begin(ctx, "kill pane "+string(id)); err != nil {
		return err
	}
	defer m.mu.Unlock()
	if _, err := m.windowOf(id); err != nil {
		return fmt.Errorf("kill pane: %w", err)
	}
	m.remove(id)
	return nil
}

// KillWindow removes the window and its panes.
func (m *Manager) KillWindow(ctx context.Context, id string) error {
	if err := m.begin(ctx, "kill window "+id); err != nil {
		return err
	}
	defer m.mu.Unlock()
	w, err := m.window(id)
	if err != nil {
		return fmt.Errorf("kill window: %w", err)
	}
	m.remove(w.panes...)
	return nil
}

// KillSession removes the session, its windows and their panes.
func (m *Manager) KillSession(ctx context.Context, session string) error {
	if err := m.begin(ctx, "kill session "+session); err != nil {
		return err
	}
	defer m.mu.Unlock()
	s, err := m.session(session)
	if err != nil {
		return fmt.Errorf("kill session: %w", err)
	}
	var panes []ports.PaneID
	for _, w := range s.windows {
		panes = append(panes, w.panes...)
	}
	m.remove(panes...)
	return nil
}

// RespawnPane restarts the pane's program as tmux's respawn-pane -k does:
// a live process is replaced without ending open streams (as
// Terminal.Replace), a dead pane comes back to life (as Terminal.Respawn,
// its streams having ended when it died). Either way the pane gets a new
// Generation and pid, leaves any mode, forgets SetCommand and starts
// with a blank screen (the history kept), on which a shell prints its
// prompt at the top.
func (m *Manager) RespawnPane(ctx context.Context, id ports.PaneID) error {
	if err := m.begin(ctx, "respawn pane "+string(id)); err != nil {
		return err
	}
	defer m.mu.Unlock()
	if _, err := m.windowOf(id); err != nil {
		return fmt.Errorf("respawn pane: %w", err)
	}
	m.t.mu.Lock()
	defer m.t.mu.Unlock()
	m.t.panes[id].restart(true)
	return nil
}

// remove removes panes from the Terminal and the layout.
func (m *Manager) remove(ids ...ports.PaneID) {
	for _, id := range slices.Clone(ids) {
		m.t.RemovePane(id)
	}
	m.sync()
}

// resizeScreen gives the pane a new size, roughly as tmux does: a shorter
// screen loses its blank rows below the cursor first and hands the top
// rows that still do not fit to history (the cursor stays on its row); a
// taller one gains blank rows below; a narrower one keeps only the cells
// that fit. t.mu must be held.
func resizeScreen(p *pane, width, height int) {
	s := p.scr
	if d := s.height - height; d > 0 {
		// Blank rows below the cursor go first; the rest of the cut
		// pushes rows off the top into history.
		trim := 0
		for trim < d && s.cy < s.height-1-trim && blank(s.rows[len(s.rows)-1-trim]) {
			trim++
		}
		s.rows = s.rows[:len(s.rows)-trim]
		s.cy = max(0, s.cy-(d-trim))
	} else {
		for range -d {
			s.rows = append(s.rows, row{})
		}
	}
	s.height = height
	if width < s.width {
		for i := range s.rows {
			if len(s.rows[i].cells) > width {
				s.rows[i].cells = s.rows[i].cells[:width]
			}
		}
	}
	s.width = width
	s.cx = min(s.cx, width)
	p.spec.Width, p.spec.Height = width, height
}

func blank(r row) bool { return strings.TrimRight(string(r.cells), " ") == "" }
