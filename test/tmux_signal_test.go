package test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// signal_command in real tmux panes: a command that ignores C-c is ended
// by TERM sent to its own process group, the pane's shell lives on, and
// the command's end says 143.

func TestTmuxSignalCommandStopsACommandThatIgnoresInterrupts(t *testing.T) {
	needTmux(t)
	for _, sh := range shells {
		t.Run(sh.name, func(t *testing.T) {
			t.Parallel()
			r := newRig(t, sh)
			ctx := itContext(t)
			res := r.run(t, domain.RunRequest{Command: "trap '' INT QUIT; echo started; sleep 30", TimeoutMs: 1500})
			if res.Outcome != domain.OutcomeTimedOut || !res.StillRunning || res.Output != "started" {
				t.Fatalf("run = %+v; want timed_out, still running", res)
			}
			// C-c does not stop it (but for fish, whose frame runs the
			// command in a child fish under an sh that a C-c ends).
			if sh.name != "fish" {
				if _, err := r.svc.SendKeys(ctx, domain.SendKeysRequest{PaneID: r.pane, Keys: "C-c"}); err != nil {
					t.Fatal(err)
				}
			}
			if w, err := r.svc.WaitForCommand(ctx, domain.WaitCommandRequest{PaneID: r.pane, TimeoutMs: 500}); err != nil || !w.StillRunning {
				t.Fatalf("after C-c (or a wait): %+v, %v; want it still running", w, err)
			}
			sig, err := r.svc.SignalCommand(ctx, domain.SignalRequest{PaneID: r.pane, Signal: "TERM"})
			if err != nil {
				t.Fatalf("signal_command: %v", err)
			}
			if sig.Group <= 1 || len(sig.Processes) == 0 || !hasCommand(sig.Processes, "sleep 30") {
				t.Errorf("signal_command = %+v; want the command's group, sleep among its processes", sig)
			}
			end, err := r.svc.WaitForCommand(ctx, domain.WaitCommandRequest{PaneID: r.pane, TimeoutMs: 10_000})
			if err != nil || end.Outcome != domain.OutcomeCompleted || end.ExitStatus == nil || *end.ExitStatus != 143 {
				t.Fatalf("wait_for_command = %+v (status %v), %v; want completed, 143", end, deref(end.ExitStatus), err)
			}
			// The shell lives on, and nothing of ours runs to be signalled.
			r.settle(t, r.pane)
			wantCompleted(t, r.run(t, domain.RunRequest{Command: "echo alive"}), "alive", 0)
			if _, err := r.svc.SignalCommand(ctx, domain.SignalRequest{PaneID: r.pane, Signal: "TERM"}); !errors.Is(err, fault.ErrNoCommand) {
				t.Errorf("signal with nothing running: %v, want ErrNoCommand", err)
			}
		})
	}
}

func TestTmuxSignalCommandOfAPersistingCommand(t *testing.T) {
	needTmux(t)
	r := newRig(t, bash)
	ctx := itContext(t)
	done := make(chan domain.RunResult, 1)
	go func() {
		res, _ := r.svc.RunShellCommand(ctx, domain.RunRequest{PaneID: r.pane, Command: "sleep 30", Persist: true, TimeoutMs: 20_000})
		done <- res
	}()
	eventually(t, 10*time.Second, "sleep in front", func() bool {
		return r.srv.tmux(t, "display-message", "-p", "-t", string(r.pane), "#{pane_current_command}") == "sleep"
	})
	if _, err := r.svc.SignalCommand(ctx, domain.SignalRequest{PaneID: r.pane, Signal: "TERM"}); err != nil {
		t.Fatal(err)
	}
	select {
	case res := <-done:
		if res.Outcome != domain.OutcomeCompleted || res.ExitStatus == nil || *res.ExitStatus != 143 {
			t.Fatalf("run = %+v; want completed, 143", res)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the call never returned")
	}
	// Shell code in the shell itself has only the shell's group.
	done2 := make(chan domain.RunResult, 1)
	go func() {
		res, _ := r.svc.RunShellCommand(ctx, domain.RunRequest{PaneID: r.pane, Command: "while :; do :; done", Persist: true, TimeoutMs: 3000})
		done2 <- res
	}()
	time.Sleep(500 * time.Millisecond)
	if _, err := r.svc.SignalCommand(ctx, domain.SignalRequest{PaneID: r.pane, Signal: "TERM"}); !errors.Is(err, ports.ErrNoGroup) {
		t.Errorf("signal to a builtin loop in the shell: %v, want ErrNoGroup", err)
	}
	<-done2
	r.srv.tmux(t, "send-keys", "-t", string(r.pane), "C-c")
}

func hasCommand(procs []ports.Process, command string) bool {
	for _, p := range procs {
		if strings.Contains(p.Command, command) {
			return true
		}
	}
	return false
}
