package domain_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/domain/fault"
)

// waitAsync starts a wait_for_command call in the background.
func (r *rig) waitAsync(req domain.WaitCommandRequest) <-chan runReply {
	if req.PaneID == "" {
		req.PaneID = r.pane
	}
	ch := make(chan runReply, 1)
	r.calls.start("wait_for_command", func() (any, error) {
		res, err := r.svc.WaitForCommand(context.Background(), req)
		ch <- runReply{res, err}
		return res, err
	})
	return ch
}

// timedOut runs a command whose call times out after a second while the
// command goes on.
func (r *rig) timedOut(run fake.Run, command string) domain.RunResult {
	r.t.Helper()
	r.term.Expect(r.pane, run)
	reply := r.runAsync(context.Background(), domain.RunRequest{Command: command, TimeoutMs: 1000})
	r.waitTimers(2)
	r.clock.Advance(time.Second)
	got := r.await(reply)
	if got.err != nil || got.res.Outcome != domain.OutcomeTimedOut || !got.res.StillRunning {
		r.t.Fatalf("run = %+v, %v; want timed_out, still running", got.res, got.err)
	}
	return got.res
}

// A command that outlives its call can be waited for again, and again,
// until its end: the exit status and all its output since it started.
func TestWaitForCommandFinishesWhatOutlivedItsCall(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	first := r.timedOut(fake.Run{Output: "compiling\n", Steps: []fake.Step{{At: 3 * time.Second, Output: "linking\n"}}, Delay: 5 * time.Second, Status: 2}, "make")
	if first.Output != "compiling" {
		t.Fatalf("first output %q", first.Output)
	}

	// Not done yet: the second wait times out too, with what came so far.
	reply := r.waitAsync(domain.WaitCommandRequest{TimeoutMs: 2500})
	r.waitTimers(2) // the wait's deadline, the follower's liveness check
	r.clock.Advance(2500 * time.Millisecond)
	got := r.await(reply)
	if got.err != nil || got.res.Outcome != domain.OutcomeTimedOut || !got.res.StillRunning || got.res.ExitStatus != nil ||
		got.res.Output != "compiling\nlinking" || got.res.EffectiveTimeoutMs != 2500 {
		t.Fatalf("second wait = %+v, %v; want timed_out, still running, both lines", got.res, got.err)
	}
	select {
	case <-r.svc.Released(r.pane):
		t.Fatal("the pane was released while its command runs")
	default:
	}

	// The third sees the end.
	reply = r.waitAsync(domain.WaitCommandRequest{})
	r.waitTimers(2)
	r.clock.Advance(2 * time.Second)
	got = r.await(reply)
	if got.err != nil || got.res.Outcome != domain.OutcomeCompleted || got.res.StillRunning ||
		got.res.ExitStatus == nil || *got.res.ExitStatus != 2 || got.res.Output != "compiling\nlinking" || !got.res.OutputComplete {
		t.Fatalf("third wait = %+v, %v; want completed, exit 2, all the output", got.res, got.err)
	}
	r.released()

	// Nothing of ours runs there now.
	if _, err := r.svc.WaitForCommand(context.Background(), domain.WaitCommandRequest{PaneID: r.pane}); !errors.Is(err, fault.ErrNoCommand) {
		t.Errorf("a wait once the end was told: %v, want ErrNoCommand", err)
	}
}

// A wait_for_command that times out settles its answer against the
// pane's process first: when another process replaced the command's (the
// stream going on as if nothing happened), the command is gone, and the
// answer says pane_died rather than that it is still running.
func TestAWaitThatTimesOutOnAReplacedProcessSaysPaneDied(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.timedOut(fake.Run{Output: "working\n", Hang: true}, "sleep 100")
	r.term.Replace(r.pane)
	reply := r.waitAsync(domain.WaitCommandRequest{TimeoutMs: 100}) // before the follower's next liveness check
	r.waitTimers(2)                                                 // the wait's deadline, the follower's liveness check
	r.clock.Advance(100 * time.Millisecond)
	got := r.await(reply)
	if got.err != nil || got.res.Outcome != domain.OutcomePaneDied || got.res.StillRunning {
		t.Fatalf("wait = %+v, %v; want pane_died, not running", got.res, got.err)
	}
}

// An end that comes while nobody waits is kept for the next to ask: an
// exit status is never lost between two calls.
func TestAnEndNobodyWaitedForIsKeptForTheNextWait(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.timedOut(fake.Run{Output: "working\n", Delay: 3 * time.Second, Status: 0}, "sleep 3")
	r.waitTimers(1) // the follower's liveness check
	r.clock.Advance(2 * time.Second)
	r.released()
	res, err := r.svc.WaitForCommand(context.Background(), domain.WaitCommandRequest{PaneID: r.pane, MaxLines: 5})
	if err != nil || res.Outcome != domain.OutcomeCompleted || res.ExitStatus == nil || *res.ExitStatus != 0 || res.Output != "working" {
		t.Fatalf("wait after the end = %+v, %v; want the kept end", res, err)
	}
	if _, err := r.svc.WaitForCommand(context.Background(), domain.WaitCommandRequest{PaneID: r.pane}); !errors.Is(err, fault.ErrNoCommand) {
		t.Errorf("a second wait for the same end: %v, want ErrNoCommand", err)
	}
}

// A new command in the pane replaces an end nobody asked for.
func TestANewCommandForgetsTheOldEnd(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.timedOut(fake.Run{Delay: 2 * time.Second, Status: 3}, "sleep 2")
	r.waitTimers(1)
	r.clock.Advance(2 * time.Second)
	r.released()
	if res := r.run(domain.RunRequest{Command: "echo next"}); res.Output != "next" {
		t.Fatalf("next run = %+v", res)
	}
	if _, err := r.svc.WaitForCommand(context.Background(), domain.WaitCommandRequest{PaneID: r.pane}); !errors.Is(err, fault.ErrNoCommand) {
		t.Errorf("wait after a newer command completed: %v, want ErrNoCommand", err)
	}
}

// With nothing of ours in the pane, the wait is an error that says so;
// bad arguments are argument errors.
func TestWaitForCommandWithNothingRunning(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	_, err := r.svc.WaitForCommand(context.Background(), domain.WaitCommandRequest{PaneID: r.pane})
	if !errors.Is(err, fault.ErrNoCommand) || !strings.Contains(err.Error(), string(r.pane)) {
		t.Errorf("err = %v, want ErrNoCommand naming the pane", err)
	}
	for _, req := range []domain.WaitCommandRequest{{PaneID: r.pane, TimeoutMs: -1}, {PaneID: r.pane, MaxLines: -1}} {
		var arg *fault.ArgumentError
		if _, err := r.svc.WaitForCommand(context.Background(), req); !errors.As(err, &arg) {
			t.Errorf("%+v: %v, want an argument error", req, err)
		}
	}
}

// A wait that is cancelled returns what came so far; the command goes on
// and the pane stays held.
func TestACancelledWaitForCommandLeavesTheCommandRunning(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.timedOut(fake.Run{Output: "a\n", Hang: true}, "tail -f log")
	ctx, cancel := context.WithCancel(context.Background())
	reply := make(chan runReply, 1)
	r.calls.start("wait_for_command", func() (any, error) {
		res, err := r.svc.WaitForCommand(ctx, domain.WaitCommandRequest{PaneID: r.pane})
		reply <- runReply{res, err}
		return res, err
	})
	r.waitTimers(2)
	cancel()
	got := r.await(reply)
	if got.err != nil || got.res.Outcome != domain.OutcomeCancelled || !got.res.StillRunning || got.res.Output != "a" {
		t.Fatalf("cancelled wait = %+v, %v", got.res, got.err)
	}
	// maxLines keeps the newest lines of what the command printed.
	r.term.Inject(r.pane, []byte("b\r\nc\r\n"))
	ctx2, cancel2 := context.WithCancel(context.Background())
	cancel2()
	res, err := r.svc.WaitForCommand(ctx2, domain.WaitCommandRequest{PaneID: r.pane, MaxLines: 2})
	if err != nil || res.Output != "b\nc" || res.DroppedLines != 1 || res.OutputComplete {
		t.Errorf("wait with maxLines 2 = %+v, %v; want the newest two lines, one dropped", res, err)
	}
	if err := r.term.SendKeys(context.Background(), r.pane, []string{"C-c"}); err != nil {
		t.Fatal(err)
	}
	r.released()
}

// A frame the shell gave up (the command's job died of a signal the frame
// does not trap, as after exec and C-c, and the shell dropped the rest of
// its line, end marker and all) does not hold the pane for good: once two
// liveness checks in a row find the shell back at its prompt and no status
// in the script's file, the command has ended, its status unknown.
func TestAFrameTheShellGaveUpEndsTheCommand(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.timedOut(fake.Run{Output: "waiting\n", Hang: true, Untrapped: true}, "exec sleep 100")
	if _, err := r.svc.SendKeys(context.Background(), domain.SendKeysRequest{PaneID: r.pane, Keys: "C-c"}); err != nil {
		t.Fatalf("send_keys C-c: %v", err)
	}
	reply := r.waitAsync(domain.WaitCommandRequest{TimeoutMs: 60_000})
	live := domain.DefaultConfig().LivenessInterval
	for range 2 {
		r.waitTimer(live)
		r.clock.Advance(live)
	}
	got := r.await(reply)
	res := got.res
	if got.err != nil || res.Outcome != domain.OutcomeCompleted || res.StillRunning || res.ExitStatus != nil || !res.Abandoned {
		t.Fatalf("wait = %+v, %v; want completed, exit status unknown, abandoned", res, got.err)
	}
	if !strings.HasPrefix(res.Output, "waiting") || res.OutputComplete {
		t.Errorf("output %q, complete %v; want the command's output first, and not said to be complete", res.Output, res.OutputComplete)
	}
	r.released()
	if res := r.run(domain.RunRequest{Command: "echo again"}); res.Output != "again" || res.Abandoned {
		t.Errorf("the next run: %+v", res)
	}
}

// A shell caught between its command's end and its end marker is not
// taken for one that gave up the frame: one liveness check that finds no
// status yet is not enough.
func TestOneCheckDoesNotTakeAFrameForAbandoned(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.timedOut(fake.Run{Output: "waiting\n", Hang: true, Untrapped: true}, "exec sleep 100")
	if _, err := r.svc.SendKeys(context.Background(), domain.SendKeysRequest{PaneID: r.pane, Keys: "C-c"}); err != nil {
		t.Fatalf("send_keys C-c: %v", err)
	}
	live := domain.DefaultConfig().LivenessInterval
	reply := r.waitAsync(domain.WaitCommandRequest{TimeoutMs: live.Milliseconds() + 1})
	r.waitTimers(2) // the wait's deadline, the follower's liveness check
	r.clock.Advance(live + time.Millisecond)
	if got := r.await(reply); got.err != nil || got.res.Outcome != domain.OutcomeTimedOut || !got.res.StillRunning {
		t.Fatalf("wait after one check = %+v, %v; want timed_out, still running", got.res, got.err)
	}
}
