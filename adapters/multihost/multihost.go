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

	// Terminal is the host's backend; nil for a host whose backend Dial
	// makes.
	Terminal ports.Terminal

	// Manager is the host's lifecycle half: whichever of ports.Lister,
	// ports.Creator, ports.Arranger, ports.Renamer, ports.Remover and
	// ports.Respawner it implements; nil for none.
	Manager any

	// Leaser keeps the host's panes to one writer across processes; nil
	// for none.
	Leaser ports.Leaser

	// Close, when not nil, is what the router's Close calls to close the
	// host's backend.
	Close func() error

	// Dial, for a host without a Terminal (one that could not be reached
	// when the server started), makes its backend: the Terminal, Manager,
	// Leaser and Close of the Host it returns (its Name and Destination
	// are ignored). The router dials when a call needs the host, in the
	// background, never again sooner than Options.DialRetry after a
	// failure; until a dial succeeds the host is unreachable with the
	// dial's error. Errors should wrap ports.ErrUnavailable (the router
	// makes them so).
	Dial func(ctx context.Context) (Host, error)
}

// Options are the router's settings.
type Options struct {
	// Now tells the time a host's status changed at, and when to dial
	// again; nil is time.Now.
	Now func() time.Time

	// DialRetry is the least time between two dials of a host that
	// failed to dial; 0 is DefaultDialRetry.
	DialRetry time.Duration
}

// DefaultDialRetry is how soon a host that failed to dial is dialed
// again, at the earliest: the next call after it dials it.
const DefaultDialRetry = 5 * time.Second

// ErrInvalidHost: New was given a host it cannot route to: a name of
// another form, one named twice, or one with neither a Terminal nor a
// Dial.
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
	retry  time.Duration
	leaser ports.Leaser // nil unless every host has one

	// life ends with Close: the dials run under it, counted in dials.
	life    context.Context
	endLife context.CancelFunc
	dials   sync.WaitGroup
}

// host is one host of the router: its backend, once there is one, and
// what the router last found of it.
type host struct {
	name, dest string
	dial       func(context.Context) (Host, error)

	mu      sync.Mutex
	status  ports.HostInfo
	backend *Host         // nil until a dial succeeds
	dialing chan struct{} // closed when the running dial ends; nil when none runs
	failed  time.Time     // when the last dial failed
	failure error         // its error; nil when none failed
}

// route is a host and its backend, for one call.
type route struct {
	*host
	Host
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
// ValidHostName refuses or given twice, a host with neither a Terminal
// nor a Dial.
//
// The router has a Leaser when every host that has a Terminal has one;
// a host that Dial makes must then have one too, or its dial fails.
func New(hosts []Host, opts Options) (*Terminal, error) {
	if len(hosts) == 0 {
		return nil, fmt.Errorf("route to hosts: none given: %w", ErrInvalidHost)
	}
	t := &Terminal{byName: make(map[string]*host, len(hosts)), now: opts.Now, retry: opts.DialRetry}
	if t.now == nil {
		t.now = time.Now
	}
	if t.retry <= 0 {
		t.retry = DefaultDialRetry
	}
	leases := true
	for _, h := range hosts {
		switch {
		case !ValidHostName(h.Name):
			return nil, fmt.Errorf("route to host %q: a host name is 1 to %d of A-Z a-z 0-9 . _ -: %w", h.Name, maxHostName, ErrInvalidHost)
		case t.byName[h.Name] != nil:
			return nil, fmt.Errorf("route to host %q: named twice: %w", h.Name, ErrInvalidHost)
		case h.Terminal == nil && h.Dial == nil:
			return nil, fmt.Errorf("route to host %q: no terminal and no way to make one: %w", h.Name, ErrInvalidHost)
		}
		hh := &host{name: h.Name, dest: h.Destination, dial: h.Dial, status: ports.HostInfo{Name: h.Name, Destination: h.Destination}}
		if h.Terminal != nil {
			b := h
			hh.backend = &b
			leases = leases && h.Leaser != nil
		}
		t.hosts = append(t.hosts, hh)
		t.byName[h.Name] = hh
	}
	if leases {
		t.leaser = &leaser{t: t}
	}
	t.life, t.endLife = context.WithCancel(context.Background())
	return t, nil
}

// Leaser returns the router's ports.DescribingLeaser, which leases a pane
// through its host's Leaser, or nil when a host has none.
func (t *Terminal) Leaser() ports.Leaser { return t.leaser }

// Close stops the dials under way, waits for them, and closes every
// host's backend that has a Close. Calls after the first close nothing
// more.
func (t *Terminal) Close() error {
	t.endLife()
	t.dials.Wait()
	var errs []error
	for _, h := range t.hosts {
		h.mu.Lock()
		b := h.backend
		h.backend = nil
		h.mu.Unlock()
		if b != nil && b.Close != nil {
			errs = append(errs, b.Close())
		}
	}
	return errors.Join(errs...)
}

// route returns h's backend for a call: at once when it has one; else
// after the dial that is under way or that this call starts (a dial
// having failed no sooner than the retry interval ago), as long as ctx
// allows. Errors wrap ports.ErrUnavailable.
func (t *Terminal) route(ctx context.Context, h *host) (route, error) {
	h.mu.Lock()
	if b := h.backend; b != nil {
		h.mu.Unlock()
		return route{h, *b}, nil
	}
	if h.dialing == nil && t.life.Err() == nil && (h.failure == nil || t.now().Sub(h.failed) >= t.retry) {
		h.dialing = make(chan struct{})
		t.dials.Add(1)
		go t.connect(h, h.dialing)
	}
	wait := h.dialing
	h.mu.Unlock()
	if wait != nil {
		select {
		case <-wait:
		case <-ctx.Done():
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if b := h.backend; b != nil {
		return route{h, *b}, nil
	}
	why := h.failure
	switch {
	case h.dialing != nil:
		why = errors.New("still connecting")
	case why == nil:
		why = errors.New("closed")
	}
	return route{}, fmt.Errorf("on host %s: %w", h.name, unavailable(why))
}

// connect dials h and records the outcome; done is closed at its end.
func (t *Terminal) connect(h *host, done chan struct{}) {
	defer t.dials.Done()
	b, err := h.dial(t.life)
	if err == nil && b.Terminal == nil {
		err = errors.New("the dial made no terminal")
	}
	if err == nil && t.leaser != nil && b.Leaser == nil {
		err = errors.New("its backend keeps no leases, which the other hosts' do: its panes would be written to by two processes at once")
	}
	if err != nil && b.Close != nil {
		err = errors.Join(err, b.Close())
	}
	if err == nil && t.life.Err() != nil {
		// Closed meanwhile: what was made is closed, not kept.
		if b.Close != nil {
			_ = b.Close()
		}
		err = errors.New("closed")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.dialing = nil
	defer close(done)
	if err != nil {
		h.failed, h.failure = t.now(), fmt.Errorf("connect: %w", err)
		h.mark(false, h.failure.Error(), t.now)
		return
	}
	h.failure = nil
	h.backend = &b
	h.mark(true, "", t.now)
}

// unavailable is err, wrapping ports.ErrUnavailable.
func unavailable(err error) error {
	if errors.Is(err, ports.ErrUnavailable) {
		return err
	}
	return fmt.Errorf("%w: %w", err, ports.ErrUnavailable)
}

// Hosts asks every host that can list what its server holds
// (ports.Lister.ServerInfo), at once, and reports each host as it found
// it; a host that cannot list is reported as its last call found it.
func (t *Terminal) Hosts(ctx context.Context) []ports.HostInfo {
	counts := make([]ports.ServerInfo, len(t.hosts))
	var wg sync.WaitGroup
	for i, h := range t.hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := t.route(ctx, h)
			if err != nil {
				return
			}
			l, ok := r.Manager.(ports.Lister)
			if !ok {
				return
			}
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

// HostStatus reports every host as the calls so far found it.
func (t *Terminal) HostStatus() []ports.HostInfo {
	out := make([]ports.HostInfo, len(t.hosts))
	for i, h := range t.hosts {
		out[i] = h.info()
	}
	return out
}

// info is what the router last found of h.
func (h *host) info() ports.HostInfo {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.status
}

// mark records whether h answered; h.mu must be held.
func (h *host) mark(up bool, why string, now func() time.Time) {
	if h.status.Since.IsZero() || h.status.Reachable != up {
		h.status.Since = now()
	}
	h.status.Reachable, h.status.Error = up, why
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
		why := ""
		if !up {
			why = err.Error()
		}
		h.mu.Lock()
		h.mark(up, why, now)
		h.mu.Unlock()
	}
	if err == nil {
		return nil
	}
	return fmt.Errorf("on host %s: %w", h.name, err)
}

// The ids of the router: a host's name, a colon, the host's own id.
const sep = ":"

// qualify returns the router's id of the host's own id.
func (h *host) qualify(id string) string { return h.name + sep + id }

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

// pane returns the route of a pane id's host and the host's own id of
// the pane. Errors wrap ports.ErrPaneNotFound for an id of no host, and
// are route's for a host that cannot be reached.
func (t *Terminal) pane(ctx context.Context, what string, id ports.PaneID) (route, ports.PaneID, error) {
	h, own, ok := t.split(string(id))
	if !ok {
		return route{}, "", fmt.Errorf("%s %s: %s: %w", what, id, t.noHost(string(id)), ports.ErrPaneNotFound)
	}
	r, err := t.route(ctx, h)
	if err != nil {
		return route{}, "", fmt.Errorf("%s %s: %w", what, id, err)
	}
	return r, ports.PaneID(own), nil
}

// ref returns the route of the host of a session or window id (or a
// session's qualified name) and the host's own. Errors wrap
// ports.ErrNotFound for an id of no host, and are route's for a host
// that cannot be reached.
func (t *Terminal) ref(ctx context.Context, what, id string) (route, string, error) {
	h, own, ok := t.split(id)
	if !ok {
		return route{}, "", fmt.Errorf("%s %s: %s: %w", what, id, t.noHost(id), ports.ErrNotFound)
	}
	r, err := t.route(ctx, h)
	if err != nil {
		return route{}, "", fmt.Errorf("%s %s: %w", what, id, err)
	}
	return r, own, nil
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
