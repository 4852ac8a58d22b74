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
)

// A person typed `read -p 'Password: ' pw` at the shell's prompt: the
// shell itself reads the next line, with no child in front, and a frame
// typed now would be its answer. A line-editing shell's terminal tells:
// raw at its prompt, canonical while it reads.

// pollsOf is how many StartingPoll intervals make d.
func pollsOf(d time.Duration) int { return int(d / domain.StartingPoll) }

// askingAfterAPrompt returns a rig whose shell was seen at its prompt, by
// a run, and now reads a line itself after printing prompt.
func askingAfterAPrompt(t *testing.T, prompt string) *rig {
	t.Helper()
	r := newRig(t, domain.DefaultConfig())
	if res := r.run(domain.RunRequest{Command: "echo at the prompt"}); res.Outcome != domain.OutcomeCompleted {
		t.Fatalf("first run: %+v", res)
	}
	r.term.Ask(r.pane, prompt)
	return r
}

func TestRunRefusesAShellReadingALineOfItsOwn(t *testing.T) {
	r := askingAfterAPrompt(t, "Password: ")
	sent := len(r.term.Sent(r.pane))
	reply := r.runAsync(context.Background(), domain.RunRequest{Command: "echo hi"})
	// It may be drawing its prompt still: the run waits a while for the
	// line editor, looking at every StartingPoll.
	for range pollsOf(domain.ReadingGrace) {
		r.waitTimer(domain.StartingPoll)
		r.clock.Advance(domain.StartingPoll)
	}
	got := r.await(reply)
	var refusal *fault.RefusalError
	if !errors.As(got.err, &refusal) || refusal.Why != fault.RefusedReading || !strings.Contains(got.err.Error(), "not at its prompt") {
		t.Fatalf("run into a shell's own read = %+v, %v; want a reading refusal", got.res, got.err)
	}
	if typed := r.term.Sent(r.pane)[sent:]; len(typed) != 0 {
		t.Errorf("typed %+v into the read", typed)
	}
	if a := r.term.Answers(r.pane); len(a) != 0 {
		t.Errorf("the read got %q", a)
	}
	// The person answers; the shell is at its prompt again.
	if _, err := r.svc.SendKeys(context.Background(), domain.SendKeysRequest{PaneID: r.pane, Keys: "C-c"}); err != nil {
		t.Fatal(err)
	}
	if res := r.run(domain.RunRequest{Command: "echo hi"}); res.Outcome != domain.OutcomeCompleted || res.Output != "hi" {
		t.Fatalf("at the prompt again: %+v", res)
	}
}

func TestRunWaitsForALineEditorThatComesBack(t *testing.T) {
	// Just after a command the shell runs its prompt hooks with the
	// terminal still canonical; the run waits and types once the line
	// editor is on.
	r := askingAfterAPrompt(t, "")
	reply := r.runAsync(context.Background(), domain.RunRequest{Command: "echo hi"})
	for range 3 {
		r.waitTimer(domain.StartingPoll)
		r.clock.Advance(domain.StartingPoll)
	}
	r.waitTimer(domain.StartingPoll)
	if err := r.term.SendText(context.Background(), r.pane, "\r"); err != nil { // the read ends: the prompt is back
		t.Fatal(err)
	}
	r.clock.Advance(domain.StartingPoll)
	if got := r.await(reply); got.err != nil || got.res.Output != "hi" {
		t.Fatalf("run = %+v, %v; want it typed once the line editor is back", got.res, got.err)
	}
	if a := r.term.Answers(r.pane); len(a) != 1 || a[0] != "" {
		t.Errorf("the read got %q, want only the empty line", a)
	}
}

func TestRunCannotTellAShellNeverSeenAtItsPrompt(t *testing.T) {
	// A shell met for the first time while it reads, or one without
	// line editing (dash, bash --noediting): its canonical terminal tells
	// nothing, and the line is typed, as the contract says.
	r := newRig(t, domain.DefaultConfig())
	r.term.Ask(r.pane, "Password: ")
	reply := r.runAsync(context.Background(), domain.RunRequest{Command: "echo hi", TimeoutMs: 2000})
	r.waitTimers(2)
	r.clock.Advance(2 * time.Second)
	r.waitTimer(domain.WithdrawGrace)
	r.clock.Advance(time.Second)
	if got := r.await(reply); got.err != nil || !got.res.NotStarted {
		t.Fatalf("run = %+v, %v; want it typed and withdrawn at its deadline", got.res, got.err)
	}
	if a := r.term.Answers(r.pane); len(a) != 1 || !strings.Contains(a[0], "echo hi") {
		t.Errorf("the read got %q, want the typed line", a)
	}

	dash := r.term.AddPane(fake.PaneSpec{Command: "dash"})
	for range 2 {
		if res := r.run(domain.RunRequest{PaneID: dash, Command: "echo hi"}); res.Outcome != domain.OutcomeCompleted {
			t.Fatalf("dash, never in raw mode: %+v", res)
		}
	}
}

// A call whose own wait is shorter than ReadingGrace ends at its deadline
// as any call does before it types: timed_out, nothing typed.
func TestRunWaitingForTheLineEditorEndsAtItsDeadline(t *testing.T) {
	r := askingAfterAPrompt(t, "Password: ")
	reply := r.runAsync(context.Background(), domain.RunRequest{Command: "echo hi", TimeoutMs: 100})
	for range pollsOf(100 * time.Millisecond) {
		r.waitTimer(domain.StartingPoll)
		r.clock.Advance(domain.StartingPoll)
	}
	got := r.await(reply)
	if got.err != nil || got.res.Outcome != domain.OutcomeTimedOut || !got.res.NotStarted || got.res.StillRunning {
		t.Fatalf("run = %+v, %v; want timed_out with nothing typed", got.res, got.err)
	}
	if a := r.term.Answers(r.pane); len(a) != 0 {
		t.Errorf("the read got %q", a)
	}
}

func TestRunRefusesAShellReplacedWhileItsLineEditorWasWaitedFor(t *testing.T) {
	// Its line editor came back on, but another process leads in front
	// of the terminal now: its line editor is not the shell's.
	r := askingAfterAPrompt(t, "")
	reply := r.runAsync(context.Background(), domain.RunRequest{Command: "echo hi"})
	r.waitTimer(domain.StartingPoll)
	r.term.Replace(r.pane)
	r.clock.Advance(domain.StartingPoll)
	got := r.await(reply)
	var refusal *fault.RefusalError
	if !errors.As(got.err, &refusal) || refusal.Why != fault.RefusedNotAShell || !strings.Contains(got.err.Error(), "came in front") {
		t.Fatalf("run = %+v, %v; want a not-a-shell refusal saying another program came in front", got.res, got.err)
	}
}

func TestRunIsCancelledWhileItWaitsForTheLineEditor(t *testing.T) {
	r := askingAfterAPrompt(t, "")
	ctx, cancel := context.WithCancel(context.Background())
	reply := r.runAsync(ctx, domain.RunRequest{Command: "echo hi"})
	r.waitTimer(domain.StartingPoll)
	cancel()
	got := r.await(reply)
	if got.err != nil || got.res.Outcome != domain.OutcomeCancelled || !got.res.NotStarted {
		t.Fatalf("run = %+v, %v; want cancelled with nothing typed", got.res, got.err)
	}
	if a := r.term.Answers(r.pane); len(a) != 0 {
		t.Errorf("the read got %q", a)
	}
}
