package tmux

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

func TestPaneDescribesALiveShell(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	p := s.session("main", bashCmd)
	s.waitPrompt(p)
	term := s.terminal(Options{})
	info, err := term.Pane(testContext(t), p)
	if err != nil {
		t.Fatalf("Pane: %v", err)
	}
	if info.ID != p || info.Dead || info.Mode != "" || info.Command != "bash" ||
		info.Width != 80 || info.Height != 24 || info.HistoryLimit != 2000 || info.HistorySize != 0 {
		t.Errorf("Pane = %+v, want live bash in an 80x24 pane with history limit 2000", info)
	}
	if info.Generation == "" || info.Self || len(info.AlsoReaches) != 0 || len(info.Watchers) != 0 || len(info.Unknown) != 0 {
		t.Errorf("Pane = %+v, want a generation and no watcher, synchronized pane, self or unknown fact", info)
	}
}

func TestPaneReportsUnknownPanes(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	s.session("main", bashCmd)
	term := s.terminal(Options{})
	for _, id := range []ports.PaneID{"%999", "main", "main:0.0", "%"} {
		if _, err := term.Pane(testContext(t), id); !errors.Is(err, ports.ErrPaneNotFound) {
			t.Errorf("Pane(%q): err = %v, want ErrPaneNotFound", id, err)
		}
	}
}

func TestGenerationChangesWhenThePaneIsRespawned(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	p := s.session("main", bashCmd)
	term := s.terminal(Options{})
	ctx := testContext(t)
	first, _ := term.Pane(ctx, p)
	again, _ := term.Pane(ctx, p)
	if first.Generation != again.Generation {
		t.Fatalf("generation changed without a respawn: %q, %q", first.Generation, again.Generation)
	}
	s.tmux(append([]string{"respawn-pane", "-k", "-t", string(p)}, bashCmd...)...)
	after, err := term.Pane(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if after.Generation == first.Generation {
		t.Errorf("generation %q survived respawn-pane", after.Generation)
	}
}

func TestPaneReportsModes(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	p := s.session("main", bashCmd)
	term := s.terminal(Options{})
	ctx := testContext(t)
	s.tmux("copy-mode", "-t", string(p))
	info, err := term.Pane(ctx, p)
	if err != nil || info.Mode != "copy-mode" {
		t.Errorf("in copy mode: Mode = %q, err = %v; want copy-mode", info.Mode, err)
	}
	s.tmux("send-keys", "-t", string(p), "-X", "cancel")
	info, err = term.Pane(ctx, p)
	if err != nil || info.Mode != "" {
		t.Errorf("after leaving copy mode: Mode = %q, err = %v; want none", info.Mode, err)
	}
}

func TestSynchronizedPanesAreReported(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	p1 := s.session("main", bashCmd)
	p2 := s.split(p1, bashCmd)
	p3 := s.window("main", bashCmd) // another window: never reached
	term := s.terminal(Options{})
	ctx := testContext(t)

	s.tmux("set-option", "-w", "-t", string(p1), "synchronize-panes", "on")
	info, err := term.Pane(ctx, p1)
	if err != nil || !slices.Equal(info.AlsoReaches, []ports.PaneID{p2}) {
		t.Errorf("synchronized: AlsoReaches of %s = %q, err = %v; want [%s]", p1, info.AlsoReaches, err, p2)
	}
	if info, _ := term.Pane(ctx, p3); len(info.AlsoReaches) != 0 {
		t.Errorf("AlsoReaches of %s in another window = %q", p3, info.AlsoReaches)
	}

	s.tmux("set-option", "-w", "-t", string(p1), "synchronize-panes", "off")
	if info, _ := term.Pane(ctx, p1); len(info.AlsoReaches) != 0 {
		t.Errorf("unsynchronized: AlsoReaches = %q", info.AlsoReaches)
	}
}

func TestWatchersAreTheClientsThatShowThePane(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	p1 := s.session("main", bashCmd)
	p2 := s.split(p1, bashCmd)
	p3 := s.window("main", bashCmd)
	other := s.session("other", bashCmd)
	term := s.terminal(Options{})
	ctx := testContext(t)

	// The adapter's own control client, attached to the session before
	// the person's client, must not count.
	stream, err := term.OpenOutput(ctx, p3)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	tty := s.attach("main")

	watchers := func(p ports.PaneID) []string {
		t.Helper()
		info, err := term.Pane(ctx, p)
		if err != nil {
			t.Fatalf("Pane(%s): %v", p, err)
		}
		if len(info.Watchers) > 0 && !info.Attended {
			t.Errorf("pane %s has watchers %q but is not attended", p, info.Watchers)
		}
		return info.Watchers
	}
	for _, c := range []struct {
		pane     ports.PaneID
		want     []string
		attended bool
	}{
		{p1, []string{tty}, true},
		{p2, []string{tty}, true},
		{p3, nil, true},     // in a window the client does not show, of its session
		{other, nil, false}, // in another session
	} {
		if got := watchers(c.pane); !slices.Equal(got, c.want) {
			t.Errorf("watchers of %s = %q, want %q", c.pane, got, c.want)
		}
		if info, _ := term.Pane(ctx, c.pane); info.Attended != c.attended {
			t.Errorf("Attended of %s = %v, want %v", c.pane, info.Attended, c.attended)
		}
	}

	// Zoomed, the window shows only the zoomed pane.
	s.tmux("resize-pane", "-Z", "-t", string(p2))
	if got := watchers(p2); !slices.Equal(got, []string{tty}) {
		t.Errorf("zoomed pane %s: watchers = %q, want [%s]", p2, got, tty)
	}
	if got := watchers(p1); len(got) != 0 {
		t.Errorf("pane %s hidden by zoom: watchers = %q, want none", p1, got)
	}
	s.tmux("resize-pane", "-Z", "-t", string(p2))

	// A read-only client is still a person looking.
	s.tmux("switch-client", "-c", tty, "-t", "main", "-r")
	if got := watchers(p1); !slices.Equal(got, []string{tty}) {
		t.Errorf("read-only client: watchers of %s = %q, want [%s]", p1, got, tty)
	}

	// The client moves to the other window.
	s.tmux("select-window", "-t", string(p3))
	if got := watchers(p3); !slices.Equal(got, []string{tty}) {
		t.Errorf("after select-window: watchers of %s = %q", p3, got)
	}
	if got := watchers(p1); len(got) != 0 {
		t.Errorf("after select-window: watchers of %s = %q, want none", p1, got)
	}
}

func TestWatchersSeeAWindowLinkedIntoAnotherSession(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	p := s.session("main", bashCmd)
	s.session("other", bashCmd)
	term := s.terminal(Options{})
	tty := s.attach("other")
	s.tmux("link-window", "-s", string(p), "-t", "other:")
	s.tmux("select-window", "-t", "other:"+strings.TrimSpace(s.tmux("display-message", "-p", "-t", string(p), "#{window_id}")))
	info, err := term.Pane(testContext(t), p)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(info.Watchers, []string{tty}) {
		t.Errorf("watchers of a pane shown through a linked window = %q, want [%s]", info.Watchers, tty)
	}
}

func TestSelfIsThePaneNamedByTMUXAndTMUXPane(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	p1 := s.session("main", bashCmd)
	p2 := s.split(p1, bashCmd)
	f := strings.Fields(s.tmux("display-message", "-p", "-t", string(p1), "#{socket_path} #{pid}"))
	socket, pid := f[0], f[1]
	ctx := testContext(t)

	cases := []struct {
		name       string
		tmux, pane string
		want       map[ports.PaneID]bool
	}{
		{"this pane", socket + "," + pid + ",0", string(p1), map[ports.PaneID]bool{p1: true, p2: false}},
		{"another server's pane with the same id", "/tmp/elsewhere/default," + pid + ",0", string(p1), map[ports.PaneID]bool{p1: false}},
		{"an earlier server on the same socket", socket + ",1,0", string(p1), map[ports.PaneID]bool{p1: false}},
		{"not in tmux", "", "", map[ports.PaneID]bool{p1: false, p2: false}},
	}
	for _, c := range cases {
		env := map[string]string{"TMUX": c.tmux, "TMUX_PANE": c.pane}
		term := s.terminal(Options{Env: func(k string) string { return env[k] }})
		for p, want := range c.want {
			info, err := term.Pane(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			if info.Self != want {
				t.Errorf("%s: Self of %s = %v, want %v", c.name, p, info.Self, want)
			}
		}
	}
}
