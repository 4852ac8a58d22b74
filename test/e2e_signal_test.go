package test

import (
	"strings"
	"testing"
)

// signal_command through the built binary, on this host and over -ssh:
// a command that ignores C-c is ended by TERM, and wait_for_command then
// reports 143.

type signalOutput struct {
	PaneID       string `json:"paneId"`
	Signal       string `json:"signal"`
	ProcessGroup int    `json:"processGroup"`
	Processes    []struct {
		PID     int    `json:"pid"`
		Command string `json:"command"`
	} `json:"processes"`
}

var signalFields = []string{"paneId", "processGroup", "processes", "signal"}

func testBinarySignalsTheCommand(t *testing.T, b *binServer, pane string, leaderOnly bool) {
	t.Helper()
	run := decodeRun(t, b.call(t, "run_shell_command", map[string]any{"paneId": pane, "command": "trap '' INT QUIT; echo started; sleep 30", "timeoutMs": 1000}))
	if run.Outcome != "timed_out" || !run.StillRunning {
		t.Fatalf("run = %+v; want timed_out, still running", run)
	}
	var sig signalOutput
	decode(t, b.call(t, "signal_command", map[string]any{"paneId": pane, "signal": "TERM"}), signalFields, &sig)
	if sig.PaneID != pane || sig.Signal != "TERM" || sig.ProcessGroup <= 1 || len(sig.Processes) == 0 {
		t.Fatalf("signal_command = %+v", sig)
	}
	if leaderOnly && (len(sig.Processes) != 1 || sig.Processes[0].PID != sig.ProcessGroup) {
		t.Errorf("over ssh signal_command = %+v; want the group's leader alone", sig)
	}
	var sleep bool
	for _, p := range sig.Processes {
		sleep = sleep || strings.Contains(p.Command, "sleep 30")
	}
	if !leaderOnly && !sleep {
		t.Errorf("signal_command = %+v; want sleep 30 among the processes", sig)
	}
	run = decodeRun(t, b.call(t, "wait_for_command", map[string]any{"paneId": pane, "timeoutMs": 15000}))
	if run.Outcome != "completed" || run.ExitStatus == nil || *run.ExitStatus != 143 || !strings.HasPrefix(run.Output, "started") {
		t.Fatalf("wait_for_command = %+v; want completed, 143", run)
	}
	// (bash says "Terminated" of the job it ran, after the output.)
	// KILL waits for the destructive tier.
	if res := b.call(t, "signal_command", map[string]any{"paneId": pane, "signal": "KILL"}); !res.IsError || !strings.Contains(errorText(t, res), "destructive") {
		t.Errorf("KILL at the default tier: %+v", res)
	}
}

func TestBinarySignalsTheCommandNotThePane(t *testing.T) {
	t.Parallel()
	srv, p := newTmuxServer(t, bash)
	b := startBinary(t, nil, "-socket-name", srv.sock)
	testBinarySignalsTheCommand(t, b, string(p), false)
}

func TestBinaryOverSSHSignalsTheCommandNotThePane(t *testing.T) {
	t.Parallel()
	srv, p := newTmuxServer(t, bash)
	d := newSSHD(t)
	b := startBinary(t, nil, append(sshArgs(d), "-socket-name", srv.sock)...)
	testBinarySignalsTheCommand(t, b, string(p), true)
}
