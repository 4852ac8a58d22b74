package domain_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/domain"
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
