package fake_test

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

func listPaneIDs(t *testing.T, m *fake.Manager, f ports.PaneFilter) []ports.PaneID {
	t.Helper()
	panes, err := m.ListPanes(ctx, f)
	if err != nil {
		t.Fatalf("ListPanes(%+v): %v", f, err)
	}
	var ids []ports.PaneID
	for _, p := range panes {
		ids = append(ids, p.ID)
	}
	return ids
}

func TestManagerAdoptsPanesAddedToTheTerminal(t *testing.T) {
	term := fake.New()
	a := term.AddPane(fake.PaneSpec{Width: 120, Height: 30})
	m := fake.NewManager(term)
	b := term.AddPane(fake.PaneSpec{Command: "vim"})

	windows, err := m.ListWindows(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range windows {
		got = append(got, w.Session.ID+" "+w.Session.Name+" "+w.ID+" "+w.Name)
	}
	if want := []string{"$0 0 @0 bash", "$0 0 @1 vim"}; !slices.Equal(got, want) {
		t.Errorf("windows = %q, want %q: each adopted pane in a window of its own in session 0", got, want)
	}
	if ids := listPaneIDs(t, m, ports.PaneFilter{}); !slices.Equal(ids, []ports.PaneID{a, b}) {
		t.Errorf("panes = %v, want %v", ids, []ports.PaneID{a, b})
	}
	if windows[0].Width != 120 || windows[0].Height != 30 || !windows[0].Active || windows[1].Active {
		t.Errorf("first window = %+v, want 120x30 and current", windows[0])
	}
}

func TestManagerForgetsPanesRemovedFromTheTerminal(t *testing.T) {
	term := fake.New()
	m := fake.NewManager(term)
	c, err := m.CreateSession(ctx, ports.SessionSpec{Name: "s"})
	if err != nil {
		t.Fatal(err)
	}
	split, err := m.SplitWindow(ctx, c.Pane, false, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.SelectPane(ctx, split.Pane); err != nil {
		t.Fatal(err)
	}
	term.RemovePane(split.Pane)
	panes, err := m.ListPanes(ctx, ports.PaneFilter{Window: c.Window.ID})
	if err != nil || len(panes) != 1 || panes[0].ID != c.Pane || !panes[0].Active {
		t.Fatalf("panes = %+v, %v; want %s alone, active again", panes, err, c.Pane)
	}
	term.RemovePane(c.Pane)
	if sessions, err := m.ListSessions(ctx); err != nil || len(sessions) != 0 {
		t.Errorf("sessions = %+v, %v; want none once the last pane went", sessions, err)
	}
}

func TestManagerNumbersAndNamesAsTmuxDoes(t *testing.T) {
	term := fake.New()
	m := fake.NewManager(term)
	first, _ := m.CreateSession(ctx, ports.SessionSpec{})
	second, _ := m.CreateSession(ctx, ports.SessionSpec{Name: "named"})
	w, _ := m.CreateWindow(ctx, "named", "")
	if first.Session != (ports.SessionRef{ID: "$0", Name: "0"}) || second.Session != (ports.SessionRef{ID: "$1", Name: "named"}) {
		t.Errorf("sessions %+v and %+v, want $0 named 0 and $1 named named", first.Session, second.Session)
	}
	if first.Window.ID != "@0" || second.Window.ID != "@1" || w.Window.ID != "@2" || w.Window.Index != 1 || w.Window.Name != "bash" {
		t.Errorf("windows %+v, %+v, %+v", first.Window, second.Window, w.Window)
	}
	// A killed window's id is not reused; the next index follows the
	// highest.
	if err := m.KillWindow(ctx, "@1"); err != nil {
		t.Fatal(err)
	}
	again, _ := m.CreateWindow(ctx, "$1", "again")
	if again.Window.ID != "@3" || again.Window.Index != 2 {
		t.Errorf("window after a kill = %+v, want @3 at index 2", again.Window)
	}
}

func TestSplitDividesThePaneAndItsScreen(t *testing.T) {
	term := fake.New()
	m := fake.NewManager(term)
	c, _ := m.CreateSession(ctx, ports.SessionSpec{Width: 81, Height: 25})
	term.Inject(c.Pane, []byte("\r\none\r\ntwo\r\nthree"))

	below, err := m.SplitWindow(ctx, c.Pane, true, 5)
	if err != nil {
		t.Fatal(err)
	}
	right, err := m.SplitWindow(ctx, c.Pane, false, 0)
	if err != nil {
		t.Fatal(err)
	}
	sizes := map[ports.PaneID]string{}
	panes, _ := m.ListPanes(ctx, ports.PaneFilter{Window: c.Window.ID})
	for _, p := range panes {
		sizes[p.ID] = itoaTest(p.Width) + "x" + itoaTest(p.Height) + " #" + itoaTest(p.Index)
	}
	want := map[ports.PaneID]string{c.Pane: "40x19 #0", right.Pane: "40x19 #1", below.Pane: "81x5 #2"}
	for id, w := range want {
		if sizes[id] != w {
			t.Errorf("pane %s = %s, want %s", id, sizes[id], w)
		}
	}
	rows, err := term.Capture(ctx, c.Pane, ports.CaptureRange{Start: 0, End: 3})
	if err != nil || !slices.Equal(rows, []string{"$", "one", "two", "three"}) {
		t.Errorf("the split pane's screen = %q, %v; want its rows kept", rows, err)
	}
	if _, err := m.SplitWindow(ctx, below.Pane, true, 4); err == nil {
		t.Error("splitting 5 rows into 4 and a divider succeeded, leaving the old pane no row")
	}
}

func itoaTest(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoaTest(n/10) + string(rune('0'+n%10))
}

func TestResizeMovesRowsThatNoLongerFitIntoHistory(t *testing.T) {
	term := fake.New()
	m := fake.NewManager(term)
	c, _ := m.CreateSession(ctx, ports.SessionSpec{Width: 20, Height: 10})
	term.Inject(c.Pane, []byte(strings.Repeat("row\r\n", 7)+"abcdefghijklmnop"))
	if err := m.ResizePane(ctx, c.Pane, 10, 4); err != nil {
		t.Fatal(err)
	}
	info, _ := term.Pane(ctx, c.Pane)
	if info.Width != 10 || info.Height != 4 || info.HistorySize != 4 {
		t.Fatalf("after resize: %dx%d with %d history rows, want 10x4 with 4", info.Width, info.Height, info.HistorySize)
	}
	rows, _ := term.Capture(ctx, c.Pane, ports.CaptureRange{Start: 0, End: 3})
	if !slices.Equal(rows, []string{"row", "row", "row", "abcdefghij"}) {
		t.Errorf("screen = %q, want the bottom rows, cut to 10 columns", rows)
	}
	if err := m.ResizePane(ctx, c.Pane, 0, 50); err != nil {
		t.Fatal(err)
	}
	if info, _ := term.Pane(ctx, c.Pane); info.Width != 10 || info.Height != 10 {
		t.Errorf("after asking for 50 rows: %dx%d, want the window's 10 rows", info.Width, info.Height)
	}
}

func TestResizeWindowGivesItsPanesTheirShare(t *testing.T) {
	term := fake.New()
	m := fake.NewManager(term)
	c, _ := m.CreateSession(ctx, ports.SessionSpec{Width: 80, Height: 24})
	below, _ := m.SplitWindow(ctx, c.Pane, true, 0) // 80x12 above 80x11
	term.Inject(c.Pane, []byte("\r\n"+strings.Repeat("x", 70)))

	if err := m.ResizeWindow(ctx, c.Window.ID, 200, 48); err != nil {
		t.Fatal(err)
	}
	windows, _ := m.ListWindows(ctx, "")
	if w := windows[0]; w.Width != 200 || w.Height != 48 {
		t.Errorf("window = %dx%d, want 200x48", w.Width, w.Height)
	}
	sizes := func() map[ports.PaneID][2]int {
		got := map[ports.PaneID][2]int{}
		panes, _ := m.ListPanes(ctx, ports.PaneFilter{Window: c.Window.ID})
		for _, p := range panes {
			got[p.ID] = [2]int{p.Width, p.Height}
		}
		return got
	}
	if got, want := sizes(), map[ports.PaneID][2]int{c.Pane: {200, 24}, below.Pane: {200, 22}}; !maps.Equal(got, want) {
		t.Errorf("panes = %v, want %v: the full width each, the height in proportion", got, want)
	}

	// A 0 leaves that dimension; a narrower window cuts what no longer fits.
	if err := m.ResizeWindow(ctx, c.Window.ID, 40, 0); err != nil {
		t.Fatal(err)
	}
	if got, want := sizes(), map[ports.PaneID][2]int{c.Pane: {40, 24}, below.Pane: {40, 22}}; !maps.Equal(got, want) {
		t.Errorf("panes after narrowing = %v, want %v", got, want)
	}
	rows, _ := term.Capture(ctx, c.Pane, ports.CaptureRange{Start: 1, End: 1})
	if !slices.Equal(rows, []string{strings.Repeat("x", 40)}) {
		t.Errorf("row 1 = %q, want its first 40 cells", rows)
	}
	if err := m.ResizeWindow(ctx, "@9", 10, 10); !errors.Is(err, ports.ErrNotFound) {
		t.Errorf("resizing an unknown window: err = %v, want ErrNotFound", err)
	}
}

func TestClearHistoryKeepsTheScreen(t *testing.T) {
	term := fake.New()
	m := fake.NewManager(term)
	c, _ := m.CreateSession(ctx, ports.SessionSpec{Width: 20, Height: 3})
	term.Inject(c.Pane, []byte("a\r\nb\r\nc\r\nd\r\ne"))
	if err := m.ClearHistory(ctx, c.Pane); err != nil {
		t.Fatal(err)
	}
	info, _ := term.Pane(ctx, c.Pane)
	rows, _ := term.Capture(ctx, c.Pane, ports.CaptureRange{Start: 0, End: 2})
	if info.HistorySize != 0 || !slices.Equal(rows, []string{"c", "d", "e"}) {
		t.Errorf("history %d, screen %q; want 0 and c d e", info.HistorySize, rows)
	}
}

func TestManagerErrors(t *testing.T) {
	term := fake.New()
	m := fake.NewManager(term)
	c, _ := m.CreateSession(ctx, ports.SessionSpec{Name: "s"})
	cases := []struct {
		name string
		err  error
		want error
	}{
		{"unknown session", m.KillSession(ctx, "nope"), ports.ErrNotFound},
		{"unknown window", m.SelectWindow(ctx, "@9"), ports.ErrNotFound},
		{"unknown pane", m.KillPane(ctx, "%9"), ports.ErrPaneNotFound},
		{"renaming to its own name", m.RenameSession(ctx, "$0", "s"), nil},
	}
	_, dup := m.CreateSession(ctx, ports.SessionSpec{Name: "s"})
	cases = append(cases, struct {
		name string
		err  error
		want error
	}{"duplicate session", dup, ports.ErrNameInUse})
	for _, c := range cases {
		if c.want == nil && c.err != nil || c.want != nil && !errors.Is(c.err, c.want) {
			t.Errorf("%s: err = %v, want %v", c.name, c.err, c.want)
		}
	}

	term.SetUnavailable(true)
	if _, err := m.ListPanes(ctx, ports.PaneFilter{}); !errors.Is(err, ports.ErrUnavailable) {
		t.Errorf("ListPanes while unavailable: err = %v, want ErrUnavailable", err)
	}
	term.SetUnavailable(false)
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := m.KillPane(cancelled, c.Pane); !errors.Is(err, context.Canceled) {
		t.Errorf("KillPane with a cancelled context: err = %v", err)
	}
	if ids := listPaneIDs(t, m, ports.PaneFilter{}); len(ids) != 1 {
		t.Errorf("panes = %v, want the one pane, unharmed", ids)
	}
}

func TestListPanesReportsTheTerminalsFacts(t *testing.T) {
	clock := fake.NewClock(time.Unix(1000, 0))
	term := fake.New(fake.WithClock(clock))
	m := fake.NewManager(term)
	c, _ := m.CreateSession(ctx, ports.SessionSpec{})
	term.Attach(c.Pane, "/dev/pts/1")
	term.SetSelf(c.Pane)
	term.SetCommand(c.Pane, "less")
	m.SetTitle(c.Pane, "title")
	m.SetPath(c.Pane, "/var/log")
	panes, _ := m.ListPanes(ctx, ports.PaneFilter{Pane: c.Pane})
	p := panes[0]
	if !slices.Equal(p.Watchers, []string{"/dev/pts/1"}) || !p.Self || p.Command != "less" || p.Title != "title" || p.Path != "/var/log" || p.Dead {
		t.Errorf("pane = %+v", p)
	}
	term.SetUnknown(c.Pane, ports.FactWatched, ports.FactMode)
	panes, _ = m.ListPanes(ctx, ports.PaneFilter{Pane: c.Pane})
	if p := panes[0]; p.Watchers != nil || !slices.Equal(p.Unknown, []ports.Fact{ports.FactWatched}) {
		t.Errorf("pane with unknown watchers = %+v, want no watchers and Unknown [watched]", p)
	}
	sessions, _ := m.ListSessions(ctx)
	info, _ := m.ServerInfo(ctx)
	if !sessions[0].Created.Equal(time.Unix(1000, 0)) || !info.Started.Equal(time.Unix(1000, 0)) {
		t.Errorf("times = %v and %v, want the clock's", sessions[0].Created, info.Started)
	}
}

func TestRespawnPaneRestartsALivePaneKeepingItsStreams(t *testing.T) {
	term := fake.New()
	m := fake.NewManager(term)
	c, _ := m.CreateSession(ctx, ports.SessionSpec{Width: 20, Height: 3})
	term.Inject(c.Pane, []byte("one\r\ntwo\r\nthree\r\nfour"))
	term.SetMode(c.Pane, "copy-mode")
	term.SetCommand(c.Pane, "vim")
	before := describe(t, term, c.Pane)
	s := openStream(t, term, c.Pane)

	if err := m.RespawnPane(ctx, c.Pane); err != nil {
		t.Fatal(err)
	}
	after := describe(t, term, c.Pane)
	if after.Dead || after.Generation == before.Generation || after.Mode != "" || after.Command != "bash" {
		t.Errorf("after RespawnPane: %+v; want alive, a new generation, no mode, bash again", after)
	}
	if got := screen(t, term, c.Pane); !slices.Equal(got, []string{"$", "", ""}) {
		t.Errorf("screen = %q, want it blank but for the new prompt at the top", got)
	}
	if info := describe(t, term, c.Pane); info.HistorySize != before.HistorySize {
		t.Errorf("history = %d rows, want the %d kept", info.HistorySize, before.HistorySize)
	}
	chunk := s.ReadFrom(0)
	if chunk.Ended != nil || !strings.HasSuffix(string(chunk.Data), "$ ") {
		t.Errorf("stream after RespawnPane: %q, ended %v; want it open, the new prompt in it", chunk.Data, chunk.Ended)
	}
	typeLine(t, term, c.Pane, "echo back")
	if got := screen(t, term, c.Pane); got[1] != "back" {
		t.Errorf("screen after a command = %q, want the new shell to run it", got)
	}
}

func TestRespawnPaneBringsADeadPaneBack(t *testing.T) {
	term := fake.New()
	m := fake.NewManager(term)
	c, _ := m.CreateSession(ctx, ports.SessionSpec{})
	ended := openStream(t, term, c.Pane)
	term.KillPane(c.Pane)

	if err := m.RespawnPane(ctx, c.Pane); err != nil {
		t.Fatal(err)
	}
	if info := describe(t, term, c.Pane); info.Dead {
		t.Fatalf("after RespawnPane: %+v, want alive", info)
	}
	if chunk := ended.ReadFrom(ended.End()); !errors.Is(chunk.Ended, ports.ErrPaneDead) {
		t.Errorf("the stream of the dead process: ended %v, want ErrPaneDead still", chunk.Ended)
	}
	s := openStream(t, term, c.Pane)
	typeLine(t, term, c.Pane, "echo alive")
	if chunk := s.ReadFrom(0); chunk.Ended != nil || !strings.Contains(string(chunk.Data), "alive") {
		t.Errorf("a new stream: %q, ended %v; want the new shell's output", chunk.Data, chunk.Ended)
	}
	if ids := listPaneIDs(t, m, ports.PaneFilter{}); !slices.Equal(ids, []ports.PaneID{c.Pane}) {
		t.Errorf("panes = %v, want the same pane id", ids)
	}

	if err := m.RespawnPane(ctx, "%9"); !errors.Is(err, ports.ErrPaneNotFound) {
		t.Errorf("respawning an unknown pane: err = %v, want ErrPaneNotFound", err)
	}
	term.SetUnavailable(true)
	if err := m.RespawnPane(ctx, c.Pane); !errors.Is(err, ports.ErrUnavailable) {
		t.Errorf("respawning while unavailable: err = %v, want ErrUnavailable", err)
	}
}

func TestListPanesTellsTheProcessAndTheCursor(t *testing.T) {
	term := fake.New()
	m := fake.NewManager(term)
	c, _ := m.CreateSession(ctx, ports.SessionSpec{Width: 20, Height: 5})
	term.Inject(c.Pane, []byte("one\r\ntwo"))
	sum := func() ports.PaneSummary {
		panes, err := m.ListPanes(ctx, ports.PaneFilter{Pane: c.Pane})
		if err != nil {
			t.Fatal(err)
		}
		return panes[0]
	}
	first := sum()
	if first.PID <= 0 || first.CursorX != 3 || first.CursorY != 1 || len(first.Unknown) != 0 {
		t.Errorf("pane = pid %d, cursor (%d, %d), unknown %v; want a pid and the cursor after \"two\" at (3, 1)",
			first.PID, first.CursorX, first.CursorY, first.Unknown)
	}
	if err := m.RespawnPane(ctx, c.Pane); err != nil {
		t.Fatal(err)
	}
	if again := sum(); again.PID == first.PID || again.CursorX != 2 || again.CursorY != 0 {
		t.Errorf("after a respawn: pid %d (was %d), cursor (%d, %d); want a new pid, the cursor after the prompt at (2, 0)",
			again.PID, first.PID, again.CursorX, again.CursorY)
	}
	term.SetUnknown(c.Pane, ports.FactPID, ports.FactCursor)
	if u := sum(); u.PID != 0 || u.CursorX != 0 || u.CursorY != 0 || !slices.Equal(u.Unknown, []ports.Fact{ports.FactPID, ports.FactCursor}) {
		t.Errorf("with pid and cursor unknown: %+v; want them zero and listed in Unknown", u)
	}
}
