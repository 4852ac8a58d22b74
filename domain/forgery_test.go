package domain_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/domain/frame"
)

// These tests hold run_shell_command's end to its promise against another
// process of the same user: one that learns the frame's secret — from the
// end marker itself, once the real end is printed, or by reading the
// command's script before the shell empties it — and prints end markers
// of its own, or writes the script's file.

// The real end marker comes while a program the prompt runs is in front
// (a git prompt, PROMPT_COMMAND='sleep 0.3'); a process that read the
// secret off the pane prints an end marker with it a moment later and
// writes 0 into the status file. The first end stands: the call reports
// the command's status, and the pane is free.
func TestAnEndMarkerPrintedAfterTheRealOneChangesNothing(t *testing.T) {
	for _, overwrite := range []bool{false, true} {
		r := newRig(t, domain.DefaultConfig())
		r.term.Expect(r.pane, fake.Run{Output: "hello\n", Status: 3, Delay: time.Second})
		reply := r.runAsync(context.Background(), domain.RunRequest{Command: "echo hello; sleep 1; exit 3"})
		r.waitTimers(2)
		r.term.PromptRuns(r.pane, true) // the prompt's program, once the command is over
		r.clock.Advance(time.Second)
		got := r.await(reply)
		if got.err != nil || got.res.Outcome != domain.OutcomeCompleted || status(got.res) != "3" || got.res.Output != "hello" ||
			!got.res.OutputComplete || got.res.Unverified {
			t.Fatalf("overwrite %v: got %+v, %v; want completed 3 with its output, at once, though the prompt's program is in front",
				overwrite, got.res, got.err)
		}
		if overwrite {
			for _, p := range r.term.Scripts() {
				r.term.OverwriteScript(p, []byte("0\n"))
			}
		}
		r.term.Inject(r.pane, frame.EndMarker(frameIDs, 0))
		r.term.PromptRuns(r.pane, false)
		r.released()
		if res := r.run(domain.RunRequest{Command: "echo next"}); res.Output != "next" || status(res) != "0" {
			t.Fatalf("the next command: %+v", res)
		}
	}
}

// A file with a status in it says the script reached its end: with the
// prompt's program in front and the command never seen running, the end
// marker is confirmed at once, not once the prompt is drawn.
func TestAnEndUnderASlowPromptIsConfirmedByTheScriptsFile(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.term.SlowPrompt(r.pane, true)
	r.term.Expect(r.pane, fake.Run{Output: "x\n", Status: 4})
	res := r.run(domain.RunRequest{Command: "printf 'x\\n'; exit 4"})
	if res.Outcome != domain.OutcomeCompleted || status(res) != "4" || res.Output != "x" || res.Unverified {
		t.Fatalf("got %+v", res)
	}
	// It was in front all along: the call did not wait for the prompt.
	fg, err := r.term.Foreground(context.Background(), r.pane)
	if err != nil || fg.Group == 1000 {
		t.Fatalf("foreground %+v, %v; want the prompt's program still in front", fg, err)
	}
}

// An end marker with the secret that comes while what was seen running
// the command still runs is false, whatever the script's file says (a
// process that knows the secret can write the file too): the call goes on
// to the real end, whose status it then cannot take on a marker's word.
func TestAForgedEndWhileTheCommandIsSeenRunningIsFalseWhateverTheFileSays(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.term.Expect(r.pane, fake.Run{Output: "working\n", Hang: true})
	reply := r.runAsync(context.Background(), domain.RunRequest{Command: "sleep 100"})
	r.waitTimers(2)
	// A liveness check sees the command's job in front.
	r.clock.Advance(domain.DefaultConfig().LivenessInterval)
	r.waitTimers(2)
	for _, p := range r.term.Scripts() {
		r.term.OverwriteScript(p, []byte("0\n"))
	}
	r.term.Inject(r.pane, frame.EndMarker(frameIDs, 0))
	r.waitTimers(2)
	select {
	case got := <-reply:
		t.Fatalf("the call ended on a forged end marker: %+v, %v", got.res, got.err)
	default:
	}
	r.term.SendKeys(context.Background(), r.pane, []string{"C-c"})
	got := r.await(reply)
	if got.res.Outcome != domain.OutcomeCompleted || got.res.ExitStatus != nil || !got.res.Unverified ||
		!got.res.ForeignOutputSuspected || got.res.OutputComplete {
		t.Fatalf("got %+v; want the real end, its status not taken, flagged", got.res)
	}
	r.released()
}

// A script that another process read the moment it was written (it
// watches the script directory) is never typed: that process knows the
// frame's secret. The call is refused and leaves nothing behind.
func TestAScriptReadBeforeTypingIsWithdrawnAndTheCallRefused(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.term.ExposeScripts(true)
	_, err := r.svc.RunShellCommand(context.Background(), domain.RunRequest{PaneID: r.pane, Command: "echo hi"})
	var refusal *fault.RefusalError
	if !errors.As(err, &refusal) || refusal.Why != fault.RefusedExposed || !strings.Contains(err.Error(), "nothing was typed") {
		t.Fatalf("err = %v; want a refusal saying the script was read by another process", err)
	}
	if sent := r.term.Sent(r.pane); len(sent) != 0 {
		t.Errorf("typed %+v", sent)
	}
	if scripts := r.term.Scripts(); len(scripts) != 0 {
		t.Errorf("scripts left behind: %q", scripts)
	}
	r.released()
	r.term.ExposeScripts(false)
	if res := r.run(domain.RunRequest{Command: "echo next"}); res.Output != "next" || status(res) != "0" || res.Unverified {
		t.Fatalf("the next command: %+v", res)
	}
}

// A script read by another process after the line was typed, before the
// shell emptied it: the command runs and ends, but its end marker could
// have been that process's, so the result says the status is not known.
func TestAScriptReadAfterTypingLeavesTheEndUnverified(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.term.Expect(r.pane, fake.Run{Output: "out\n", Hang: true})
	reply := r.runAsync(context.Background(), domain.RunRequest{Command: "cat"})
	r.waitTimers(2)
	for _, p := range r.term.Scripts() {
		r.term.ExposeScript(p)
	}
	r.term.SendKeys(context.Background(), r.pane, []string{"C-c"})
	got := r.await(reply)
	if got.err != nil || got.res.Outcome != domain.OutcomeCompleted || got.res.ExitStatus != nil || !got.res.Unverified ||
		!got.res.ForeignOutputSuspected || got.res.OutputComplete || got.res.Output != "out\n^C" {
		t.Fatalf("got %+v, %v; want completed, unverified, with its output", got.res, got.err)
	}
	r.released()
}
