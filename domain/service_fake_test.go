package domain_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/domain/frame"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// These tests drive the Service through the fake terminal and clock: a
// scripted shell runs the framed commands, and time moves only when a test
// moves it, after the Service is seen waiting.

type rig struct {
	t     *testing.T
	term  *fake.Terminal
	clock *fake.Clock
	ids   *fake.IDs
	svc   *domain.Service
	pane  ports.PaneID
	calls calls // run in the background
}

// newRig returns a Service on one fake pane. Its ids count (fake.IDs), so
// that a test knows the first frame's: frameIDs.
func newRig(t *testing.T, cfg domain.Config, opts ...domain.Option) *rig {
	t.Helper()
	clock := fake.NewClock(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
	term := fake.New(fake.WithClock(clock))
	r := &rig{t: t, term: term, clock: clock, ids: fake.NewIDs(), pane: term.AddPane(fake.PaneSpec{})}
	r.svc = domain.NewService(term, clock, r.ids, cfg, opts...)
	t.Cleanup(func() { r.svc.Close() })
	return r
}

// waitTimers returns once the code under test has n timers pending; a
// call of the rig's that returns first fails the test at once.
func (r *rig) waitTimers(n int) {
	r.t.Helper()
	r.calls.waitTimers(r.t, r.clock, n)
}

// waitTimer returns once the code under test has a timer due d from now.
func (r *rig) waitTimer(d time.Duration) {
	r.t.Helper()
	r.calls.waitTimer(r.t, r.clock, d)
}

type runReply struct {
	res domain.RunResult
	err error
}

func (r *rig) runAsync(ctx context.Context, req domain.RunRequest) <-chan runReply {
	if req.PaneID == "" {
		req.PaneID = r.pane
	}
	ch := make(chan runReply, 1)
	r.calls.start("run_shell_command "+req.Command, func() (any, error) {
		res, err := r.svc.RunShellCommand(ctx, req)
		ch <- runReply{res, err}
		return res, err
	})
	return ch
}

// await returns the call's reply, failing the test if it does not come
// within 10 s.
func (r *rig) await(reply <-chan runReply) runReply {
	r.t.Helper()
	select {
	case got := <-reply:
		return got
	case <-time.After(10 * time.Second):
		r.t.Fatal("the call never returned")
		return runReply{}
	}
}

// pollThrough moves the clock through d, one StartingPoll at a time, each
// once the Service is seen waiting on it: a wait that looks again every
// StartingPoll, through a grace of d.
func (r *rig) pollThrough(d time.Duration) {
	r.t.Helper()
	for range d / domain.StartingPoll {
		r.waitTimer(domain.StartingPoll)
		r.clock.Advance(domain.StartingPoll)
	}
}

// refusedNotAShell awaits the reply, which must be a refusal of what is in
// front as not a shell; what names the call for the failure.
func (r *rig) refusedNotAShell(reply <-chan runReply, what string) {
	r.t.Helper()
	var refusal *fault.RefusalError
	if got := r.await(reply); !errors.As(got.err, &refusal) || refusal.Why != fault.RefusedNotAShell {
		r.t.Fatalf("%s: %+v, %v; want refused as not a shell once the grace passed", what, got.res, got.err)
	}
}

func (r *rig) run(req domain.RunRequest) domain.RunResult {
	r.t.Helper()
	if req.PaneID == "" {
		req.PaneID = r.pane
	}
	res, err := r.svc.RunShellCommand(context.Background(), req)
	if err != nil {
		r.t.Fatalf("RunShellCommand(%q): %v", req.Command, err)
	}
	return res
}

func (r *rig) released() {
	r.t.Helper()
	select {
	case <-r.svc.Released(r.pane):
	case <-time.After(10 * time.Second):
		r.t.Fatalf("pane %s was never released", r.pane)
	}
}

func status(res domain.RunResult) string {
	if res.ExitStatus == nil {
		return "null"
	}
	return strconv.Itoa(*res.ExitStatus)
}

func TestRunCompletedReportsOutputAndStatus(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	res := r.run(domain.RunRequest{Command: "printf 'hello\\nworld\\n'; exit 3"})
	want := domain.RunResult{PaneID: r.pane, Outcome: domain.OutcomeCompleted, Output: "hello\nworld",
		ReturnedBytes: 11, OutputComplete: true, EffectiveTimeoutMs: 30000, RunID: res.RunID}
	if res.RunID == "" {
		t.Error("no runId")
	}
	if status(res) != "3" {
		t.Errorf("exitStatus %s, want 3", status(res))
	}
	if res.LeftRunning == nil || res.LeftRunning.Count != 0 || len(res.LeftRunning.Processes) != 0 {
		t.Errorf("leftRunning %+v, want known and empty", res.LeftRunning)
	}
	res.ExitStatus, res.LeftRunning = nil, nil
	if res != want {
		t.Errorf("result\n got %+v\nwant %+v", res, want)
	}
	if got := r.term.Commands(r.pane); len(got) != 1 || got[0] != "printf 'hello\\nworld\\n'; exit 3" {
		t.Errorf("the shell ran %q, want the command exactly once", got)
	}
}

func TestRunOutputHoldsNeitherEchoNorPromptNorMarkers(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	res := r.run(domain.RunRequest{Command: "echo only-this"})
	if res.Output != "only-this" {
		t.Errorf("output %q", res.Output)
	}
	if strings.Contains(res.Output, "base64") || strings.Contains(res.Output, "$ ") || strings.Contains(res.Output, "\x1b") {
		t.Errorf("framing leaked into output %q", res.Output)
	}
}

func TestRunWaitsOnTheClockUntilTheCommandEnds(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.term.Expect(r.pane, fake.Run{Output: "start\n", Steps: []fake.Step{{At: 2 * time.Second, Output: "later\n"}}, Delay: 3 * time.Second, Status: 0})
	reply := r.runAsync(context.Background(), domain.RunRequest{Command: "slow"})
	r.waitTimers(2) // deadline and liveness
	r.clock.Advance(3 * time.Second)
	got := <-reply
	if got.err != nil || got.res.Outcome != domain.OutcomeCompleted || got.res.Output != "start\nlater" || status(got.res) != "0" {
		t.Fatalf("got %+v, %v", got.res, got.err)
	}
}

func TestRunTimesOutThenThePaneStaysBusyUntilTheCommandEnds(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.term.Expect(r.pane, fake.Run{Output: "working\n", Hang: true})
	reply := r.runAsync(context.Background(), domain.RunRequest{Command: "sleep 1000", TimeoutMs: 1500})
	r.waitTimers(2)
	r.clock.Advance(1500 * time.Millisecond)
	got := <-reply
	res := got.res
	if got.err != nil || res.Outcome != domain.OutcomeTimedOut || !res.StillRunning || res.ExitStatus != nil ||
		res.Output != "working" || res.EffectiveTimeoutMs != 1500 {
		t.Fatalf("got %+v, %v", res, got.err)
	}

	// Every other write is refused at once, naming the holder.
	_, err := r.svc.PasteText(context.Background(), domain.PasteRequest{PaneID: r.pane, Text: "x"})
	var busy *fault.BusyError
	if !errors.As(err, &busy) || !strings.Contains(err.Error(), "sleep 1000") || !strings.Contains(err.Error(), "timed_out") {
		t.Fatalf("paste on a busy pane: %v", err)
	}
	if _, err := r.svc.RunShellCommand(context.Background(), domain.RunRequest{PaneID: r.pane, Command: "true"}); !errors.Is(err, fault.ErrBusy) {
		t.Fatalf("second run on a busy pane: %v", err)
	}
	if _, err := r.svc.SendKeys(context.Background(), domain.SendKeysRequest{PaneID: r.pane, Keys: "q", Enter: true}); !errors.Is(err, fault.ErrBusy) {
		t.Fatalf("send_keys q on a busy pane: %v", err)
	}
	// Reading is never refused.
	if _, err := r.svc.CapturePane(context.Background(), domain.CaptureRequest{PaneID: r.pane}); err != nil {
		t.Fatalf("capture on a busy pane: %v", err)
	}

	// The designed exception: an interrupt frees a pane whose call returned.
	sk, err := r.svc.SendKeys(context.Background(), domain.SendKeysRequest{PaneID: r.pane, Keys: "C-c", Enter: true})
	if err != nil || len(sk.Sent) != 1 || sk.Sent[0] != "C-c" {
		t.Fatalf("interrupt: %+v, %v (want C-c sent without Enter)", sk, err)
	}
	r.released()
	if _, err := r.svc.PasteText(context.Background(), domain.PasteRequest{PaneID: r.pane, Text: "x"}); err != nil {
		t.Fatalf("paste after the command ended: %v", err)
	}
}

func TestRunInterruptedFromOutsideReturnsTheStatusNotTimedOut(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.term.Expect(r.pane, fake.Run{Output: "busy\n", Hang: true})
	reply := r.runAsync(context.Background(), domain.RunRequest{Command: "sleep 100"})
	r.waitTimers(2)
	// A person (or another program) presses C-c, bypassing this server.
	if err := r.term.SendKeys(context.Background(), r.pane, []string{"C-c"}); err != nil {
		t.Fatal(err)
	}
	got := <-reply
	if got.res.Outcome != domain.OutcomeCompleted || status(got.res) != "130" || got.res.StillRunning {
		t.Fatalf("got %+v, %v", got.res, got.err)
	}
	r.released()
}

func TestRunPaneDiesDuringTheCommand(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.term.Expect(r.pane, fake.Run{Output: "last words\n", Hang: true})
	reply := r.runAsync(context.Background(), domain.RunRequest{Command: "crash"})
	r.waitTimers(2)
	r.term.KillPane(r.pane)
	got := <-reply
	res := got.res
	if got.err != nil || res.Outcome != domain.OutcomePaneDied || res.ExitStatus != nil || res.StillRunning || res.Output != "last words" {
		t.Fatalf("got %+v, %v", res, got.err)
	}
	r.released()
}

func TestRunPaneRemovedIsNoticedByTheLivenessCheck(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.term.Expect(r.pane, fake.Run{Hang: true})
	reply := r.runAsync(context.Background(), domain.RunRequest{Command: "x"})
	r.waitTimers(2)
	r.term.RemovePane(r.pane)
	r.clock.Advance(domain.DefaultConfig().LivenessInterval)
	if got := <-reply; got.res.Outcome != domain.OutcomePaneDied {
		t.Fatalf("got %+v, %v", got.res, got.err)
	}
}

func TestRunCancelledKeepsTheReservation(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.term.Expect(r.pane, fake.Run{Hang: true})
	ctx, cancel := context.WithCancel(context.Background())
	reply := r.runAsync(ctx, domain.RunRequest{Command: "long"})
	r.waitTimers(2)
	cancel()
	got := <-reply
	if got.err != nil || got.res.Outcome != domain.OutcomeCancelled || !got.res.StillRunning || got.res.ExitStatus != nil {
		t.Fatalf("got %+v, %v", got.res, got.err)
	}
	if _, err := r.svc.PasteText(context.Background(), domain.PasteRequest{PaneID: r.pane, Text: "x"}); !errors.Is(err, fault.ErrBusy) {
		t.Fatalf("paste after a cancelled call: %v, want busy", err)
	}
	r.term.SendKeys(context.Background(), r.pane, []string{"C-c"})
	r.released()
}

// A command's output that holds another frame's markers (a recording of
// the pane, a log of another server's calls) loses nothing: the markers
// go, as every escape sequence does, and are flagged.
func TestRunKeepsWhatForeignMarkersEnclose(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	other := frame.IDs{ID: "feedfeedfeedfeed", Secret: "beefbeefbeefbeef", Unread: "x"}
	foreign := string(frame.StartMarker(other.ID, 77)) + "theirs\r\n" + string(frame.EndMarker(other, 0))
	r.term.Expect(r.pane, fake.Run{Output: "mine 1\n", Steps: []fake.Step{{At: time.Second, Output: "mine 2\n"}}, Delay: time.Second})
	reply := r.runAsync(context.Background(), domain.RunRequest{Command: "x"})
	r.waitTimers(2)
	r.term.Inject(r.pane, []byte(foreign))
	r.clock.Advance(time.Second)
	got := <-reply
	if got.res.Output != "mine 1\ntheirs\nmine 2" || !got.res.ForeignOutputSuspected || !got.res.OutputComplete {
		t.Fatalf("got %+v", got.res)
	}
}

func TestRunTruncationAccounting(t *testing.T) {
	lines := strings.Repeat("0123456789\n", 10) // 10 lines, 110 bytes
	cases := []struct {
		name     string
		maxLines int64
		maxBytes int
		want     string
		dropped  int64
		omitted  int64
	}{
		// The final line break is not output: the counts are of the
		// text as returned, 10 lines of 109 bytes.
		{"everything fits", 0, 0, strings.TrimSuffix(lines, "\n"), 0, 0},
		{"maxLines keeps the newest", 3, 0, "0123456789\n0123456789\n0123456789", 7, 0},
		{"byte ceiling cuts the front", 0, 25, "789\n0123456789\n0123456789", 0, 84},
		{"both", 5, 30, "23456789\n0123456789\n0123456789", 5, 24},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := domain.DefaultConfig()
			if c.maxBytes > 0 {
				cfg.MaxResultBytes = c.maxBytes
			}
			r := newRig(t, cfg)
			r.term.Expect(r.pane, fake.Run{Output: lines})
			res := r.run(domain.RunRequest{Command: "seq", MaxLines: c.maxLines})
			if res.Output != c.want || res.DroppedLines != c.dropped || res.OmittedBytes != c.omitted ||
				res.ReturnedBytes != int64(len(c.want)) || res.OutputComplete != (c.dropped == 0 && c.omitted == 0) {
				t.Errorf("got %+v", res)
			}
		})
	}
}

func TestRunCountsOutputTheTerminalLost(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.term.Expect(r.pane, fake.Run{Output: "before\n", Hang: true})
	reply := r.runAsync(context.Background(), domain.RunRequest{Command: "flood"})
	r.waitTimers(2)
	r.term.LoseOutput(r.pane, 4096)
	r.term.Inject(r.pane, []byte("after\r\n"))
	r.term.SendKeys(context.Background(), r.pane, []string{"C-c"})
	got := <-reply
	res := got.res
	if res.Outcome != domain.OutcomeCompleted || res.MissedBytes != 4096 || res.OutputComplete || !strings.Contains(res.Output, "after\n") {
		t.Fatalf("got %+v", res)
	}
}

func TestRunFindsTheEndEvenWhenTheStartMarkerWasLost(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.term.Expect(r.pane, fake.Run{Hang: true})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stream, _ := r.term.OpenOutput(ctx, r.pane)
	defer stream.Close()
	reply := r.runAsync(context.Background(), domain.RunRequest{Command: "x"})
	r.waitTimers(2)
	// Everything so far, start marker included, is declared lost.
	r.term.LoseOutput(r.pane, 10)
	r.term.SendKeys(context.Background(), r.pane, []string{"C-c"})
	if got := <-reply; got.res.Outcome != domain.OutcomeCompleted || got.res.MissedBytes == 0 {
		t.Fatalf("got %+v", got.res)
	}
}

func TestRunTimeouts(t *testing.T) {
	cfg := domain.DefaultConfig()
	cfg.WaitMax = time.Minute
	cases := []struct {
		ms   int64
		want int64
	}{{0, 30000}, {1, 1}, {5000, 5000}, {600000, 60000}}
	for _, c := range cases {
		r := newRig(t, cfg)
		if res := r.run(domain.RunRequest{Command: "true", TimeoutMs: c.ms}); res.EffectiveTimeoutMs != c.want {
			t.Errorf("timeoutMs %d: effective %d, want %d", c.ms, res.EffectiveTimeoutMs, c.want)
		}
	}
	cfg.WaitMax = 10 * time.Second
	r := newRig(t, cfg)
	if res := r.run(domain.RunRequest{Command: "true"}); res.EffectiveTimeoutMs != 10000 {
		t.Errorf("default under a 10 s ceiling: %d", res.EffectiveTimeoutMs)
	}
}

func TestRunRejectsBadArgumentsBeforeTouchingThePane(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	for _, req := range []domain.RunRequest{
		{PaneID: r.pane, Command: ""},
		{PaneID: r.pane, Command: "true", TimeoutMs: -1},
		{PaneID: r.pane, Command: "true", MaxLines: -1},
	} {
		_, err := r.svc.RunShellCommand(context.Background(), req)
		var arg *fault.ArgumentError
		if !errors.As(err, &arg) || !errors.Is(err, fault.ErrInvalidArgument) || arg.Field == "" {
			t.Errorf("%+v: %v", req, err)
		}
	}
	if sent := r.term.Sent(r.pane); len(sent) != 0 {
		t.Errorf("sent %+v", sent)
	}
}

func TestRunReportsProgressWhileItWaits(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.term.Expect(r.pane, fake.Run{Delay: 3 * time.Second})
	var mu sync.Mutex
	var ticks []time.Duration
	progress := func(p domain.Progress) {
		mu.Lock()
		ticks = append(ticks, p.Elapsed)
		mu.Unlock()
		if p.Total != 30*time.Second {
			t.Errorf("total %v", p.Total)
		}
	}
	reply := r.runAsync(context.Background(), domain.RunRequest{Command: "x", Progress: progress})
	for i := 1; i <= 3; i++ {
		r.waitTimers(3) // deadline, liveness, progress
		r.clock.Advance(time.Second)
	}
	if got := <-reply; got.res.Outcome != domain.OutcomeCompleted {
		t.Fatalf("got %+v", got.res)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(ticks) < 2 || ticks[0] != time.Second || ticks[1] != 2*time.Second {
		t.Errorf("progress at %v, want every second", ticks)
	}
}

func TestRunRefusalsLeaveThePaneFree(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.term.Attach(r.pane, "/dev/pts/7")
	_, err := r.svc.RunShellCommand(context.Background(), domain.RunRequest{PaneID: r.pane, Command: "true", Force: true})
	if !errors.Is(err, fault.ErrRefused) || !strings.Contains(err.Error(), "/dev/pts/7") {
		t.Fatalf("watched pane: %v", err)
	}
	r.term.Detach(r.pane, "/dev/pts/7")
	if res := r.run(domain.RunRequest{Command: "true"}); res.Outcome != domain.OutcomeCompleted {
		t.Fatalf("after detach: %+v", res)
	}
}

func TestRunRefusesAShellRunningAScriptWithoutTypingIntoIt(t *testing.T) {
	// A bash script waiting at its "Continue? [y/N]" is named bash, like
	// the pane's shell at its prompt; the typed line would be its answer.
	r := newRig(t, domain.DefaultConfig())
	r.term.SetForegroundArgs(r.pane, "/bin/bash", "./deploy.sh")
	_, err := r.svc.RunShellCommand(context.Background(), domain.RunRequest{PaneID: r.pane, Command: "echo hi"})
	var refusal *fault.RefusalError
	if !errors.As(err, &refusal) || refusal.Why != fault.RefusedNotAShell || !strings.Contains(err.Error(), "/bin/bash ./deploy.sh") {
		t.Fatalf("run into a script: %v, want a not-a-shell refusal naming the script", err)
	}
	if sent := r.term.Sent(r.pane); len(sent) != 0 {
		t.Errorf("typed %+v into the script", sent)
	}
	if _, err := r.svc.PasteText(context.Background(), domain.PasteRequest{PaneID: r.pane, Text: "y", Enter: true}); err != nil {
		t.Errorf("a paste after the refusal: %v; the refusal held the pane", err)
	}
	// The script done, the shell's own command line is back.
	r.term.SetForegroundArgs(r.pane)
	if res := r.run(domain.RunRequest{Command: "true"}); res.Outcome != domain.OutcomeCompleted {
		t.Fatalf("at the prompt again: %+v", res)
	}
}

func TestRunOnAnUnknownPane(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	_, err := r.svc.RunShellCommand(context.Background(), domain.RunRequest{PaneID: "%42", Command: "true"})
	if !errors.Is(err, ports.ErrPaneNotFound) || !strings.Contains(err.Error(), "%42") {
		t.Fatalf("err %v", err)
	}
	// The failed call holds nothing.
	select {
	case <-r.svc.Released("%42"):
	default:
		t.Fatal("an unknown pane stays reserved")
	}
}

// stuckTerminal is a fake whose Pane (or, with typing, SendText) does not
// answer until released, as a tmux server that is stopped (SIGSTOP) or
// too busy to answer.
type stuckTerminal struct {
	*fake.Terminal
	typing  bool
	asked   chan struct{} // receives once the call is waiting
	release chan struct{}
}

func (s *stuckTerminal) stall(ctx context.Context) error {
	s.asked <- struct{}{}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-s.release:
		return nil
	}
}

func (s *stuckTerminal) Pane(ctx context.Context, id ports.PaneID) (ports.PaneInfo, error) {
	if !s.typing {
		if err := s.stall(ctx); err != nil {
			return ports.PaneInfo{}, fmt.Errorf("describe pane %s: %w", id, err)
		}
	}
	return s.Terminal.Pane(ctx, id)
}

func (s *stuckTerminal) SendText(ctx context.Context, id ports.PaneID, text string) error {
	if s.typing {
		if err := s.stall(ctx); err != nil {
			return fmt.Errorf("type into pane %s: %w", id, err)
		}
	}
	return s.Terminal.SendText(ctx, id, text)
}

// A terminal that does not answer keeps a run no longer than its
// timeoutMs: the call ends timed_out with nothing typed, and nothing is
// typed once the terminal answers. In a bubble (synctest), "not before
// its deadline" is checked once the run can go no further.
func TestRunOnATerminalThatDoesNotAnswerEndsAtItsDeadline(t *testing.T) {
	for _, typing := range []bool{false, true} {
		t.Run(map[bool]string{false: "describing the pane", true: "typing the line"}[typing], func(t *testing.T) {
			testRunOnAStuckTerminal(t, typing)
		})
	}
}

func testRunOnAStuckTerminal(t *testing.T, typing bool) {
	synctest.Test(t, func(t *testing.T) {
		clock := fake.NewClock(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
		term := &stuckTerminal{Terminal: fake.New(fake.WithClock(clock)), typing: typing, asked: make(chan struct{}, 1), release: make(chan struct{})}
		pane := term.AddPane(fake.PaneSpec{})
		svc := domain.NewService(term, clock, fake.NewIDs(), domain.DefaultConfig())
		defer svc.Close()
		r := &rig{t: t, term: term.Terminal, clock: clock, svc: svc, pane: pane}

		reply := r.runAsync(context.Background(), domain.RunRequest{Command: "echo late", TimeoutMs: 1500})
		<-term.asked
		clock.Advance(1499 * time.Millisecond)
		synctest.Wait() // the run is as far as it goes before its deadline
		select {
		case got := <-reply:
			t.Fatalf("the run ended before its deadline: %+v, %v", got.res, got.err)
		default:
		}
		clock.Advance(time.Millisecond)
		got := r.await(reply)
		if got.err != nil || got.res.Outcome != domain.OutcomeTimedOut || !got.res.NotStarted || got.res.StillRunning || !got.res.OutputComplete {
			t.Fatalf("run on a terminal that does not answer = %+v, %v; want timed_out, not started", got.res, got.err)
		}
		close(term.release)
		select {
		case <-svc.Released(pane):
		case <-time.After(5 * time.Second):
			t.Fatal("the pane is still reserved after the run timed out")
		}
		if sent := term.Sent(pane); len(sent) != 0 {
			t.Errorf("typed %+v after the deadline", sent)
		}
		// The terminal answering again, the pane takes a command.
		term.asked, term.typing = make(chan struct{}, 8), false
		if res := r.run(domain.RunRequest{Command: "true"}); res.Outcome != domain.OutcomeCompleted {
			t.Errorf("after the terminal answers again: %+v", res)
		}
	})
}

// breakableTerminal hands out the fake's streams and lets a test break
// them, as a backend whose connection drops while the pane lives on.
type breakableTerminal struct {
	*fake.Terminal
	mu      sync.Mutex
	streams []ports.OutputStream
}

func (b *breakableTerminal) OpenOutput(ctx context.Context, id ports.PaneID) (ports.OutputStream, error) {
	s, err := b.Terminal.OpenOutput(ctx, id)
	if err == nil {
		b.mu.Lock()
		b.streams = append(b.streams, s)
		b.mu.Unlock()
	}
	return s, err
}

func (b *breakableTerminal) breakAll() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, s := range b.streams {
		s.Close()
	}
}

func TestRunSurvivesABrokenStreamWhileThePaneLives(t *testing.T) {
	clock := fake.NewClock(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
	term := &breakableTerminal{Terminal: fake.New(fake.WithClock(clock))}
	pane := term.AddPane(fake.PaneSpec{})
	svc := domain.NewService(term, clock, fake.NewIDs(), domain.DefaultConfig())
	defer svc.Close()
	r := &rig{t: t, term: term.Terminal, clock: clock, svc: svc, pane: pane}

	term.Expect(pane, fake.Run{Output: "before\n", Steps: []fake.Step{{At: 2 * time.Second, Output: "after\n"}}, Delay: 2 * time.Second, Status: 4})
	reply := r.runAsync(context.Background(), domain.RunRequest{Command: "x"})
	r.waitTimers(2)
	term.breakAll() // the stream ends, but not because the pane went away
	// The next liveness check finds the pane alive and listens again.
	r.clock.Advance(domain.DefaultConfig().LivenessInterval)
	r.waitTimers(2)
	r.clock.Advance(2 * time.Second)
	got := <-reply
	if got.err != nil || got.res.Outcome != domain.OutcomeCompleted || status(got.res) != "4" || !strings.Contains(got.res.Output, "before\n") {
		t.Fatalf("got %+v, %v; want the command followed to its end", got.res, got.err)
	}
	r.released()
}

// Between a job's last exit and its shell taking the terminal back, the
// ended job is still in front, its leader gone, as in front of a pipeline
// such as "curl … | sh" whose shell runs on. A run then waits for the
// shell, within JobEndGrace and the call's deadline, rather than refuse
// a job that is only ending; one still in front when the grace has passed
// is refused, nothing typed into it.
func TestRunWaitsForAJobThatIsEndingAndRefusesOneThatRunsOn(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.term.SetLeaderlessFront(r.pane, 3*domain.StartingPoll)
	reply := r.runAsync(context.Background(), domain.RunRequest{Command: "echo after"})
	for range 3 {
		r.waitTimer(domain.StartingPoll)
		if sent := r.term.Sent(r.pane); len(sent) != 0 {
			t.Fatalf("typed %+v while the ended job was in front", sent)
		}
		r.clock.Advance(domain.StartingPoll)
	}
	if got := r.await(reply); got.err != nil || got.res.Output != "after" {
		t.Fatalf("a run while a job was ending: %+v, %v; want it run once the shell was back in front", got.res, got.err)
	}

	r.term.SetLeaderlessFront(r.pane, time.Hour)
	reply = r.runAsync(context.Background(), domain.RunRequest{Command: "echo typed"})
	r.pollThrough(domain.JobEndGrace)
	r.refusedNotAShell(reply, "a run while a pipeline runs on")
	if sent := r.term.Sent(r.pane); len(sent) != 1 {
		t.Errorf("typed %+v into the pipeline", sent)
	}

	// The wait is the call's: its deadline ends it, nothing typed.
	reply = r.runAsync(context.Background(), domain.RunRequest{Command: "echo late", TimeoutMs: 60})
	for range 3 {
		r.waitTimer(domain.StartingPoll)
		r.clock.Advance(domain.StartingPoll)
	}
	if got := r.await(reply); got.err != nil || got.res.Outcome != domain.OutcomeTimedOut || !got.res.NotStarted {
		t.Fatalf("a run whose deadline passed while a job was in front: %+v, %v; want timed_out, not started", got.res, got.err)
	}
	if sent := r.term.Sent(r.pane); len(sent) != 1 {
		t.Errorf("typed %+v after the deadline", sent)
	}
}
