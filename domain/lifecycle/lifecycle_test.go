package lifecycle_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/golang/mock/gomock"

	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
	"github.com/tmux-mcp/tmux-mcp/adapters/mocks"
	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/domain/lifecycle"
	"github.com/tmux-mcp/tmux-mcp/domain/writers"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// The inspect and lifecycle tools, on the fake terminal and its Manager.
// Every test builds its layout through the tools themselves:
//
//	session "work" ($0): window @0 "bash": %0 (top), %1 (below it)
//	                     window @1 "logs": %2

type layout struct {
	t     *testing.T
	clock *fake.Clock
	term  *fake.Terminal
	mgr   *fake.Manager
	pool  *writers.Pool
	svc   *domain.Service    // the pane tools, to leave commands running
	life  *lifecycle.Service // the tools under test
	ctx   context.Context

	top, bottom, logs ports.PaneID
}

func newLayout(t *testing.T, opts ...domain.Option) *layout {
	t.Helper()
	clock := fake.NewClock(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
	term := fake.New(fake.WithClock(clock))
	mgr := fake.NewManager(term)
	l := &layout{t: t, clock: clock, term: term, mgr: mgr, ctx: context.Background()}
	l.pool = writers.NewPool(nil)
	l.svc = domain.NewService(term, clock, fake.NewIDs(), domain.DefaultConfig(), append([]domain.Option{domain.WithWriters(l.pool)}, opts...)...)
	l.life = lifecycle.New(lifecycle.FromManager(mgr), term, l.pool, l.svc.ExpectStartingShell)
	t.Cleanup(func() { l.svc.Close() })

	c, err := l.life.CreateSession(l.ctx, lifecycle.CreateSessionRequest{Name: "work", Width: 100, Height: 40})
	if err != nil {
		t.Fatalf("CreateSession: %v", err)
	}
	l.top = c.Pane
	split, err := l.life.SplitWindow(l.ctx, lifecycle.SplitWindowRequest{PaneID: l.top, Vertical: true})
	if err != nil {
		t.Fatalf("SplitWindow: %v", err)
	}
	l.bottom = split.Pane
	w, err := l.life.CreateWindow(l.ctx, lifecycle.CreateWindowRequest{Session: "work", Name: "logs"})
	if err != nil {
		t.Fatalf("CreateWindow: %v", err)
	}
	l.logs = w.Pane
	return l
}

// paneIDs lists the ids of every pane the Manager knows.
func (l *layout) paneIDs() []ports.PaneID {
	l.t.Helper()
	list, err := l.life.ListPanes(l.ctx, lifecycle.ListPanesRequest{})
	if err != nil {
		l.t.Fatalf("ListPanes: %v", err)
	}
	var ids []ports.PaneID
	for _, p := range list.Panes {
		ids = append(ids, p.ID)
	}
	return ids
}

// hang starts a command in pane that runs until interrupted, and returns
// once the call has returned timed_out, leaving the pane reserved.
func (l *layout) hang(pane ports.PaneID, command string) {
	l.t.Helper()
	l.term.Expect(pane, fake.Run{Hang: true})
	done := make(chan error, 1)
	go func() {
		res, err := l.svc.RunShellCommand(l.ctx, domain.RunRequest{PaneID: pane, Command: command, TimeoutMs: 1000})
		if err == nil && res.Outcome != domain.OutcomeTimedOut {
			err = errors.New("outcome " + string(res.Outcome))
		}
		done <- err
	}()
	ctx, cancel := context.WithTimeout(l.ctx, 10*time.Second)
	defer cancel()
	waited := make(chan error, 1)
	go func() { waited <- l.clock.WaitForTimers(ctx, 2) }()
	select {
	case err := <-waited:
		if err != nil {
			l.t.Fatalf("run_shell_command never waited: %v", err)
		}
	case err := <-done: // returned instead of waiting: fail now, not at the deadline
		l.t.Fatalf("run_shell_command %q returned before it waited: %v", command, err)
	}
	l.clock.Advance(time.Second)
	if err := <-done; err != nil {
		l.t.Fatalf("run_shell_command %q: %v", command, err)
	}
}

func TestCreatingSplittingAndAddingWindowsBuildTheLayout(t *testing.T) {
	l := newLayout(t)
	sessions, err := l.life.ListSessions(l.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(sessions.Sessions) != 1 {
		t.Fatalf("sessions = %+v, want only work", sessions.Sessions)
	}
	if s := sessions.Sessions[0]; s.ID != "$0" || s.Name != "work" || s.Windows != 2 || s.Clients != 0 || s.Created.IsZero() {
		t.Errorf("session = %+v, want $0 work with 2 windows and no clients", s)
	}

	windows, err := l.life.ListWindows(l.ctx, lifecycle.ListWindowsRequest{Session: "work"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range windows.Windows {
		got = append(got, strings.Join([]string{w.ID, strconv.Itoa(w.Index), w.Name, strconv.Itoa(w.Panes), boolWord(w.Active, "current")}, " "))
	}
	want := []string{"@0 0 bash 2 current", "@1 1 logs 1 -"}
	if !slices.Equal(got, want) {
		t.Errorf("windows = %q, want %q (create_window must not switch the session's window)", got, want)
	}

	panes, err := l.life.ListPanes(l.ctx, lifecycle.ListPanesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	got = nil
	for _, p := range panes.Panes {
		got = append(got, strings.Join([]string{string(p.ID), p.Session.Name, p.Window.ID, strconv.Itoa(p.Index),
			boolWord(p.Active, "active"), p.Command, strconv.Itoa(p.Width) + "x" + strconv.Itoa(p.Height)}, " "))
	}
	want = []string{
		"%0 work @0 0 active bash 100x20",
		"%1 work @0 1 - bash 100x19", // the split does not take the focus
		"%2 work @1 0 active bash 100x40",
	}
	if !slices.Equal(got, want) {
		t.Errorf("panes =\n%q\nwant\n%q", got, want)
	}
}

func boolWord(b bool, word string) string {
	if b {
		return word
	}
	return "-"
}

func TestListPanesFiltersBySessionOrWindow(t *testing.T) {
	l := newLayout(t)
	other, err := l.life.CreateSession(l.ctx, lifecycle.CreateSessionRequest{Name: "other"})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		req  lifecycle.ListPanesRequest
		want []ports.PaneID
	}{
		{lifecycle.ListPanesRequest{}, []ports.PaneID{l.top, l.bottom, l.logs, other.Pane}},
		{lifecycle.ListPanesRequest{Session: "work"}, []ports.PaneID{l.top, l.bottom, l.logs}},
		{lifecycle.ListPanesRequest{Session: other.Session.ID}, []ports.PaneID{other.Pane}},
		{lifecycle.ListPanesRequest{Window: "@1"}, []ports.PaneID{l.logs}},
	}
	for _, c := range cases {
		list, err := l.life.ListPanes(l.ctx, c.req)
		if err != nil {
			t.Errorf("ListPanes(%+v): %v", c.req, err)
			continue
		}
		var got []ports.PaneID
		for _, p := range list.Panes {
			got = append(got, p.ID)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("ListPanes(%+v) = %v, want %v", c.req, got, c.want)
		}
	}
	// Both at once is refused, naming the argument as the tool calls it.
	var arg *fault.ArgumentError
	if _, err := l.life.ListPanes(l.ctx, lifecycle.ListPanesRequest{Session: "work", Window: "@1"}); !errors.As(err, &arg) || arg.Field != "windowId" {
		t.Errorf("ListPanes with a session and a window: %v; want an argument error on windowId", err)
	}
	for _, req := range []lifecycle.ListPanesRequest{{Session: "nope"}, {Window: "@99"}} {
		if _, err := l.life.ListPanes(l.ctx, req); !errors.Is(err, ports.ErrNotFound) {
			t.Errorf("ListPanes(%+v): err = %v, want ErrNotFound", req, err)
		}
	}
	if _, err := l.life.ListPanes(l.ctx, lifecycle.ListPanesRequest{Session: "work", Window: "@0"}); !errors.Is(err, fault.ErrInvalidArgument) {
		t.Errorf("ListPanes with both a session and a window: err = %v, want an argument error", err)
	}
	if _, err := l.life.ListWindows(l.ctx, lifecycle.ListWindowsRequest{Session: "$42"}); !errors.Is(err, ports.ErrNotFound) {
		t.Errorf("ListWindows of an unknown session: err = %v, want ErrNotFound", err)
	}
}

func TestListingsTellWatchedSelfDeadAndBusyPanes(t *testing.T) {
	l := newLayout(t)
	l.term.Attach(l.top, "/dev/pts/7")
	l.term.SetSelf(l.bottom)
	l.hang(l.logs, "make test")
	spare, err := l.life.CreateWindow(l.ctx, lifecycle.CreateWindowRequest{Session: "$0"})
	if err != nil {
		t.Fatal(err)
	}
	l.term.KillPane(spare.Pane)

	list, err := l.life.ListPanes(l.ctx, lifecycle.ListPanesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[ports.PaneID]lifecycle.Pane{}
	for _, p := range list.Panes {
		byID[p.ID] = p
	}
	if p := byID[l.top]; !slices.Equal(p.Watchers, []string{"/dev/pts/7"}) || p.Self || p.Busy != "" {
		t.Errorf("watched pane = %+v", p)
	}
	if p := byID[l.bottom]; !p.Self || len(p.Watchers) != 0 || p.Watchers == nil {
		t.Errorf("the server's own pane = %+v, want Self and an empty (not nil) watcher list", p)
	}
	if p := byID[l.logs]; !strings.Contains(p.Busy, `run_shell_command "make test"`) {
		t.Errorf("busy pane = %+v, want Busy naming the command", p)
	}
	if p := byID[spare.Pane]; !p.Dead {
		t.Errorf("killed pane = %+v, want Dead", p)
	}

	sessions, err := l.life.ListSessions(l.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if sessions.Sessions[0].Clients != 1 {
		t.Errorf("session clients = %d, want 1 (the person watching %s)", sessions.Sessions[0].Clients, l.top)
	}
}

func TestGetPaneInfoAddsTheFactsAWriteIsCheckedAgainst(t *testing.T) {
	l := newLayout(t)
	l.term.SetMode(l.top, "copy-mode")
	l.term.Synchronize(l.top, l.bottom)
	l.term.SetAttended(l.top, true)
	l.mgr.SetTitle(l.top, "editing")
	l.mgr.SetPath(l.top, "/src/project")
	l.term.Inject(l.top, []byte(strings.Repeat("x\r\n", 30)))

	d, err := l.life.GetPaneInfo(l.ctx, lifecycle.PaneRequest{PaneID: l.top})
	if err != nil {
		t.Fatal(err)
	}
	if d.ID != l.top || d.Session.Name != "work" || d.Window.ID != "@0" || d.Title != "editing" || d.Path != "/src/project" ||
		d.Mode != "copy-mode" || !d.Attended || !slices.Equal(d.AlsoReaches, []ports.PaneID{l.bottom}) ||
		d.HistorySize != 11 || d.HistoryLimit != fake.DefaultHistoryLimit || d.Width != 100 || d.Height != 20 {
		t.Errorf("details = %+v", d)
	}
	if _, err := l.life.GetPaneInfo(l.ctx, lifecycle.PaneRequest{PaneID: "%77"}); !errors.Is(err, ports.ErrPaneNotFound) {
		t.Errorf("GetPaneInfo of an unknown pane: err = %v, want ErrPaneNotFound", err)
	}
}

func TestGetServerInfoCountsWhatTheServerHolds(t *testing.T) {
	l := newLayout(t)
	l.term.Attach(l.logs, "/dev/pts/2")
	info, err := l.life.GetServerInfo(l.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.Address != "fake" || info.Sessions != 1 || info.Windows != 2 || info.Panes != 3 || info.Clients != 1 {
		t.Errorf("server info = %+v, want 1 session, 2 windows, 3 panes, 1 client", info)
	}
}

func TestSelectResizeAndRenameReportTheStateAfterwards(t *testing.T) {
	l := newLayout(t)

	p, err := l.life.SelectPane(l.ctx, lifecycle.PaneRequest{PaneID: l.bottom})
	if err != nil || !p.Active || p.ID != l.bottom {
		t.Errorf("SelectPane = %+v, %v; want the pane, active", p, err)
	}
	w, err := l.life.SelectWindow(l.ctx, lifecycle.SelectWindowRequest{WindowID: "@1"})
	if err != nil || !w.Active || w.ID != "@1" {
		t.Errorf("SelectWindow = %+v, %v; want @1, current", w, err)
	}
	r, err := l.life.ResizePane(l.ctx, lifecycle.ResizePaneRequest{PaneID: l.logs, Width: 60})
	if err != nil || r.Width != 60 || r.Height != 40 {
		t.Errorf("ResizePane(width 60) = %+v, %v; want 60x40", r, err)
	}
	r, err = l.life.ResizePane(l.ctx, lifecycle.ResizePaneRequest{PaneID: l.logs, Height: 500})
	if err != nil || r.Width != 60 || r.Height != 40 {
		t.Errorf("ResizePane(height 500) = %+v, %v; want the size it got, 60x40", r, err)
	}
	s, err := l.life.RenameSession(l.ctx, lifecycle.RenameSessionRequest{Session: "work", Name: "play"})
	if err != nil || s.ID != "$0" || s.Name != "play" {
		t.Errorf("RenameSession = %+v, %v; want $0 play", s, err)
	}
	w, err = l.life.RenameWindow(l.ctx, lifecycle.RenameWindowRequest{WindowID: "@0", Name: "build #2"})
	if err != nil || w.Name != "build #2" {
		t.Errorf("RenameWindow = %+v, %v; want the name as given", w, err)
	}

	other, err := l.life.CreateSession(l.ctx, lifecycle.CreateSessionRequest{})
	if err != nil || other.Session.Name == "" {
		t.Fatalf("CreateSession without a name = %+v, %v; want a name chosen", other, err)
	}
	if _, err := l.life.RenameSession(l.ctx, lifecycle.RenameSessionRequest{Session: other.Session.ID, Name: "play"}); !errors.Is(err, ports.ErrNameInUse) {
		t.Errorf("renaming to a taken name: err = %v, want ErrNameInUse", err)
	}
	if _, err := l.life.CreateSession(l.ctx, lifecycle.CreateSessionRequest{Name: "play"}); !errors.Is(err, ports.ErrNameInUse) {
		t.Errorf("creating a taken name: err = %v, want ErrNameInUse", err)
	}
	if _, err := l.life.SelectWindow(l.ctx, lifecycle.SelectWindowRequest{WindowID: "@9"}); !errors.Is(err, ports.ErrNotFound) {
		t.Errorf("SelectWindow(@9): err = %v, want ErrNotFound", err)
	}
	if _, err := l.life.ResizePane(l.ctx, lifecycle.ResizePaneRequest{PaneID: l.top}); !errors.Is(err, fault.ErrInvalidArgument) {
		t.Errorf("ResizePane without a size: err = %v, want an argument error", err)
	}
}

func TestCreateSessionRunsTheCommandInItsPane(t *testing.T) {
	l := newLayout(t)
	c, err := l.life.CreateSession(l.ctx, lifecycle.CreateSessionRequest{Name: "top", Command: "/usr/bin/htop -d 10"})
	if err != nil {
		t.Fatal(err)
	}
	info, err := l.term.Pane(l.ctx, c.Pane)
	if err != nil || info.Command != "htop" || info.Width != 80 || info.Height != 24 {
		t.Errorf("new pane = %+v, %v; want htop in the default 80x24", info, err)
	}
}

// mockBackend returns a Service on a mock Manager, which fails the test on
// any call it was not told to expect.
func mockBackend(t *testing.T) (*lifecycle.Service, *mocks.MockManager) {
	mgr := mocks.NewMockManager(gomock.NewController(t))
	return lifecycle.New(lifecycle.FromManager(mgr), fake.New(), writers.NewPool(nil), nil), mgr
}

// A name is plain text whatever the backend: what is not is refused
// before anything reaches the Manager. What one multiplexer would read
// specially in a name ("#(" for tmux) is its adapter's to refuse.
func TestNamesThatAreNotPlainTextAreRefused(t *testing.T) {
	life, _ := mockBackend(t)
	ctx := context.Background()

	badNames := map[string]string{
		"newline":         "a\nb",
		"escape sequence": "a\x1b[31mb",
		"DEL":             "a\x7fb",
		"line separator":  "a\u2028b",
		"invalid UTF-8":   "a\xffb",
		"too long":        strings.Repeat("n", lifecycle.MaxNameBytes+1),
	}
	for what, name := range badNames {
		calls := map[string]func() error{
			"create_session": func() error {
				_, err := life.CreateSession(ctx, lifecycle.CreateSessionRequest{Name: name})
				return err
			},
			"create_window": func() error {
				_, err := life.CreateWindow(ctx, lifecycle.CreateWindowRequest{Session: "$0", Name: name})
				return err
			},
			"rename_session": func() error {
				_, err := life.RenameSession(ctx, lifecycle.RenameSessionRequest{Session: "$0", Name: name})
				return err
			},
			"rename_window": func() error {
				_, err := life.RenameWindow(ctx, lifecycle.RenameWindowRequest{WindowID: "@0", Name: name})
				return err
			},
		}
		for tool, call := range calls {
			var arg *fault.ArgumentError
			if err := call(); !errors.As(err, &arg) || arg.Field != "name" {
				t.Errorf("%s with a name that is %s (%q): err = %v, want an argument error on name", tool, what, name, err)
			}
		}
	}

	// An empty name asks create_session and create_window to choose one,
	// but names nothing to rename to and no session to add a window to.
	if _, err := life.RenameSession(ctx, lifecycle.RenameSessionRequest{Session: "$0"}); !errors.Is(err, fault.ErrInvalidArgument) {
		t.Errorf("rename_session to an empty name: err = %v, want an argument error", err)
	}
	if _, err := life.RenameWindow(ctx, lifecycle.RenameWindowRequest{WindowID: "@0"}); !errors.Is(err, fault.ErrInvalidArgument) {
		t.Errorf("rename_window to an empty name: err = %v, want an argument error", err)
	}
	if _, err := life.CreateWindow(ctx, lifecycle.CreateWindowRequest{Name: "w"}); !errors.Is(err, fault.ErrInvalidArgument) {
		t.Errorf("create_window without a session: err = %v, want an argument error", err)
	}
	if _, err := life.KillWindow(ctx, lifecycle.KillWindowRequest{}); !errors.Is(err, fault.ErrInvalidArgument) {
		t.Errorf("kill_window without a window: err = %v, want an argument error", err)
	}

	for _, cmd := range []string{"   ", "a\x00b", "\xff", strings.Repeat("x", lifecycle.MaxCommandBytes+1)} {
		if _, err := life.CreateSession(ctx, lifecycle.CreateSessionRequest{Command: cmd}); !errors.Is(err, fault.ErrInvalidArgument) {
			t.Errorf("create_session with command %.20q: err = %v, want an argument error", cmd, err)
		}
	}
	for _, size := range []int{-1, lifecycle.MaxPaneCells + 1} {
		if _, err := life.SplitWindow(ctx, lifecycle.SplitWindowRequest{PaneID: "%1", Size: size}); !errors.Is(err, fault.ErrInvalidArgument) {
			t.Errorf("split_window size %d: err = %v, want an argument error", size, err)
		}
		if _, err := life.ResizePane(ctx, lifecycle.ResizePaneRequest{PaneID: "%1", Width: size}); !errors.Is(err, fault.ErrInvalidArgument) {
			t.Errorf("resize_pane width %d: err = %v, want an argument error", size, err)
		}
	}
}

// Names and ids that are text reach the backend as they are: the domain
// does not guess at any multiplexer's syntax.
func TestPlainNamesAndIdsReachTheBackendUnchanged(t *testing.T) {
	life, mgr := mockBackend(t)
	ctx := context.Background()
	for _, name := range []string{"build #2", "my project", "日本語", "a;", "x-1_y", "#(left to the backend)", "-t"} {
		mgr.EXPECT().CreateWindow(gomock.Any(), "$0", name).Return(ports.Created{Pane: "%1"}, nil)
		if _, err := life.CreateWindow(ctx, lifecycle.CreateWindowRequest{Session: "$0", Name: name}); err != nil {
			t.Errorf("CreateWindow(%q): %v", name, err)
		}
	}
	// An id of another backend's form is the backend's to judge.
	mgr.EXPECT().ListPanes(gomock.Any(), ports.PaneFilter{Pane: "window-3/pane-1"}).Return(nil, fmt.Errorf("pane window-3/pane-1: %w", ports.ErrPaneNotFound))
	if _, err := life.GetPaneInfo(ctx, lifecycle.PaneRequest{PaneID: "window-3/pane-1"}); !errors.Is(err, ports.ErrPaneNotFound) {
		t.Errorf("get_pane_info of an id the backend does not know: err = %v, want the backend's ErrPaneNotFound", err)
	}
}

// A backend may offer only some capabilities: the tools of the others are
// unsupported, and the rest work.
func TestToolsOfAMissingCapabilityAreUnsupported(t *testing.T) {
	term := fake.New()
	mgr := fake.NewManager(term)
	life := lifecycle.New(lifecycle.Backend{Lister: mgr}, term, writers.NewPool(nil), nil)
	ctx := context.Background()
	if _, err := life.ListSessions(ctx); err != nil {
		t.Errorf("ListSessions with a Lister: %v", err)
	}
	unsupported := map[string]func() error{
		"create_session": func() error { _, err := life.CreateSession(ctx, lifecycle.CreateSessionRequest{}); return err },
		"select_window": func() error {
			_, err := life.SelectWindow(ctx, lifecycle.SelectWindowRequest{WindowID: "@0"})
			return err
		},
		"resize_window": func() error {
			_, err := life.ResizeWindow(ctx, lifecycle.ResizeWindowRequest{WindowID: "@0", Width: 10})
			return err
		},
		"rename_session": func() error {
			_, err := life.RenameSession(ctx, lifecycle.RenameSessionRequest{Session: "$0", Name: "x"})
			return err
		},
		"kill_pane": func() error { _, err := life.KillPane(ctx, lifecycle.KillPaneRequest{PaneID: "%0"}); return err },
		"respawn_pane": func() error {
			_, err := life.RespawnPane(ctx, lifecycle.RespawnPaneRequest{PaneID: "%0"})
			return err
		},
	}
	for tool, call := range unsupported {
		if err := call(); !errors.Is(err, ports.ErrUnsupported) {
			t.Errorf("%s without its capability: err = %v, want ErrUnsupported", tool, err)
		}
	}
}

// The kill policy: every pane a kill would end is checked, and one refusal
// kills nothing.
func TestKillRefusesProtectedPanesAndKillsNothing(t *testing.T) {
	type kill struct {
		name string
		call func(l *layout, force bool) (lifecycle.KillResult, error)
	}
	kills := []kill{
		{"kill_pane", func(l *layout, force bool) (lifecycle.KillResult, error) {
			return l.life.KillPane(l.ctx, lifecycle.KillPaneRequest{PaneID: l.bottom, Force: force})
		}},
		{"kill_window", func(l *layout, force bool) (lifecycle.KillResult, error) {
			return l.life.KillWindow(l.ctx, lifecycle.KillWindowRequest{WindowID: "@0", Force: force})
		}},
		{"kill_session", func(l *layout, force bool) (lifecycle.KillResult, error) {
			return l.life.KillSession(l.ctx, lifecycle.KillSessionRequest{Session: "work", Force: force})
		}},
	}
	protections := []struct {
		name    string
		protect func(l *layout) // makes l.bottom protected
		force   bool
		want    error
		says    string
	}{
		{"watched", func(l *layout) { l.term.Attach(l.bottom, "/dev/pts/4") }, false, fault.ErrRefused, "/dev/pts/4"},
		{"watched, with force", func(l *layout) { l.term.Attach(l.bottom, "/dev/pts/4") }, true, fault.ErrRefused, "/dev/pts/4"},
		{"the server's own", func(l *layout) { l.term.SetSelf(l.bottom) }, false, fault.ErrRefused, "this server itself runs in"},
		{"watchers unknown", func(l *layout) { l.term.SetUnknown(l.bottom, ports.FactWatched) }, false, fault.ErrRefused, "cannot tell"},
		// With force, a pane that a command of ours holds is taken (takeover_test.go).
		{"reserved by a running command", func(l *layout) { l.hang(l.bottom, "make test") }, false, fault.ErrBusy, "make test"},
	}
	for _, k := range kills {
		for _, p := range protections {
			t.Run(k.name+"/"+p.name, func(t *testing.T) {
				l := newLayout(t)
				p.protect(l)
				before := l.paneIDs()
				_, err := k.call(l, p.force)
				if !errors.Is(err, p.want) || !strings.Contains(err.Error(), string(l.bottom)) || !strings.Contains(err.Error(), p.says) {
					t.Fatalf("err = %v, want %v naming %s and saying %q", err, p.want, l.bottom, p.says)
				}
				var refusal *fault.RefusalError
				if errors.As(err, &refusal) && (!refusal.Ending || !strings.Contains(refusal.Reason, k.name)) {
					t.Errorf("refusal %+v, want an ending refusal that says %s would end the pane", refusal, k.name)
				}
				if after := l.paneIDs(); !slices.Equal(after, before) {
					t.Errorf("panes %v after a refused kill, want %v: nothing killed", after, before)
				}
			})
		}
	}
}

func TestKillEndsWhatItNames(t *testing.T) {
	cases := []struct {
		name   string
		setup  func(l *layout) // optional
		call   func(l *layout) (lifecycle.KillResult, error)
		killed func(l *layout) []ports.PaneID
	}{
		{"kill_pane", nil,
			func(l *layout) (lifecycle.KillResult, error) {
				return l.life.KillPane(l.ctx, lifecycle.KillPaneRequest{PaneID: l.bottom})
			},
			func(l *layout) []ports.PaneID { return []ports.PaneID{l.bottom} }},
		{"kill_pane of a dead pane in copy mode with synchronized input", func(l *layout) {
			l.term.Synchronize(l.top, l.bottom)
			l.term.SetMode(l.bottom, "copy-mode")
			l.term.KillPane(l.bottom)
		},
			func(l *layout) (lifecycle.KillResult, error) {
				return l.life.KillPane(l.ctx, lifecycle.KillPaneRequest{PaneID: l.bottom})
			},
			func(l *layout) []ports.PaneID { return []ports.PaneID{l.bottom} }},
		{"kill_pane of the server's own pane with force", func(l *layout) { l.term.SetSelf(l.bottom) },
			func(l *layout) (lifecycle.KillResult, error) {
				return l.life.KillPane(l.ctx, lifecycle.KillPaneRequest{PaneID: l.bottom, Force: true})
			},
			func(l *layout) []ports.PaneID { return []ports.PaneID{l.bottom} }},
		{"kill_window", func(l *layout) { l.term.Attach(l.logs, "/dev/pts/1") }, // another window's watcher is no matter
			func(l *layout) (lifecycle.KillResult, error) {
				return l.life.KillWindow(l.ctx, lifecycle.KillWindowRequest{WindowID: "@0"})
			},
			func(l *layout) []ports.PaneID { return []ports.PaneID{l.top, l.bottom} }},
		{"kill_session", nil,
			func(l *layout) (lifecycle.KillResult, error) {
				return l.life.KillSession(l.ctx, lifecycle.KillSessionRequest{Session: "$0"})
			},
			func(l *layout) []ports.PaneID { return []ports.PaneID{l.top, l.bottom, l.logs} }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := newLayout(t)
			if c.setup != nil {
				c.setup(l)
			}
			before := l.paneIDs()
			res, err := c.call(l)
			if err != nil {
				t.Fatal(err)
			}
			want := c.killed(l)
			if !slices.Equal(res.Killed, want) {
				t.Errorf("Killed = %v, want %v", res.Killed, want)
			}
			remaining := slices.DeleteFunc(before, func(id ports.PaneID) bool { return slices.Contains(want, id) })
			if after := l.paneIDs(); !slices.Equal(after, remaining) {
				t.Errorf("panes after = %v, want %v", after, remaining)
			}
		})
	}
}

func TestKillSessionReportsTheSessionAndFreesThePanesForOthers(t *testing.T) {
	l := newLayout(t)
	res, err := l.life.KillSession(l.ctx, lifecycle.KillSessionRequest{Session: "work"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Session != (ports.SessionRef{ID: "$0", Name: "work"}) {
		t.Errorf("Session = %+v, want $0 work", res.Session)
	}
	if _, err := l.life.KillSession(l.ctx, lifecycle.KillSessionRequest{Session: "work"}); !errors.Is(err, ports.ErrNotFound) {
		t.Errorf("killing it again: err = %v, want ErrNotFound", err)
	}
	// The kill's reservations are gone with it: a new pane with a reused
	// name is writable.
	c, err := l.life.CreateSession(l.ctx, lifecycle.CreateSessionRequest{Name: "work"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.svc.PasteText(l.ctx, domain.PasteRequest{PaneID: c.Pane, Text: "echo hi", Enter: true}); err != nil {
		t.Errorf("paste into a new pane after a kill: %v", err)
	}
}

func TestClearPaneScrollbackIsAWrite(t *testing.T) {
	l := newLayout(t)
	l.term.Inject(l.top, []byte(strings.Repeat("old\r\n", 50)))
	res, err := l.life.ClearPaneScrollback(l.ctx, lifecycle.ClearScrollbackRequest{PaneID: l.top})
	if err != nil {
		t.Fatal(err)
	}
	info, _ := l.term.Pane(l.ctx, l.top)
	if res.ClearedLines != 31 || info.HistorySize != 0 {
		t.Errorf("cleared %d lines, history now %d; want 31 and 0", res.ClearedLines, info.HistorySize)
	}
	screen, _ := l.term.Capture(l.ctx, l.top, ports.CaptureRange{Start: 0, End: 0})
	if screen[0] != "old" {
		t.Errorf("the screen's top row = %q, want it kept", screen[0])
	}

	l.term.Inject(l.top, []byte(strings.Repeat("new\r\n", 50)))
	l.term.Attach(l.top, "/dev/pts/9")
	if _, err := l.life.ClearPaneScrollback(l.ctx, lifecycle.ClearScrollbackRequest{PaneID: l.top, Force: true}); !errors.Is(err, fault.ErrRefused) {
		t.Errorf("clearing a watched pane: err = %v, want a refusal", err)
	}
	l.hang(l.logs, "tail -f log")
	if _, err := l.life.ClearPaneScrollback(l.ctx, lifecycle.ClearScrollbackRequest{PaneID: l.logs}); !errors.Is(err, fault.ErrBusy) {
		t.Errorf("clearing a busy pane: err = %v, want busy", err)
	}
	if info, _ := l.term.Pane(l.ctx, l.top); info.HistorySize == 0 {
		t.Error("a refused clear discarded the history")
	}
}

func TestEveryLifecycleToolReportsAnUnreachableMultiplexer(t *testing.T) {
	l := newLayout(t)
	l.term.SetUnavailable(true)
	calls := map[string]func() error{
		"list_sessions": func() error { _, err := l.life.ListSessions(l.ctx); return err },
		"list_windows": func() error {
			_, err := l.life.ListWindows(l.ctx, lifecycle.ListWindowsRequest{Session: "work"})
			return err
		},
		"list_panes":    func() error { _, err := l.life.ListPanes(l.ctx, lifecycle.ListPanesRequest{}); return err },
		"get_pane_info": func() error { _, err := l.life.GetPaneInfo(l.ctx, lifecycle.PaneRequest{PaneID: l.top}); return err },
		"display":       func() error { _, err := l.life.Display(l.ctx, lifecycle.PaneRequest{PaneID: l.top}); return err },
		"search_panes": func() error {
			_, err := l.life.SearchPanes(l.ctx, lifecycle.SearchPanesRequest{Patterns: []string{"x"}})
			return err
		},
		"get_server_info": func() error {
			_, err := l.life.GetServerInfo(l.ctx)
			return err
		},
		"create_session": func() error {
			_, err := l.life.CreateSession(l.ctx, lifecycle.CreateSessionRequest{Name: "x", Command: "top"})
			return err
		},
		"create_window": func() error {
			_, err := l.life.CreateWindow(l.ctx, lifecycle.CreateWindowRequest{Session: "work"})
			return err
		},
		"split_window": func() error {
			_, err := l.life.SplitWindow(l.ctx, lifecycle.SplitWindowRequest{PaneID: l.top})
			return err
		},
		"select_pane": func() error { _, err := l.life.SelectPane(l.ctx, lifecycle.PaneRequest{PaneID: l.top}); return err },
		"select_window": func() error {
			_, err := l.life.SelectWindow(l.ctx, lifecycle.SelectWindowRequest{WindowID: "@0"})
			return err
		},
		"resize_pane": func() error {
			_, err := l.life.ResizePane(l.ctx, lifecycle.ResizePaneRequest{PaneID: l.top, Width: 10})
			return err
		},
		"resize_window": func() error {
			_, err := l.life.ResizeWindow(l.ctx, lifecycle.ResizeWindowRequest{WindowID: "@0", Width: 10})
			return err
		},
		"rename_session": func() error {
			_, err := l.life.RenameSession(l.ctx, lifecycle.RenameSessionRequest{Session: "work", Name: "x"})
			return err
		},
		"rename_window": func() error {
			_, err := l.life.RenameWindow(l.ctx, lifecycle.RenameWindowRequest{WindowID: "@0", Name: "x"})
			return err
		},
		"clear_pane_scrollback": func() error {
			_, err := l.life.ClearPaneScrollback(l.ctx, lifecycle.ClearScrollbackRequest{PaneID: l.top})
			return err
		},
		"kill_pane": func() error { _, err := l.life.KillPane(l.ctx, lifecycle.KillPaneRequest{PaneID: l.top}); return err },
		"respawn_pane": func() error {
			_, err := l.life.RespawnPane(l.ctx, lifecycle.RespawnPaneRequest{PaneID: l.top})
			return err
		},
		"kill_window": func() error {
			_, err := l.life.KillWindow(l.ctx, lifecycle.KillWindowRequest{WindowID: "@0"})
			return err
		},
		"kill_session": func() error {
			_, err := l.life.KillSession(l.ctx, lifecycle.KillSessionRequest{Session: "work"})
			return err
		},
	}
	for tool, call := range calls {
		if err := call(); !errors.Is(err, ports.ErrUnavailable) {
			t.Errorf("%s: err = %v, want ErrUnavailable", tool, err)
		}
	}
	l.term.SetUnavailable(false)
	if ids := l.paneIDs(); len(ids) != 3 {
		t.Errorf("panes %v after the failed calls, want the three, untouched", ids)
	}
}

// Sizes run from 1 to MaxPaneCells cells (0 leaves the size out): the
// largest is passed on as it is.
func TestTheLargestSizeInCellsIsAccepted(t *testing.T) {
	life, mgr := mockBackend(t)
	ctx := context.Background()
	mgr.EXPECT().SplitWindow(gomock.Any(), ports.PaneID("%1"), true, lifecycle.MaxPaneCells).Return(ports.Created{Pane: "%2"}, nil)
	if _, err := life.SplitWindow(ctx, lifecycle.SplitWindowRequest{PaneID: "%1", Vertical: true, Size: lifecycle.MaxPaneCells}); err != nil {
		t.Errorf("split_window of %d cells: %v", lifecycle.MaxPaneCells, err)
	}
	mgr.EXPECT().CreateSession(gomock.Any(), ports.SessionSpec{Width: lifecycle.MaxPaneCells, Height: lifecycle.MaxPaneCells}).
		Return(ports.Created{Pane: "%3"}, nil)
	if _, err := life.CreateSession(ctx, lifecycle.CreateSessionRequest{Width: lifecycle.MaxPaneCells, Height: lifecycle.MaxPaneCells}); err != nil {
		t.Errorf("create_session of %d by %d cells: %v", lifecycle.MaxPaneCells, lifecycle.MaxPaneCells, err)
	}
}

// A failure that is about the session asked for names it, once: the port
// method's error says it (the domain adds no context of its own to a call
// it only passes on; TestErrorsNameEachContextOnce checks them all).
func TestFailuresNameTheSessionTheCallNamed(t *testing.T) {
	l := newLayout(t)
	for _, c := range []struct {
		what string
		call func() error
		is   error
		want string
	}{
		{"create_session with a name in use", func() error {
			_, err := l.life.CreateSession(l.ctx, lifecycle.CreateSessionRequest{Name: "work"})
			return err
		}, ports.ErrNameInUse, `create session: "work": `},
		{"list_windows of an unknown session", func() error {
			_, err := l.life.ListWindows(l.ctx, lifecycle.ListWindowsRequest{Session: "build"})
			return err
		}, ports.ErrNotFound, "list windows: session build: "},
		{"create_window in an unknown session", func() error {
			_, err := l.life.CreateWindow(l.ctx, lifecycle.CreateWindowRequest{Session: "build"})
			return err
		}, ports.ErrNotFound, "create window: session build: "},
	} {
		if err := c.call(); !errors.Is(err, c.is) || !strings.HasPrefix(err.Error(), c.want) ||
			strings.Count(err.Error(), "work")+strings.Count(err.Error(), "build") != 1 {
			t.Errorf("%s: err = %v, want %v saying %q first, and naming the session once", c.what, err, c.is, c.want)
		}
	}
}
