package domain_test

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/domain/lifecycle"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

func i64(n int64) *int64 { return &n }

// fill prints n numbered lines in the pane, scrolling the screen.
func (r *rig) fill(n int) {
	r.t.Helper()
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString("line " + itoa(i) + "\r\n")
	}
	r.term.Inject(r.pane, []byte(b.String()))
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

func TestCapturePaneDefaultIsTheVisibleScreen(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.fill(30) // 80x24: 7 rows scroll into history
	res, err := r.svc.CapturePane(context.Background(), domain.CaptureRequest{PaneID: r.pane})
	if err != nil {
		t.Fatal(err)
	}
	if *res.EffectiveStart != 0 || *res.EffectiveEnd != 23 || res.TotalLines != 24 || res.DroppedLines != 0 {
		t.Fatalf("got %+v", res)
	}
	rows := strings.Split(strings.TrimSuffix(res.Text, "\n"), "\n")
	if len(rows) != 24 || rows[0] != "line 8" || rows[22] != "line 30" || rows[23] != "" {
		t.Fatalf("rows %q", rows)
	}
	if res.ReturnedBytes != int64(len(res.Text)) || res.RangeClamped || res.ByteClamped {
		t.Errorf("got %+v", res)
	}
}

func TestCapturePaneRanges(t *testing.T) {
	cases := []struct {
		name         string
		start, end   *int64
		maxLines     int64
		first, last  int64
		text         string
		total, drops int64
	}{
		{"history only", i64(-3), i64(-1), 0, -3, -1, "line 5\nline 6\nline 7\n", 3, 0},
		{"start before the oldest row is clamped to it", i64(-1000), i64(-6), 0, -7, -6, "$ line 1\nline 2\n", 2, 0},
		{"end past the screen is clamped", i64(22), i64(500), 0, 22, 23, "line 30\n\n", 2, 0},
		{"maxLines keeps the newest rows", i64(-7), i64(-1), 2, -7, -1, "line 6\nline 7\n", 7, 5},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t, domain.DefaultConfig())
			r.fill(30)
			res, err := r.svc.CapturePane(context.Background(), domain.CaptureRequest{PaneID: r.pane, Start: c.start, End: c.end, MaxLines: c.maxLines})
			if err != nil {
				t.Fatal(err)
			}
			if *res.EffectiveStart != c.first || *res.EffectiveEnd != c.last || res.Text != c.text || res.TotalLines != c.total || res.DroppedLines != c.drops {
				t.Errorf("got start %d end %d text %q total %d dropped %d", *res.EffectiveStart, *res.EffectiveEnd, res.Text, res.TotalLines, res.DroppedLines)
			}
		})
	}
}

func TestCapturePaneEmptyRangeHasNullBounds(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	res, err := r.svc.CapturePane(context.Background(), domain.CaptureRequest{PaneID: r.pane, Start: i64(-5), End: i64(-1)})
	if err != nil {
		t.Fatal(err)
	}
	if res.EffectiveStart != nil || res.EffectiveEnd != nil || res.Text != "" || res.TotalLines != 0 {
		t.Errorf("no history yet, got %+v", res)
	}
}

func TestCapturePaneByteCeiling(t *testing.T) {
	cfg := domain.DefaultConfig()
	cfg.MaxResultBytes = 20
	r := newRig(t, cfg)
	r.fill(30)
	res, err := r.svc.CapturePane(context.Background(), domain.CaptureRequest{PaneID: r.pane, Start: i64(-7), End: i64(-1)})
	if err != nil {
		t.Fatal(err)
	}
	if !res.ByteClamped || res.OmittedBytes == 0 || res.ReturnedBytes > 20 || !strings.HasSuffix(res.Text, "line 7\n") {
		t.Errorf("got %+v", res)
	}
}

func TestCapturePaneRejectsNegativeMaxLines(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	if _, err := r.svc.CapturePane(context.Background(), domain.CaptureRequest{PaneID: r.pane, MaxLines: -1}); !errors.Is(err, fault.ErrInvalidArgument) {
		t.Fatal(err)
	}
}

func since(t *testing.T, r *rig, cursor string, wait int64) domain.CaptureSinceResult {
	t.Helper()
	res, err := r.svc.CaptureSince(context.Background(), domain.CaptureSinceRequest{PaneID: r.pane, Cursor: cursor, WaitMs: wait})
	if err != nil {
		t.Fatalf("CaptureSince: %v", err)
	}
	return res
}

func TestCaptureSinceSeedsThenReturnsOnlyWhatIsNew(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.term.Inject(r.pane, []byte("old text\r\n"))
	first := since(t, r, "", 0)
	if !first.Seeded || !first.Streaming || first.Cursor == nil || !strings.Contains(first.Text, "old text") {
		t.Fatalf("seed %+v", first)
	}
	r.term.Inject(r.pane, []byte("\x1b[1;31mred\x1b[0m\r\n10%\r100%\r\nnext"))
	second := since(t, r, *first.Cursor, 0)
	if second.Seeded || second.Text != "red\n100%\nnext" || second.MissedBytes != 0 {
		t.Fatalf("second %+v", second)
	}
	third := since(t, r, *second.Cursor, 0)
	if third.Text != "" || *third.Cursor != *second.Cursor {
		t.Fatalf("nothing new, got %+v", third)
	}
}

func TestCaptureSinceKeepsAnUnfinishedEscapeForTheNextCall(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	c := *since(t, r, "", 0).Cursor
	r.term.Inject(r.pane, []byte("abc\x1b[3"))
	a := since(t, r, c, 0)
	r.term.Inject(r.pane, []byte("1mdef é"[:7]))
	b := since(t, r, *a.Cursor, 0)
	r.term.Inject(r.pane, []byte("é"[1:]))
	d := since(t, r, *b.Cursor, 0)
	if a.Text != "abc" || b.Text != "def " || d.Text != "é" {
		t.Fatalf("texts %q %q %q", a.Text, b.Text, d.Text)
	}
}

func TestCaptureSinceWaitsForOutput(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	c := *since(t, r, "", 0).Cursor
	done := make(chan domain.CaptureSinceResult, 1)
	r.calls.start("capture_since", func() (any, error) { res := since(t, r, c, 5000); done <- res; return res, nil })
	r.waitTimers(1)
	r.term.Inject(r.pane, []byte("arrived\r\n"))
	res := <-done
	if res.Text != "arrived\n" || res.EffectiveTimeoutMs != 5000 {
		t.Fatalf("got %+v", res)
	}
	// With nothing new it returns when the wait is over.
	r.calls.start("capture_since", func() (any, error) { res := since(t, r, *res.Cursor, 2000); done <- res; return res, nil })
	r.waitTimers(1)
	r.clock.Advance(2 * time.Second)
	if res := <-done; res.Text != "" {
		t.Fatalf("got %+v", res)
	}
}

func TestCaptureSinceCountsLostOutput(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	c := *since(t, r, "", 0).Cursor
	r.term.LoseOutput(r.pane, 300)
	r.term.Inject(r.pane, []byte("tail\r\n"))
	res := since(t, r, c, 0)
	if res.MissedBytes != 300 || res.Text != "tail\n" {
		t.Fatalf("got %+v", res)
	}
}

func TestCaptureSinceReadsTheLastWordsOfADeadPane(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	c := *since(t, r, "", 0).Cursor
	r.term.Inject(r.pane, []byte("last words\r\n"))
	r.term.KillPane(r.pane)
	res := since(t, r, c, 0)
	if res.Text != "last words\n" || res.MissedBytes != 0 || res.Streaming {
		t.Fatalf("got %+v", res)
	}
	seed := since(t, r, "", 0)
	if seed.Streaming {
		t.Fatalf("a dead pane is not streaming: %+v", seed)
	}
}

func TestCaptureSinceRefusesForeignCursors(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	other := r.term.AddPane(fake.PaneSpec{})
	c := *since(t, r, "", 0).Cursor
	ctx := context.Background()
	otherCursor, _ := r.svc.CaptureSince(ctx, domain.CaptureSinceRequest{PaneID: other})
	// Another server, whose ids differ from this one's as they would.
	elsewhere := domain.NewService(r.term, r.clock, r.ids, domain.DefaultConfig())
	defer elsewhere.Close()
	foreignRun, _ := elsewhere.CaptureSince(ctx, domain.CaptureSinceRequest{PaneID: r.pane})

	cases := map[string]string{
		"garbage":            "not-a-cursor!",
		"another pane":       *otherCursor.Cursor,
		"another server run": *foreignRun.Cursor,
	}
	for name, cur := range cases {
		if _, err := r.svc.CaptureSince(ctx, domain.CaptureSinceRequest{PaneID: r.pane, Cursor: cur}); !errors.Is(err, fault.ErrInvalidArgument) {
			t.Errorf("%s: %v", name, err)
		}
	}
	r.term.Respawn(r.pane)
	if _, err := r.svc.CaptureSince(ctx, domain.CaptureSinceRequest{PaneID: r.pane, Cursor: c}); !errors.Is(err, fault.ErrInvalidArgument) || !strings.Contains(err.Error(), "restarted") {
		t.Errorf("respawned pane: %v", err)
	}
}

func TestCaptureSinceRejectsTamperedCursorsAndNegativeWaits(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	a := since(t, r, "", 0)
	if _, err := r.svc.CaptureSince(context.Background(), domain.CaptureSinceRequest{PaneID: r.pane, Cursor: *a.Cursor + "x"}); !errors.Is(err, fault.ErrInvalidArgument) {
		t.Errorf("tampered cursor: %v", err)
	}
	if _, err := r.svc.CaptureSince(context.Background(), domain.CaptureSinceRequest{PaneID: r.pane, WaitMs: -1}); !errors.Is(err, fault.ErrInvalidArgument) {
		t.Errorf("negative waitMs: %v", err)
	}
}

func waitText(r *rig, ctx context.Context, req domain.WaitForTextRequest) <-chan domain.WaitForTextResult {
	req.PaneID = r.pane
	ch := make(chan domain.WaitForTextResult, 1)
	r.calls.start("wait_for_text", func() (any, error) {
		res, err := r.svc.WaitForText(ctx, req)
		if err != nil {
			r.t.Errorf("WaitForText: %v", err)
		}
		ch <- res
		return res, err
	})
	return ch
}

func TestWaitForTextMatchesAPatternSplitAcrossWrites(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	reply := waitText(r, context.Background(), domain.WaitForTextRequest{Patterns: []string{"nope", "Build OK"}})
	r.waitTimers(1)
	r.term.Inject(r.pane, []byte("compiling\r\nBuild"))
	r.term.Inject(r.pane, []byte("\x1b[32m O\x1b[0mK\r\n"))
	res := <-reply
	if res.Outcome != domain.WaitMatched || res.Matched == nil || *res.Matched != "Build OK" || res.AlreadyOnScreen {
		t.Fatalf("got %+v", res)
	}
	if !strings.Contains(res.Output, "compiling\n") || !strings.Contains(res.Screen, "Build OK") || res.Cursor == "" {
		t.Errorf("got %+v", res)
	}
}

func TestWaitForTextRegex(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	reply := waitText(r, context.Background(), domain.WaitForTextRequest{Patterns: []string{`listening on :\d+`}, Regex: true})
	r.waitTimers(1)
	r.term.Inject(r.pane, []byte("listening on :8080\r\n"))
	if res := <-reply; res.Outcome != domain.WaitMatched || *res.Matched != `listening on :\d+` {
		t.Fatalf("got %+v", res)
	}
}

func TestWaitForTextIgnoresWhatIsAlreadyOnScreen(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.term.Inject(r.pane, []byte("READY\r\n"))
	reply := waitText(r, context.Background(), domain.WaitForTextRequest{Patterns: []string{"READY"}, TimeoutMs: 1000})
	r.waitTimers(1)
	r.clock.Advance(time.Second)
	res := <-reply
	if res.Outcome != domain.WaitTimedOut || !res.AlreadyOnScreen || res.Matched != nil || res.EffectiveTimeoutMs != 1000 {
		t.Fatalf("got %+v", res)
	}
	// New output that repeats it does count.
	reply = waitText(r, context.Background(), domain.WaitForTextRequest{Patterns: []string{"READY"}})
	r.waitTimers(1)
	r.term.Inject(r.pane, []byte("READY\r\n"))
	if res := <-reply; res.Outcome != domain.WaitMatched || !res.AlreadyOnScreen {
		t.Fatalf("got %+v", res)
	}
}

func TestWaitForTextFromACursorSeesOutputWrittenBeforeTheCall(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	c := *since(t, r, "", 0).Cursor
	r.term.Inject(r.pane, []byte("done!\r\n"))
	res, err := r.svc.WaitForText(context.Background(), domain.WaitForTextRequest{PaneID: r.pane, Patterns: []string{"done!"}, Cursor: c})
	if err != nil || res.Outcome != domain.WaitMatched {
		t.Fatalf("got %+v, %v", res, err)
	}
}

// A pane's stream may go on when another program replaces the one the
// wait began with; the new one's output is not a match, and the wait ends
// as pane_died, whether the new program prints the text or nothing.
func TestWaitForTextEndsWhenThePanesProcessIsReplaced(t *testing.T) {
	t.Run("the new program prints the text", func(t *testing.T) {
		r := newRig(t, domain.DefaultConfig())
		reply := waitText(r, context.Background(), domain.WaitForTextRequest{Patterns: []string{"READY"}})
		r.waitTimers(2)
		r.term.Replace(r.pane)
		r.term.Inject(r.pane, []byte("READY\r\n"))
		if res := <-reply; res.Outcome != domain.WaitPaneDied || res.Matched != nil {
			t.Fatalf("got %+v; want pane_died and no match", res)
		}
	})
	t.Run("the new program prints nothing", func(t *testing.T) {
		r := newRig(t, domain.DefaultConfig())
		reply := waitText(r, context.Background(), domain.WaitForTextRequest{Patterns: []string{"READY"}, TimeoutMs: 60_000})
		r.waitTimers(2)
		r.term.Replace(r.pane)
		r.clock.Advance(domain.DefaultConfig().LivenessInterval)
		if res := <-reply; res.Outcome != domain.WaitPaneDied {
			t.Fatalf("got %+v; want pane_died within a liveness interval", res)
		}
	})
}

// A capture_since that waits while another program replaces the cursor's
// does not hand the new program's output to the old cursor: the cursor is
// refused, as it is at once after the replacement.
func TestCaptureSinceWaitingAcrossAReplacedProcessRefusesTheCursor(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	c := *since(t, r, "", 0).Cursor
	done := make(chan error, 1)
	r.calls.start("capture_since", func() (any, error) {
		res, err := r.svc.CaptureSince(context.Background(), domain.CaptureSinceRequest{PaneID: r.pane, Cursor: c, WaitMs: 60_000})
		done <- err
		return res, err
	})
	r.waitTimers(1)
	r.term.Replace(r.pane)
	r.term.Inject(r.pane, []byte("NEWPROGRAM\r\n"))
	if err := <-done; !errors.Is(err, fault.ErrInvalidArgument) || !strings.Contains(err.Error(), "earlier process") {
		t.Fatalf("capture_since across the replacement: %v; want the cursor refused as an earlier process's", err)
	}
}

func TestWaitForTextOutcomes(t *testing.T) {
	t.Run("pane died", func(t *testing.T) {
		r := newRig(t, domain.DefaultConfig())
		reply := waitText(r, context.Background(), domain.WaitForTextRequest{Patterns: []string{"x"}})
		r.waitTimers(1)
		r.term.KillPane(r.pane)
		if res := <-reply; res.Outcome != domain.WaitPaneDied {
			t.Fatalf("got %+v", res)
		}
	})
	t.Run("output lost", func(t *testing.T) {
		r := newRig(t, domain.DefaultConfig())
		reply := waitText(r, context.Background(), domain.WaitForTextRequest{Patterns: []string{"x"}})
		r.waitTimers(1)
		r.term.LoseOutput(r.pane, 77)
		if res := <-reply; res.Outcome != domain.WaitOutputLost || res.MissedBytes != 77 {
			t.Fatalf("got %+v", res)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		r := newRig(t, domain.DefaultConfig())
		ctx, cancel := context.WithCancel(context.Background())
		reply := waitText(r, ctx, domain.WaitForTextRequest{Patterns: []string{"x"}})
		r.waitTimers(1)
		cancel()
		if res := <-reply; res.Outcome != domain.WaitCancelled {
			t.Fatalf("got %+v", res)
		}
	})
}

func TestWaitForTextWithoutPatternsWaitsForAnyOutput(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.term.Inject(r.pane, []byte("already here\r\n"))
	reply := waitText(r, context.Background(), domain.WaitForTextRequest{})
	r.waitTimers(1)
	r.term.Inject(r.pane, []byte("\x1b[0m")) // not text: no match yet
	r.term.Inject(r.pane, []byte("new\r\n"))
	res := <-reply
	if res.Outcome != domain.WaitMatched || res.Matched != nil || res.AlreadyOnScreen || res.Output != "new\n" {
		t.Fatalf("got %+v", res)
	}
}

func TestWaitForTextRejectsBadPatterns(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	for name, req := range map[string]domain.WaitForTextRequest{
		"empty substring": {Patterns: []string{""}},
		"bad regex":       {Patterns: []string{"(unclosed"}, Regex: true},
		"negative wait":   {Patterns: []string{"x"}, TimeoutMs: -5},
		"bad cursor":      {Patterns: []string{"x"}, Cursor: "???"},
	} {
		req.PaneID = r.pane
		if _, err := r.svc.WaitForText(context.Background(), req); !errors.Is(err, fault.ErrInvalidArgument) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestSendKeys(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	res, err := r.svc.SendKeys(context.Background(), domain.SendKeysRequest{PaneID: r.pane, Keys: "e c h o Space h i", Enter: true})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(res.Sent, " ") != "e c h o Space h i Enter" || len(res.ResolvedPaneIDs) != 1 || res.ResolvedPaneIDs[0] != r.pane {
		t.Fatalf("got %+v", res)
	}
	if out := string(r.term.Output(r.pane)); !strings.Contains(out, "echo hi\r\nhi\r\n") {
		t.Fatalf("the shell did not run echo hi: %q", out)
	}
}

func TestSendKeysLiteral(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.term.SetAttended(r.pane, true)
	res, err := r.svc.SendKeys(context.Background(), domain.SendKeysRequest{PaneID: r.pane, Keys: "echo C-c", Literal: true})
	if err != nil || !res.Attended || strings.Join(res.Sent, "|") != "echo C-c" {
		t.Fatalf("got %+v, %v", res, err)
	}
	sent := r.term.Sent(r.pane)
	if len(sent) != 1 || sent[0].Kind != fake.InputText || sent[0].Text != "echo C-c" {
		t.Fatalf("sent %+v", sent)
	}
}

func TestSendKeysUnknownNameSendsNothing(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	_, err := r.svc.SendKeys(context.Background(), domain.SendKeysRequest{PaneID: r.pane, Keys: "C-c Escpae", Enter: true})
	if !errors.Is(err, fault.ErrInvalidArgument) || !strings.Contains(err.Error(), "Escpae") {
		t.Fatalf("err %v", err)
	}
	if sent := r.term.Sent(r.pane); len(sent) != 0 {
		t.Fatalf("sent %+v", sent)
	}
}

// A modifier that no terminal sends with its key is refused as an unknown
// name is, before anything is sent: tmux would type the name as text (and
// Enter would run it) or drop the modifier. The tester's names.
func TestSendKeysRefusesModifiersTheKeyHasNoCodeFor(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	for name, instead := range map[string]string{
		"S-Tab": "send BTab", "S-a": "send A", "S-Enter": "", "S-Space": "", "S-BSpace": "", "S-Escape": "",
		"S-1": "", "C-S-a": "send C-A", "C-S-Tab": "", "M-S-Tab": "send M-BTab", "C-é": "", "C-Enter": "",
	} {
		_, err := r.svc.SendKeys(context.Background(), domain.SendKeysRequest{PaneID: r.pane, Keys: "x " + name, Enter: true})
		var arg *fault.ArgumentError
		if !errors.As(err, &arg) || arg.Field != "keys" || !strings.Contains(err.Error(), strconv.Quote(name)) ||
			!strings.Contains(err.Error(), instead) {
			t.Errorf("send_keys %q: %v, want an ArgumentError naming it and saying %q", name, err, instead)
		}
	}
	if sent := r.term.Sent(r.pane); len(sent) != 0 {
		t.Fatalf("sent %+v", sent)
	}
}

// The modifiers that go with their keys are pressed, under their
// canonical names.
func TestSendKeysPressesTheModifiersTheKeysTake(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	keys := "S-Up C-M-S-F5 M-x C-A C-M-a M-tab M-BTab BTab C-Space M-Space M-é C-? C-@ S-pgdn"
	res, err := r.svc.SendKeys(context.Background(), domain.SendKeysRequest{PaneID: r.pane, Keys: keys})
	want := []string{"S-Up", "C-M-S-F5", "M-x", "C-A", "C-M-a", "M-Tab", "M-BTab", "BTab", "C-Space", "M-Space", "M-é", "C-?", "C-@", "S-PageDown"}
	if err != nil || !slices.Equal(res.Sent, want) {
		t.Fatalf("send_keys %q: %+v, %v; want sent %q", keys, res, err, want)
	}
	sent := r.term.Sent(r.pane)
	if len(sent) != 1 || sent[0].Kind != fake.InputKeys || !slices.Equal(sent[0].Keys, want) {
		t.Fatalf("sent %+v, want the keys %q", sent, want)
	}
}

func TestSendKeysRefusedOnWatchedPane(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.term.Attach(r.pane, "/dev/pts/1")
	if _, err := r.svc.SendKeys(context.Background(), domain.SendKeysRequest{PaneID: r.pane, Keys: "C-c", Force: true}); !errors.Is(err, fault.ErrRefused) {
		t.Fatal(err)
	}
}

func TestInterruptIsRefusedWhileTheRunCallIsStillWaiting(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.term.Expect(r.pane, fake.Run{Hang: true})
	reply := r.runAsync(context.Background(), domain.RunRequest{Command: "x", TimeoutMs: 1000})
	r.waitTimers(2)
	if _, err := r.svc.SendKeys(context.Background(), domain.SendKeysRequest{PaneID: r.pane, Keys: "C-c"}); !errors.Is(err, fault.ErrBusy) {
		t.Fatalf("interrupt during a live call: %v", err)
	}
	r.clock.Advance(time.Second)
	<-reply
	if _, err := r.svc.SendKeys(context.Background(), domain.SendKeysRequest{PaneID: r.pane, Keys: "C-c C-x"}); !errors.Is(err, fault.ErrBusy) {
		t.Fatalf("a non-interrupt key after the call returned: %v", err)
	}
	if _, err := r.svc.SendKeys(context.Background(), domain.SendKeysRequest{PaneID: r.pane, Keys: "C-c", Literal: true}); !errors.Is(err, fault.ErrBusy) {
		t.Fatalf("literal text C-c: %v", err)
	}
	if _, err := r.svc.SendKeys(context.Background(), domain.SendKeysRequest{PaneID: r.pane, Keys: `C-\`}); err != nil {
		t.Fatalf("C-\\ after the call returned: %v", err)
	}
}

func TestServiceConfigDefaults(t *testing.T) {
	svc := domain.NewService(fake.New(), fake.NewClock(time.Unix(0, 0)), fake.NewIDs(), domain.Config{})
	if got := svc.Config(); got != domain.DefaultConfig() {
		t.Errorf("zero Config became %+v", got)
	}
}

// Errors name each context once: the terminal names what it did and the
// pane, and the domain passes that on without naming the pane again.
func TestErrorsNameThePaneOnce(t *testing.T) {
	clock := fake.NewClock(time.Unix(0, 0))
	term := fake.New(fake.WithClock(clock))
	svc := newServer(t, term, fake.NewManager(term), clock, domain.DefaultConfig(), fake.NewLeaser(clock), "me")
	ctx := context.Background()
	const pane = ports.PaneID("%42")
	calls := map[string]func() error{
		"run_shell_command": func() error {
			_, err := svc.RunShellCommand(ctx, domain.RunRequest{PaneID: pane, Command: "true"})
			return err
		},
		"paste_text":    func() error { _, err := svc.PasteText(ctx, domain.PasteRequest{PaneID: pane, Text: "x"}); return err },
		"send_keys":     func() error { _, err := svc.SendKeys(ctx, domain.SendKeysRequest{PaneID: pane, Keys: "q"}); return err },
		"capture_pane":  func() error { _, err := svc.CapturePane(ctx, domain.CaptureRequest{PaneID: pane}); return err },
		"capture_since": func() error { _, err := svc.CaptureSince(ctx, domain.CaptureSinceRequest{PaneID: pane}); return err },
		"wait_for_text": func() error {
			_, err := svc.WaitForText(ctx, domain.WaitForTextRequest{PaneID: pane, TimeoutMs: 1})
			return err
		},
		"get_pane_info": func() error { _, err := svc.life.GetPaneInfo(ctx, lifecycle.PaneRequest{PaneID: pane}); return err },
		"kill_pane":     func() error { _, err := svc.life.KillPane(ctx, lifecycle.KillPaneRequest{PaneID: pane}); return err },
	}
	for tool, call := range calls {
		err := call()
		if !errors.Is(err, ports.ErrPaneNotFound) {
			t.Errorf("%s: %v, want ErrPaneNotFound", tool, err)
			continue
		}
		if n := strings.Count(err.Error(), string(pane)); n != 1 {
			t.Errorf("%s: %q names the pane %d times, want once", tool, err, n)
		}
	}
}

// wait_for_text and search_panes read patterns alike: what one refuses the
// other refuses, in the same words, in either mode. A regular expression
// that matches where no character is ("" above all) would end a wait at
// once, before anything was printed.
func TestWaitForTextAndSearchPanesRefuseTheSamePatterns(t *testing.T) {
	clock := fake.NewClock(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
	term := fake.New(fake.WithClock(clock))
	pane := term.AddPane(fake.PaneSpec{})
	svc := newServer(t, term, fake.NewManager(term), clock, domain.DefaultConfig(), nil, "")
	for _, c := range []struct {
		name     string
		patterns []string
		regex    bool
	}{
		{"an empty substring", []string{"ok", ""}, false},
		{"an empty regular expression", []string{""}, true},
		{"a regular expression that matches no character", []string{"ok", "x*"}, true},
		{"a start of line", []string{"^"}, true},
		{"not RE2", []string{"(unclosed"}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			// Cancelled: a wait that takes the patterns returns at once.
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			_, waitErr := svc.WaitForText(ctx, domain.WaitForTextRequest{PaneID: pane, Patterns: c.patterns, Regex: c.regex})
			_, searchErr := svc.life.SearchPanes(context.Background(), lifecycle.SearchPanesRequest{Patterns: c.patterns, Regex: c.regex})
			var waitArg, searchArg *fault.ArgumentError
			if !errors.As(waitErr, &waitArg) || !errors.As(searchErr, &searchArg) || waitArg.Field != "patterns" || waitErr.Error() != searchErr.Error() {
				t.Errorf("wait_for_text: %v; search_panes: %v; want the same invalid patterns error", waitErr, searchErr)
			}
		})
	}
}
