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
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// These tests hold run_shell_command with farShell to its promise: a
// shell behind ssh (or docker exec, su, ...) in front of the pane runs the
// command with exact output and exit status, once the server can tell it
// is at its prompt and it answers a probe of its family; otherwise nothing
// of the command is typed.

// farRig is a rig whose pane has ssh in front, with a far shell of
// family far behind it that marks its prompt when marks is set.
func farRig(t *testing.T, far frame.Shell, marks bool) *rig {
	t.Helper()
	clock := fake.NewClock(time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC))
	term := fake.New(fake.WithClock(clock))
	r := &rig{t: t, term: term, clock: clock, ids: fake.NewIDs(), pane: term.AddPane(fake.PaneSpec{})}
	r.svc = domain.NewService(term, clock, r.ids, domain.DefaultConfig(), domain.WithLister(fake.NewManager(term)))
	t.Cleanup(func() { r.svc.Close() })
	r.term.SetFar(r.pane, "ssh", far, marks)
	return r
}

// refusedAs fails the test unless err is a refusal of kind why.
func refusedAs(t *testing.T, err error, why fault.Refusal) *fault.RefusalError {
	t.Helper()
	var refusal *fault.RefusalError
	if !errors.As(err, &refusal) || refusal.Why != why {
		t.Fatalf("err = %v; want refused as %s", err, why)
	}
	return refusal
}

// typed returns what was typed into the pane, joined.
func (r *rig) typed() string {
	var b strings.Builder
	for _, in := range r.term.Sent(r.pane) {
		b.WriteString(in.Text)
		b.WriteString(strings.Join(in.Keys, " "))
	}
	return b.String()
}

// primeFar makes a marking far shell's prompt known to the server: the
// first far call starts watching the pane and is refused with nothing
// typed, and an Enter has the far shell draw its prompt again.
func (r *rig) primeFar() {
	r.t.Helper()
	_, err := r.svc.RunShellCommand(context.Background(), domain.RunRequest{PaneID: r.pane, Command: "echo hi", FarShell: "bash"})
	refusedAs(r.t, err, fault.RefusedFarNotReady)
	if got := r.typed(); got != "" {
		r.t.Fatalf("a call refused for want of prompt marks typed %q", got)
	}
	if err := r.term.SendKeys(context.Background(), r.pane, []string{"Enter"}); err != nil {
		r.t.Fatal(err)
	}
}

func TestAFarShellThatMarksItsPromptRunsTheCommandExactly(t *testing.T) {
	for _, sh := range []frame.Shell{frame.ShellBash, frame.ShellZsh, frame.ShellSh, frame.ShellKsh, frame.ShellFish} {
		t.Run(string(sh), func(t *testing.T) {
			r := farRig(t, sh, true)
			_, err := r.svc.RunShellCommand(t.Context(), domain.RunRequest{PaneID: r.pane, Command: "echo hi", FarShell: string(sh)})
			refusedAs(t, err, fault.RefusedFarNotReady)
			r.term.SendKeys(t.Context(), r.pane, []string{"Enter"})
			res := r.run(domain.RunRequest{Command: "echo one; echo two; exit 3", FarShell: string(sh)})
			if res.Outcome != domain.OutcomeCompleted || status(res) != "3" || res.Output != "one\ntwo" || !res.OutputComplete || !res.Far {
				t.Fatalf("run = %+v; want completed, status 3, the output exactly, far", res)
			}
			if res.LeftRunning != nil || res.Input != nil {
				t.Errorf("a far run reports what it cannot see: left running %v, input %v", res.LeftRunning, res.Input)
			}
			if s := r.term.Scripts(); len(s) != 0 {
				t.Errorf("a far run put script files %v, which the far side cannot read", s)
			}
			if c := r.term.Commands(r.pane); len(c) != 1 || c[0] != "echo one; echo two; exit 3" {
				t.Errorf("the far shell ran %q", c)
			}
			r.released()
			// The shell is back at its prompt: the next call runs at once.
			if res := r.run(domain.RunRequest{Command: "printf 'a\\nb'", FarShell: string(sh)}); res.Output != "a\nb" || status(res) != "0" {
				t.Errorf("next run = %+v", res)
			}
		})
	}
}

func TestAFarCommandOfSeveralLinesRunsWhole(t *testing.T) {
	r := farRig(t, frame.ShellBash, true)
	r.primeFar()
	res := r.run(domain.RunRequest{Command: "echo 'it'\\''s'\necho two", FarShell: "bash"})
	if res.Output != "it's\ntwo" || status(res) != "0" || !res.OutputComplete {
		t.Fatalf("run = %+v", res)
	}
}

func TestAPaneWithAConnectorInFrontIsRefusedWithoutFarShellNamingIt(t *testing.T) {
	r := farRig(t, frame.ShellBash, true)
	_, err := r.svc.RunShellCommand(t.Context(), domain.RunRequest{PaneID: r.pane, Command: "echo hi"})
	refusal := refusedAs(t, err, fault.RefusedNotAShell)
	if !strings.Contains(refusal.Reason, "farShell") || !strings.Contains(refusal.Reason, `"ssh"`) {
		t.Errorf("the refusal %q does not name ssh and the farShell option", refusal.Reason)
	}
	if got := r.typed(); got != "" {
		t.Errorf("typed %q", got)
	}
}

// A caller who says farShell means the command for the far side: a shell
// of this host in front (the ssh session has ended) is not run in.
func TestFarShellIsRefusedWhenTheShellInFrontIsThisHosts(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	_, err := r.svc.RunShellCommand(t.Context(), domain.RunRequest{PaneID: r.pane, Command: "rm -rf build", FarShell: "bash"})
	refusedAs(t, err, fault.RefusedNotFar)
	if got := r.typed(); got != "" {
		t.Errorf("typed %q", got)
	}
}

func TestFarShellIsRefusedWhenThePaneRunsNoConnector(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.term.SetCommand(r.pane, "python3")
	_, err := r.svc.RunShellCommand(t.Context(), domain.RunRequest{PaneID: r.pane, Command: "print(1)", FarShell: "bash"})
	if refusal := refusedAs(t, err, fault.RefusedNotAShell); !strings.Contains(refusal.Reason, "ssh") {
		t.Errorf("the refusal %q does not list the programs it accepts", refusal.Reason)
	}
}

func TestFarShellArgumentsAreChecked(t *testing.T) {
	r := farRig(t, frame.ShellBash, true)
	for _, req := range []domain.RunRequest{
		{Command: "echo", FarShell: "csh"},
		{Command: "cd /", FarShell: "bash", Persist: true},
		{Command: "echo", FarShell: "bash", FarPrompt: "(", FarPromptRegex: true},
	} {
		req.PaneID = r.pane
		_, err := r.svc.RunShellCommand(t.Context(), req)
		var arg *fault.ArgumentError
		if !errors.As(err, &arg) {
			t.Errorf("%+v: err = %v; want an argument error", req, err)
		}
	}
	if got := r.typed(); got != "" {
		t.Errorf("typed %q", got)
	}
}

// A far side of another family (or no shell at all) does not answer the
// probe: only the probe was typed, it is withdrawn, and the command never
// reaches the far side.
func TestAFarSideThatDoesNotAnswerTheProbeIsTypedNothingMore(t *testing.T) {
	r := farRig(t, frame.ShellZsh, true)
	r.primeFar()
	reply := r.runAsync(t.Context(), domain.RunRequest{Command: "rm -rf build", FarShell: "bash"})
	r.waitTimer(domain.FarProbeWait)
	r.clock.Advance(domain.FarProbeWait)
	got := r.await(reply)
	refusedAs(t, got.err, fault.RefusedFarSilent)
	typed := r.typed()
	if strings.Contains(typed, "rm -rf") || !strings.Contains(typed, "tmcp;S;") || !strings.HasSuffix(typed, "C-c") {
		t.Errorf("typed %q; want the probe alone, then C-c", typed)
	}
	if c := r.term.Commands(r.pane); len(c) != 0 {
		t.Errorf("the far shell ran %q", c)
	}
	r.released()
}

// Marks that say a command runs on the far side (a line entered since
// the prompt) are waited on for FarReadyWait, then refused.
func TestAFarShellRunningACommandIsRefused(t *testing.T) {
	r := farRig(t, frame.ShellBash, true)
	r.primeFar()
	r.term.Expect(r.pane, fake.Run{Hang: true})
	r.term.SendText(t.Context(), r.pane, "sleep 100\n")
	before := len(r.term.Sent(r.pane))
	reply := r.runAsync(t.Context(), domain.RunRequest{Command: "echo hi", FarShell: "bash"})
	r.pollThrough(domain.FarReadyWait)
	got := r.await(reply)
	if refusal := refusedAs(t, got.err, fault.RefusedFarNotReady); !strings.Contains(refusal.Reason, "not at its prompt") {
		t.Errorf("reason %q", refusal.Reason)
	}
	if sent := r.term.Sent(r.pane)[before:]; len(sent) != 0 {
		t.Errorf("typed %q into a far shell that runs a command", sent)
	}
}

// A far shell without prompt marks is known by the prompt the caller
// names: the cursor line, the cursor at its end, on a quiet pane.
func TestAFarShellIsKnownByTheNamedPromptOnAQuietPane(t *testing.T) {
	r := farRig(t, frame.ShellBash, false)
	reply := r.runAsync(t.Context(), domain.RunRequest{Command: "echo far", FarShell: "bash", FarPrompt: `\$ ?`, FarPromptRegex: true})
	r.pollThrough(domain.DefaultConfig().InputQuiet)
	got := r.await(reply)
	if got.err != nil || got.res.Output != "far" || status(got.res) != "0" || !got.res.Far {
		t.Fatalf("run = %+v, %v", got.res, got.err)
	}
}

func TestANamedPromptThatIsNotOnTheCursorLineIsRefused(t *testing.T) {
	r := farRig(t, frame.ShellBash, false)
	r.term.SendText(t.Context(), r.pane, "half typed")
	before := len(r.term.Sent(r.pane))
	reply := r.runAsync(t.Context(), domain.RunRequest{Command: "echo far", FarShell: "bash", FarPrompt: "$ "})
	r.pollThrough(domain.FarReadyWait)
	got := r.await(reply)
	if refusal := refusedAs(t, got.err, fault.RefusedFarNotReady); !strings.Contains(refusal.Reason, "half typed") {
		t.Errorf("reason %q does not say what the cursor line holds", refusal.Reason)
	}
	if sent := r.term.Sent(r.pane)[before:]; len(sent) != 0 {
		t.Errorf("typed %q", sent)
	}
}

// A far frame the far shell gave up (its job died of a signal the frame
// does not catch) leaves no end marker; the shell's prompt marks back on a
// quiet pane end the run, its status unknown, and the pane is free.
func TestAFarFrameTheShellGaveUpDoesNotHoldThePane(t *testing.T) {
	r := farRig(t, frame.ShellBash, true)
	r.primeFar()
	r.term.Expect(r.pane, fake.Run{Output: "waiting\n", Hang: true, Untrapped: true})
	reply := r.runAsync(t.Context(), domain.RunRequest{Command: "exec sleep 100", FarShell: "bash", TimeoutMs: 60_000})
	r.waitTimers(2)
	r.term.SendKeys(t.Context(), r.pane, []string{"C-c"})
	live := domain.DefaultConfig().LivenessInterval
	for range 2 {
		r.waitTimer(live)
		r.clock.Advance(live)
	}
	got := r.await(reply)
	res := got.res
	if got.err != nil || res.Outcome != domain.OutcomeCompleted || res.ExitStatus != nil || !res.Abandoned || res.OutputComplete {
		t.Fatalf("run = %+v, %v; want completed, status unknown, abandoned, output not complete", res, got.err)
	}
	r.released()
}

// A far frame whose end marker a C-c brings (the frame traps it) ends as
// any frame does.
func TestAFarCommandInterruptedEndsWith130(t *testing.T) {
	r := farRig(t, frame.ShellBash, true)
	r.primeFar()
	r.term.Expect(r.pane, fake.Run{Output: "waiting\n", Hang: true})
	reply := r.runAsync(t.Context(), domain.RunRequest{Command: "sleep 100", FarShell: "bash", TimeoutMs: 60_000})
	r.waitTimers(2)
	r.term.SendKeys(t.Context(), r.pane, []string{"C-c"})
	got := r.await(reply)
	if got.err != nil || status(got.res) != "130" || !strings.HasPrefix(got.res.Output, "waiting\n") {
		t.Fatalf("run = %+v, %v", got.res, got.err)
	}
}

// Without a backend that tells where the cursor is, a named prompt
// cannot be matched: the call says so, and types nothing.
func TestANamedPromptNeedsABackendThatTellsTheCursor(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.term.SetFar(r.pane, "ssh", frame.ShellBash, false)
	reply := r.runAsync(t.Context(), domain.RunRequest{Command: "echo far", FarShell: "bash", FarPrompt: "$ "})
	r.pollThrough(domain.DefaultConfig().InputQuiet)
	got := r.await(reply)
	if !errors.Is(got.err, ports.ErrUnsupported) {
		t.Fatalf("err = %v; want unsupported", got.err)
	}
	if typed := r.typed(); typed != "" {
		t.Errorf("typed %q", typed)
	}
}

// A connection that ends under a far command (ssh killed, the container
// gone) leaves no far shell to end the frame: once a shell of this host
// is back in front, the run ends, its status unknown, and the pane is
// free.
func TestAFarCommandWhoseConnectionEndedDoesNotHoldThePane(t *testing.T) {
	r := farRig(t, frame.ShellBash, true)
	r.primeFar()
	r.term.Expect(r.pane, fake.Run{Output: "working\n", Hang: true})
	reply := r.runAsync(t.Context(), domain.RunRequest{Command: "sleep 100", FarShell: "bash", TimeoutMs: 60_000})
	r.waitTimers(2)
	r.term.SetFar(r.pane, "", "", false)
	live := domain.DefaultConfig().LivenessInterval
	for range 2 {
		r.waitTimer(live)
		r.clock.Advance(live)
	}
	got := r.await(reply)
	if got.err != nil || got.res.Outcome != domain.OutcomeCompleted || got.res.ExitStatus != nil || !got.res.Abandoned {
		t.Fatalf("run = %+v, %v; want completed, status unknown, abandoned", got.res, got.err)
	}
	r.released()
}
