package test

import (
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/adapters/clock"
	"github.com/tmux-mcp/tmux-mcp/adapters/random"
	"github.com/tmux-mcp/tmux-mcp/adapters/tmux"
	"github.com/tmux-mcp/tmux-mcp/domain"
)

// persist and the agent's environment in real tmux panes, under every
// shell: what a persisting command changes stays in the shell; the
// subshell of the default has no pager, and the shell keeps its own
// environment.

func TestTmuxPersistKeepsCdAndExportInTheShell(t *testing.T) {
	needTmux(t)
	for _, sh := range shells {
		t.Run(sh.name, func(t *testing.T) {
			t.Parallel()
			r := newRig(t, sh)
			dir := t.TempDir()
			change := byShell{
				posix: "cd '" + dir + "' && export TMCP_PERSIST=kept && tmcp_fn() { echo fn; } && echo changed",
				fish:  "cd '" + dir + "'; and set -gx TMCP_PERSIST kept; and function tmcp_fn; echo fn; end; and echo changed",
			}
			wantCompleted(t, r.run(t, domain.RunRequest{Command: change.in(t, sh), Persist: true}), "changed", 0)
			r.settle(t, r.pane)
			// A later call, persisting or not, runs where the first left
			// the shell, and so does what the person types. (fish's child
			// shell, a process of its own, has no function of its
			// parent's.)
			probe := byShell{posix: `echo "$PWD $TMCP_PERSIST"; tmcp_fn`, fish: `echo "$PWD $TMCP_PERSIST"; echo fn`}
			wantCompleted(t, r.run(t, domain.RunRequest{Command: probe.in(t, sh)}), dir+" kept\nfn", 0)
			r.settle(t, r.pane)
			probe.fish = `echo "$PWD $TMCP_PERSIST"; tmcp_fn`
			wantCompleted(t, r.run(t, domain.RunRequest{Command: probe.in(t, sh), Persist: true}), dir+" kept\nfn", 0)
			r.settle(t, r.pane)
			if got := r.srv.tmux(t, "display-message", "-p", "-t", string(r.pane), "#{pane_current_path}"); got != dir {
				t.Errorf("the pane's shell is in %q, want %q", got, dir)
			}
			// Without persist nothing stays.
			wantCompleted(t, r.run(t, domain.RunRequest{Command: "cd / && echo moved"}), "moved", 0)
			r.settle(t, r.pane)
			wantCompleted(t, r.run(t, domain.RunRequest{Command: "pwd"}), dir, 0)
		})
	}
}

func TestTmuxPersistedExitEndsThePane(t *testing.T) {
	needTmux(t)
	r := newRig(t, bash)
	res := r.run(t, domain.RunRequest{Command: "echo bye; exit 4", Persist: true})
	if res.Outcome != domain.OutcomePaneDied || res.ExitStatus != nil {
		t.Fatalf("run = %+v; want pane_died", res)
	}
}

func TestTmuxSubshellHasNoPagerAndTheShellKeepsItsEnvironment(t *testing.T) {
	needTmux(t)
	const probe = `echo "${PAGER-unset}|${GIT_PAGER-unset}|${MANPAGER-unset}|${SYSTEMD_PAGER-unset}|${GIT_TERMINAL_PROMPT-unset}"`
	const unset = "unset|unset|unset|unset|unset"
	for _, sh := range shells {
		t.Run(sh.name, func(t *testing.T) {
			t.Parallel()
			r := newRig(t, sh)
			cmd := byShell{posix: probe, fish: "sh -c '" + probe + "'"}.in(t, sh)
			clear := byShell{posix: "unset PAGER GIT_PAGER MANPAGER SYSTEMD_PAGER GIT_TERMINAL_PROMPT", fish: "set -e PAGER GIT_PAGER MANPAGER SYSTEMD_PAGER GIT_TERMINAL_PROMPT; true"}
			wantCompleted(t, r.run(t, domain.RunRequest{Command: clear.in(t, sh), Persist: true}), "", 0)
			r.settle(t, r.pane)
			wantCompleted(t, r.run(t, domain.RunRequest{Command: cmd}), "cat|cat|cat||0", 0)
			r.settle(t, r.pane)
			wantCompleted(t, r.run(t, domain.RunRequest{Command: cmd, Persist: true}), unset, 0)
			r.settle(t, r.pane)

			// -agent-env=false: the subshell has the shell's environment.
			cfg := domain.Config{WaitMax: 60 * time.Second, MaxResultLines: 200, NoAgentEnv: true}
			plain := domain.NewService(r.srv.terminal(t, tmux.Options{}), clock.New(), random.New(), cfg)
			t.Cleanup(func() { plain.Close() })
			res, err := plain.RunShellCommand(itContext(t), domain.RunRequest{PaneID: r.pane, Command: cmd, TimeoutMs: 20_000})
			if err != nil {
				t.Fatal(err)
			}
			wantCompleted(t, res, unset, 0)
		})
	}
}

// The documented limits of persist, as they are: exit in a shell nested
// in the pane's ends that shell, and the call ends once it is seen gone;
// return and a C-c make the shell drop the frame's end, and the call ends
// once the shell is seen back. Each leaves the pane free, status unknown.
func TestTmuxPersistLimitsLeaveThePaneFree(t *testing.T) {
	needTmux(t)
	r := newRig(t, bash)
	abandoned := func(what string, res domain.RunResult) {
		t.Helper()
		if res.Outcome != domain.OutcomeCompleted || res.ExitStatus != nil || !res.Abandoned {
			t.Errorf("%s: %+v; want completed, the frame given up, no status", what, res)
		}
		r.settle(t, r.pane)
		wantCompleted(t, r.run(t, domain.RunRequest{Command: "echo free"}), "free", 0)
		r.settle(t, r.pane)
	}
	r.srv.tmux(t, "send-keys", "-t", string(r.pane), "-l", "PS1='$ ' bash --norc --noprofile")
	r.srv.tmux(t, "send-keys", "-t", string(r.pane), "Enter")
	eventually(t, 10*time.Second, "the nested bash", func() bool {
		return strings.Count(r.srv.screen(t, r.pane), "$") >= 2
	})
	abandoned("exit in a nested shell", r.run(t, domain.RunRequest{Command: "echo bye; exit 3", Persist: true}))
	abandoned("return", r.run(t, domain.RunRequest{Command: "return 3", Persist: true}))

	done := make(chan domain.RunResult, 1)
	go func() {
		res, _ := r.svc.RunShellCommand(itContext(t), domain.RunRequest{PaneID: r.pane, Command: "sleep 30", Persist: true, TimeoutMs: 20_000})
		done <- res
	}()
	eventually(t, 10*time.Second, "sleep in front", func() bool {
		return r.srv.tmux(t, "display-message", "-p", "-t", string(r.pane), "#{pane_current_command}") == "sleep"
	})
	r.srv.tmux(t, "send-keys", "-t", string(r.pane), "C-c")
	select {
	case res := <-done:
		abandoned("C-c", res)
	case <-time.After(15 * time.Second):
		t.Fatal("the call never returned")
	}
}
