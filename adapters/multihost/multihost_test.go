package multihost_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
	"github.com/tmux-mcp/tmux-mcp/adapters/multihost"
	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// two is a router over two fake hosts, web1 and web2, each with one bash
// pane (%0 on each), a Manager and a Leaser, on one clock.
type two struct {
	clock   *fake.Clock
	router  *multihost.Terminal
	fakes   map[string]*fake.Terminal
	leasers map[string]*fake.Leaser
}

func newTwo(t *testing.T, edit func(name string, h *multihost.Host)) *two {
	t.Helper()
	w := &two{clock: fake.NewClock(time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)), fakes: map[string]*fake.Terminal{}, leasers: map[string]*fake.Leaser{}}
	var hosts []multihost.Host
	for _, name := range []string{"web1", "web2"} {
		term := fake.New(fake.WithClock(w.clock))
		term.AddPane(fake.PaneSpec{Command: "bash"})
		w.fakes[name], w.leasers[name] = term, fake.NewLeaser(w.clock)
		h := multihost.Host{Name: name, Destination: "deploy@" + name, Terminal: term, Manager: fake.NewManager(term), Leaser: w.leasers[name]}
		if edit != nil {
			edit(name, &h)
		}
		hosts = append(hosts, h)
	}
	r, err := multihost.New(hosts, multihost.Options{Now: w.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	w.router = r
	return w
}

func paneIDs(ps []ports.PaneSummary) []ports.PaneID {
	var ids []ports.PaneID
	for _, p := range ps {
		ids = append(ids, p.ID)
	}
	return ids
}

func hostNamed(hs []ports.HostInfo, name string) ports.HostInfo {
	for _, h := range hs {
		if h.Name == name {
			return h
		}
	}
	return ports.HostInfo{}
}

func TestListingsCarryEachHostInItsIds(t *testing.T) {
	w := newTwo(t, nil)
	ctx := t.Context()
	panes, err := w.router.ListPanes(ctx, ports.PaneFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := paneIDs(panes), []ports.PaneID{"web1:%0", "web2:%0"}; !slices.Equal(got, want) {
		t.Fatalf("panes = %v, want %v: each host's own, in the order of the hosts", got, want)
	}
	for _, p := range panes {
		host, _, _ := strings.Cut(string(p.ID), ":")
		if !strings.HasPrefix(p.Session.ID, host+":$") || !strings.HasPrefix(p.Window.ID, host+":@") {
			t.Errorf("pane %s is in session %q, window %q: want both ids on host %s", p.ID, p.Session.ID, p.Window.ID, host)
		}
	}
	sessions, err := w.router.ListSessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(sessions) != 2 || sessions[0].ID != "web1:$0" || sessions[1].ID != "web2:$0" {
		t.Errorf("sessions = %+v, want web1:$0 and web2:$0", sessions)
	}
	windows, err := w.router.ListWindows(ctx, "web2:$0")
	if err != nil {
		t.Fatal(err)
	}
	if len(windows) != 1 || windows[0].ID != "web2:@0" || windows[0].Session.ID != "web2:$0" {
		t.Errorf("windows of web2:$0 = %+v, want web2:@0 alone", windows)
	}
	info, err := w.router.Pane(ctx, "web2:%0")
	if err != nil || info.ID != "web2:%0" {
		t.Errorf("Pane(web2:%%0) = %+v, %v; want its id as given", info, err)
	}
}

func TestCallsGoToTheHostTheIdNames(t *testing.T) {
	w := newTwo(t, nil)
	ctx := t.Context()
	if err := w.router.SendText(ctx, "web2:%0", "hello"); err != nil {
		t.Fatal(err)
	}
	if got := w.fakes["web2"].Sent("%0"); len(got) != 1 || got[0].Text != "hello" {
		t.Errorf("web2's %%0 got %+v, want the text", got)
	}
	if got := w.fakes["web1"].Sent("%0"); len(got) != 0 {
		t.Errorf("web1's %%0 got %+v, want nothing: the id named web2", got)
	}
	made, err := w.router.CreateSession(ctx, ports.SessionSpec{Name: "web2:work"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(made.Pane), "web2:%") || made.Session.Name != "work" || !strings.HasPrefix(made.Session.ID, "web2:$") {
		t.Errorf("created %+v, want session work on web2, its ids carrying web2", made)
	}
	if _, err := w.router.CreateWindow(ctx, "web2:work", "logs"); err != nil {
		t.Errorf("CreateWindow on web2's session work by its qualified name: %v", err)
	}
	first, err := w.router.CreateSession(ctx, ports.SessionSpec{Name: "plain"})
	if err != nil || !strings.HasPrefix(first.Session.ID, "web1:") {
		t.Errorf("a session whose name names no host = %+v, %v; want it on the first host, web1", first, err)
	}
	if err := w.router.KillPane(ctx, made.Pane); err != nil {
		t.Fatal(err)
	}
	if _, err := w.router.Pane(ctx, made.Pane); !errors.Is(err, ports.ErrPaneNotFound) {
		t.Errorf("the killed pane %s: %v, want ErrPaneNotFound", made.Pane, err)
	}
}

func TestAnIdThatNamesNoHostIsNoPane(t *testing.T) {
	w := newTwo(t, nil)
	ctx := t.Context()
	for _, id := range []ports.PaneID{"%0", "web3:%0", "web1:", ":%0", "web1"} {
		if _, err := w.router.Pane(ctx, id); !errors.Is(err, ports.ErrPaneNotFound) {
			t.Errorf("Pane(%q) = %v, want ErrPaneNotFound", id, err)
		}
	}
	for _, id := range []string{"$0", "web3:$0", "web1:"} {
		if _, err := w.router.ListWindows(ctx, id); !errors.Is(err, ports.ErrNotFound) {
			t.Errorf("ListWindows(%q) = %v, want ErrNotFound", id, err)
		}
	}
	if _, err := w.router.CreateSession(ctx, ports.SessionSpec{Name: "web3:work"}); !errors.Is(err, ports.ErrNotFound) {
		t.Errorf("CreateSession on no host = %v, want ErrNotFound", err)
	}
	if err := w.router.Leaser().Release(ctx, "web3:%0", "me"); err != nil {
		t.Errorf("releasing a lease of no pane = %v, want nil, as for a pane that is gone", err)
	}
}

func TestAFailingHostIsReportedWhileTheOthersList(t *testing.T) {
	w := newTwo(t, nil)
	ctx := t.Context()
	w.fakes["web2"].SetUnavailable(true)
	panes, err := w.router.ListPanes(ctx, ports.PaneFilter{})
	if err != nil {
		t.Fatalf("ListPanes with web2 down = %v, want web1's panes", err)
	}
	if got := paneIDs(panes); !slices.Equal(got, []ports.PaneID{"web1:%0"}) {
		t.Errorf("panes = %v, want web1:%%0 alone", got)
	}
	down := w.clock.Now()
	hosts := w.router.Hosts(ctx)
	if got := hostNamed(hosts, "web2"); got.Reachable || !strings.Contains(got.Error, "unavailable") || !got.Since.Equal(down) || got.Destination != "deploy@web2" {
		t.Errorf("web2 = %+v, want unreachable since %v with the error", got, down)
	}
	if got := hostNamed(hosts, "web1"); !got.Reachable || got.Error != "" || got.Panes != 1 || got.Sessions != 1 {
		t.Errorf("web1 = %+v, want reachable with 1 session and 1 pane", got)
	}
	if _, err := w.router.Pane(ctx, "web2:%0"); !errors.Is(err, ports.ErrUnavailable) || !strings.Contains(err.Error(), "web2") {
		t.Errorf("a pane of web2 = %v, want ErrUnavailable, naming the host", err)
	}

	w.fakes["web1"].SetUnavailable(true)
	if _, err := w.router.ListSessions(ctx); !errors.Is(err, ports.ErrUnavailable) {
		t.Errorf("ListSessions with every host down = %v, want ErrUnavailable", err)
	}
}

func TestAHostThatComesBackIsUsedAgain(t *testing.T) {
	w := newTwo(t, nil)
	ctx := t.Context()
	w.fakes["web2"].SetUnavailable(true)
	if _, err := w.router.ListPanes(ctx, ports.PaneFilter{}); err != nil {
		t.Fatal(err)
	}
	w.clock.Advance(time.Minute)
	w.fakes["web2"].SetUnavailable(false)
	back := w.clock.Now()
	panes, err := w.router.ListPanes(ctx, ports.PaneFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if got := paneIDs(panes); !slices.Equal(got, []ports.PaneID{"web1:%0", "web2:%0"}) {
		t.Errorf("panes = %v, want web2's again", got)
	}
	if got := hostNamed(w.router.Hosts(ctx), "web2"); !got.Reachable || got.Error != "" || !got.Since.Equal(back) {
		t.Errorf("web2 = %+v, want reachable since %v", got, back)
	}
	if err := w.router.SendKeys(ctx, "web2:%0", []string{"Enter"}); err != nil {
		t.Errorf("keys to web2 after it came back: %v", err)
	}
}

func TestHostsAsksEachHost(t *testing.T) {
	w := newTwo(t, nil)
	ctx := t.Context()
	if got := hostNamed(w.router.Hosts(ctx), "web2"); !got.Reachable {
		t.Fatalf("web2 = %+v, want reachable", got)
	}
	w.fakes["web2"].SetUnavailable(true)
	got := hostNamed(w.router.Hosts(ctx), "web2")
	if got.Reachable || got.Error == "" || got.Panes != 0 {
		t.Errorf("web2 down = %+v, want it found unreachable by Hosts itself, with no counts", got)
	}
}

// bare hides every optional capability of a Terminal.
type bare struct{ ports.Terminal }

func TestACapabilityIsOfferedOnlyForTheHostsThatHaveIt(t *testing.T) {
	w := newTwo(t, func(name string, h *multihost.Host) {
		if name == "web2" {
			h.Terminal, h.Manager = bare{h.Terminal}, nil
		}
	})
	ctx := t.Context()
	if _, err := w.router.SignalGroup(ctx, "web2:%0", 42, ports.SignalINT); !errors.Is(err, ports.ErrUnsupported) {
		t.Errorf("SignalGroup on web2 = %v, want ErrUnsupported", err)
	}
	if _, err := w.router.SignalGroup(ctx, "web1:%0", 42, ports.SignalINT); errors.Is(err, ports.ErrUnsupported) {
		t.Errorf("SignalGroup on web1 = %v; web1's backend signals", err)
	}
	unsupported := map[string]func() error{
		"ProcessMark":     func() error { _, err := w.router.ProcessMark(ctx, "web2:%0"); return err },
		"ProcessesSince":  func() error { _, err := w.router.ProcessesSince(ctx, "web2:%0", ports.ProcessMark{}); return err },
		"ProcessExists":   func() error { _, err := w.router.ProcessExists(ctx, "web2:%0", 1); return err },
		"Reading":         func() error { _, err := w.router.Reading(ctx, "web2:%0"); return err },
		"ScriptExposed":   func() error { _, err := w.router.ScriptExposed(ctx, "web2:%0", "/x"); return err },
		"DescribeGuarded": func() error { _, _, err := w.router.DescribeGuarded(ctx, "web2:%0"); return err },
		"GuardedWrite":    func() error { _, err := w.router.GuardedWrite(ctx, ports.GuardedWrite{Pane: "web2:%0"}); return err },
		"KillPane":        func() error { return w.router.KillPane(ctx, "web2:%0") },
		"RespawnPane":     func() error { return w.router.RespawnPane(ctx, "web2:%0") },
		"CreateSession":   func() error { _, err := w.router.CreateSession(ctx, ports.SessionSpec{Name: "web2:x"}); return err },
	}
	for name, call := range unsupported {
		if err := call(); !errors.Is(err, ports.ErrUnsupported) {
			t.Errorf("%s on web2 = %v, want ErrUnsupported", name, err)
		}
	}
	if _, err := w.router.ProcessMark(ctx, "web1:%0"); err != nil {
		t.Errorf("ProcessMark on web1 = %v", err)
	}
	// A host with no lister is left out of a listing, the others listed.
	panes, err := w.router.ListPanes(ctx, ports.PaneFilter{})
	if err != nil || !slices.Equal(paneIDs(panes), []ports.PaneID{"web1:%0"}) {
		t.Errorf("ListPanes = %v, %v; want web1's", paneIDs(panes), err)
	}
	// A screen capture, a shorter way to what the domain does otherwise,
	// is made the longer way on a host without it.
	w.fakes["web2"].Inject("%0", []byte("hello"))
	info, rows, err := w.router.CaptureScreen(ctx, "web2:%0", false)
	if err != nil || info.ID != "web2:%0" || len(rows) != info.Height || !strings.Contains(rows[0], "hello") {
		t.Errorf("CaptureScreen on web2 = %+v, %q, %v; want Pane and the screen's rows", info, rows, err)
	}
}

func TestLeasesLiveOnEachPanesHost(t *testing.T) {
	w := newTwo(t, nil)
	ctx := t.Context()
	l, ok := w.router.Leaser().(ports.DescribingLeaser)
	if !ok {
		t.Fatal("the router's leaser is no DescribingLeaser")
	}
	got, _, info, err := l.AcquireAndDescribe(ctx, "web2:%0", "me", time.Minute)
	if err != nil || !got || info.ID != "web2:%0" {
		t.Fatalf("AcquireAndDescribe(web2:%%0) = %v, %+v, %v", got, info, err)
	}
	if owner, _, held := w.leasers["web2"].Holder("%0"); !held || owner != "me" {
		t.Errorf("web2's %%0 is held by %q (%v), want me", owner, held)
	}
	if _, _, held := w.leasers["web1"].Holder("%0"); held {
		t.Error("web1's %0 is held: the lease was web2's")
	}
	if got, holder, err := w.router.Leaser().TryAcquire(ctx, "web2:%0", "other", time.Minute); got || holder != "me" || err != nil {
		t.Errorf("another owner's TryAcquire = %v, %q, %v; want refused, held by me", got, holder, err)
	}
	if err := w.router.Leaser().Release(ctx, "web2:%0", "me"); err != nil {
		t.Fatal(err)
	}
	if _, _, held := w.leasers["web2"].Holder("%0"); held {
		t.Error("web2's %0 is still held after Release")
	}

	none := newTwo(t, func(name string, h *multihost.Host) {
		if name == "web1" {
			h.Leaser = nil
		}
	})
	if l := none.router.Leaser(); l != nil {
		t.Errorf("Leaser with a host that keeps no leases = %v, want nil", l)
	}
}

func TestSynchronizedPanesAreReportedWithTheirHost(t *testing.T) {
	w := newTwo(t, nil)
	other := w.fakes["web2"].AddPane(fake.PaneSpec{Command: "bash"})
	w.fakes["web2"].Synchronize("%0", other)
	info, err := w.router.Pane(t.Context(), "web2:%0")
	if err != nil {
		t.Fatal(err)
	}
	if want := []ports.PaneID{"web2:" + other}; !slices.Equal(info.AlsoReaches, want) {
		t.Errorf("AlsoReaches = %v, want %v", info.AlsoReaches, want)
	}
}

func TestHostNames(t *testing.T) {
	term := fake.New()
	for _, bad := range []string{"", "web:1", "web 1", "web/1", "wéb", strings.Repeat("a", 65), "$1", "%3"} {
		if _, err := multihost.New([]multihost.Host{{Name: bad, Terminal: term}}, multihost.Options{}); !errors.Is(err, multihost.ErrInvalidHost) {
			t.Errorf("New with host %q = %v, want ErrInvalidHost", bad, err)
		}
	}
	for _, good := range []string{"web1", "db-2.prod", "a_b", strings.Repeat("a", 64)} {
		if !multihost.ValidHostName(good) {
			t.Errorf("ValidHostName(%q) = false", good)
		}
	}
	twice := []multihost.Host{{Name: "a", Terminal: term}, {Name: "a", Terminal: term}}
	if _, err := multihost.New(twice, multihost.Options{}); !errors.Is(err, multihost.ErrInvalidHost) {
		t.Errorf("New with a name twice = %v, want ErrInvalidHost", err)
	}
	if _, err := multihost.New(nil, multihost.Options{}); !errors.Is(err, multihost.ErrInvalidHost) {
		t.Errorf("New with no hosts = %v, want ErrInvalidHost", err)
	}
	if _, err := multihost.New([]multihost.Host{{Name: "a"}}, multihost.Options{}); !errors.Is(err, multihost.ErrInvalidHost) {
		t.Errorf("New with no terminal = %v, want ErrInvalidHost", err)
	}
}

// The domain runs a framed command on the host the pane id names, as on
// any backend.
func TestAFramedCommandRunsOnItsHost(t *testing.T) {
	w := newTwo(t, nil)
	svc := domain.NewService(w.router, w.clock, fake.NewIDs(), domain.DefaultConfig())
	defer svc.Close()
	res, err := svc.RunShellCommand(context.Background(), domain.RunRequest{PaneID: "web2:%0", Command: "echo far; exit 4"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != "completed" || res.ExitStatus == nil || *res.ExitStatus != 4 || res.Output != "far" || !res.OutputComplete {
		t.Errorf("result = %+v, want completed, status 4, output far", res)
	}
	if got := w.fakes["web2"].Commands("%0"); !slices.Equal(got, []string{"echo far; exit 4"}) {
		t.Errorf("web2 ran %q", got)
	}
	if got := w.fakes["web1"].Commands("%0"); len(got) != 0 {
		t.Errorf("web1 ran %q, want nothing", got)
	}
}

// A host that could not be reached at start is dialed when a call needs
// it, and again after the retry interval while it fails; once it answers
// it is used like any other.
func TestAHostDownAtStartIsDialedWhenItComesBack(t *testing.T) {
	clock := fake.NewClock(time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC))
	up := fake.New(fake.WithClock(clock))
	up.AddPane(fake.PaneSpec{Command: "bash"})
	later := fake.New(fake.WithClock(clock))
	later.AddPane(fake.PaneSpec{Command: "bash"})
	dials, closed := 0, 0
	reachable := false
	r, err := multihost.New([]multihost.Host{
		{Name: "web1", Terminal: up, Manager: fake.NewManager(up), Leaser: fake.NewLeaser(clock)},
		{Name: "web2", Destination: "web2.example", Dial: func(ctx context.Context) (multihost.Host, error) {
			dials++
			if !reachable {
				return multihost.Host{}, errors.New("ssh web2.example: Connection refused")
			}
			return multihost.Host{Terminal: later, Manager: fake.NewManager(later), Leaser: fake.NewLeaser(clock),
				Close: func() error { closed++; return nil }}, nil
		}},
	}, multihost.Options{Now: clock.Now, DialRetry: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	panes, err := r.ListPanes(ctx, ports.PaneFilter{})
	if err != nil || !slices.Equal(paneIDs(panes), []ports.PaneID{"web1:%0"}) {
		t.Fatalf("ListPanes with web2 not dialed = %v, %v; want web1's", paneIDs(panes), err)
	}
	got := hostNamed(r.Hosts(ctx), "web2")
	if got.Reachable || !strings.Contains(got.Error, "Connection refused") || got.Destination != "web2.example" {
		t.Errorf("web2 = %+v, want unreachable with the dial's error", got)
	}
	if _, err := r.Pane(ctx, "web2:%0"); !errors.Is(err, ports.ErrUnavailable) {
		t.Errorf("a pane of web2 = %v, want ErrUnavailable", err)
	}
	if dials != 1 {
		t.Errorf("dialed %d times within the retry interval, want 1", dials)
	}
	reachable = true
	clock.Advance(5 * time.Second)
	info, err := r.Pane(ctx, "web2:%0")
	if err != nil || info.ID != "web2:%0" {
		t.Fatalf("web2 after it came back: %+v, %v", info, err)
	}
	if got := hostNamed(r.Hosts(ctx), "web2"); !got.Reachable || got.Panes != 1 {
		t.Errorf("web2 = %+v, want reachable with its pane", got)
	}
	if err := r.Close(); err != nil || closed != 1 {
		t.Errorf("Close = %v, closed %d backends made by a dial, want 1", err, closed)
	}
}

// A dialed host whose backend keeps no leases is not used when the
// others keep them: its panes would lose the single writer.
func TestADialedHostMustLeaseAsTheOthersDo(t *testing.T) {
	up := fake.New()
	up.AddPane(fake.PaneSpec{Command: "bash"})
	r, err := multihost.New([]multihost.Host{
		{Name: "web1", Terminal: up, Leaser: fake.NewLeaser(up.Clock())},
		{Name: "web2", Dial: func(context.Context) (multihost.Host, error) { return multihost.Host{Terminal: fake.New()}, nil }},
	}, multihost.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Pane(t.Context(), "web2:%0"); !errors.Is(err, ports.ErrUnavailable) || !strings.Contains(err.Error(), "leases") {
		t.Errorf("a pane of the leaseless web2 = %v, want ErrUnavailable saying why", err)
	}
}

// Close stops a dial under way and waits for it.
func TestCloseStopsADial(t *testing.T) {
	started := make(chan struct{})
	r, err := multihost.New([]multihost.Host{{Name: "web1", Dial: func(ctx context.Context) (multihost.Host, error) {
		close(started)
		<-ctx.Done()
		return multihost.Host{}, ctx.Err()
	}}}, multihost.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { _, err := r.Pane(ctx, "web1:%0"); done <- err }()
	<-started
	cancel()
	if err := <-done; !errors.Is(err, ports.ErrUnavailable) {
		t.Errorf("a call given up while its host dials = %v, want ErrUnavailable", err)
	}
	if err := r.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
}
