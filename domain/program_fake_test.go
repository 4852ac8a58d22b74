package domain_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// What runs in front of a pane is told by its executable, not by the name
// it was started under: `exec -a bash python3 -i -q` is a Python REPL
// that tmux, reading argv[0], reports as bash.

func TestRunRefusesAProgramStartedUnderAShellsName(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.term.SetProgram(r.pane, "python3.11") // still named bash
	err := r.await(r.runAsync(context.Background(), domain.RunRequest{Command: "echo hi"})).err
	var refusal *fault.RefusalError
	if !errors.As(err, &refusal) || refusal.Why != fault.RefusedNotAShell || !strings.Contains(err.Error(), `"python3.11" (started under the name "bash")`) {
		t.Fatalf("run into python3.11 named bash: %v, want a not-a-shell refusal naming both", err)
	}
	if sent := r.term.Sent(r.pane); len(sent) != 0 {
		t.Errorf("typed %+v into the REPL", sent)
	}
	// Back to bash (the REPL exited into a shell of the same pid, as far
	// as the fake cares): the pane takes a command.
	r.term.SetProgram(r.pane, "")
	if res := r.run(domain.RunRequest{Command: "echo hi"}); res.Outcome != domain.OutcomeCompleted || res.Output != "hi" {
		t.Fatalf("at bash's prompt again: %+v", res)
	}
}

func TestRunFramesTheCommandForTheShellThatRuns(t *testing.T) {
	// exec -a bash dash: a dash named bash reads a POSIX frame; bash's
	// frame (its history builtin) would not run there.
	r := newRig(t, domain.DefaultConfig())
	r.term.SetProgram(r.pane, "dash")
	r.term.Expect(r.pane, fake.Run{Output: "from dash\n"})
	// A frame the shell cannot read never ends: the call would wait for
	// the fake clock.
	got := r.await(r.runAsync(context.Background(), domain.RunRequest{Command: "echo from dash"}))
	if got.err != nil || got.res.Outcome != domain.OutcomeCompleted || got.res.Output != "from dash" {
		t.Fatalf("run in dash named bash = %+v, %v; want it framed for dash and completed", got.res, got.err)
	}
}

// zsh keeps the first frame typed into it in its history, unless
// HIST_IGNORE_SPACE is set, since it saves a line before running any of
// it: that line does not show the command. The frame's script sets up the
// hook that keeps the next ones out, and they show the command again.
func TestTheFirstFrameTypedIntoAZshDoesNotShowTheCommand(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	zsh := r.term.AddPane(fake.PaneSpec{Command: "zsh"})
	for _, pane := range []ports.PaneID{zsh, r.pane} {
		for i := range 2 {
			if res := r.run(domain.RunRequest{PaneID: pane, Command: "echo secret-token"}); res.Output != "secret-token" {
				t.Fatalf("run %d in %s: %+v", i, pane, res)
			}
		}
	}
	lines := func(pane ports.PaneID) []string {
		var typed []string
		for _, in := range r.term.Sent(pane) {
			typed = append(typed, in.Text)
		}
		return typed
	}
	z := lines(zsh)
	if len(z) != 2 || strings.Contains(z[0], "secret-token") || !strings.Contains(z[0], " : ''; ") || !strings.Contains(z[1], "secret-token") {
		t.Errorf("typed into zsh: %q; want the command left out of the first line only", z)
	}
	// A zsh of another process in the same pane is met for the first time.
	r.term.Respawn(zsh)
	r.run(domain.RunRequest{PaneID: zsh, Command: "echo secret-token"})
	if z := lines(zsh); len(z) != 3 || strings.Contains(z[2], "secret-token") {
		t.Errorf("typed into the respawned zsh: %q; want the command left out again", z[2:])
	}
	// bash's script deletes its line from the history: every line shows
	// the command.
	for _, line := range lines(r.pane) {
		if !strings.Contains(line, "secret-token") {
			t.Errorf("typed into bash: %q, want the command shown", line)
		}
	}
}
