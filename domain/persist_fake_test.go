package domain_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/domain/frame"
)

// How a command runs: in a child shell with the agent's environment by
// default, in the shell itself with persist.

func TestACommandRunsInAChildShellWithTheAgentsEnvironmentByDefault(t *testing.T) {
	for _, sh := range []string{"bash", "zsh", "dash", "mksh", "fish"} {
		t.Run(sh, func(t *testing.T) {
			r := newRig(t, domain.DefaultConfig())
			r.term.SetCommand(r.pane, sh)
			res := r.run(domain.RunRequest{Command: "echo hi"})
			if res.Outcome != domain.OutcomeCompleted || res.Output != "hi" {
				t.Fatalf("run = %+v", res)
			}
			if got := r.term.FrameOptions(r.pane); !slices.Equal(got, []frame.Options{{AgentEnv: true}}) {
				t.Errorf("the frame ran with %+v, want a child shell with the agent's environment", got)
			}
		})
	}
}

func TestNoAgentEnvLeavesTheChildShellsEnvironmentAlone(t *testing.T) {
	cfg := domain.DefaultConfig()
	cfg.NoAgentEnv = true
	r := newRig(t, cfg)
	r.run(domain.RunRequest{Command: "echo hi"})
	if got := r.term.FrameOptions(r.pane); !slices.Equal(got, []frame.Options{{}}) {
		t.Errorf("the frame ran with %+v, want a child shell with the shell's environment", got)
	}
}

func TestPersistRunsTheCommandInTheShellWithItsOwnEnvironment(t *testing.T) {
	for _, sh := range []string{"bash", "zsh", "dash", "mksh", "fish"} {
		t.Run(sh, func(t *testing.T) {
			r := newRig(t, domain.DefaultConfig())
			r.term.SetCommand(r.pane, sh)
			res := r.run(domain.RunRequest{Command: "printf 'a\\n'; false", Persist: true})
			if res.Outcome != domain.OutcomeCompleted || res.Output != "a" || status(res) != "1" || !res.OutputComplete {
				t.Fatalf("run = %+v, status %s; want completed, a, 1", res, status(res))
			}
			if got := r.term.FrameOptions(r.pane); !slices.Equal(got, []frame.Options{{Persist: true}}) {
				t.Errorf("the frame ran with %+v, want the shell itself and no agent environment", got)
			}
			r.released()
		})
	}
}

func TestPersistedExitEndsTheShellAsPaneDied(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	res := r.run(domain.RunRequest{Command: "echo bye; exit 3", Persist: true})
	if res.Outcome != domain.OutcomePaneDied || res.ExitStatus != nil || res.StillRunning {
		t.Fatalf("run = %+v; want pane_died", res)
	}
	// The default runs exit in the child shell, which the pane outlives.
	r2 := newRig(t, domain.DefaultConfig())
	if res := r2.run(domain.RunRequest{Command: "exit 3"}); res.Outcome != domain.OutcomeCompleted || status(res) != "3" {
		t.Fatalf("default run = %+v", res)
	}
}

func TestPersistInAPaneWithoutASupportedShellIsRefusedWithNothingTyped(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.term.SetCommand(r.pane, "python3")
	_, err := r.svc.RunShellCommand(t.Context(), domain.RunRequest{PaneID: r.pane, Command: "cd /tmp", Persist: true})
	var refusal *fault.RefusalError
	if !errors.As(err, &refusal) || refusal.Why != fault.RefusedNotAShell {
		t.Fatalf("err = %v; want refused as not a shell", err)
	}
	if sent := r.term.Sent(r.pane); len(sent) != 0 {
		t.Errorf("typed %q into the pane", sent)
	}
}

// A shell nested in the pane's that exit ends leaves no end to wait for:
// once it is seen gone, with another shell in front, the run ends as one
// the shell gave up, and the pane is free.
func TestAFrameWhoseShellExitedEndsWithThePaneFree(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.term.Expect(r.pane, fake.Run{Hang: true})
	reply := r.runAsync(t.Context(), domain.RunRequest{Command: "exit", Persist: true, TimeoutMs: 60_000})
	r.waitTimers(2)
	r.term.NestedShellExits(r.pane)
	r.waitTimers(2)
	r.clock.Advance(domain.DefaultConfig().LivenessInterval)
	got := r.await(reply)
	if got.err != nil || got.res.Outcome != domain.OutcomeCompleted || got.res.ExitStatus != nil || !got.res.Abandoned || got.res.OutputComplete {
		t.Fatalf("run = %+v, %v; want completed, abandoned, no status", got.res, got.err)
	}
	r.released()
	if res := r.run(domain.RunRequest{Command: "echo next"}); res.Output != "next" {
		t.Errorf("next run = %+v", res)
	}
}
