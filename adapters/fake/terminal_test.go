package fake_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

func TestAddPaneNumbersPanesAndFillsDefaults(t *testing.T) {
	term := fake.New()
	first := term.AddPane(fake.PaneSpec{})
	second := term.AddPane(fake.PaneSpec{Width: 40, Height: 10, HistoryLimit: 50, Command: "/bin/dash"})
	third := term.AddPane(fake.PaneSpec{HistoryLimit: -1})
	if first != "%0" || second != "%1" || third != "%2" {
		t.Fatalf("ids = %s %s %s, want %%0 %%1 %%2", first, second, third)
	}
	a, b, c := describe(t, term, first), describe(t, term, second), describe(t, term, third)
	if a.Width != 80 || a.Height != 24 || a.HistoryLimit != fake.DefaultHistoryLimit || a.Command != "bash" {
		t.Errorf("defaults: %dx%d, history limit %d, command %q; want 80x24, %d, bash", a.Width, a.Height, a.HistoryLimit, a.Command, fake.DefaultHistoryLimit)
	}
	if b.Width != 40 || b.Height != 10 || b.HistoryLimit != 50 || b.Command != "/bin/dash" {
		t.Errorf("spec: %dx%d, history limit %d, command %q; want 40x10, 50, /bin/dash", b.Width, b.Height, b.HistoryLimit, b.Command)
	}
	if c.HistoryLimit != 0 {
		t.Errorf("HistoryLimit -1 gave a limit of %d, want 0 (no history)", c.HistoryLimit)
	}
	if a.Generation == "" || a.Generation == b.Generation {
		t.Errorf("generations %q and %q, want distinct non-empty ones", a.Generation, b.Generation)
	}
	want := ports.PaneInfo{ID: first, Generation: a.Generation, Command: "bash", Width: 80, Height: 24, HistoryLimit: fake.DefaultHistoryLimit}
	if !equalInfo(a, want) {
		t.Errorf("fresh pane = %+v, want %+v", a, want)
	}
}

func equalInfo(a, b ports.PaneInfo) bool {
	return a.ID == b.ID && a.Generation == b.Generation && a.Dead == b.Dead && a.Mode == b.Mode &&
		a.Command == b.Command && a.Width == b.Width && a.Height == b.Height &&
		a.HistorySize == b.HistorySize && a.HistoryLimit == b.HistoryLimit &&
		slices.Equal(a.AlsoReaches, b.AlsoReaches) && slices.Equal(a.Watchers, b.Watchers) &&
		a.Attended == b.Attended && a.Self == b.Self && slices.Equal(a.Unknown, b.Unknown)
}

func TestTestControlsShowInPane(t *testing.T) {
	term := fake.New()
	a, b, c := term.AddPane(fake.PaneSpec{}), term.AddPane(fake.PaneSpec{}), term.AddPane(fake.PaneSpec{})
	for _, tc := range []struct {
		name  string
		do    func()
		check func(a ports.PaneInfo) bool
	}{
		{"SetMode", func() { term.SetMode(a, "copy-mode") }, func(i ports.PaneInfo) bool { return i.Mode == "copy-mode" }},
		{"SetMode none", func() { term.SetMode(a, "") }, func(i ports.PaneInfo) bool { return i.Mode == "" }},
		{"SetCommand", func() { term.SetCommand(a, "vim") }, func(i ports.PaneInfo) bool { return i.Command == "vim" }},
		{"SetCommand none", func() { term.SetCommand(a, "") }, func(i ports.PaneInfo) bool { return i.Command == "bash" }},
		{"SetAttended", func() { term.SetAttended(a, true) }, func(i ports.PaneInfo) bool { return i.Attended && len(i.Watchers) == 0 }},
		{"SetAttended false", func() { term.SetAttended(a, false) }, func(i ports.PaneInfo) bool { return !i.Attended }},
		{"Attach", func() { term.Attach(a, "/dev/pts/3"); term.Attach(a, "/dev/pts/4"); term.Attach(a, "/dev/pts/3") },
			func(i ports.PaneInfo) bool {
				return slices.Equal(i.Watchers, []string{"/dev/pts/3", "/dev/pts/4"}) && i.Attended
			}},
		{"Detach one", func() { term.Detach(a, "/dev/pts/3") }, func(i ports.PaneInfo) bool { return slices.Equal(i.Watchers, []string{"/dev/pts/4"}) }},
		{"Detach all", func() { term.Detach(a, "/dev/pts/4") }, func(i ports.PaneInfo) bool { return len(i.Watchers) == 0 && !i.Attended }},
		{"Synchronize", func() { term.Synchronize(c, a, b) }, func(i ports.PaneInfo) bool { return slices.Equal(i.AlsoReaches, []ports.PaneID{b, c}) }},
		{"Desynchronize another", func() { term.Desynchronize(c) }, func(i ports.PaneInfo) bool { return slices.Equal(i.AlsoReaches, []ports.PaneID{b}) }},
		{"Desynchronize", func() { term.Desynchronize(a) }, func(i ports.PaneInfo) bool { return len(i.AlsoReaches) == 0 }},
		{"SetSelf", func() { term.SetSelf(a) }, func(i ports.PaneInfo) bool { return i.Self }},
		{"SetSelf elsewhere", func() { term.SetSelf(b) }, func(i ports.PaneInfo) bool { return !i.Self }},
		{"SetSelf none", func() { term.SetSelf("") }, func(i ports.PaneInfo) bool { return !i.Self && !describe(t, term, b).Self }},
		{"KillPane", func() { term.KillPane(a) }, func(i ports.PaneInfo) bool { return i.Dead }},
		{"Respawn", func() { term.Respawn(a) }, func(i ports.PaneInfo) bool { return !i.Dead }},
	} {
		tc.do()
		if info := describe(t, term, a); !tc.check(info) {
			t.Errorf("after %s: %+v", tc.name, info)
		}
	}
}

// A fact the backend cannot tell is listed, and its field holds a zero
// value, whatever the pane's state.
func TestUnknownFactsHoldZeroValues(t *testing.T) {
	term := fake.New()
	id, other := term.AddPane(fake.PaneSpec{}), term.AddPane(fake.PaneSpec{})
	term.SetMode(id, "copy-mode")
	term.Attach(id, "/dev/pts/1")
	term.Synchronize(id, other)
	term.SetSelf(id)
	all := []ports.Fact{ports.FactWatched, ports.FactAlsoReaches, ports.FactSelf, ports.FactMode, ports.FactCommand}
	term.SetUnknown(id, all...)
	info := describe(t, term, id)
	if !slices.Equal(info.Unknown, all) {
		t.Errorf("Unknown = %q, want %q", info.Unknown, all)
	}
	if info.Watchers != nil || info.AlsoReaches != nil || info.Self || info.Mode != "" || info.Command != "" {
		t.Errorf("fields of unknown facts = %+v, want zero values", info)
	}
	term.SetUnknown(id)
	if info := describe(t, term, id); len(info.Unknown) != 0 || info.Mode != "copy-mode" || !info.Self {
		t.Errorf("after SetUnknown with no facts: %+v, want everything known again", info)
	}
}

func TestPortMethodsFail(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name  string
		setup func(term *fake.Terminal, id ports.PaneID)
		ctx   context.Context
		want  error
		input bool // only the input methods fail
	}{
		{"when the backend is unavailable", func(term *fake.Terminal, _ ports.PaneID) { term.SetUnavailable(true) }, ctx, ports.ErrUnavailable, false},
		{"when the context is done", func(*fake.Terminal, ports.PaneID) {}, cancelled, context.Canceled, false},
		{"when the pane is removed", func(term *fake.Terminal, id ports.PaneID) { term.RemovePane(id) }, ctx, ports.ErrPaneNotFound, false},
		{"with input to a dead pane", func(term *fake.Terminal, id ports.PaneID) { term.KillPane(id) }, ctx, ports.ErrPaneDead, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			term := fake.New()
			id := term.AddPane(fake.PaneSpec{})
			tc.setup(term, id)
			c := tc.ctx
			calls := map[string]error{
				"SendText": term.SendText(c, id, "x"),
				"SendKeys": term.SendKeys(c, id, []string{"Enter"}),
				"Paste":    term.Paste(c, id, "x"),
			}
			if !tc.input {
				_, calls["Pane"] = term.Pane(c, id)
				_, calls["Capture"] = term.Capture(c, id, ports.CaptureRange{})
				_, calls["OpenOutput"] = term.OpenOutput(c, id)
			}
			for name, err := range calls {
				if !errors.Is(err, tc.want) {
					t.Errorf("%s = %v, want an error wrapping %v", name, err, tc.want)
				} else if !strings.Contains(err.Error(), string(id)) {
					t.Errorf("%s error %q does not name the pane", name, err)
				}
			}
		})
	}
}

func TestTerminalSchedulesOnTheClockItIsGiven(t *testing.T) {
	clock := fake.NewClock(epoch)
	term := fake.New(fake.WithClock(clock))
	if term.Clock() != clock {
		t.Fatal("Clock() is not the clock given")
	}
	id := term.AddPane(fake.PaneSpec{})
	s := openStream(t, term, id)
	term.Expect(id, fake.Run{Delay: time.Second})
	typeFramed(t, term, id, "w1", "wait")
	clock.Advance(time.Second)
	if _, _, ended := framed(t, s, "w1"); !ended {
		t.Error("the scripted command did not end when the given clock moved")
	}
}

func TestALeaderlessFrontLastsAsLongAsItIsSet(t *testing.T) {
	clock := fake.NewClock(epoch)
	term := fake.New(fake.WithClock(clock))
	id := term.AddPane(fake.PaneSpec{})
	shell, err := term.Foreground(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	term.SetLeaderlessFront(id, time.Second)
	fg, err := term.Foreground(context.Background(), id)
	if err != nil || fg.Group == shell.Group || fg.Args == nil || len(fg.Args) != 0 || fg.Children != nil {
		t.Fatalf("Foreground with a leaderless job in front = %+v, %v; want another group, Args empty not nil, no children", fg, err)
	}
	clock.Advance(time.Second)
	if fg, err := term.Foreground(context.Background(), id); err != nil || fg.Group != shell.Group || !slices.Equal(fg.Args, shell.Args) {
		t.Errorf("Foreground once the time passed = %+v, %v; want the shell's %+v", fg, err, shell)
	}
}

func TestUnavailableBackendRecovers(t *testing.T) {
	term := fake.New()
	id := term.AddPane(fake.PaneSpec{})
	term.SetUnavailable(true)
	term.SetUnavailable(false)
	if _, err := term.Pane(ctx, id); err != nil {
		t.Errorf("Pane after the backend came back: %v", err)
	}
}

func TestSentRecordsInputInOrder(t *testing.T) {
	term := fake.New()
	id := term.AddPane(fake.PaneSpec{})
	term.SendText(ctx, id, "echo hi")
	term.SendKeys(ctx, id, []string{"Enter", "C-c"})
	term.Paste(ctx, id, "pasted")
	term.SendKeys(ctx, id, []string{"Enter", "NoSuchKey"}) // fails: not recorded
	want := []fake.Input{
		{Kind: fake.InputText, Text: "echo hi"},
		{Kind: fake.InputKeys, Keys: []string{"Enter", "C-c"}},
		{Kind: fake.InputPaste, Text: "pasted"},
	}
	if got := term.Sent(id); !equalInputs(got, want) {
		t.Errorf("Sent() = %+v, want %+v", got, want)
	}
}

func TestUnknownKeyPressesNothing(t *testing.T) {
	term, id, s := shellPane(t)
	term.SendText(ctx, id, "echo x")
	before := len(everything(s))
	err := term.SendKeys(ctx, id, []string{"Enter", "NoSuchKey"})
	if !errors.Is(err, ports.ErrUnknownKey) || !strings.Contains(err.Error(), "NoSuchKey") {
		t.Errorf("SendKeys = %v, want ErrUnknownKey naming the key", err)
	}
	if after := len(everything(s)); after != before {
		t.Errorf("the pane printed %q after a failed SendKeys", everything(s)[before:])
	}
}

// Typing reaches every synchronized pane, as in tmux; a paste reaches
// only its own pane; a dead pane in the group is skipped.
func TestSynchronizedInput(t *testing.T) {
	term := fake.New()
	a, b, dead := term.AddPane(fake.PaneSpec{}), term.AddPane(fake.PaneSpec{}), term.AddPane(fake.PaneSpec{})
	term.Synchronize(a, b, dead)
	term.KillPane(dead)
	sb := openStream(t, term, b)
	typeLine(t, term, a, "echo both-$((1+1))")
	term.Paste(ctx, a, "only a")

	want := []fake.Input{{Kind: fake.InputText, Text: "echo both-$((1+1))", Via: a}, {Kind: fake.InputKeys, Keys: []string{"Enter"}, Via: a}}
	if got := term.Sent(b); !equalInputs(got, want) {
		t.Errorf("Sent(%s) = %+v, want %+v", b, got, want)
	}
	if got := normalize(everything(sb)); !strings.Contains(got, "both-2\n") || strings.Contains(got, "only a") {
		t.Errorf("pane %s printed %q, want the typed command run and no paste", b, got)
	}
	if got := term.Sent(dead); len(got) != 0 {
		t.Errorf("the dead pane received %+v", got)
	}
}

func TestCaptureChecksTheRange(t *testing.T) {
	term := fake.New()
	id := term.AddPane(fake.PaneSpec{Height: 3})
	typeLine(t, term, id, "echo 1; echo 2; echo 3")
	hist := describe(t, term, id).HistorySize
	if hist == 0 {
		t.Fatal("no history to test with")
	}
	for _, r := range []ports.CaptureRange{
		{Start: -hist - 1, End: 0}, {Start: 0, End: 3}, {Start: 2, End: 1},
	} {
		if rows, err := term.Capture(ctx, id, r); err == nil {
			t.Errorf("Capture(%+v) = %q, want an error: outside -%d..2", r, rows, hist)
		}
	}
	rows, err := term.Capture(ctx, id, ports.CaptureRange{Start: -hist, End: 2})
	if err != nil || len(rows) != hist+3 {
		t.Errorf("Capture of every row = %q, %v; want %d rows", rows, err, hist+3)
	}
}

func TestControlsPanicOnAPaneThatDoesNotExist(t *testing.T) {
	term := fake.New()
	live := term.AddPane(fake.PaneSpec{})
	dead := term.AddPane(fake.PaneSpec{})
	term.KillPane(dead)
	for name, control := range map[string]func(){
		"KillPane":          func() { term.KillPane("%9") },
		"RemovePane":        func() { term.RemovePane("%9") },
		"SetMode":           func() { term.SetMode("%9", "copy-mode") },
		"Synchronize":       func() { term.Synchronize(live, "%9") },
		"SetSelf":           func() { term.SetSelf("%9") },
		"Expect":            func() { term.Expect("%9", fake.Run{}) },
		"Sent":              func() { term.Sent("%9") },
		"Inject into dead":  func() { term.Inject(dead, []byte("x")) },
		"Inject to missing": func() { term.Inject("%9", []byte("x")) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s did not panic", name)
				}
			}()
			control()
		}()
	}
}

func TestRespawnStartsAFreshShell(t *testing.T) {
	term := fake.New()
	id := term.AddPane(fake.PaneSpec{})
	term.Expect(id, fake.Run{Hang: true})
	typeFramed(t, term, id, "r1", "forever")
	term.SetMode(id, "copy-mode")
	term.SetCommand(id, "vim")
	old := openStream(t, term, id)
	gen := describe(t, term, id).Generation

	term.Respawn(id)
	info := describe(t, term, id)
	if info.Dead || info.Mode != "" || info.Command != "bash" || info.Generation == gen {
		t.Errorf("after Respawn: %+v; want alive, no mode, bash, a new generation", info)
	}
	if c := old.ReadFrom(old.End()); !errors.Is(c.Ended, ports.ErrPaneDead) {
		t.Errorf("a stream open across the respawn: Ended = %v, want ErrPaneDead", c.Ended)
	}
	s := openStream(t, term, id)
	typeLine(t, term, id, "echo fresh-$((1+1))")
	if got := normalize(everything(s)); !strings.Contains(got, "fresh-2\n") {
		t.Errorf("the respawned shell printed %q, want it to run commands", got)
	}
}

func TestInjectIsWrittenVerbatim(t *testing.T) {
	term, id, s := shellPane(t)
	term.Inject(id, []byte("foreign\nline\x1b[0m"))
	if got := string(everything(s)); got != "foreign\nline\x1b[0m" {
		t.Errorf("stream = %q, want the injected bytes unchanged", got)
	}
	if rows := screen(t, term, id); rows[0] != "$ foreign" || rows[1] != "         line" {
		t.Errorf("screen = %q: a bare line feed keeps the column", rows[:2])
	}
}

// Everything may be used at once from many goroutines; run with -race.
func TestTerminalIsSafeForConcurrentUse(t *testing.T) {
	term := fake.New()
	ids := []ports.PaneID{term.AddPane(fake.PaneSpec{}), term.AddPane(fake.PaneSpec{})}
	for _, id := range ids {
		term.Script(id, func(string) fake.Run { return fake.Run{Output: "out\n", Delay: time.Second} })
	}
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := ids[i%2]
			s, err := term.OpenOutput(ctx, id)
			if err != nil {
				t.Error(err)
				return
			}
			defer s.Close()
			for j := range 20 {
				switch j % 5 {
				case 0:
					term.SendText(ctx, id, "echo hi")
					term.SendKeys(ctx, id, []string{"Enter"})
				case 1:
					term.Clock().Advance(300 * time.Millisecond)
				case 2:
					s.ReadFrom(s.End() - 10)
				case 3:
					term.Capture(ctx, id, ports.CaptureRange{Start: 0, End: 5, JoinWrapped: true})
				case 4:
					term.Pane(ctx, id)
					term.Inject(id, []byte("x"))
				}
			}
		}()
	}
	wg.Wait()
	for _, id := range ids {
		if describe(t, term, id).Dead {
			t.Errorf("pane %s died", id)
		}
	}
}
