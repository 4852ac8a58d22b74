package domain_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// A command that starts a server with "&" and ends says so: the server
// is what it left running, and get_pane_info's source, LeftRunning, goes
// on showing it until it ends.
func TestRunListsWhatTheCommandLeftRunning(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	res := r.run(domain.RunRequest{Command: "sleep 300 &\necho started"})
	if res.Outcome != domain.OutcomeCompleted || res.Output != "started" {
		t.Fatalf("run = %+v", res)
	}
	l := res.LeftRunning
	if l == nil || l.Count != 1 || len(l.Processes) != 1 || l.Processes[0].Command != "sleep 300" || l.Processes[0].PID == 0 {
		t.Fatalf("leftRunning = %+v, want the sleep", l)
	}
	left, err := r.svc.LeftRunning(context.Background(), r.pane)
	if err != nil || left == nil || left.Count != 1 || left.Processes[0] != l.Processes[0] {
		t.Fatalf("LeftRunning = %+v, %v, want the sleep still", left, err)
	}
	// A later command that leaves nothing says so, and the earlier one's
	// process is still shown for the pane.
	if res := r.run(domain.RunRequest{Command: "echo again"}); res.LeftRunning == nil || res.LeftRunning.Count != 0 {
		t.Errorf("a command that left nothing: leftRunning = %+v, want known and empty", res.LeftRunning)
	}
	if left, _ := r.svc.LeftRunning(context.Background(), r.pane); left == nil || left.Count != 1 {
		t.Errorf("LeftRunning after another command = %+v, want the sleep", left)
	}
	r.clock.Advance(301 * time.Second)
	if left, err := r.svc.LeftRunning(context.Background(), r.pane); err != nil || left == nil || left.Count != 0 {
		t.Errorf("LeftRunning once the sleep ended = %+v, %v, want none", left, err)
	}
}

// The list is bounded; the count is not.
func TestRunListsAtMostTwentyLeftRunning(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	cmd := strings.Repeat("sleep 60 &\n", domain.MaxLeftListed+5) + "true"
	res := r.run(domain.RunRequest{Command: cmd})
	if l := res.LeftRunning; l == nil || l.Count != domain.MaxLeftListed+5 || len(l.Processes) != domain.MaxLeftListed {
		t.Fatalf("leftRunning = %+v, want %d listed of %d", l, domain.MaxLeftListed, domain.MaxLeftListed+5)
	}
}

// What cannot be told is not reported as nothing: a terminal that cannot
// tell the pane's processes, and a command that has not ended, give no
// list at all.
func TestRunLeftRunningUnknownIsNil(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.term.SetNoJobControl(true, true)
	if res := r.run(domain.RunRequest{Command: "sleep 300 &\ntrue"}); res.Outcome != domain.OutcomeCompleted || res.LeftRunning != nil {
		t.Errorf("without job control: %+v, want completed with leftRunning unknown", res)
	}
	if left, err := r.svc.LeftRunning(context.Background(), r.pane); left != nil || err != nil {
		t.Errorf("LeftRunning without job control = %+v, %v, want unknown", left, err)
	}

	r2 := newRig(t, domain.DefaultConfig())
	reply := r2.runAsync(context.Background(), domain.RunRequest{Command: "sleep 300 &\nsleep 10", TimeoutMs: 1500})
	r2.waitTimer(1500 * time.Millisecond)
	r2.clock.Advance(1500 * time.Millisecond)
	got := <-reply
	if got.err != nil || got.res.Outcome != domain.OutcomeTimedOut || got.res.LeftRunning != nil {
		t.Errorf("a command still running: %+v, %v, want timed_out with leftRunning unknown", got.res, got.err)
	}
}

// scrambling is the fake terminal with its process listing changed: each
// list goes through change, which is told how many lists came before.
type scrambling struct {
	*fake.Terminal
	calls  int
	change func(call int, ps []ports.Process) []ports.Process
}

func (s *scrambling) ProcessesSince(ctx context.Context, id ports.PaneID, mark ports.ProcessMark) ([]ports.Process, error) {
	ps, err := s.Terminal.ProcessesSince(ctx, id, mark)
	s.calls++
	return s.change(s.calls-1, ps), err
}

func scrambledRig(t *testing.T, change func(int, []ports.Process) []ports.Process) (*rig, *scrambling) {
	t.Helper()
	r := newRig(t, domain.DefaultConfig())
	s := &scrambling{Terminal: r.term, change: change}
	r.svc = domain.NewService(s, r.clock, r.ids, domain.DefaultConfig())
	t.Cleanup(func() { r.svc.Close() })
	return r, s
}

// Whatever order the terminal lists them in, the processes are given by
// process id, in a run's result and in LeftRunning.
func TestLeftRunningIsByProcessID(t *testing.T) {
	r, _ := scrambledRig(t, func(_ int, ps []ports.Process) []ports.Process {
		slices.Reverse(ps)
		return ps
	})
	res := r.run(domain.RunRequest{Command: "sleep 300 &\nsleep 301 &\nsleep 302 &\ntrue"})
	check := func(what string, l *domain.LeftRunning) {
		t.Helper()
		if l == nil || l.Count != 3 || len(l.Processes) != 3 {
			t.Fatalf("%s = %+v, want the three sleeps", what, l)
		}
		if !slices.IsSortedFunc(l.Processes, func(a, b domain.LeftProcess) int { return a.PID - b.PID }) ||
			l.Processes[0].Command != "sleep 300" || l.Processes[2].Command != "sleep 302" {
			t.Errorf("%s = %+v, want them by process id", what, l.Processes)
		}
	}
	check("leftRunning", res.LeftRunning)
	left, err := r.svc.LeftRunning(context.Background(), r.pane)
	if err != nil {
		t.Fatal(err)
	}
	check("LeftRunning", left)
}

// A process that started a moment ago may not have run its program yet,
// and shows its parent's command line: it is looked at again, on the
// clock, until it is no longer young, twice at most.
func TestLeftRunningLooksAgainAtAYoungProcess(t *testing.T) {
	r, s := scrambledRig(t, func(call int, ps []ports.Process) []ports.Process {
		if call == 0 {
			for i := range ps {
				ps[i].Young, ps[i].Command = true, "sh"
			}
		}
		return ps
	})
	reply := r.runAsync(context.Background(), domain.RunRequest{Command: "sleep 300 &\ntrue"})
	r.waitTimer(50 * time.Millisecond)
	r.clock.Advance(50 * time.Millisecond)
	got := <-reply
	if got.err != nil || got.res.LeftRunning == nil || got.res.LeftRunning.Count != 1 || got.res.LeftRunning.Processes[0].Command != "sleep 300" {
		t.Fatalf("run = %+v, %v; want the sleep as it is once it ran its program", got.res.LeftRunning, got.err)
	}
	if s.calls != 2 {
		t.Errorf("the processes were listed %d times, want twice", s.calls)
	}

	// One that stays young is taken as it is after the last look.
	r2, s2 := scrambledRig(t, func(_ int, ps []ports.Process) []ports.Process {
		for i := range ps {
			ps[i].Young = true
		}
		return ps
	})
	reply = r2.runAsync(context.Background(), domain.RunRequest{Command: "sleep 300 &\ntrue"})
	for range 2 {
		r2.waitTimer(50 * time.Millisecond)
		r2.clock.Advance(50 * time.Millisecond)
	}
	// No third wait: the run answers, rather than waiting on the clock.
	third := make(chan error, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { third <- r2.clock.WaitForTimer(ctx, 50*time.Millisecond) }()
	select {
	case got = <-reply:
	case <-third:
		t.Fatalf("a process that stays young is waited for a third time, after %d looks", s2.calls)
	}
	if got.err != nil || got.res.LeftRunning == nil || got.res.LeftRunning.Count != 1 {
		t.Fatalf("run = %+v, %v; want the sleep, young or not", got.res.LeftRunning, got.err)
	}
	if s2.calls != 3 {
		t.Errorf("the processes were listed %d times, want three", s2.calls)
	}
}
