package tmux

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// The Manager on real tmux, each test on a private server.

// plainShell is bashCmd as one command line, for SessionSpec.Command.
const plainShell = "env 'PS1=$ ' HISTFILE=/dev/null bash --norc --noprofile"

func TestManagerListsSessionsWindowsAndPanes(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	top := s.session("main", bashCmd)
	bottom := s.split(top, bashCmd)
	logs := s.window("main", bashCmd)
	other := s.session("other", bashCmd)
	for _, p := range []ports.PaneID{top, bottom, logs, other} {
		s.waitPrompt(p) // so that each pane runs bash, no longer env
	}
	term := s.terminal(Options{})
	ctx := testContext(t)

	sessions, err := term.ListSessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, ses := range sessions {
		got = append(got, ses.Name+" "+strconv.Itoa(ses.Windows)+" "+strconv.Itoa(ses.Clients))
		if !isID(ses.ID, '$') || ses.Created.IsZero() || time.Since(ses.Created) > time.Hour {
			t.Errorf("session %+v: want an id and a creation time", ses)
		}
	}
	if want := []string{"main 2 0", "other 1 0"}; !slices.Equal(got, want) {
		t.Errorf("sessions = %q, want %q", got, want)
	}

	windows, err := term.ListWindows(ctx, "main")
	if err != nil {
		t.Fatal(err)
	}
	if len(windows) != 2 || windows[0].Index != 0 || windows[0].Panes != 2 || !windows[0].Active ||
		windows[1].Index != 1 || windows[1].Panes != 1 || windows[1].Active || windows[0].Session.Name != "main" ||
		windows[0].Name == "" || windows[0].Width != 80 {
		t.Errorf("windows of main = %+v", windows)
	}
	if all, err := term.ListWindows(ctx, ""); err != nil || len(all) != 3 {
		t.Errorf("all windows = %+v, %v; want 3", all, err)
	}

	cases := []struct {
		f    ports.PaneFilter
		want []ports.PaneID
	}{
		{ports.PaneFilter{}, []ports.PaneID{top, bottom, logs, other}},
		{ports.PaneFilter{Session: "main"}, []ports.PaneID{top, bottom, logs}},
		{ports.PaneFilter{Session: sessions[1].ID}, []ports.PaneID{other}},
		{ports.PaneFilter{Window: windows[1].ID}, []ports.PaneID{logs}},
		{ports.PaneFilter{Pane: bottom}, []ports.PaneID{bottom}},
	}
	for _, c := range cases {
		panes, err := term.ListPanes(ctx, c.f)
		if err != nil {
			t.Errorf("ListPanes(%+v): %v", c.f, err)
			continue
		}
		var ids []ports.PaneID
		for _, p := range panes {
			ids = append(ids, p.ID)
		}
		if !slices.Equal(ids, c.want) {
			t.Errorf("ListPanes(%+v) = %v, want %v", c.f, ids, c.want)
		}
	}

	panes, _ := term.ListPanes(ctx, ports.PaneFilter{Window: windows[0].ID})
	p := panes[1]
	if p.ID != bottom || p.Index != 1 || p.Active || p.Dead || p.Command != "bash" || p.Path == "" ||
		p.Width != 80 || p.Height != 11 || p.Window.ID != windows[0].ID || p.Session.Name != "main" ||
		p.Title == "" || p.Self || len(p.Watchers) != 0 || len(p.Unknown) != 0 {
		t.Errorf("pane %s = %+v", bottom, p)
	}
}

func TestManagerListingsTellWatchersAndSelfAsPaneDoes(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	p := s.session("main", bashCmd)
	q := s.split(p, bashCmd)
	tty := s.attach("main")
	socket := strings.TrimSpace(s.tmux("display-message", "-p", "#{socket_path}"))
	pid := strings.TrimSpace(s.tmux("display-message", "-p", "#{pid}"))
	term := s.terminal(Options{Env: func(k string) string {
		return map[string]string{"TMUX": socket + "," + pid + ",0", "TMUX_PANE": string(q)}[k]
	}})
	ctx := testContext(t)

	panes, err := term.ListPanes(ctx, ports.PaneFilter{Session: "main"})
	if err != nil {
		t.Fatal(err)
	}
	for _, sum := range panes {
		info, err := term.Pane(ctx, sum.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(sum.Watchers, info.Watchers) || sum.Self != info.Self {
			t.Errorf("listing of %s: watchers %v self %v; Pane says %v and %v", sum.ID, sum.Watchers, sum.Self, info.Watchers, info.Self)
		}
	}
	if !slices.Equal(panes[0].Watchers, []string{tty}) || !panes[1].Self {
		t.Errorf("panes = %+v, want %s watched by %s and %s the server's own", panes, p, tty, q)
	}
	sessions, _ := term.ListSessions(ctx)
	if sessions[0].Clients != 1 {
		t.Errorf("clients of main = %d, want 1", sessions[0].Clients)
	}
}

func TestManagerListingsTellThePanesProcessAndCursor(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	p := s.session("main", bashCmd)
	s.waitPrompt(p)
	s.tmux("send-keys", "-t", string(p), "-l", "echo ab")
	s.waitScreen(p, "the typed text", func(screen string) bool { return strings.Contains(screen, "$ echo ab") })
	empty := ports.PaneID(strings.TrimSpace(s.tmux("split-window", "-d", "-t", string(p), "-P", "-F", "#{pane_id}", "")))
	term := s.terminal(Options{})
	ctx := testContext(t)

	panes, err := term.ListPanes(ctx, ports.PaneFilter{Pane: p})
	if err != nil {
		t.Fatal(err)
	}
	sum := panes[0]
	pid := strings.TrimSpace(s.tmux("display-message", "-p", "-t", string(p), "#{pane_pid}"))
	if strconv.Itoa(sum.PID) != pid || sum.CursorX != len("$ echo ab") || sum.CursorY != 0 || len(sum.Unknown) != 0 {
		t.Errorf("pane %s = pid %d, cursor (%d, %d), unknown %v; want pid %s, the cursor after the typed text at (9, 0)",
			p, sum.PID, sum.CursorX, sum.CursorY, sum.Unknown, pid)
	}

	panes, err = term.ListPanes(ctx, ports.PaneFilter{Pane: empty})
	if err != nil {
		t.Fatal(err)
	}
	if e := panes[0]; e.PID != 0 || !slices.Contains(e.Unknown, ports.FactPID) {
		t.Errorf("an empty pane = pid %d, unknown %v; want its pid unknown, not 0 taken for a fact", e.PID, e.Unknown)
	}
}

func TestManagerServerInfo(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	p := s.session("main", bashCmd)
	s.split(p, bashCmd)
	s.session("other", bashCmd)
	term := s.terminal(Options{})
	info, err := term.ServerInfo(testContext(t))
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(info.Address) != s.sock || info.Version != term.Version() || info.PID <= 0 || info.Started.IsZero() ||
		info.Sessions != 2 || info.Windows != 2 || info.Panes != 3 || info.Clients != 0 {
		t.Errorf("server info = %+v", info)
	}
}

func TestManagerLifecycle(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	s.session("keep", bashCmd) // so that the server outlives the session under test
	term := s.terminal(Options{})
	ctx := testContext(t)

	c, err := term.CreateSession(ctx, ports.SessionSpec{Name: "work", Command: plainShell, Width: 100, Height: 30})
	if err != nil {
		t.Fatal(err)
	}
	if c.Session.Name != "work" || !isID(c.Session.ID, '$') || !isID(c.Window.ID, '@') || !isID(string(c.Pane), '%') {
		t.Fatalf("CreateSession = %+v", c)
	}
	if info, err := term.Pane(ctx, c.Pane); err != nil || info.Width != 100 || info.Height != 30 {
		t.Errorf("new pane = %+v, %v; want 100x30", info, err)
	}
	eventually(t, 5*time.Second, "bash, run by the session's command", func() bool {
		info, err := term.Pane(ctx, c.Pane)
		return err == nil && info.Command == "bash"
	})
	if _, err := term.CreateSession(ctx, ports.SessionSpec{Name: "work"}); !errors.Is(err, ports.ErrNameInUse) {
		t.Errorf("a second session named work: err = %v, want ErrNameInUse", err)
	}

	split, err := term.SplitWindow(ctx, c.Pane, true, 10)
	if err != nil {
		t.Fatal(err)
	}
	if split.Window.ID != c.Window.ID {
		t.Errorf("split made %+v, want a pane in %+v", split, c.Window)
	}
	right, err := term.SplitWindow(ctx, c.Pane, false, 0)
	if err != nil {
		t.Fatal(err)
	}
	sizes := func() map[ports.PaneID][2]int {
		panes, err := term.ListPanes(ctx, ports.PaneFilter{Window: c.Window.ID})
		if err != nil {
			t.Fatal(err)
		}
		m := map[ports.PaneID][2]int{}
		for _, p := range panes {
			m[p.ID] = [2]int{p.Width, p.Height}
			if p.Active != (p.ID == c.Pane) {
				t.Errorf("pane %s active = %v; splits must not take the focus", p.ID, p.Active)
			}
		}
		return m
	}
	got := sizes()
	if got[split.Pane] != [2]int{100, 10} || got[c.Pane] != [2]int{50, 19} || got[right.Pane] != [2]int{49, 19} {
		t.Errorf("sizes after the splits = %v", got)
	}
	if err := term.ResizePane(ctx, c.Pane, 30, 0); err != nil {
		t.Fatal(err)
	}
	if got := sizes(); got[c.Pane][0] != 30 {
		t.Errorf("width after ResizePane(30) = %d", got[c.Pane][0])
	}

	w, err := term.CreateWindow(ctx, "work", "logs")
	if err != nil {
		t.Fatal(err)
	}
	if w.Window.Name != "logs" || w.Window.Index != 1 || w.Session != c.Session {
		t.Errorf("CreateWindow = %+v", w)
	}
	windows, _ := term.ListWindows(ctx, c.Session.ID)
	if len(windows) != 2 || !windows[0].Active {
		t.Errorf("windows = %+v, want 2 with the first still current", windows)
	}
	if err := term.SelectWindow(ctx, w.Window.ID); err != nil {
		t.Fatal(err)
	}
	if err := term.SelectPane(ctx, right.Pane); err != nil {
		t.Fatal(err)
	}
	windows, _ = term.ListWindows(ctx, c.Session.ID)
	if windows[0].Active || !windows[1].Active {
		t.Errorf("windows after SelectWindow = %+v", windows)
	}
	if panes, _ := term.ListPanes(ctx, ports.PaneFilter{Pane: right.Pane}); !panes[0].Active {
		t.Errorf("pane after SelectPane = %+v", panes[0])
	}

	if err := term.RenameSession(ctx, "work", "play"); err != nil {
		t.Fatal(err)
	}
	if err := term.RenameWindow(ctx, w.Window.ID, "tail"); err != nil {
		t.Fatal(err)
	}
	if err := term.RenameSession(ctx, "play", "keep"); !errors.Is(err, ports.ErrNameInUse) {
		t.Errorf("renaming to a taken name: err = %v, want ErrNameInUse", err)
	}
	windows, _ = term.ListWindows(ctx, "play")
	if len(windows) != 2 || windows[1].Name != "tail" || windows[1].Session.Name != "play" {
		t.Errorf("windows after renaming = %+v", windows)
	}

	s.tmux("send-keys", "-t", string(c.Pane), "seq 200", "Enter")
	// All of seq's output, so that no row reaches the history after it
	// was cleared.
	s.waitScreen(c.Pane, "seq to end", func(screen string) bool {
		return strings.HasSuffix(strings.TrimRight(screen, "\n"), "200\n$")
	})
	if info, _ := term.Pane(ctx, c.Pane); info.HistorySize < 100 {
		t.Fatalf("history before ClearHistory = %d rows, want seq's", info.HistorySize)
	}
	if err := term.ClearHistory(ctx, c.Pane); err != nil {
		t.Fatal(err)
	}
	if info, _ := term.Pane(ctx, c.Pane); info.HistorySize != 0 {
		t.Errorf("history after ClearHistory = %d rows", info.HistorySize)
	}

	if err := term.KillPane(ctx, split.Pane); err != nil {
		t.Fatal(err)
	}
	if _, err := term.Pane(ctx, split.Pane); !errors.Is(err, ports.ErrPaneNotFound) {
		t.Errorf("killed pane: err = %v, want ErrPaneNotFound", err)
	}
	if err := term.KillWindow(ctx, w.Window.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := term.ListPanes(ctx, ports.PaneFilter{Window: w.Window.ID}); !errors.Is(err, ports.ErrNotFound) {
		t.Errorf("killed window: err = %v, want ErrNotFound", err)
	}
	if err := term.KillSession(ctx, "play"); err != nil {
		t.Fatal(err)
	}
	sessions, _ := term.ListSessions(ctx)
	if len(sessions) != 1 || sessions[0].Name != "keep" {
		t.Errorf("sessions after KillSession = %+v, want keep alone", sessions)
	}
}

func TestManagerResizesAWindowOfADetachedSession(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	top := s.session("main", bashCmd) // 80x24, detached
	bottom := s.split(top, bashCmd)
	term := s.terminal(Options{})
	ctx := testContext(t)
	windows, err := term.ListWindows(ctx, "main")
	if err != nil {
		t.Fatal(err)
	}
	win := windows[0].ID

	if err := term.ResizeWindow(ctx, win, 200, 50); err != nil {
		t.Fatal(err)
	}
	size := func() (w, h int, panes map[ports.PaneID][2]int) {
		windows, err := term.ListWindows(ctx, "main")
		if err != nil {
			t.Fatal(err)
		}
		list, err := term.ListPanes(ctx, ports.PaneFilter{Window: win})
		if err != nil {
			t.Fatal(err)
		}
		panes = map[ports.PaneID][2]int{}
		for _, p := range list {
			panes[p.ID] = [2]int{p.Width, p.Height}
		}
		return windows[0].Width, windows[0].Height, panes
	}
	w, h, panes := size()
	if w != 200 || h != 50 || panes[top][0] != 200 || panes[bottom][0] != 200 || panes[top][1]+1+panes[bottom][1] != 50 {
		t.Errorf("after ResizeWindow(200, 50): window %dx%d, panes %v; want 200x50 shared by both", w, h, panes)
	}
	if err := term.ResizeWindow(ctx, win, 0, 30); err != nil {
		t.Fatal(err)
	}
	if w, h, _ := size(); w != 200 || h != 30 {
		t.Errorf("after ResizeWindow(0, 30): window %dx%d, want the width kept", w, h)
	}
	if info, err := term.Pane(ctx, top); err != nil || info.Width != 200 {
		t.Errorf("the pane as a write sees it: %+v, %v; want 200 columns", info, err)
	}

	for _, bad := range []string{"@999", "main:0", "%0"} {
		if err := term.ResizeWindow(ctx, bad, 100, 0); !errors.Is(err, ports.ErrNotFound) {
			t.Errorf("ResizeWindow(%q): err = %v, want ErrNotFound", bad, err)
		}
	}
}

func TestManagerRespawnsALivePaneInPlace(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	p := s.session("main", bashCmd)
	s.waitPrompt(p)
	s.tmux("send-keys", "-t", string(p), "seq 40; sleep 600", "Enter")
	s.waitScreen(p, "seq's last line", func(screen string) bool { return strings.Contains(screen, "\n40\n") })
	s.tmux("copy-mode", "-t", string(p))
	term := s.terminal(Options{})
	ctx := testContext(t)
	before, err := term.Pane(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	stream, err := term.OpenOutput(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	from := stream.End()

	if err := term.RespawnPane(ctx, p); err != nil {
		t.Fatal(err)
	}
	s.waitPrompt(p)
	after, err := term.Pane(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if after.Dead || after.Generation == before.Generation || after.Mode != "" || after.HistorySize < before.HistorySize {
		t.Errorf("after RespawnPane: %+v (before %+v); want alive, a new generation, out of copy mode, the history kept", after, before)
	}
	if screen := s.screen(p); strings.TrimRight(screen, "\n") != "$" {
		t.Errorf("screen after RespawnPane = %q, want blank but for the new prompt", screen)
	}
	// The stream goes on with the new shell's output.
	if err := term.SendText(ctx, p, "echo respawned-$((6*7))\r"); err != nil {
		t.Fatal(err)
	}
	_, missed, ended := readUntil(t, stream, from, "the new shell's output", contains("respawned-42"))
	if ended != nil {
		t.Errorf("the stream ended (%v); want it to carry the new process's output", ended)
	}
	if missed < 1 {
		t.Errorf("missed = %d across the respawn; want the gap where tmux may have dropped the old process's queued output counted", missed)
	}
	// The terminal is the new process's: read anew, not the old one's.
	eventually(t, 5*time.Second, "the new shell's terminal to edit lines", func() bool {
		editing, err := term.LineEditing(ctx, p)
		return err == nil && editing
	})

	if err := term.RespawnPane(ctx, "%999"); !errors.Is(err, ports.ErrPaneNotFound) {
		t.Errorf("respawning an unknown pane: err = %v, want ErrPaneNotFound", err)
	}
	if err := term.RespawnPane(ctx, "main"); !errors.Is(err, ports.ErrPaneNotFound) {
		t.Errorf("respawning a malformed pane id: err = %v, want ErrPaneNotFound", err)
	}
}

func TestManagerRespawnsADeadPane(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	p := s.session("main", bashCmd)
	s.tmux("set-option", "-w", "-t", string(p), "remain-on-exit", "on")
	s.waitPrompt(p)
	term := s.terminal(Options{})
	ctx := testContext(t)
	old, err := term.OpenOutput(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	s.tmux("send-keys", "-t", string(p), "exit", "Enter")
	if _, _, ended := readUntil(t, old, old.End(), "the end of the stream", func([]byte) bool { return false }); !errors.Is(ended, ports.ErrPaneDead) {
		t.Fatalf("the stream of the exiting shell ended with %v, want ErrPaneDead", ended)
	}

	if err := term.RespawnPane(ctx, p); err != nil {
		t.Fatal(err)
	}
	s.waitPrompt(p)
	if info, err := term.Pane(ctx, p); err != nil || info.Dead || info.ID != p {
		t.Fatalf("after RespawnPane: %+v, %v; want %s alive", info, err, p)
	}
	stream, err := term.OpenOutput(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	from := stream.End()
	if err := term.SendText(ctx, p, "echo back-$((6*7))\r"); err != nil {
		t.Fatal(err)
	}
	if _, _, ended := readUntil(t, stream, from, "the new shell's output", contains("back-42")); ended != nil {
		t.Errorf("a stream opened after the respawn ended (%v); want the new shell's output", ended)
	}
}

func TestManagerTargetsSessionsByExactName(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	s.session("development", bashCmd)
	s.session("dev", bashCmd)
	term := s.terminal(Options{})
	ctx := testContext(t)
	// tmux would take "devel" as a prefix of development, and "dev*" as a
	// pattern.
	for _, ref := range []string{"devel", "dev*", "=dev"} {
		if _, err := term.ListWindows(ctx, ref); !errors.Is(err, ports.ErrNotFound) {
			t.Errorf("ListWindows(%q): err = %v, want ErrNotFound", ref, err)
		}
	}
	if err := term.KillSession(ctx, "dev"); err != nil {
		t.Fatal(err)
	}
	sessions, _ := term.ListSessions(ctx)
	if len(sessions) != 1 || sessions[0].Name != "development" {
		t.Errorf("sessions = %+v, want development alone", sessions)
	}
}

// A "#" that starts no format is kept as it is: tmux expands formats in
// names, and the adapter escapes every "#" it hands over.
func TestManagerNamesAreNeverExpanded(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	s.session("keep", bashCmd)
	term := s.terminal(Options{})
	ctx := testContext(t)
	names := []string{"a#b#", "## and ###", "#pid", "50% #1", "ends with;"}
	for _, name := range names {
		c, err := term.CreateSession(ctx, ports.SessionSpec{Name: name})
		if err != nil {
			t.Fatalf("CreateSession(%q): %v", name, err)
		}
		if c.Session.Name != name {
			t.Errorf("session named %q, want %q", c.Session.Name, name)
		}
		w, err := term.CreateWindow(ctx, name, name)
		if err != nil || w.Window.Name != name {
			t.Errorf("CreateWindow(%q) = %+v, %v; want a window of that name", name, w, err)
		}
		if err := term.RenameWindow(ctx, w.Window.ID, name+"!"); err != nil {
			t.Fatal(err)
		}
		if err := term.RenameSession(ctx, c.Session.ID, name+"!"); err != nil {
			t.Fatal(err)
		}
		windows, _ := term.ListWindows(ctx, c.Session.ID)
		if windows[1].Name != name+"!" || windows[1].Session.Name != name+"!" {
			t.Errorf("renamed to %q and %q, want %q", windows[1].Name, windows[1].Session.Name, name+"!")
		}
	}
}

// Names that tmux would read as more than text, or as a target of another
// kind, are refused before tmux sees them, and nothing runs.
func TestManagerRefusesNamesTmuxWouldInterpret(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	s.session("keep", bashCmd)
	term := s.terminal(Options{})
	ctx := testContext(t)
	windows, err := term.ListWindows(ctx, "keep")
	if err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(t.TempDir(), "ran")
	refusedEverywhere(t, term, windows[0].ID, "a#(touch "+marker+")b", "#{pid}", "#[fg=red]x", "-t", "-")
	// A window's name is no target, but a session's is.
	for _, name := range []string{"a:b", "x.y", "$3"} {
		if _, err := term.CreateSession(ctx, ports.SessionSpec{Name: name}); !errors.Is(err, ports.ErrInvalidName) {
			t.Errorf("CreateSession(%q) = %v, want ErrInvalidName", name, err)
		}
		if err := term.RenameSession(ctx, "keep", name); !errors.Is(err, ports.ErrInvalidName) {
			t.Errorf("RenameSession(%q) = %v, want ErrInvalidName", name, err)
		}
		if err := term.RenameWindow(ctx, windows[0].ID, name); err != nil {
			t.Errorf("RenameWindow(%q): %v, want a window named so", name, err)
		}
	}
	if _, err := term.CreateSession(ctx, ports.SessionSpec{Command: " -x"}); !errors.Is(err, ports.ErrUnsupported) {
		t.Errorf("CreateSession with the command \" -x\" = %v, want ErrUnsupported", err)
	}
	if sessions, _ := term.ListSessions(ctx); len(sessions) != 1 || sessions[0].Name != "keep" {
		t.Errorf("sessions %+v after refused names, want keep alone", sessions)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("a #(...) in a name ran its command")
	}
}

// refusedEverywhere checks that every tool that takes a name refuses each
// of names as invalid, saying so, for session "keep" and its window.
func refusedEverywhere(t *testing.T, term *Terminal, window string, names ...string) {
	t.Helper()
	ctx := testContext(t)
	for _, name := range names {
		if _, err := term.CreateSession(ctx, ports.SessionSpec{Name: name}); !errors.Is(err, ports.ErrInvalidName) || !strings.HasPrefix(errors.Unwrap(err).Error(), "invalid name") {
			t.Errorf("CreateSession(%q) = %v, want an invalid name", name, err)
		}
		if _, err := term.CreateWindow(ctx, "keep", name); !errors.Is(err, ports.ErrInvalidName) {
			t.Errorf("CreateWindow(%q) = %v, want ErrInvalidName", name, err)
		}
		if err := term.RenameWindow(ctx, window, name); !errors.Is(err, ports.ErrInvalidName) {
			t.Errorf("RenameWindow(%q) = %v, want ErrInvalidName", name, err)
		}
		if err := term.RenameSession(ctx, "keep", name); !errors.Is(err, ports.ErrInvalidName) {
			t.Errorf("RenameSession(%q) = %v, want ErrInvalidName", name, err)
		}
	}
}

// A name that tmux would store changed (it vis-encodes them) is refused,
// and nothing is created or renamed: a listing and a lookup by the name
// asked for always agree.
func TestManagerRefusesNamesTmuxWouldStoreChanged(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	s.session("keep", bashCmd)
	term := s.terminal(Options{})
	ctx := testContext(t)
	windows, err := term.ListWindows(ctx, "keep")
	if err != nil {
		t.Fatal(err)
	}
	refusedEverywhere(t, term, windows[0].ID, `a\b`, `trailing\`, "not \xff UTF-8", "nbsp\u00a0here", "$HOME", "cost $USD", "${x}")
	sessions, _ := term.ListSessions(ctx)
	after, _ := term.ListWindows(ctx, "keep")
	if len(sessions) != 1 || sessions[0].Name != "keep" || len(after) != 1 || after[0].Name != windows[0].Name {
		t.Errorf("sessions %+v, windows %+v after refused names; want them unchanged", sessions, after)
	}
	// What tmux stores as given still goes through.
	if err := term.RenameWindow(ctx, windows[0].ID, "é ✓ 日本語 it's"); err != nil {
		t.Errorf("RenameWindow of a printable UTF-8 name: %v", err)
	}
	if after, _ := term.ListWindows(ctx, "keep"); after[0].Name != "é ✓ 日本語 it's" {
		t.Errorf("window named %q", after[0].Name)
	}
}

func TestStorableNames(t *testing.T) {
	for name, ok := range map[string]bool{"plain": true, "é ✓ 日本語": true, "a b": true, `a\b`: false, "\xff": false, "\u00a0": false, "\u2028": false,
		"a\nb": false, "a\x1b[31mb": false, "a\x7fb": false, "#(x)": false, "a#{b}": false, "#[bold]": false, "-t": false, "a-b": true,
		"a#b": true, "(#)": true, "a:b": true, "x.y": true, "$3": true, "$HOME": false, "cost $USD": false, "my_${x}": false,
		"a$_b": false, "$$": true, "a$(x)": true, "$": true, "5$": true, `a"b`: true} {
		if err := storable(name); (err == nil) != ok {
			t.Errorf("storable(%q) = %v, want ok %v", name, err, ok)
		}
	}
	for name, ok := range map[string]bool{"work": true, "a:b": false, "x.y": false, "$3": false, "$": true, "$x": false, "#(x)": false} {
		if err := storableSession(name); (err == nil) != ok {
			t.Errorf("storableSession(%q) = %v, want ok %v", name, err, ok)
		}
	}
}

func TestLiteralNameDoublesEveryHashTmuxWouldRead(t *testing.T) {
	cases := map[string]string{
		"plain":         "plain",
		"a#b":           "a##b",
		"#{pid}":        "##{pid}",
		"#(cmd)":        "##(cmd)",
		"##":            "####",
		"#[fg=red]":     "#[fg=red]", // tmux copies a run of # before [ as it is
		"##[x] #y":      "##[x] ##y",
		"trailing #":    "trailing ##",
		"ends with;":    `ends with\;`,
		"ends with #;":  `ends with ##\;`,
		"日本#語":          "日本##語",
		"#}#,":          "##}##,",
		"no hash here;": `no hash here\;`,
	}
	for in, want := range cases {
		if got := literalName(in); got != want {
			t.Errorf("literalName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestManagerErrors(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	p := s.session("main", bashCmd)
	term := s.terminal(Options{})
	ctx := testContext(t)
	_, listErr := term.ListPanes(ctx, ports.PaneFilter{Pane: "%999"})
	_, createErr := term.CreateWindow(ctx, "$999", "")
	_, splitErr := term.SplitWindow(ctx, "%999", true, 0)
	cases := []struct {
		name string
		err  error
		want error
	}{
		{"list panes of an unknown pane", listErr, ports.ErrPaneNotFound},
		{"create a window in an unknown session", createErr, ports.ErrNotFound},
		{"split an unknown pane", splitErr, ports.ErrPaneNotFound},
		{"kill an unknown session id", term.KillSession(ctx, "$999"), ports.ErrNotFound},
		{"kill an unknown session name", term.KillSession(ctx, "nope"), ports.ErrNotFound},
		{"kill an unknown window", term.KillWindow(ctx, "@999"), ports.ErrNotFound},
		{"kill a malformed window", term.KillWindow(ctx, "main:0"), ports.ErrNotFound},
		{"kill an unknown pane", term.KillPane(ctx, "%999"), ports.ErrPaneNotFound},
		{"select a malformed pane", term.SelectPane(ctx, "main"), ports.ErrPaneNotFound},
	}
	for _, c := range cases {
		if !errors.Is(c.err, c.want) {
			t.Errorf("%s: err = %v, want %v", c.name, c.err, c.want)
		}
	}
	if _, err := term.Pane(ctx, p); err != nil {
		t.Errorf("the session's pane after the failed calls: %v", err)
	}

	stopped := newTestServer(t) // never started
	if _, err := stopped.terminal(Options{}).ListSessions(ctx); !errors.Is(err, ports.ErrUnavailable) {
		t.Errorf("ListSessions without a server: err = %v, want ErrUnavailable", err)
	}
}
