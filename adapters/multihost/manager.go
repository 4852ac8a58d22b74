package multihost

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// The Manager half. A call about one pane, window or session goes to its
// host; a listing of everything asks every host (see each host's status
// in Hosts).

// capability returns h's Manager as a C, or the error of a host that
// lacks it.
func capability[C any](h route, what, id, name string) (C, error) {
	c, ok := h.Manager.(C)
	if !ok {
		var zero C
		return zero, fmt.Errorf("%s %s: the backend of host %s is no %s: %w", what, id, h.name, name, ports.ErrUnsupported)
	}
	return c, nil
}

// each calls list on every host that is a Lister, at once, and returns
// what each answered, in the hosts' order, leaving out those that failed.
// It fails only when every host failed (or none can list), with all
// their errors.
func each[T any](ctx context.Context, t *Terminal, what string, list func(*host, ports.Lister) ([]T, error)) ([]T, error) {
	got := make([][]T, len(t.hosts))
	errs := make([]error, len(t.hosts))
	var wg sync.WaitGroup
	for i, h := range t.hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := t.route(ctx, h)
			if err != nil {
				errs[i] = fmt.Errorf("%s: %w", what, err)
				return
			}
			l, ok := r.Manager.(ports.Lister)
			if !ok {
				errs[i] = fmt.Errorf("%s: the backend of host %s is no lister: %w", what, h.name, ports.ErrUnsupported)
				return
			}
			v, err := list(h, l)
			errs[i] = h.saw(ctx, err, true, t.now)
			got[i] = v
		}()
	}
	wg.Wait()
	var out []T
	answered := false
	for i := range t.hosts {
		if errs[i] == nil {
			answered = true
			out = append(out, got[i]...)
		}
	}
	if !answered {
		return nil, errors.Join(errs...)
	}
	if out == nil {
		out = []T{}
	}
	return out, nil
}

func (h *host) sessionRef(r ports.SessionRef) ports.SessionRef {
	if r.ID != "" {
		r.ID = h.qualify(r.ID)
	}
	return r
}

func (h *host) windowRef(r ports.WindowRef) ports.WindowRef {
	if r.ID != "" {
		r.ID = h.qualify(r.ID)
	}
	return r
}

func (h *host) created(c ports.Created) ports.Created {
	c.Session, c.Window = h.sessionRef(c.Session), h.windowRef(c.Window)
	if c.Pane != "" {
		c.Pane = h.pane(c.Pane)
	}
	return c
}

func (h *host) windows(ws []ports.WindowInfo) []ports.WindowInfo {
	for i := range ws {
		ws[i].WindowRef, ws[i].Session = h.windowRef(ws[i].WindowRef), h.sessionRef(ws[i].Session)
	}
	return ws
}

func (h *host) panes(ps []ports.PaneSummary) []ports.PaneSummary {
	for i := range ps {
		ps[i].ID = h.pane(ps[i].ID)
		ps[i].Session, ps[i].Window = h.sessionRef(ps[i].Session), h.windowRef(ps[i].Window)
	}
	return ps
}

// ListSessions describes the sessions of every host that answers.
func (t *Terminal) ListSessions(ctx context.Context) ([]ports.SessionInfo, error) {
	return each(ctx, t, "list sessions", func(h *host, l ports.Lister) ([]ports.SessionInfo, error) {
		ss, err := l.ListSessions(ctx)
		for i := range ss {
			ss[i].SessionRef = h.sessionRef(ss[i].SessionRef)
		}
		return ss, err
	})
}

// ListWindows describes the windows of the session, on its host, or of
// every session of every host that answers when session is "".
func (t *Terminal) ListWindows(ctx context.Context, session string) ([]ports.WindowInfo, error) {
	if session == "" {
		return each(ctx, t, "list windows", func(h *host, l ports.Lister) ([]ports.WindowInfo, error) {
			ws, err := l.ListWindows(ctx, "")
			return h.windows(ws), err
		})
	}
	h, own, err := t.ref(ctx, "list the windows of session", session)
	if err != nil {
		return nil, err
	}
	l, err := capability[ports.Lister](h, "list the windows of session", session, "lister")
	if err != nil {
		return nil, err
	}
	ws, err := l.ListWindows(ctx, own)
	return h.windows(ws), h.saw(ctx, err, false, t.now)
}

// ListPanes describes the panes f selects: on the host of its session,
// window or pane, or of every host that answers when f selects none.
func (t *Terminal) ListPanes(ctx context.Context, f ports.PaneFilter) ([]ports.PaneSummary, error) {
	var (
		h    route
		own  ports.PaneFilter
		err  error
		what = "list the panes of"
	)
	switch {
	case f.Session != "":
		h, own.Session, err = t.ref(ctx, what+" session", f.Session)
	case f.Window != "":
		h, own.Window, err = t.ref(ctx, what+" window", f.Window)
	case f.Pane != "":
		h, own.Pane, err = t.pane(ctx, "list pane", f.Pane)
	default:
		return each(ctx, t, "list panes", func(h *host, l ports.Lister) ([]ports.PaneSummary, error) {
			ps, err := l.ListPanes(ctx, ports.PaneFilter{})
			return h.panes(ps), err
		})
	}
	if err != nil {
		return nil, err
	}
	l, err := capability[ports.Lister](h, "list panes", "", "lister")
	if err != nil {
		return nil, err
	}
	ps, err := l.ListPanes(ctx, own)
	return h.panes(ps), h.saw(ctx, err, false, t.now)
}

// ServerInfo describes the hosts' servers together: the counts are their
// sums over the hosts that answer, Address names the hosts, Version is
// the servers' one version or each host's ("web1=3.4 web2=3.3"), and PID
// and Started are zero, there being no one server.
func (t *Terminal) ServerInfo(ctx context.Context) (ports.ServerInfo, error) {
	type named struct {
		host string
		info ports.ServerInfo
	}
	all, err := each(ctx, t, "describe the server", func(h *host, l ports.Lister) ([]named, error) {
		info, err := l.ServerInfo(ctx)
		return []named{{h.name, info}}, err
	})
	if err != nil {
		return ports.ServerInfo{}, err
	}
	var sum ports.ServerInfo
	names := make([]string, 0, len(t.hosts))
	for _, h := range t.hosts {
		names = append(names, h.name)
	}
	sum.Address = fmt.Sprintf("%d hosts: %s", len(t.hosts), strings.Join(names, ", "))
	versions, same := make([]string, 0, len(all)), true
	for _, n := range all {
		sum.Sessions += n.info.Sessions
		sum.Windows += n.info.Windows
		sum.Panes += n.info.Panes
		sum.Clients += n.info.Clients
		versions = append(versions, n.host+"="+n.info.Version)
		same = same && n.info.Version == all[0].info.Version
	}
	if same && len(all) > 0 {
		sum.Version = all[0].info.Version
	} else {
		sum.Version = strings.Join(versions, " ")
	}
	return sum, nil
}

// CreateSession makes the session on the host its name names
// ("web1:work", "web1:" for a name the backend chooses), or on the first
// host when it names none.
func (t *Terminal) CreateSession(ctx context.Context, spec ports.SessionSpec) (ports.Created, error) {
	hh := t.hosts[0]
	if name, rest, found := strings.Cut(spec.Name, sep); found {
		if hh = t.byName[name]; hh == nil {
			return ports.Created{}, fmt.Errorf("create session %q: %s: %w", spec.Name, t.noHost(spec.Name), ports.ErrNotFound)
		}
		spec.Name = rest
	}
	h, err := t.route(ctx, hh)
	if err != nil {
		return ports.Created{}, fmt.Errorf("create session %q: %w", spec.Name, err)
	}
	c, err := capability[ports.Creator](h, "create session", spec.Name, "creator")
	if err != nil {
		return ports.Created{}, err
	}
	made, err := c.CreateSession(ctx, spec)
	return h.created(made), h.saw(ctx, err, false, t.now)
}

// CreateWindow adds a window to the session, on its host.
func (t *Terminal) CreateWindow(ctx context.Context, session, name string) (ports.Created, error) {
	h, own, err := t.ref(ctx, "create a window in session", session)
	if err != nil {
		return ports.Created{}, err
	}
	c, err := capability[ports.Creator](h, "create a window in session", session, "creator")
	if err != nil {
		return ports.Created{}, err
	}
	made, err := c.CreateWindow(ctx, own, name)
	return h.created(made), h.saw(ctx, err, false, t.now)
}

// SplitWindow splits the pane, on its host.
func (t *Terminal) SplitWindow(ctx context.Context, pane ports.PaneID, vertical bool, size int) (ports.Created, error) {
	h, own, err := t.pane(ctx, "split pane", pane)
	if err != nil {
		return ports.Created{}, err
	}
	c, err := capability[ports.Creator](h, "split pane", string(pane), "creator")
	if err != nil {
		return ports.Created{}, err
	}
	made, err := c.SplitWindow(ctx, own, vertical, size)
	return h.created(made), h.saw(ctx, err, false, t.now)
}

// SelectPane makes the pane its window's active pane, on its host.
func (t *Terminal) SelectPane(ctx context.Context, pane ports.PaneID) error {
	h, own, err := t.pane(ctx, "select pane", pane)
	if err != nil {
		return err
	}
	a, err := capability[ports.Arranger](h, "select pane", string(pane), "arranger")
	if err != nil {
		return err
	}
	return h.saw(ctx, a.SelectPane(ctx, own), false, t.now)
}

// SelectWindow makes the window its session's current one, on its host.
func (t *Terminal) SelectWindow(ctx context.Context, window string) error {
	h, own, err := t.ref(ctx, "select window", window)
	if err != nil {
		return err
	}
	a, err := capability[ports.Arranger](h, "select window", window, "arranger")
	if err != nil {
		return err
	}
	return h.saw(ctx, a.SelectWindow(ctx, own), false, t.now)
}

// ResizePane resizes the pane, on its host.
func (t *Terminal) ResizePane(ctx context.Context, pane ports.PaneID, width, height int) error {
	h, own, err := t.pane(ctx, "resize pane", pane)
	if err != nil {
		return err
	}
	a, err := capability[ports.Arranger](h, "resize pane", string(pane), "arranger")
	if err != nil {
		return err
	}
	return h.saw(ctx, a.ResizePane(ctx, own, width, height), false, t.now)
}

// ResizeWindow resizes the window, on its host.
func (t *Terminal) ResizeWindow(ctx context.Context, window string, width, height int) error {
	h, own, err := t.ref(ctx, "resize window", window)
	if err != nil {
		return err
	}
	a, err := capability[ports.Arranger](h, "resize window", window, "arranger")
	if err != nil {
		return err
	}
	return h.saw(ctx, a.ResizeWindow(ctx, own, width, height), false, t.now)
}

// RenameSession renames the session, on its host. The new name is a
// name, without a host.
func (t *Terminal) RenameSession(ctx context.Context, session, name string) error {
	h, own, err := t.ref(ctx, "rename session", session)
	if err != nil {
		return err
	}
	r, err := capability[ports.Renamer](h, "rename session", session, "renamer")
	if err != nil {
		return err
	}
	return h.saw(ctx, r.RenameSession(ctx, own, name), false, t.now)
}

// RenameWindow renames the window, on its host.
func (t *Terminal) RenameWindow(ctx context.Context, window, name string) error {
	h, own, err := t.ref(ctx, "rename window", window)
	if err != nil {
		return err
	}
	r, err := capability[ports.Renamer](h, "rename window", window, "renamer")
	if err != nil {
		return err
	}
	return h.saw(ctx, r.RenameWindow(ctx, own, name), false, t.now)
}

// ClearHistory clears the pane's history, on its host.
func (t *Terminal) ClearHistory(ctx context.Context, pane ports.PaneID) error {
	h, own, err := t.pane(ctx, "clear the history of pane", pane)
	if err != nil {
		return err
	}
	r, err := capability[ports.Remover](h, "clear the history of pane", string(pane), "remover")
	if err != nil {
		return err
	}
	return h.saw(ctx, r.ClearHistory(ctx, own), false, t.now)
}

// KillPane kills the pane, on its host.
func (t *Terminal) KillPane(ctx context.Context, pane ports.PaneID) error {
	h, own, err := t.pane(ctx, "kill pane", pane)
	if err != nil {
		return err
	}
	r, err := capability[ports.Remover](h, "kill pane", string(pane), "remover")
	if err != nil {
		return err
	}
	return h.saw(ctx, r.KillPane(ctx, own), false, t.now)
}

// KillWindow kills the window, on its host.
func (t *Terminal) KillWindow(ctx context.Context, window string) error {
	h, own, err := t.ref(ctx, "kill window", window)
	if err != nil {
		return err
	}
	r, err := capability[ports.Remover](h, "kill window", window, "remover")
	if err != nil {
		return err
	}
	return h.saw(ctx, r.KillWindow(ctx, own), false, t.now)
}

// KillSession kills the session, on its host.
func (t *Terminal) KillSession(ctx context.Context, session string) error {
	h, own, err := t.ref(ctx, "kill session", session)
	if err != nil {
		return err
	}
	r, err := capability[ports.Remover](h, "kill session", session, "remover")
	if err != nil {
		return err
	}
	return h.saw(ctx, r.KillSession(ctx, own), false, t.now)
}

// RespawnPane restarts the pane's program, on its host.
func (t *Terminal) RespawnPane(ctx context.Context, pane ports.PaneID) error {
	h, own, err := t.pane(ctx, "respawn pane", pane)
	if err != nil {
		return err
	}
	r, err := capability[ports.Respawner](h, "respawn pane", string(pane), "respawner")
	if err != nil {
		return err
	}
	return h.saw(ctx, r.RespawnPane(ctx, own), false, t.now)
}
