package lifecycle_test

import (
	"context"
	"errors"
	"slices"
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

// The recovery tools: resize_window, respawn_pane, search_panes and
// display, on the layout of lifecycle_test.go.

func TestResizeWindowReportsTheWindowWithTheSizeItGot(t *testing.T) {
	l := newLayout(t)
	w, err := l.life.ResizeWindow(l.ctx, lifecycle.ResizeWindowRequest{WindowID: "@0", Width: 200})
	if err != nil {
		t.Fatal(err)
	}
	if w.ID != "@0" || w.Width != 200 || w.Height != 40 || w.Panes != 2 || w.Session.Name != "work" {
		t.Errorf("ResizeWindow(width 200) = %+v, want @0 of work at 200x40, the height kept", w)
	}
	for _, id := range []ports.PaneID{l.top, l.bottom} {
		if info, err := l.term.Pane(l.ctx, id); err != nil || info.Width != 200 {
			t.Errorf("pane %s after the resize = %+v, %v; want 200 columns, as a write sees it", id, info, err)
		}
	}
	if info, _ := l.term.Pane(l.ctx, l.logs); info.Width != 100 {
		t.Errorf("pane %s of another window = %d columns, want its 100 kept", l.logs, info.Width)
	}
}

func TestResizeWindowChecksItsArgumentsBeforeTheBackend(t *testing.T) {
	life, _ := mockBackend(t) // any call would fail the test
	bad := []lifecycle.ResizeWindowRequest{
		{Width: 80},                 // no window
		{WindowID: "@0"},            // no size
		{WindowID: "@0", Width: -1}, // negative
		{WindowID: "@0", Height: lifecycle.MaxPaneCells + 1}, // too tall
	}
	for _, req := range bad {
		if _, err := life.ResizeWindow(t.Context(), req); !errors.Is(err, fault.ErrInvalidArgument) {
			t.Errorf("ResizeWindow(%+v): err = %v, want an argument error", req, err)
		}
	}
	l := newLayout(t)
	if _, err := l.life.ResizeWindow(l.ctx, lifecycle.ResizeWindowRequest{WindowID: "@9", Width: 80}); !errors.Is(err, ports.ErrNotFound) {
		t.Errorf("ResizeWindow(@9): err = %v, want ErrNotFound", err)
	}
}

func TestRespawnPaneRestartsAStuckProgramKeepingThePaneID(t *testing.T) {
	l := newLayout(t)
	l.term.SetCommand(l.bottom, "vim") // stuck in a program keys cannot leave
	l.term.SetMode(l.bottom, "copy-mode")
	before, _ := l.term.Pane(l.ctx, l.bottom)

	p, err := l.life.RespawnPane(l.ctx, lifecycle.RespawnPaneRequest{PaneID: l.bottom})
	if err != nil {
		t.Fatal(err)
	}
	if p.ID != l.bottom || p.Dead || p.Command != "bash" || p.Busy != "" || p.Window.ID != "@0" || p.Index != 1 {
		t.Errorf("RespawnPane = %+v; want %s again, alive, running bash, not busy, where it was", p, l.bottom)
	}
	after, _ := l.term.Pane(l.ctx, l.bottom)
	if after.Generation == before.Generation || after.Mode != "" {
		t.Errorf("after the respawn: %+v; want a new process generation, out of copy mode", after)
	}
	if !slices.Equal(l.paneIDs(), []ports.PaneID{l.top, l.bottom, l.logs}) {
		t.Errorf("panes = %v, want the layout unchanged", l.paneIDs())
	}
	res, err := l.svc.RunShellCommand(l.ctx, domain.RunRequest{PaneID: l.bottom, Command: "echo fresh"})
	if err != nil || res.Outcome != domain.OutcomeCompleted || res.Output != "fresh" {
		t.Errorf("a command in the new shell: %+v, %v", res, err)
	}
}

func TestRespawnPaneBringsADeadPaneBackWhoeverWatchesIt(t *testing.T) {
	cases := map[string]func(l *layout){
		"dead":                       func(l *layout) {},
		"dead and watched":           func(l *layout) { l.term.Attach(l.bottom, "/dev/pts/4") },
		"dead, the server's own":     func(l *layout) { l.term.SetSelf(l.bottom) },
		"dead, its watchers unknown": func(l *layout) { l.term.SetUnknown(l.bottom, ports.FactWatched, ports.FactSelf) },
	}
	for name, setup := range cases {
		t.Run(name, func(t *testing.T) {
			l := newLayout(t)
			setup(l)
			l.term.KillPane(l.bottom)
			p, err := l.life.RespawnPane(l.ctx, lifecycle.RespawnPaneRequest{PaneID: l.bottom})
			if err != nil {
				t.Fatalf("RespawnPane of a dead pane: %v; want it respawned, as it ends nothing", err)
			}
			if p.Dead {
				t.Errorf("RespawnPane = %+v, want it alive", p)
			}
		})
	}
}

// Ending a live program is a write like a kill: the same refusals, and
// nothing respawned.
func TestRespawnPaneRefusesALivePaneAsAKillWould(t *testing.T) {
	cases := []struct {
		name    string
		protect func(l *layout)
		force   bool
		want    error
		says    string
	}{
		{"watched", func(l *layout) { l.term.Attach(l.bottom, "/dev/pts/4") }, false, fault.ErrRefused, "/dev/pts/4"},
		{"watched, with force", func(l *layout) { l.term.Attach(l.bottom, "/dev/pts/4") }, true, fault.ErrRefused, "/dev/pts/4"},
		{"the server's own", func(l *layout) { l.term.SetSelf(l.bottom) }, false, fault.ErrRefused, "this server itself runs in"},
		{"watchers unknown", func(l *layout) { l.term.SetUnknown(l.bottom, ports.FactWatched) }, true, fault.ErrRefused, "cannot tell"},
		// With force, a command of ours is taken from its pane (takeover_test.go).
		{"running a command of ours", func(l *layout) { l.hang(l.bottom, "make test") }, false, fault.ErrBusy, "make test"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := newLayout(t)
			c.protect(l)
			before, _ := l.term.Pane(l.ctx, l.bottom)
			_, err := l.life.RespawnPane(l.ctx, lifecycle.RespawnPaneRequest{PaneID: l.bottom, Force: c.force})
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), string(l.bottom)) || !strings.Contains(err.Error(), c.says) {
				t.Fatalf("err = %v, want %v naming %s and saying %q", err, c.want, l.bottom, c.says)
			}
			var refusal *fault.RefusalError
			if errors.As(err, &refusal) && (!refusal.Ending || !strings.Contains(refusal.Reason, "respawn_pane would end its program")) {
				t.Errorf("refusal %+v, want an ending refusal saying respawn_pane would end the program", refusal)
			}
			if after, _ := l.term.Pane(l.ctx, l.bottom); after.Generation != before.Generation {
				t.Error("a refused respawn replaced the pane's process")
			}
		})
	}
}

func TestRespawnPaneOfTheServersOwnPaneNeedsForce(t *testing.T) {
	l := newLayout(t)
	l.term.SetSelf(l.bottom)
	if _, err := l.life.RespawnPane(l.ctx, lifecycle.RespawnPaneRequest{PaneID: l.bottom, Force: true}); err != nil {
		t.Errorf("RespawnPane of the server's own pane with force: %v", err)
	}
}

// A dead pane ends nothing, but its writer still holds it: it is not
// respawned under another writer.
func TestRespawnPaneOfADeadPaneAnotherWriterHoldsIsBusy(t *testing.T) {
	l := newLayout(t)
	hold, err := l.pool.Hold(l.ctx, l.bottom, `run_shell_command "make"`)
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Release()
	l.term.KillPane(l.bottom)
	if _, err := l.life.RespawnPane(l.ctx, lifecycle.RespawnPaneRequest{PaneID: l.bottom, Force: true}); !errors.Is(err, fault.ErrBusy) {
		t.Errorf("err = %v, want busy", err)
	}
	if info, _ := l.term.Pane(l.ctx, l.bottom); !info.Dead {
		t.Error("the held dead pane was respawned")
	}
}

func TestRespawnPaneReportsTheNewShellSoThatThePaneToolsWaitForIt(t *testing.T) {
	l := newLayout(t)
	var told []ports.PaneID
	life := lifecycle.New(lifecycle.FromManager(l.mgr), l.term, l.pool, func(id ports.PaneID) {
		told = append(told, id)
		l.svc.ExpectStartingShell(id)
	})
	if _, err := life.RespawnPane(l.ctx, lifecycle.RespawnPaneRequest{PaneID: l.bottom}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(told, []ports.PaneID{l.bottom}) {
		t.Fatalf("created heard of %v, want %s", told, l.bottom)
	}

	// The new shell is still reading its rc files: a paste waits for it.
	l.term.SetStarting(l.bottom, true)
	done := make(chan error, 1)
	go func() {
		_, err := l.svc.PasteText(l.ctx, domain.PasteRequest{PaneID: l.bottom, Text: "typed"})
		done <- err
	}()
	ctx, cancel := context.WithTimeout(l.ctx, 10*time.Second)
	defer cancel()
	waited := make(chan error, 1)
	go func() { waited <- l.clock.WaitForTimer(ctx, domain.StartingPoll) }()
	select {
	case err := <-waited:
		if err != nil {
			t.Fatalf("paste_text never waited for the shell: %v", err)
		}
	case err := <-done:
		t.Fatalf("paste_text returned (%v) without waiting for the new shell", err)
	}
	if sent := l.term.Sent(l.bottom); slices.ContainsFunc(sent, func(in fake.Input) bool { return in.Text == "typed" }) {
		t.Fatalf("pasted into a shell that had not started: %+v", sent)
	}
	l.term.SetStarting(l.bottom, false)
	l.clock.Advance(domain.StartingPoll)
	if err := <-done; err != nil {
		t.Errorf("paste once the shell started: %v", err)
	}
}

func TestRespawnPaneWithoutTheCapabilityIsUnsupported(t *testing.T) {
	term := fake.New()
	mgr := fake.NewManager(term)
	b := lifecycle.FromManager(mgr)
	b.Respawner = nil
	life := lifecycle.New(b, term, writers.NewPool(nil), nil)
	c, err := life.CreateSession(t.Context(), lifecycle.CreateSessionRequest{})
	if err != nil {
		t.Fatalf("the other capabilities: %v", err)
	}
	before, _ := term.Pane(t.Context(), c.Pane)
	if _, err := life.RespawnPane(t.Context(), lifecycle.RespawnPaneRequest{PaneID: c.Pane}); !errors.Is(err, ports.ErrUnsupported) {
		t.Errorf("RespawnPane without a Respawner: err = %v, want ErrUnsupported", err)
	}
	if after, _ := term.Pane(t.Context(), c.Pane); after.Generation != before.Generation {
		t.Error("respawned without a Respawner")
	}
	if _, err := life.RespawnPane(t.Context(), lifecycle.RespawnPaneRequest{PaneID: "%9"}); !errors.Is(err, ports.ErrUnsupported) {
		t.Errorf("RespawnPane of an unknown pane without a Respawner: err = %v, want ErrUnsupported first", err)
	}
}

func TestRespawnPaneOfAnUnknownPane(t *testing.T) {
	l := newLayout(t)
	if _, err := l.life.RespawnPane(l.ctx, lifecycle.RespawnPaneRequest{PaneID: "%77"}); !errors.Is(err, ports.ErrPaneNotFound) {
		t.Errorf("err = %v, want ErrPaneNotFound", err)
	}
}

func TestDisplayTellsTheFixedFactsOfAPane(t *testing.T) {
	l := newLayout(t)
	l.mgr.SetPath(l.top, "/src/project")
	l.term.Inject(l.top, []byte("\r\nbuilding"))
	l.term.SetCommand(l.top, "make")
	l.term.SetMode(l.top, "copy-mode")
	listed, _ := l.mgr.ListPanes(l.ctx, ports.PaneFilter{Pane: l.top})

	f, err := l.life.Display(l.ctx, lifecycle.PaneRequest{PaneID: l.top})
	if err != nil {
		t.Fatal(err)
	}
	want := lifecycle.PaneFacts{
		PaneID: l.top, Path: "/src/project", PID: listed[0].PID, Width: 100, Height: 20,
		CursorX: len("building"), CursorY: 1, Command: "make", InMode: true, Mode: "copy-mode", Unknown: []ports.Fact{},
	}
	if f.PID <= 0 || !equalFacts(f, want) {
		t.Errorf("Display =\n%+v\nwant\n%+v", f, want)
	}

	// A new process is a new pid; a dead pane keeps its facts.
	if _, err := l.life.RespawnPane(l.ctx, lifecycle.RespawnPaneRequest{PaneID: l.top}); err != nil {
		t.Fatal(err)
	}
	l.term.KillPane(l.top)
	g, err := l.life.Display(l.ctx, lifecycle.PaneRequest{PaneID: l.top})
	if err != nil {
		t.Fatal(err)
	}
	if g.PID == f.PID || g.PID <= 0 || !g.Dead || g.InMode || g.Command != "bash" || g.CursorX != 2 || g.CursorY != 0 {
		t.Errorf("after a respawn and an exit: %+v; want a new pid, dead, out of the mode, the cursor after the new prompt", g)
	}
}

func equalFacts(a, b lifecycle.PaneFacts) bool {
	return a.PaneID == b.PaneID && a.Path == b.Path && a.PID == b.PID && a.Width == b.Width && a.Height == b.Height &&
		a.CursorX == b.CursorX && a.CursorY == b.CursorY && a.Command == b.Command && a.Dead == b.Dead &&
		a.InMode == b.InMode && a.Mode == b.Mode && slices.Equal(a.Unknown, b.Unknown) && a.Unknown != nil
}

// What the backend cannot tell is said to be unknown, never reported as
// a zero that would read as a fact.
func TestDisplaySaysWhatTheBackendCannotTell(t *testing.T) {
	l := newLayout(t)
	l.term.SetMode(l.top, "copy-mode")
	l.term.SetUnknown(l.top, ports.FactPID, ports.FactCursor, ports.FactCommand, ports.FactMode)
	f, err := l.life.Display(l.ctx, lifecycle.PaneRequest{PaneID: l.top})
	if err != nil {
		t.Fatal(err)
	}
	want := []ports.Fact{ports.FactPID, ports.FactCursor, ports.FactCommand, ports.FactMode}
	if !slices.Equal(f.Unknown, want) || f.PID != 0 || f.CursorX != 0 || f.CursorY != 0 || f.Command != "" || f.InMode || f.Mode != "" {
		t.Errorf("Display = %+v; want %v unknown, their fields zero", f, want)
	}
	if f.Width != 100 || f.Height != 20 || f.Path != fake.DefaultPath {
		t.Errorf("Display = %+v; want the facts the backend does tell", f)
	}
}

// display takes nothing from the caller but the pane's id: one listing of
// that pane and one description of it, and no other call.
func TestDisplayAsksTheBackendOnlyAboutThePane(t *testing.T) {
	ctrl := gomock.NewController(t)
	mgr, term := mocks.NewMockManager(ctrl), mocks.NewMockTerminal(ctrl)
	life := lifecycle.New(lifecycle.FromManager(mgr), term, writers.NewPool(nil), nil)
	mgr.EXPECT().ListPanes(gomock.Any(), ports.PaneFilter{Pane: "%4"}).
		Return([]ports.PaneSummary{{ID: "%4", Path: "/tmp", PID: 4321, CursorX: 7, CursorY: 3}}, nil)
	term.EXPECT().Pane(gomock.Any(), ports.PaneID("%4")).
		Return(ports.PaneInfo{ID: "%4", Command: "bash", Width: 80, Height: 24}, nil)
	f, err := life.Display(t.Context(), lifecycle.PaneRequest{PaneID: "%4"})
	if err != nil {
		t.Fatal(err)
	}
	want := lifecycle.PaneFacts{PaneID: "%4", Path: "/tmp", PID: 4321, Width: 80, Height: 24, CursorX: 7, CursorY: 3, Command: "bash", Unknown: []ports.Fact{}}
	if !equalFacts(f, want) {
		t.Errorf("Display = %+v, want %+v", f, want)
	}
}

func TestDisplayOfAnUnknownPane(t *testing.T) {
	l := newLayout(t)
	if _, err := l.life.Display(l.ctx, lifecycle.PaneRequest{PaneID: "%77"}); !errors.Is(err, ports.ErrPaneNotFound) {
		t.Errorf("err = %v, want ErrPaneNotFound", err)
	}
	life := lifecycle.New(lifecycle.Backend{}, l.term, l.pool, nil)
	if _, err := life.Display(l.ctx, lifecycle.PaneRequest{PaneID: l.top}); !errors.Is(err, ports.ErrUnsupported) {
		t.Errorf("Display without a Lister: err = %v, want ErrUnsupported", err)
	}
}

// A session made to run a program that is no shell is that program's
// from the start: the pane tools are not told to wait for a shell in it,
// as they are for the default shell or a command that starts one.
func TestCreateSessionTellsOfAStartingShellOnlyWhenItRunsOne(t *testing.T) {
	l := newLayout(t)
	var told []ports.PaneID
	life := lifecycle.New(lifecycle.FromManager(l.mgr), l.term, l.pool, func(id ports.PaneID) { told = append(told, id) })
	for _, c := range []struct {
		command string
		shell   bool
	}{{"", true}, {"bash -l", true}, {"/usr/bin/zsh", true}, {"cat", false}, {"python3 -q", false}} {
		told = nil
		created, err := life.CreateSession(l.ctx, lifecycle.CreateSessionRequest{Command: c.command})
		if err != nil {
			t.Fatalf("create_session %q: %v", c.command, err)
		}
		if got := slices.Contains(told, created.Pane); got != c.shell {
			t.Errorf("create_session %q: told of a starting shell %v, want %v", c.command, got, c.shell)
		}
	}
}
