package domain_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/domain/frame"
	"github.com/tmux-mcp/tmux-mcp/domain/lifecycle"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// These tests hold run_shell_command to its promise on the panes agents
// really meet: a shell that never runs the typed line, a pane whose
// process is replaced, output shaped like the markers, a command that
// forges its own end.

func TestRunOutputEndsWithoutTheLineBreakBeforeTheEnd(t *testing.T) {
	for _, c := range []struct{ command, output string }{
		{"echo hi", "hi"},
		{"printf 'a\\nb\\n'", "a\nb"},
		{"printf x", "x"},
		{"printf 'a\\n\\n'", "a\n"},
		{"printf '\\n'", ""},
		{"true", ""},
	} {
		t.Run(c.command, func(t *testing.T) {
			r := newRig(t, domain.DefaultConfig())
			res := r.run(domain.RunRequest{Command: c.command})
			if res.Output != c.output || res.ReturnedBytes != int64(len(c.output)) || !res.OutputComplete {
				t.Errorf("output %q (%d bytes, complete %v), want %q", res.Output, res.ReturnedBytes, res.OutputComplete, c.output)
			}
		})
	}
}

func TestRunPartialOutputEndsWithoutItsLastLineBreakToo(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.term.Expect(r.pane, fake.Run{Output: "one\ntwo\n", Hang: true})
	reply := r.runAsync(context.Background(), domain.RunRequest{Command: "x", TimeoutMs: 1000})
	r.waitTimers(2)
	r.clock.Advance(time.Second)
	got := r.await(reply)
	if got.res.Outcome != domain.OutcomeTimedOut || got.res.Output != "one\ntwo" || got.res.ReturnedBytes != 7 {
		t.Fatalf("got %+v, %v", got.res, got.err)
	}
	r.term.SendKeys(context.Background(), r.pane, []string{"C-c"})
	r.released()
}

func TestRunMaxLinesCountsTheTextAsReturned(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	res := r.run(domain.RunRequest{Command: "printf 'a\\nb\\nc\\n'", MaxLines: 2})
	if res.Output != "b\nc" || res.DroppedLines != 1 || res.ReturnedBytes != 3 || res.OutputComplete {
		t.Errorf("got %+v", res)
	}
}

func TestRunTypesAShortLineThatSaysWhatRuns(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	long := strings.Repeat("echo 'a line of a long command, 48 bytes long'\n", 1500)
	r.run(domain.RunRequest{Command: long})
	var typed string
	for _, in := range r.term.Sent(r.pane) {
		typed += in.Text
	}
	if len(typed) > 200 || !strings.Contains(typed, "a line of a long command") {
		t.Errorf("typed %d bytes: %.200q; want one short line that shows the command", len(typed), typed)
	}
	if got := r.term.Commands(r.pane); len(got) != 1 || got[0] != long {
		t.Errorf("the shell ran %d commands, want the long one exactly once", len(got))
	}
	if scripts := r.term.Scripts(); len(scripts) != 0 {
		t.Errorf("scripts left behind: %q", scripts)
	}
}

// A frame typed into an open quote never runs: at the deadline the call
// says so, withdraws the line, and the pane is free at once.
func TestRunIntoAnOpenQuoteIsWithdrawnAtTheDeadline(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	if err := r.term.SendText(context.Background(), r.pane, "echo 'abc\n"); err != nil {
		t.Fatal(err)
	}
	reply := r.runAsync(context.Background(), domain.RunRequest{Command: "echo never", TimeoutMs: 2000})
	r.waitTimers(2)
	r.clock.Advance(2 * time.Second)
	r.waitTimer(domain.WithdrawGrace) // for a start that raced with the withdrawal
	r.clock.Advance(time.Second)
	got := r.await(reply)
	res := got.res
	if got.err != nil || res.Outcome != domain.OutcomeTimedOut || res.StillRunning || !res.NotStarted || res.ExitStatus != nil {
		t.Fatalf("got %+v, %v; want timed_out, not running, not started", res, got.err)
	}
	select {
	case <-r.svc.Released(r.pane):
	default:
		t.Fatal("the pane is still reserved after a withdrawn command")
	}
	if scripts := r.term.Scripts(); len(scripts) != 0 {
		t.Errorf("the withdrawn command's script is still there: %q", scripts)
	}
	if last := r.term.Sent(r.pane); last[len(last)-1].Kind != fake.InputKeys || !slices.Equal(last[len(last)-1].Keys, []string{"C-c"}) {
		t.Errorf("the last input was %+v, want the C-c that clears the line", last[len(last)-1])
	}
	// The pane takes commands again, and the withdrawn one never runs.
	if res := r.run(domain.RunRequest{Command: "echo next"}); res.Output != "next" {
		t.Errorf("next command: %+v", res)
	}
	if got := r.term.Commands(r.pane); !slices.Equal(got, []string{"echo next"}) {
		t.Errorf("the shell ran %q, want only the next command", got)
	}
}

// A shell that reads the typed line only after the withdrawal finds no
// script to run: nothing runs late.
func TestRunWithdrawnLineRunsNothingWhenTheShellReadsItLate(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.term.SetStarting(r.pane, true)
	reply := r.runAsync(context.Background(), domain.RunRequest{Command: "echo late", TimeoutMs: 1000})
	r.waitTimers(2)
	r.clock.Advance(time.Second)
	r.waitTimer(domain.WithdrawGrace)
	r.clock.Advance(time.Second)
	if got := r.await(reply); !got.res.NotStarted || got.res.StillRunning {
		t.Fatalf("got %+v, %v", got.res, got.err)
	}
	// The tty threw the line away at the C-c; type it again by hand, as a
	// shell that kept it would read it.
	r.term.SetStarting(r.pane, false)
	var line string
	for _, in := range r.term.Sent(r.pane) {
		if in.Kind == fake.InputText {
			line = in.Text
		}
	}
	out := openOutput(t, r.term, r.pane)
	if err := r.term.SendText(context.Background(), r.pane, line); err != nil {
		t.Fatal(err)
	}
	if got := r.term.Commands(r.pane); len(got) != 0 {
		t.Errorf("the withdrawn command ran late: %q", got)
	}
	if data := out.ReadFrom(0).Data; !strings.Contains(string(data), "No such file") {
		t.Errorf("the late line printed %q, want the shell's error that the script is gone", data)
	}
}

func TestRunCancelledBeforeTheStartIsWithdrawnToo(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.term.SetStarting(r.pane, true)
	ctx, cancel := context.WithCancel(context.Background())
	reply := r.runAsync(ctx, domain.RunRequest{Command: "echo never"})
	r.waitTimers(2)
	cancel()
	r.waitTimer(domain.WithdrawGrace) // for a start that raced with the withdrawal
	r.clock.Advance(time.Second)
	got := r.await(reply)
	if got.res.Outcome != domain.OutcomeCancelled || got.res.StillRunning || !got.res.NotStarted {
		t.Fatalf("got %+v, %v", got.res, got.err)
	}
	r.released()
}

func TestRunWhoseScriptTheShellCannotReadIsAnError(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.term.SetStarting(r.pane, true)
	reply := r.runAsync(context.Background(), domain.RunRequest{Command: "echo x"})
	r.waitTimers(2)
	// The script vanishes before the shell reads it, as it would for a
	// shell that sees another filesystem.
	for _, path := range r.term.Scripts() {
		r.term.RemoveScript(context.Background(), r.pane, path)
	}
	r.term.SetStarting(r.pane, false)
	got := r.await(reply)
	if !errors.Is(got.err, fault.ErrNotRun) || !strings.Contains(got.err.Error(), "could not read") {
		t.Fatalf("got %+v, %v; want an error wrapping ErrNotRun", got.res, got.err)
	}
	r.released()
}

// A pane whose process is replaced ends the call as pane_died, without
// the new process's output, and frees the pane.
func TestRunEndsWhenThePanesProcessIsReplaced(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.term.Expect(r.pane, fake.Run{Output: "old output\n", Hang: true})
	reply := r.runAsync(context.Background(), domain.RunRequest{Command: "sleep 100"})
	r.waitTimers(2)
	r.clock.Advance(domain.DefaultConfig().LivenessInterval) // the old output is seen to be the old process's
	r.waitTimers(2)
	r.term.Replace(r.pane)
	r.term.Inject(r.pane, []byte("new shell's banner\r\n"))
	r.clock.Advance(domain.DefaultConfig().LivenessInterval)
	got := r.await(reply)
	res := got.res
	if got.err != nil || res.Outcome != domain.OutcomePaneDied || res.StillRunning || res.ExitStatus != nil {
		t.Fatalf("got %+v, %v; want pane_died", res, got.err)
	}
	if res.Output != "old output" || strings.Contains(res.Output, "$ ") || strings.Contains(res.Output, "banner") {
		t.Errorf("output %q; want the old process's output and none of the new one's", res.Output)
	}
	if res.OutputComplete || res.UnattributedBytes == 0 {
		t.Errorf("complete %v, unattributed %d; want the dropped bytes counted", res.OutputComplete, res.UnattributedBytes)
	}
	r.released()
	if res := r.run(domain.RunRequest{Command: "echo again"}); res.Output != "again" {
		t.Errorf("a run in the new process: %+v", res)
	}
}

func TestTimedOutRunEndsWhenThePanesProcessIsReplaced(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.term.Expect(r.pane, fake.Run{Hang: true})
	reply := r.runAsync(context.Background(), domain.RunRequest{Command: "sleep 100", TimeoutMs: 1000})
	r.waitTimers(2)
	r.clock.Advance(time.Second)
	if got := r.await(reply); got.res.Outcome != domain.OutcomeTimedOut || !got.res.StillRunning {
		t.Fatalf("got %+v, %v", got.res, got.err)
	}
	r.term.Replace(r.pane)
	r.waitTimers(1)
	r.clock.Advance(domain.DefaultConfig().LivenessInterval)
	r.released()
}

// The command cannot end its call by printing an end marker: one without
// the frame's secret is ignored. One with it (which only something that
// read the script or the shell's memory could print) is found false while
// the command still runs; the real end then ends the call, but with the
// secret out, its status is not taken on a marker's word.
func TestRunIgnoresEndMarkersTheCommandPrints(t *testing.T) {
	for _, c := range []struct {
		name       string
		forged     func() string
		unverified bool
	}{
		{"guessed secret", func() string { return string(frame.EndMarker(frame.IDs{ID: frameIDs.ID, Secret: "guess"}, 0)) }, false},
		{"no secret", func() string { return fmt.Sprintf("\x1b]7717;tmcp;E;%s;0\x07", frameIDs.ID) }, false},
		{"the secret itself", func() string { return string(frame.EndMarker(frameIDs, 0)) }, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t, domain.DefaultConfig())
			r.term.Expect(r.pane, fake.Run{Output: "working\n" + c.forged() + "still working\n", Hang: true})
			reply := r.runAsync(context.Background(), domain.RunRequest{Command: "forge; sleep 100"})
			r.waitTimers(2)
			select {
			case got := <-reply:
				t.Fatalf("the call ended on a forged end marker: %+v, %v", got.res, got.err)
			default:
			}
			// The real end: C-c, which the frame turns into status 130.
			r.term.SendKeys(context.Background(), r.pane, []string{"C-c"})
			got := r.await(reply)
			res := got.res
			want := "130"
			if c.unverified {
				want = "null"
			}
			if res.Outcome != domain.OutcomeCompleted || status(res) != want || !res.ForeignOutputSuspected ||
				res.Unverified != c.unverified || res.OutputComplete == c.unverified {
				t.Fatalf("got %+v; want completed, status %s, the forgery flagged (unverified %v)", res, want, c.unverified)
			}
			if res.Output != "working\nstill working\n^C" {
				t.Errorf("output %q", res.Output)
			}
		})
	}
}

func TestRunWithoutJobControlTrustsTheSecret(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.term.SetNoJobControl(true, false)
	res := r.run(domain.RunRequest{Command: "echo remote"})
	if res.Outcome != domain.OutcomeCompleted || res.Output != "remote" || res.ForeignOutputSuspected {
		t.Fatalf("got %+v", res)
	}
}

func TestRunRefusesANULBeforeTyping(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	_, err := r.svc.RunShellCommand(context.Background(), domain.RunRequest{PaneID: r.pane, Command: "echo a\x00b"})
	var arg *fault.ArgumentError
	if !errors.As(err, &arg) || arg.Field != "command" || !strings.Contains(err.Error(), "NUL") {
		t.Fatalf("err = %v, want an ArgumentError about the NUL", err)
	}
	if sent := r.term.Sent(r.pane); len(sent) != 0 {
		t.Errorf("typed %+v", sent)
	}
	_, err = r.svc.SendKeys(context.Background(), domain.SendKeysRequest{PaneID: r.pane, Keys: "a\x00", Literal: true})
	if !errors.As(err, &arg) {
		t.Fatalf("send_keys literal NUL: %v, want an ArgumentError", err)
	}
	if sent := r.term.Sent(r.pane); len(sent) != 0 {
		t.Errorf("typed %+v", sent)
	}
}

// A NUL is refused wherever it is, first byte and last included, before
// anything is typed.
func TestANULIsRefusedWhereverItIs(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	for _, text := range []string{"\x00echo a", "echo a\x00"} {
		if _, err := r.svc.RunShellCommand(context.Background(), domain.RunRequest{PaneID: r.pane, Command: text}); !errors.Is(err, fault.ErrInvalidArgument) {
			t.Errorf("run_shell_command %q: %v, want an ArgumentError", text, err)
		}
		if _, err := r.svc.SendKeys(context.Background(), domain.SendKeysRequest{PaneID: r.pane, Keys: text, Literal: true}); !errors.Is(err, fault.ErrInvalidArgument) {
			t.Errorf("send_keys literal %q: %v, want an ArgumentError", text, err)
		}
	}
	if sent := r.term.Sent(r.pane); len(sent) != 0 {
		t.Errorf("typed %+v", sent)
	}
}

// In copy mode every write is refused but the keys that leave the mode.
func TestSendKeysReachesAPanesModeSoThatItCanBeLeft(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.term.SetMode(r.pane, "copy-mode")
	_, err := r.svc.RunShellCommand(context.Background(), domain.RunRequest{PaneID: r.pane, Command: "true"})
	var refusal *fault.RefusalError
	if !errors.As(err, &refusal) || refusal.Why != fault.RefusedInMode || !strings.Contains(err.Error(), "copy-mode") {
		t.Fatalf("run in copy mode: %v, want a refusal for the mode, naming it", err)
	}
	if _, err := r.svc.PasteText(context.Background(), domain.PasteRequest{PaneID: r.pane, Text: "x"}); !errors.Is(err, fault.ErrRefused) {
		t.Fatalf("paste in copy mode: %v, want a refusal", err)
	}
	res, err := r.svc.SendKeys(context.Background(), domain.SendKeysRequest{PaneID: r.pane, Keys: "q"})
	if err != nil || !slices.Equal(res.Sent, []string{"q"}) {
		t.Fatalf("send_keys q in copy mode: %+v, %v", res, err)
	}
	// Watched and unknown still refuse.
	r.term.Attach(r.pane, "/dev/pts/7")
	if _, err := r.svc.SendKeys(context.Background(), domain.SendKeysRequest{PaneID: r.pane, Keys: "q"}); !errors.Is(err, fault.ErrRefused) {
		t.Fatalf("send_keys to a watched pane in copy mode: %v", err)
	}
}

// A new pane's shell is waited for before anything is typed into it.
func TestRunWaitsForAStartingShell(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.term.SetStarting(r.pane, true)
	r.svc.ExpectStartingShell(r.pane)
	reply := r.runAsync(context.Background(), domain.RunRequest{Command: "echo ready"})
	r.waitTimer(domain.StartingPoll) // the next look at the shell
	r.clock.Advance(domain.StartingPoll)
	r.waitTimer(domain.StartingPoll)
	if sent := r.term.Sent(r.pane); len(sent) != 0 {
		t.Fatalf("typed %+v into a shell still starting", sent)
	}
	r.term.SetStarting(r.pane, false)
	r.clock.Advance(domain.StartingPoll)
	got := r.await(reply)
	if got.err != nil || got.res.Output != "ready" {
		t.Fatalf("got %+v, %v", got.res, got.err)
	}
	if got.res.EffectiveTimeoutMs != 30000 {
		t.Errorf("effective timeout %d", got.res.EffectiveTimeoutMs)
	}
}

// A login shell's rc files run programs of their own in front of the
// terminal (.profile runs mesg): neither a run nor a paste is refused or
// typed into them; both wait for the shell.
func TestAStartingPaneIsWaitedForWhileItsRcFilesRunPrograms(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.term.SetStarting(r.pane, true)
	r.term.SetCommand(r.pane, "mesg")
	r.svc.ExpectStartingShell(r.pane)
	reply := r.runAsync(context.Background(), domain.RunRequest{Command: "echo ready"})
	r.waitTimer(domain.StartingPoll)
	r.clock.Advance(domain.StartingPoll)
	r.waitTimer(domain.StartingPoll)
	if sent := r.term.Sent(r.pane); len(sent) != 0 {
		t.Fatalf("typed %+v while the rc files' program was in front", sent)
	}
	r.term.SetCommand(r.pane, "bash") // the rc files are done; the line editor is not yet
	r.clock.Advance(domain.StartingPoll)
	r.waitTimer(domain.StartingPoll)
	r.term.SetStarting(r.pane, false)
	r.clock.Advance(domain.StartingPoll)
	if got := r.await(reply); got.err != nil || got.res.Output != "ready" {
		t.Fatalf("run = %+v, %v; want it run once the shell reads", got.res, got.err)
	}

	// The same for a paste, within the paste's own bound.
	p := r.term.AddPane(fake.PaneSpec{})
	r.term.SetStarting(p, true)
	r.term.SetCommand(p, "pyenv")
	r.svc.ExpectStartingShell(p)
	done := make(chan error, 1)
	r.calls.start("paste_text", func() (any, error) {
		res, err := r.svc.PasteText(context.Background(), domain.PasteRequest{PaneID: p, Text: "typed"})
		done <- err
		return res, err
	})
	r.waitTimer(domain.StartingPoll)
	if sent := r.term.Sent(p); len(sent) != 0 {
		t.Fatalf("pasted %+v into the rc files' program", sent)
	}
	r.term.SetCommand(p, "zsh")
	r.term.SetStarting(p, false)
	r.clock.Advance(domain.StartingPoll)
	if err := <-done; err != nil {
		t.Fatalf("paste once the shell reads: %v", err)
	}
}

// A starting pane stops being one once its shell has been seen reading
// input: a program in front of it later is judged as it is, and refuses a
// run at once rather than being waited out as the rc files' own.
func TestAPaneWhoseShellWasSeenReadingIsNoLongerStarting(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.svc.ExpectStartingShell(r.pane) // the shell is ready at once
	if res := r.run(domain.RunRequest{Command: "echo ready"}); res.Output != "ready" {
		t.Fatalf("first run: %+v", res)
	}
	r.term.SetCommand(r.pane, "vim")
	r.clock.Advance(domain.PromptGrace) // long past the prompt that followed the run
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	reply := r.runAsync(ctx, domain.RunRequest{Command: "true"})
	waited := make(chan struct{})
	go func() {
		if r.clock.WaitForTimer(ctx, domain.StartingPoll) == nil {
			close(waited)
		}
	}()
	select {
	case got := <-reply:
		var refusal *fault.RefusalError
		if !errors.As(got.err, &refusal) || refusal.Why != fault.RefusedNotAShell {
			t.Errorf("run with vim in front: %+v, %v; want refused as not a shell", got.res, got.err)
		}
	case <-waited:
		cancel()
		t.Errorf("the run waited for the shell, as for a pane still starting")
	}
}

// A pane the Service did not see start is judged as it is: a program in
// front of it that is not a shell refuses a run at once.
func TestAPaneNotStartingIsNotWaitedFor(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.term.SetCommand(r.pane, "vim")
	var refusal *fault.RefusalError
	if _, err := r.svc.RunShellCommand(context.Background(), domain.RunRequest{PaneID: r.pane, Command: "true"}); !errors.As(err, &refusal) || refusal.Why != fault.RefusedNotAShell {
		t.Fatalf("run with vim in front: %v, want refused as not a shell", err)
	}
}

func TestRunGivesUpOnAShellThatNeverStartsWithoutTyping(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.term.SetStarting(r.pane, true)
	r.svc.ExpectStartingShell(r.pane)
	reply := r.runAsync(context.Background(), domain.RunRequest{Command: "echo x", TimeoutMs: 500})
	r.waitTimers(2)
	r.clock.Advance(500 * time.Millisecond)
	got := r.await(reply)
	if got.err != nil || got.res.Outcome != domain.OutcomeTimedOut || got.res.StillRunning || !got.res.NotStarted {
		t.Fatalf("got %+v, %v", got.res, got.err)
	}
	if sent := r.term.Sent(r.pane); len(sent) != 0 {
		t.Fatalf("typed %+v into a shell that never started", sent)
	}
	r.released()
}

func TestPanesTheServiceCreatesAreWaitedFor(t *testing.T) {
	clock := fake.NewClock(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
	term := fake.New(fake.WithClock(clock))
	svc := newServer(t, term, fake.NewManager(term), clock, domain.DefaultConfig(), nil, "")
	created, err := svc.life.CreateSession(context.Background(), lifecycle.CreateSessionRequest{})
	if err != nil {
		t.Fatal(err)
	}
	term.SetStarting(created.Pane, true)
	done := make(chan error, 1)
	var running calls
	running.start("paste_text", func() (any, error) {
		res, err := svc.PasteText(context.Background(), domain.PasteRequest{PaneID: created.Pane, Text: "typed"})
		done <- err
		return res, err
	})
	running.waitTimer(t, clock, domain.StartingPoll)
	if sent := term.Sent(created.Pane); len(sent) != 0 {
		t.Fatalf("pasted %+v into a starting shell", sent)
	}
	term.SetStarting(created.Pane, false)
	clock.Advance(domain.StartingPoll)
	if err := <-done; err != nil {
		t.Fatalf("paste once the shell started: %v", err)
	}
}

// Close gives back what the commands that outlived their calls hold.
func TestCloseReleasesTheCommandsThatOutlivedTheirCalls(t *testing.T) {
	var events []domain.Event
	r := newRig(t, domain.DefaultConfig(), domain.WithEvents(func(e domain.Event) { events = append(events, e) }))
	r.term.Expect(r.pane, fake.Run{Hang: true})
	reply := r.runAsync(context.Background(), domain.RunRequest{Command: "sleep 1000", TimeoutMs: 1000})
	r.waitTimers(2)
	r.clock.Advance(time.Second)
	if got := r.await(reply); !got.res.StillRunning {
		t.Fatalf("got %+v", got.res)
	}
	if err := r.svc.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-r.svc.Released(r.pane):
	default:
		t.Fatal("Close left the pane reserved")
	}
	if len(events) != 1 || events[0].Kind != domain.EventAbandoned || events[0].Pane != r.pane || !strings.Contains(events[0].Message, "sleep 1000") {
		t.Errorf("events %+v, want one abandoned command naming it", events)
	}
}

func openOutput(t *testing.T, term *fake.Terminal, id ports.PaneID) ports.OutputStream {
	t.Helper()
	s, err := term.OpenOutput(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// An end marker lost in a gap of the stream is made up for by the status
// the script leaves in its file: the call ends, and the pane is free.
func TestRunEndsWhenItsEndMarkerWasLost(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.term.Expect(r.pane, fake.Run{Output: "before\n", Hang: true})
	reply := r.runAsync(context.Background(), domain.RunRequest{Command: "sleep 100"})
	r.waitTimers(2)
	r.term.Blind(r.pane, true)
	r.term.SendKeys(context.Background(), r.pane, []string{"C-c"}) // the command ends with 130, unseen
	r.term.Blind(r.pane, false)
	r.clock.Advance(domain.DefaultConfig().LivenessInterval)
	got := r.await(reply)
	res := got.res
	if res.Outcome != domain.OutcomeCompleted || status(res) != "130" || res.MissedBytes == 0 || res.OutputComplete {
		t.Fatalf("got %+v, %v; want completed 130, with the gap counted", res, got.err)
	}
	if !strings.HasPrefix(res.Output, "before") {
		t.Errorf("output %q", res.Output)
	}
	r.released()
}

func TestTimedOutRunEndsWhenItsEndMarkerWasLost(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.term.Expect(r.pane, fake.Run{Hang: true})
	reply := r.runAsync(context.Background(), domain.RunRequest{Command: "sleep 100", TimeoutMs: 1000})
	r.waitTimers(2)
	r.clock.Advance(time.Second)
	if got := r.await(reply); !got.res.StillRunning {
		t.Fatalf("got %+v", got.res)
	}
	r.term.Blind(r.pane, true)
	r.term.SendKeys(context.Background(), r.pane, []string{"C-c"})
	r.term.Blind(r.pane, false)
	r.waitTimers(1)
	r.clock.Advance(domain.DefaultConfig().LivenessInterval)
	r.released()
}

// An end marker printed while the command still ran is no end, even once
// the command has ended, when the real end marker was lost in a gap. The
// status the script left in its file is not taken either: whatever knew
// the secret could have written the file too. The call ends once the
// shell has been back, quiet, for quietChecks liveness checks.
func TestAnEndMarkerPrintedWhileTheCommandRanIsNotTakenForALostOne(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.term.Expect(r.pane, fake.Run{Output: "a\n" + string(frame.EndMarker(frameIDs, 0)) + "b\n", Hang: true, KeepsTerminal: true})
	reply := r.runAsync(context.Background(), domain.RunRequest{Command: "forge"})
	r.waitTimers(2) // the run has read the false end
	r.term.Blind(r.pane, true)
	r.term.SendKeys(context.Background(), r.pane, []string{"C-c"}) // the command ends with 130, unseen
	r.term.Blind(r.pane, false)
	for range 40 - 1 { // domain's quietChecks
		r.clock.Advance(domain.DefaultConfig().LivenessInterval)
		select {
		case got := <-reply:
			t.Fatalf("the call ended before the quiet checks: %+v, %v", got.res, got.err)
		default:
		}
		r.waitTimers(2)
	}
	r.clock.Advance(domain.DefaultConfig().LivenessInterval)
	got := r.await(reply)
	if got.err != nil || got.res.Outcome != domain.OutcomeCompleted || got.res.ExitStatus != nil || !got.res.Unverified ||
		!got.res.ForeignOutputSuspected || got.res.OutputComplete || got.res.Output != "a\nb" {
		t.Fatalf("got %+v, %v; want completed, its status unknown, the false end flagged and what followed it kept", got.res, got.err)
	}
}

// zsh runs a subshell of builtins in its own group: the group in front
// does not change, but the shell has a child it did not have before.
func TestRunIgnoresAnEndMarkerPrintedBeforeTheTerminalChangesHands(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.term.Expect(r.pane, fake.Run{Output: "a\n" + string(frame.EndMarker(frameIDs, 0)) + "b\n", Hang: true, KeepsTerminal: true})
	reply := r.runAsync(context.Background(), domain.RunRequest{Command: "forge"})
	r.waitTimers(2)
	select {
	case got := <-reply:
		t.Fatalf("the call ended on an end marker printed while the command ran: %+v", got.res)
	default:
	}
	r.term.SendKeys(context.Background(), r.pane, []string{"C-c"})
	got := r.await(reply)
	if got.res.Outcome != domain.OutcomeCompleted || got.res.ExitStatus != nil || !got.res.Unverified || !got.res.ForeignOutputSuspected {
		t.Fatalf("got %+v; want the real end, its status not taken, flagged", got.res)
	}
}

// A new pane whose program stays another than a shell (create_session
// with a command that is none, or a shell the rc files of which never end)
// is waited for within a paste's bound once, and refused with what is in
// front; the next paste goes to that program at once, rather than every
// paste waiting and being refused for good.
func TestAStartingPaneWithAnotherProgramInFrontIsWaitedForOnce(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.term.SetCommand(r.pane, "python3")
	r.svc.ExpectStartingShell(r.pane)
	done := make(chan error, 1)
	r.calls.start("paste_text", func() (any, error) {
		res, err := r.svc.PasteText(context.Background(), domain.PasteRequest{PaneID: r.pane, Text: "print(6*7)"})
		done <- err
		return res, err
	})
	for range 10 * time.Second / domain.StartingPoll {
		r.waitTimer(domain.StartingPoll)
		r.clock.Advance(domain.StartingPoll)
	}
	err := <-done
	if !errors.Is(err, fault.ErrRefused) || !strings.Contains(err.Error(), `"python3"`) || !strings.Contains(err.Error(), "paste again") {
		t.Fatalf("the first paste: %v; want it refused, naming python3 and saying to paste again", err)
	}
	if _, err := r.svc.PasteText(context.Background(), domain.PasteRequest{PaneID: r.pane, Text: "print(6*7)"}); err != nil {
		t.Fatalf("the second paste: %v; want it pasted at once", err)
	}
	if sent := r.term.Sent(r.pane); !slices.ContainsFunc(sent, func(in fake.Input) bool { return in.Text == "print(6*7)" }) {
		t.Errorf("sent %+v; want the text pasted", sent)
	}
}

// Keys pressed in a new pane make whoever pressed them its driver (they
// may start a program that is no shell): a paste after them is not held
// back for the shell.
func TestKeysPressedInAStartingPaneEndItsWait(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.svc.ExpectStartingShell(r.pane)
	if _, err := r.svc.SendKeys(context.Background(), domain.SendKeysRequest{PaneID: r.pane, Keys: "python3 -q", Literal: true, Enter: true}); err != nil {
		t.Fatal(err)
	}
	r.term.SetCommand(r.pane, "python3")
	if _, err := r.svc.PasteText(context.Background(), domain.PasteRequest{PaneID: r.pane, Text: "print(6*7)"}); err != nil {
		t.Fatalf("paste after send_keys started a program: %v; want it pasted at once", err)
	}
}

// A prompt that runs programs (a git prompt, starship, PROMPT_COMMAND) has
// one in front of the terminal for a moment after every command: the next
// run waits for the shell then, within PromptGrace of the command's end,
// rather than refuse the prompt's program as if the user ran it.
func TestARunRightAfterAnotherWaitsForAPromptThatRunsAProgram(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	if res := r.run(domain.RunRequest{Command: "echo one"}); res.Output != "one" {
		t.Fatalf("first run: %+v", res)
	}
	r.term.SetCommand(r.pane, "git") // the prompt asks git for the branch
	reply := r.runAsync(context.Background(), domain.RunRequest{Command: "echo two"})
	r.waitTimer(domain.StartingPoll)
	if sent := r.term.Sent(r.pane); len(sent) != 1 {
		t.Fatalf("typed %+v while the prompt's program was in front", sent)
	}
	r.term.SetCommand(r.pane, "") // the prompt is drawn: the shell is back
	r.clock.Advance(domain.StartingPoll)
	if got := r.await(reply); got.err != nil || got.res.Output != "two" {
		t.Fatalf("second run: %+v, %v; want it run once the shell was back", got.res, got.err)
	}

	// A program still in front when the grace has passed is judged as it is.
	r.term.SetCommand(r.pane, "git")
	reply = r.runAsync(context.Background(), domain.RunRequest{Command: "echo three"})
	r.pollThrough(domain.PromptGrace)
	r.refusedNotAShell(reply, "third run")
}
