package mcp_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/domain/fault"
)

// The transport side of wait_for_command, on a stub domain: its arguments
// reach the domain, its result is run_shell_command's, field for field and
// notice for notice, and "nothing runs there" is a tool error that says
// what to do.

func TestWaitForCommandPassesArgumentsToTheDomain(t *testing.T) {
	tests := []struct {
		name string
		args map[string]any
		want domain.WaitCommandRequest
	}{
		{"every argument", map[string]any{"paneId": "%4", "timeoutMs": 1500, "maxLines": 40, "awaitInput": false},
			domain.WaitCommandRequest{PaneID: "%4", TimeoutMs: 1500, MaxLines: 40}},
		{"optional arguments absent mean not given", map[string]any{"paneId": "%0"},
			domain.WaitCommandRequest{PaneID: "%0", AwaitInput: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stub := &stubTools{t: t, waitCmd: func(_ context.Context, req domain.WaitCommandRequest) (domain.RunResult, error) {
				r := completed(0)
				r.PaneID = req.PaneID
				return r, nil
			}}
			cs, _ := connect(t, stub)
			structured(t, call(t, cs, "wait_for_command", tt.args))
			if len(stub.waitCmds) != 1 {
				t.Fatalf("domain calls = %d, want 1", len(stub.waitCmds))
			}
			if got := stub.waitCmds[0]; !reflect.DeepEqual(got, tt.want) {
				t.Errorf("domain got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// Whatever the domain returns, wait_for_command's content is exactly what
// run_shell_command's would be for the same result: the JSON and the
// notice.
func TestWaitForCommandReturnsWhatRunShellCommandWould(t *testing.T) {
	results := map[string]domain.RunResult{
		"completed": completed(3),
		"still running": {PaneID: "%1", Outcome: domain.OutcomeTimedOut, Output: "50%", ReturnedBytes: 3,
			OutputComplete: true, StillRunning: true, EffectiveTimeoutMs: 1000},
		"cancelled, still running": {PaneID: "%1", Outcome: domain.OutcomeCancelled, OutputComplete: true,
			StillRunning: true, EffectiveTimeoutMs: 30000},
		"pane died": {PaneID: "%1", Outcome: domain.OutcomePaneDied, Output: "x", ReturnedBytes: 1, OutputComplete: true},
		"lines withheld": {PaneID: "%1", Outcome: domain.OutcomeCompleted, ExitStatus: new(0), Output: "199\n200",
			ReturnedBytes: 7, DroppedLines: 198, EffectiveTimeoutMs: 30000},
		"another writer's output": {PaneID: "%1", Outcome: domain.OutcomeCompleted, ExitStatus: new(1), OutputComplete: true,
			ForeignOutputSuspected: true},
	}
	for name, r := range results {
		t.Run(name, func(t *testing.T) {
			stub := &stubTools{t: t,
				run:     func(context.Context, domain.RunRequest) (domain.RunResult, error) { return r, nil },
				waitCmd: func(context.Context, domain.WaitCommandRequest) (domain.RunResult, error) { return r, nil },
			}
			cs, _ := connect(t, stub)
			run := call(t, cs, "run_shell_command", map[string]any{"paneId": "%1", "command": "make"})
			wait := call(t, cs, "wait_for_command", map[string]any{"paneId": "%1"})
			if wait.IsError {
				t.Fatalf("wait_for_command: tool error %q", texts(t, wait))
			}
			if got, want := texts(t, wait), texts(t, run); !reflect.DeepEqual(got, want) {
				t.Errorf("wait_for_command content %q\nwant run_shell_command's %q", got, want)
			}
		})
	}
}

// A result that says the command still runs names wait_for_command, with
// the pane, as the way to its end, whether the call timed out or was
// cancelled; a result that ended names it not.
func TestAStillRunningResultNamesWaitForCommand(t *testing.T) {
	tests := []struct {
		name  string
		r     domain.RunResult
		names bool
	}{
		{"timed out, still running", domain.RunResult{PaneID: "%7", Outcome: domain.OutcomeTimedOut, OutputComplete: true, StillRunning: true}, true},
		{"cancelled, still running", domain.RunResult{PaneID: "%7", Outcome: domain.OutcomeCancelled, OutputComplete: true, StillRunning: true}, true},
		{"timed out, never started", domain.RunResult{PaneID: "%7", Outcome: domain.OutcomeTimedOut, OutputComplete: true, NotStarted: true}, false},
		{"completed", func() domain.RunResult { r := completed(0); r.PaneID = "%7"; return r }(), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stub := &stubTools{t: t, run: func(context.Context, domain.RunRequest) (domain.RunResult, error) { return tt.r, nil }}
			cs, _ := connect(t, stub)
			txt := strings.Join(texts(t, call(t, cs, "run_shell_command", map[string]any{"paneId": "%7", "command": "make"}))[1:], " ")
			if got := strings.Contains(txt, "wait_for_command with paneId %7"); got != tt.names {
				t.Errorf("notice %q names wait_for_command: %v, want %v", txt, got, tt.names)
			}
			if tt.names && !strings.Contains(txt, "send_keys C-c") {
				t.Errorf("notice %q does not say how to interrupt the command", txt)
			}
		})
	}
}

func TestWaitForCommandWithNothingRunningIsAToolErrorThatSaysWhatToDo(t *testing.T) {
	stub := &stubTools{t: t, waitCmd: func(_ context.Context, req domain.WaitCommandRequest) (domain.RunResult, error) {
		return domain.RunResult{}, fmt.Errorf("wait for the command in pane %s: %w", req.PaneID, fault.ErrNoCommand)
	}}
	cs, _ := connect(t, stub)
	msg := toolErrorText(t, call(t, cs, "wait_for_command", map[string]any{"paneId": "%5"}))
	for _, want := range []string{"pane %5", "no command of this server runs in the pane", "run_shell_command"} {
		if !strings.Contains(msg, want) {
			t.Errorf("tool error %q lacks %q", msg, want)
		}
	}
}

func TestWaitForCommandArgumentsBreakingTheSchemaAreToolErrors(t *testing.T) {
	stub := &stubTools{t: t}
	cs, _ := connect(t, stub)
	for _, args := range []map[string]any{
		{},
		{"paneId": "3"},
		{"paneId": "%3", "timeoutMs": 0},
		{"paneId": "%3", "maxLines": -1},
	} {
		if msg := toolErrorText(t, call(t, cs, "wait_for_command", args)); !strings.Contains(msg, "correct it") {
			t.Errorf("wait_for_command %v: %q, want an argument error", args, msg)
		}
	}
	if stub.calls() != 0 {
		t.Errorf("bad arguments reached the domain")
	}
}
