package multihost_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
	"github.com/tmux-mcp/tmux-mcp/adapters/multihost"
	"github.com/tmux-mcp/tmux-mcp/ports"
	"github.com/tmux-mcp/tmux-mcp/test/contract"
)

// A router over two hosts passes the contract suite every Terminal
// passes: each test's panes are on one host, the tests taking turns, so
// that both hosts serve it and the ids it is handed carry their host.
func TestContract(t *testing.T) {
	clock := fake.NewClock(time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC))
	h := &harness{clock: clock, fakes: map[string]*fake.Terminal{}, of: map[string]string{}}
	var hosts []multihost.Host
	for _, name := range []string{"web1", "web2"} {
		term := fake.New(fake.WithClock(clock))
		h.fakes[name] = term
		h.names = append(h.names, name)
		hosts = append(hosts, multihost.Host{Name: name, Terminal: term, Manager: fake.NewManager(term)})
	}
	router, err := multihost.New(hosts, multihost.Options{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	h.router = router
	contract.Run(t, h)
	if h.used["web1"] == 0 || h.used["web2"] == 0 {
		t.Errorf("panes made per host: %v; the suite should have run on both", h.used)
	}
}

type harness struct {
	clock  *fake.Clock
	router *multihost.Terminal
	names  []string
	fakes  map[string]*fake.Terminal

	mu   sync.Mutex
	of   map[string]string // a top-level test's host
	used map[string]int
}

func (h *harness) Terminal() ports.Terminal { return h.router }

// hostOf is the host of t's test: the next in turn, the first time.
func (h *harness) hostOf(t *testing.T) string {
	// TestContract/Name: a test of the suite, whatever its subtests.
	test := strings.Join(strings.SplitN(t.Name(), "/", 3)[:min(2, strings.Count(t.Name(), "/")+1)], "/")
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.used == nil {
		h.used = map[string]int{}
	}
	name, ok := h.of[test]
	if !ok {
		name = h.names[len(h.of)%len(h.names)]
		h.of[test] = name
	}
	h.used[name]++
	return name
}

// own is the fake and the fake's own id of a pane id of the router.
func (h *harness) own(t *testing.T, id ports.PaneID) (*fake.Terminal, ports.PaneID) {
	t.Helper()
	name, rest, ok := strings.Cut(string(id), ":")
	if !ok || h.fakes[name] == nil {
		t.Fatalf("pane id %q carries no host of the router", id)
	}
	return h.fakes[name], ports.PaneID(rest)
}

func (h *harness) NewShellPane(t *testing.T) ports.PaneID {
	name := h.hostOf(t)
	term := h.fakes[name]
	id := term.AddPane(fake.PaneSpec{Command: "bash"})
	t.Cleanup(func() { term.RemovePane(id) })
	return ports.PaneID(name + ":" + string(id))
}

func (h *harness) KillPane(t *testing.T, id ports.PaneID) {
	term, own := h.own(t, id)
	term.KillPane(own)
}

func (h *harness) Attach(t *testing.T, id ports.PaneID) func() {
	const client = "/dev/pts/contract"
	term, own := h.own(t, id)
	term.Attach(own, client)
	return func() { term.Detach(own, client) }
}

func (h *harness) Synchronize(t *testing.T, ids ...ports.PaneID) {
	var term *fake.Terminal
	own := make([]ports.PaneID, len(ids))
	for i, id := range ids {
		var tt *fake.Terminal
		tt, own[i] = h.own(t, id)
		if term != nil && tt != term {
			t.Fatalf("panes %v are on different hosts: no input reaches across hosts", ids)
		}
		term = tt
	}
	term.Synchronize(own...)
}

func (h *harness) EnterMode(t *testing.T, id ports.PaneID) {
	term, own := h.own(t, id)
	term.SetMode(own, "copy-mode")
}

// Eventually moves the clock both fakes share, as the fake's own harness
// does.
func (h *harness) Eventually(t *testing.T, cond func() bool, what string) {
	t.Helper()
	for range 5 {
		if cond() {
			return
		}
		h.clock.Advance(time.Second)
	}
	t.Fatalf("never happened: %s", what)
}
