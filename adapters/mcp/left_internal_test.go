package mcp

import (
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/domain"
)

// A command that left processes running says so in the text half too,
// naming each one listed and counting the rest; one that left none, or
// where it is not known, says nothing of it.
func TestRunNoticeNamesWhatTheCommandLeftRunning(t *testing.T) {
	r := domain.RunResult{PaneID: "%1", Outcome: domain.OutcomeCompleted, OutputComplete: true,
		LeftRunning: &domain.LeftRunning{Processes: []domain.LeftProcess{{PID: 41, Command: "sleep 300"}}, Count: 3}}
	out := fromRunResult(r)
	if out.LeftRunning == nil || len(*out.LeftRunning) != 1 || out.LeftRunningCount != 3 {
		t.Fatalf("leftRunning %v (%d)", out.LeftRunning, out.LeftRunningCount)
	}
	n := runNotice(out, r)
	for _, want := range []string{"3 processes", "41 (sleep 300)", "2 more", "kill PID"} {
		if !strings.Contains(n, want) {
			t.Errorf("notice %q lacks %q", n, want)
		}
	}
	r.LeftRunning = &domain.LeftRunning{Processes: []domain.LeftProcess{}}
	if n := runNotice(fromRunResult(r), r); n != "" {
		t.Errorf("notice for a command that left nothing: %q", n)
	}
	// Not completed: not known, whatever the domain had.
	r.Outcome, r.LeftRunning = domain.OutcomeTimedOut, &domain.LeftRunning{Processes: []domain.LeftProcess{{PID: 1}}, Count: 1}
	if out := fromRunResult(r); out.LeftRunning != nil || out.LeftRunningCount != 0 {
		t.Errorf("a timed-out run reports leftRunning %v (%d), want null", out.LeftRunning, out.LeftRunningCount)
	}
}
