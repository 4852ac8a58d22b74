package multihost

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// Host is one backend the router serves, and what it is called.
type Host struct {
	// Name is what the host's ids carry (see ValidHostName).
	Name string

	// Destination tells how the host is reached, for ports.HostInfo; ""
	// for this machine.
	Destination string

	// Terminal is the host's backend.
	Terminal ports.Terminal

	// Manager is the host's lifecycle half: whichever of ports.Lister,
	// ports.Creator, ports.Arranger, ports.Renamer, ports.Remover and
	// ports.Respawner it implements; nil for none.
	Manager any

	// Leaser keeps the host's panes to one writer across processes; nil
	// for none.
	Leaser ports.Leaser
}

// Options are the router's settings.
type Options struct {
	// Now tells the time a host's status changed at; nil is time.Now.
	Now func() time.Time
}

// ErrInvalidHost: New was given a host it cannot route to: a name of
// another form, one named twice, or one without a Terminal.
var ErrInvalidHost = errors.New("invalid host")

// maxHostName is the longest host name.
const maxHostName = 64

// ValidHostName reports whether name can name a host: 1 to 64 ASCII
// letters, digits, '.', '_' and '-'. None is a ':', which ends the host's
// part of an id, nor anything a tmux target or a shell reads specially.
func ValidHostName(name string) bool {
	if name == "" || len(name) > maxHostName {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// Terminal routes every call to the backend of the host its id names. It
// is a ports.Terminal, a ports.Manager and a ports.HostLister, and every
// optional capability of a Terminal (see the package's doc). It is safe
// for concurrent use.
type Terminal struct {
	hosts  []*host
	byName map[string]*host
	now    func() time.Time
	leaser ports.Leaser // nil unless every host has one
}

// host is one Host and what the router last found of it.
type host struct {
	Host

	mu     sync.Mutex
	status ports.HostInfo
}

var (
	_ ports.Terminal         = (*Terminal)(nil)
	_ ports.Manager          = (*Terminal)(nil)
	_ ports.HostLister       = (*Terminal)(nil)
	_ ports.ScreenCapturer   = (*Terminal)(nil)
	_ ports.GuardedWriter    = (*Terminal)(nil)
	_ ports.ScriptWitness    = (*Terminal)(nil)
	_ ports.ProcessWatcher   = (*Terminal)(nil)
	_ ports.Signaler         = (*Terminal)(nil)
	_ ports.ProcessChecker   = (*Terminal)(nil)
	_ ports.InputWatcher     = (*Terminal)(nil)
	_ ports.DescribingLeaser = (*leaser)(nil)
)

// New returns the router over hosts, in that order: listings follow it,
// and a session whose name names no host is made on the first. It does
// not contact any host. Errors wrap ErrInvalidHost: no hosts, a name
// ValidHostName refuses or given twice, a host without a Terminal.
func New(hosts []Host, opts Options) (*Terminal, error) {
	if len(hosts) == 0 {
		return nil, fmt.Errorf("route to hosts: none given: %w", ErrInvalidHost)
	}
	t := &Terminal{byName: make(map[string]*host, len(hosts)), now: opts.Now}
	if t.now == nil {
		t.now = time.Now
	}
	leases := true
	for _, h := range hosts {
		switch {
		case !ValidHostName(h.Name):
			return nil, fmt.Errorf("route to host %q: a host name is 1 to %d of A-Z a-z 0-9 . _ -: %w", h.Name, maxHostName, ErrInvalidHost)
		case t.byName[h.Name] != nil:
			return nil, fmt.Errorf("route to host %q: named twice: %w", h.Name, ErrInvalidHost)
		case h.Terminal == nil:
			return nil, fmt.Errorf("route to host %q: no terminal: %w", h.Name, ErrInvalidHost)
		}
		hh := &host{Host: h, status: ports.HostInfo{Name: h.Name, Destination: h.Destination}}
		t.hosts = append(t.hosts, hh)
		t.byName[h.Name] = hh
		leases = leases && h.Leaser != nil
	}
	if leases {
		t.leaser = &leaser{t: t}
	}
	return t, nil
}

// Leaser returns the router's ports.DescribingLeaser, which leases a pane
// through its host's Leaser, or nil when a host has none.
func (t *Terminal) Leaser() ports.Leaser { return t.leaser }

// Hosts asks every host that can list what its server holds
// (ports.Lister.ServerInfo), at once, and reports each host as it found
// it; a host that cannot list is reported as its last call found it.
func (t *Terminal) Hosts(ctx context.Context) []ports.HostInfo {
	counts := make([]ports.ServerInfo, len(t.hosts))
	var wg sync.WaitGroup
	for i, h := range t.hosts {
		l, ok := h.Manager.(ports.Lister)
		if !ok {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			info, err := l.ServerInfo(ctx)
			if h.saw(ctx, err, true, t.now) == nil {
				counts[i] = info
			}
		}()
	}
	wg.Wait()
	out := make([]ports.HostInfo, len(t.hosts))
	for i, h := range t.hosts {
		out[i] = h.info()
		if out[i].Reachable {
			out[i].Sessions, out[i].Panes = counts[i].Sessions, counts[i].Panes
		}
	}
	return out
}

// info is what the router last found of h.
func (h *host) info() ports.HostInfo {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.status
}

// saw records what a call to h came to and returns err told as h's.
// The host is reachable after an answer: no error, or one that only the
// host could give (no such pane, session or window; a dead pane). It is
// unreachable after ports.ErrUnavailable, and after any error of a
// listing, which asks nothing of one pane that could be amiss. An error
// that came of ctx ending tells nothing of the host.
func (h *host) saw(ctx context.Context, err error, listing bool, now func() time.Time) error {
	up, known := false, true
	switch {
	case err == nil, errors.Is(err, ports.ErrPaneNotFound), errors.Is(err, ports.ErrNotFound), errors.Is(err, ports.ErrPaneDead):
		up = true
	case ctx.Err() != nil && !errors.Is(err, ports.ErrUnavailable):
		known = false
	case errors.Is(err, ports.ErrUnavailable):
	case listing && !errors.Is(err, ports.ErrUnsupported):
	default:
		known = false
	}
	if known {
		h.mu.Lock()
		if h.status.Since.IsZero() || h.status.Reachable != up {
			h.status.Since = now()
		}
		h.status.Reachable = up
		h.status.Error = ""
		if !up {
			h.status.Error = err.Error()
		}
		h.mu.Unlock()
	}
	if err == nil {
		return nil
	}
	return fmt.Errorf("on host %s: %w", h.Name, err)
}

// The ids of the router: a host's name, a colon, the host's own id.
const sep = ":"

// qualify returns the router's id of the host's own id.
func (h *host) qualify(id string) string { return h.Name + sep + id }

func (h *host) pane(id ports.PaneID) ports.PaneID { return ports.PaneID(h.qualify(string(id))) }

// split returns the host an id names and the host's own id; ok is false
// for an id that names no configured host.
func (t *Terminal) split(id string) (h *host, own string, ok bool) {
	name, own, found := strings.Cut(id, sep)
	if !found || own == "" {
		return nil, "", false
	}
	h = t.byName[name]
	return h, own, h != nil
}

// pane returns the host of a pane id and the host's own id of the pane.
// Errors wrap ports.ErrPaneNotFound.
func (t *Terminal) pane(what string, id ports.PaneID) (*host, ports.PaneID, error) {
	h, own, ok := t.split(string(id))
	if !ok {
		return nil, "", fmt.Errorf("%s %s: %s: %w", what, id, t.noHost(string(id)), ports.ErrPaneNotFound)
	}
	return h, ports.PaneID(own), nil
}

// ref returns the host of a session or window id (or a session's
// qualified name) and the host's own. Errors wrap ports.ErrNotFound.
func (t *Terminal) ref(what, id string) (*host, string, error) {
	h, own, ok := t.split(id)
	if !ok {
		return nil, "", fmt.Errorf("%s %s: %s: %w", what, id, t.noHost(id), ports.ErrNotFound)
	}
	return h, own, nil
}

// noHost says why id names no host.
func (t *Terminal) noHost(id string) string {
	name, _, found := strings.Cut(id, sep)
	if !found {
		return "the id names no host (HOST" + sep + "ID, as listings give it)"
	}
	return fmt.Sprintf("no host is named %q", name)
}

// paneInfo returns info with the router's ids.
func (h *host) paneInfo(info ports.PaneInfo) ports.PaneInfo {
	if info.ID != "" {
		info.ID = h.pane(info.ID)
	}
	if info.AlsoReaches != nil {
		also := make([]ports.PaneID, len(info.AlsoReaches))
		for i, p := range info.AlsoReaches {
			also[i] = h.pane(p)
		}
		info.AlsoReaches = also
	}
	return info
}
