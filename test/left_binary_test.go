package test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A command that starts a server with & says so when it ends, in every
// shell: the process is listed (a real one, on the pane's terminal), and
// get_pane_info goes on listing it until it ends. What the prompt runs
// (PROMPT_COMMAND here) is not listed, nor is anything for a command that
// left nothing.
func TestBinaryRunSaysWhatACommandLeftRunning(t *testing.T) {
	t.Parallel()
	for _, sh := range shells {
		t.Run(sh.name, func(t *testing.T) {
			t.Parallel()
			needShell(t, sh)
			srv, p := newTmuxServer(t, sh)
			pane := string(p)
			b := startBinary(t, nil, "-socket-name", srv.sock)
			e := &inmem{t: t, cs: b.cs}

			onTerminal := func() string {
				tty := srv.tmux(t, "display-message", "-p", "-t", pane, "#{pane_tty}")
				ps, _ := exec.Command("ps", "-o", "pid,ppid,pgid,tpgid,stat,args", "-t", strings.TrimPrefix(tty, "/dev/")).CombinedOutput()
				return string(ps)
			}
			if out := runOK(e, pane, "echo quiet"); out.LeftRunning == nil || len(*out.LeftRunning) != 0 || out.LeftRunningCount != 0 {
				t.Fatalf("a command that left nothing: leftRunning %v (%d), want []; on the terminal:\n%s", out.LeftRunning, out.LeftRunningCount, onTerminal())
			}
			out := runOK(e, pane, "sleep 301 &\necho started")
			if out.Output != "started" || out.LeftRunning == nil || out.LeftRunningCount != 1 || len(*out.LeftRunning) != 1 {
				t.Fatalf("run = %+v, want the sleep left running", out)
			}
			left := (*out.LeftRunning)[0]
			t.Cleanup(func() { _ = syscall.Kill(left.PID, syscall.SIGKILL) })
			if left.Command != "sleep 301" {
				t.Errorf("left %+v, want sleep 301; on the terminal:\n%s", left, onTerminal())
			}
			if cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", left.PID)); err != nil || !strings.HasPrefix(string(cmdline), "sleep\x00301") {
				t.Errorf("/proc/%d/cmdline = %q, %v: not the sleep", left.PID, cmdline, err)
			}
			if info := toolOK(e, "get_pane_info", map[string]any{"paneId": pane}); !leftHas(info, left.PID) {
				t.Errorf("get_pane_info leftRunning = %v, want pid %d", info["leftRunning"], left.PID)
			}
			_ = syscall.Kill(left.PID, syscall.SIGKILL)
			eventually(t, 10*time.Second, "get_pane_info to list nothing left", func() bool {
				info := toolOK(e, "get_pane_info", map[string]any{"paneId": pane})
				return info["leftRunningCount"] == 0.0
			})
		})
	}
}

// A slow prompt (a git prompt, PROMPT_COMMAND) is running as the result
// is made: it is the shell's, not the command's.
func TestBinaryLeftRunningSkipsWhatThePromptRuns(t *testing.T) {
	t.Parallel()
	srv, p := newTmuxServer(t, bash)
	pane := string(p)
	srv.tmux(t, "send-keys", "-t", pane, "PROMPT_COMMAND='sleep 0.4; (sleep 0.3)'", "Enter")
	// The prompt that line draws runs the sleeps in front of the shell: a
	// write meanwhile is refused (a program that is not a shell is in
	// front), as for any prompt the server did not see drawn. The prompt
	// shows once they are done.
	eventually(t, 10*time.Second, "the first slow prompt to be drawn", func() bool {
		lines := strings.Split(strings.TrimRight(srv.tmux(t, "capture-pane", "-p", "-t", pane), "\n"), "\n")
		return len(lines) >= 2 && strings.HasPrefix(lines[len(lines)-2], "$ PROMPT_COMMAND=") && lines[len(lines)-1] == "$"
	})
	b := startBinary(t, nil, "-socket-name", srv.sock)
	e := &inmem{t: t, cs: b.cs}
	for i := range 3 {
		if out := runOK(e, pane, "echo "+fmt.Sprint(i)); out.LeftRunning == nil || out.LeftRunningCount != 0 {
			raw, _ := json.Marshal(out.LeftRunning)
			t.Errorf("run %d under a slow prompt: leftRunning %s (%d), want []", i, raw, out.LeftRunningCount)
		}
	}
}

func leftHas(info map[string]any, pid int) bool {
	l, _ := info["leftRunning"].([]any)
	for _, p := range l {
		if m, _ := p.(map[string]any); m["pid"] == float64(pid) {
			return true
		}
	}
	return false
}
