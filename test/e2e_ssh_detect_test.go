package test

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The detections of what a command leaves running and of a command that
// waits for input, through the built binary over ssh (-ssh): the remote
// reader reads the remote host's /proc for them, as the server reads its
// own locally. The "remote" host is this one, so that what is reported
// can be checked against /proc here.

func TestBinaryOverSSHSaysWhatACommandLeftRunning(t *testing.T) {
	t.Parallel()
	srv, p := newTmuxServer(t, bash)
	d := newSSHD(t)
	b := startBinary(t, nil, append(sshArgs(d), "-socket-name", srv.sock)...)
	e := &inmem{t: t, cs: b.cs}
	pane := string(p)

	if out := runOK(e, pane, "echo quiet"); out.LeftRunning == nil || len(*out.LeftRunning) != 0 {
		t.Fatalf("a command that left nothing over ssh: leftRunning %v, want [] (told, and nothing)", out.LeftRunning)
	}
	out := runOK(e, pane, "sleep 302 &\necho started")
	if out.Output != "started" || out.LeftRunning == nil || out.LeftRunningCount != 1 || len(*out.LeftRunning) != 1 {
		t.Fatalf("run over ssh = %+v, want the sleep left running", out)
	}
	left := (*out.LeftRunning)[0]
	t.Cleanup(func() { _ = syscall.Kill(left.PID, syscall.SIGKILL) })
	if left.Command != "sleep 302" {
		t.Errorf("left %+v, want sleep 302", left)
	}
	if cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", left.PID)); err != nil || !strings.HasPrefix(string(cmdline), "sleep\x00302") {
		t.Errorf("/proc/%d/cmdline = %q, %v: not the sleep", left.PID, cmdline, err)
	}
	if info := toolOK(e, "get_pane_info", map[string]any{"paneId": pane}); !leftHas(info, left.PID) {
		t.Errorf("get_pane_info over ssh: leftRunning = %v, want pid %d", info["leftRunning"], left.PID)
	}
	_ = syscall.Kill(left.PID, syscall.SIGKILL)
	eventually(t, 10*time.Second, "get_pane_info to list nothing left", func() bool {
		info := toolOK(e, "get_pane_info", map[string]any{"paneId": pane})
		return info["leftRunningCount"] == 0.0
	})
}

// A password prompt over ssh ends the call at once as awaiting_input, a
// secret; the session's own answer reaches it, and wait_for_command
// returns its end.
func TestBinaryOverSSHAnswersACommandAwaitingInput(t *testing.T) {
	t.Parallel()
	srv, p := newTmuxServer(t, bash)
	d := newSSHD(t)
	b := startBinary(t, nil, append(sshArgs(d), "-socket-name", srv.sock)...)
	pane := string(p)
	start := time.Now()
	run := decodeRun(t, b.call(t, "run_shell_command", map[string]any{"paneId": pane, "command": `read -s -p 'Password: ' pw; echo; echo "len ${#pw}"`,
		"timeoutMs": 20000}))
	if run.Outcome != "awaiting_input" || !run.StillRunning || run.Input == nil || run.Input.Kind != "secret" || run.Input.Prompt != "Password:" {
		t.Fatalf("run over ssh = %+v; want awaiting_input, a secret, prompt Password:", run)
	}
	if took := time.Since(start); took > 15*time.Second {
		t.Errorf("awaiting_input came after %v, near the timeout; want it soon after the prompt", took)
	}
	if r := b.call(t, "paste_text", map[string]any{"paneId": pane, "text": "s3cret", "enter": true}); r.IsError {
		t.Fatalf("the session's own answer was refused: %+v", r.Content)
	}
	end := decodeRun(t, b.call(t, "wait_for_command", map[string]any{"paneId": pane, "timeoutMs": 20000}))
	if end.Outcome != "completed" || end.ExitStatus == nil || *end.ExitStatus != 0 || !strings.HasSuffix(end.Output, "len 6") ||
		strings.Contains(end.Output, "s3cret") {
		t.Errorf("end = %+v; want completed, the secret read, never shown", end)
	}
}
