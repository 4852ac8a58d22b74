package screen

import (
	"context"
	"errors"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

func TestNewRefusesWhatItCannotReach(t *testing.T) {
	needScreen(t)
	for name, opts := range map[string]Options{
		"missing binary":     {Bin: "/nonexistent/screen", Session: "x"},
		"unknown session":    {Session: "no-such-session", Dir: socketDir},
		"no session, no STY": {Dir: socketDir, Env: func(string) string { return "" }},
	} {
		if term, err := New(opts); !errors.Is(err, ports.ErrUnavailable) {
			if term != nil {
				term.Close()
			}
			t.Errorf("%s: New = %v, want an error wrapping ErrUnavailable", name, err)
		}
	}
}

func TestPaneDescribesAFreshWindow(t *testing.T) {
	s := newSession(t, Options{})
	id := s.window()
	info, err := s.term.Pane(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if info.ID != id || info.Dead || info.Command != "sh" || info.Generation == "" {
		t.Errorf("Pane = %+v, want a live sh with a generation", info)
	}
	if info.Width != 80 || info.Height != 24 {
		t.Errorf("size %dx%d, want screen's 80x24 for a detached session", info.Width, info.Height)
	}
	if info.HistorySize != 0 || info.HistoryLimit != PrivateHistoryLimit {
		t.Errorf("history %d of %d, want 0 of %d", info.HistorySize, info.HistoryLimit, PrivateHistoryLimit)
	}
	if info.Attended || len(info.Watchers) > 0 || len(info.AlsoReaches) > 0 || info.Self {
		t.Errorf("Pane = %+v, want nobody watching, no other window reached, not this process's", info)
	}
	// Copy mode is the one thing screen never tells.
	if !slices.Equal(info.Unknown, []ports.Fact{ports.FactMode}) {
		t.Errorf("Unknown = %q, want only %q", info.Unknown, ports.FactMode)
	}
}

func TestPaneTrustsAssumeNoCopyMode(t *testing.T) {
	s := newSession(t, Options{AssumeNoCopyMode: true})
	info, err := s.term.Pane(t.Context(), s.window())
	if err != nil {
		t.Fatal(err)
	}
	if len(info.Unknown) != 0 || info.Mode != "" {
		t.Errorf("Unknown = %q, Mode = %q; want every fact known and no mode", info.Unknown, info.Mode)
	}
}

func TestPaneReportsTheCommandInTheForeground(t *testing.T) {
	s := newSession(t, Options{})
	id := s.window()
	s.typeLine(id, "sleep 30")
	eventually(t, 10*time.Second, "sleep in the foreground", func() bool {
		info, err := s.term.Pane(t.Context(), id)
		return err == nil && info.Command == "sleep"
	})
}

func TestPaneIsSelfWhenTheEnvironmentSaysSo(t *testing.T) {
	s := newSession(t, Options{})
	a, b := s.window(), s.window()
	n, _ := parsePaneID(a)
	env := map[string]string{"STY": s.term.session, "WINDOW": strconv.Itoa(n)}
	term, err := New(Options{Session: s.name, Dir: socketDir, Env: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	defer term.Close()
	for id, want := range map[ports.PaneID]bool{a: true, b: false} {
		info, err := term.Pane(t.Context(), id)
		if err != nil || info.Self != want {
			t.Errorf("Pane(%s).Self = %v, %v; want %v", id, info.Self, err, want)
		}
	}
}

func TestPaneWhileADisplayIsAttached(t *testing.T) {
	s := newSession(t, Options{AssumeNoCopyMode: true})
	id := s.window()
	n, _ := parsePaneID(id)
	detach := s.attachDisplay(n)
	info, err := s.term.Pane(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	// screen tells that a person is there, not what their display shows.
	if !info.Attended || !slices.Contains(info.Unknown, ports.FactWatched) {
		t.Errorf("attached: Attended = %v, Unknown = %q; want attended and watchers unknown", info.Attended, info.Unknown)
	}
	detach()
	eventually(t, 10*time.Second, "the session to be detached", func() bool {
		info, err := s.term.Pane(t.Context(), id)
		return err == nil && !info.Attended && len(info.Unknown) == 0
	})
}

func TestPaneOfAZombieWindowIsDeadAndTakesNoInput(t *testing.T) {
	s := newSession(t, Options{})
	// With zombie keys, a window whose program exited stays, and a 'k'
	// or 'r' typed into it would kill or restart it.
	s.screen("-X", "zombie", "kr")
	id := s.window()
	alive, err := s.term.Pane(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	s.typeLine(id, "exit")
	var info ports.PaneInfo
	eventually(t, 10*time.Second, "the window's program to exit", func() bool {
		info, err = s.term.Pane(t.Context(), id)
		return err == nil && info.Dead
	})
	if info.Generation != alive.Generation || info.Height != alive.Height {
		t.Errorf("dead window: generation %q, height %d; want those it had alive, %q and %d",
			info.Generation, info.Height, alive.Generation, alive.Height)
	}
	for name, err := range map[string]error{
		"SendText": s.term.SendText(t.Context(), id, "kr"),
		"SendKeys": s.term.SendKeys(t.Context(), id, []string{"k", "r"}),
		"Paste":    s.term.Paste(t.Context(), id, "kr"),
	} {
		if !errors.Is(err, ports.ErrPaneDead) {
			t.Errorf("%s into a zombie window = %v, want an error wrapping ErrPaneDead", name, err)
		}
	}
	if info, err := s.term.Pane(t.Context(), id); err != nil || !info.Dead {
		t.Errorf("after the refused writes: Pane = %+v, %v; want the zombie still there", info, err)
	}
}

func TestGenerationChangesWhenScreenReusesTheNumber(t *testing.T) {
	s := newSession(t, Options{})
	n := s.windows.take()
	first, err := s.term.Pane(t.Context(), s.windowNumbered(n))
	if err != nil {
		t.Fatal(err)
	}
	s.screen("-p", strconv.Itoa(n), "-X", "kill")
	eventually(t, 10*time.Second, "the window to go", func() bool {
		_, err := s.term.Pane(t.Context(), first.ID)
		return errors.Is(err, ports.ErrPaneNotFound)
	})
	second, err := s.term.Pane(t.Context(), s.windowNumbered(n))
	if err != nil {
		t.Fatal(err)
	}
	if second.ID != first.ID || second.Generation == first.Generation {
		t.Errorf("window %d again: %s generation %q, was %s %q; want the same id and a new generation",
			n, second.ID, second.Generation, first.ID, first.Generation)
	}
}

func TestConcurrentCallsShareScreensQuerySocket(t *testing.T) {
	s := newSession(t, Options{})
	id := s.window()
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 8 {
		wg.Go(func() {
			for range 3 {
				if _, err := s.term.Pane(context.Background(), id); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("concurrent Pane: %v", err)
	}
}

func TestStartPrivateStopLeavesNothing(t *testing.T) {
	needScreen(t)
	name, stop, err := StartPrivate(Options{Dir: socketDir})
	if err != nil {
		t.Fatal(err)
	}
	term, err := New(Options{Session: name, Dir: socketDir})
	if err != nil {
		stop()
		t.Fatal(err)
	}
	sock, work := term.sockPath, term.workDir
	if err := term.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := stop(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	if err := stop(); err != nil {
		t.Errorf("second stop: %v", err)
	}
	for _, p := range []string{sock, work} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s is still there (%v)", p, err)
		}
	}
	if _, err := New(Options{Session: name, Dir: socketDir}); !errors.Is(err, ports.ErrUnavailable) {
		t.Errorf("New on the stopped session = %v, want ErrUnavailable", err)
	}
}
