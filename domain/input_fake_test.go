package domain_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/domain/input"
)

// A command that reads its terminal (the fake's read, or a Run's Read)
// while its pane is quiet awaits input: the call that waits for it ends
// as awaiting_input, and its caller, and nobody else, may answer.

// ticks moves the clock one liveness interval at a time, each once the
// call is seen waiting on its liveness check with n timers pending (the
// call's deadline among them), until reply comes or max intervals
// passed; it returns the reply (ok) and how many intervals it took. A
// call that returned leaves fewer timers (its follower in the background
// has one): the reply is then awaited, not the clock moved.
func (r *rig) ticks(reply <-chan runReply, n, max int) (runReply, int, bool) {
	r.t.Helper()
	step := r.svc.Config().LivenessInterval
	for i := 0; ; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		pending := make(chan error, 1)
		go func() {
			for {
				if err := r.clock.WaitForTimer(ctx, step); err != nil || r.clock.PendingTimers() >= n {
					pending <- err
					return
				}
				select {
				case <-ctx.Done():
				case <-time.After(time.Millisecond):
				}
			}
		}()
		select {
		case got := <-reply:
			cancel()
			return got, i, true
		case err := <-pending:
			cancel()
			if err != nil {
				r.t.Fatalf("after %d intervals: no reply, and no liveness check pending", i)
			}
		}
		if i == max {
			return runReply{}, i, false
		}
		r.clock.Advance(step)
	}
}

// asks runs command (with run queued, if not nil) as caller, awaiting
// input, and returns the result once it says awaiting_input.
func (r *rig) asks(run *fake.Run, command, caller string) domain.RunResult {
	r.t.Helper()
	if run != nil {
		r.term.Expect(r.pane, *run)
	}
	reply := r.runAsync(context.Background(), domain.RunRequest{Command: command, TimeoutMs: 30_000, AwaitInput: true, Caller: caller})
	got, _, ok := r.ticks(reply, 2, 20)
	if !ok || got.err != nil || got.res.Outcome != domain.OutcomeAwaitingInput || !got.res.StillRunning || got.res.Input == nil {
		r.t.Fatalf("run %q = %+v, %v (returned: %v); want awaiting_input, still running, with what it asks", command, got.res, got.err, ok)
	}
	return got.res
}

func TestACommandReadingItsTerminalEndsTheCallAsAwaitingInput(t *testing.T) {
	for _, c := range []struct {
		name    string
		run     *fake.Run
		command string
		kind    input.Kind
		prompt  string
	}{
		{"read -s", nil, "read -s -p 'Password: ' pw", input.Secret, "Password:"},
		{"read -p with a y/N question", nil, "read -p 'Continue? [y/N] ' x", input.Confirm, "Continue? [y/N]"},
		{"read -p", nil, "read -p 'Name: ' x", input.Line, "Name:"},
		{"cat", nil, "cat", input.Line, ""},
		{"a pager", &fake.Run{Steps: []fake.Step{{Output: "line 1\nline 2\n", Read: &fake.Read{Prompt: ":", Raw: true, Program: "less"}}}}, "less notes", input.Pager, ":"},
		{"an editor", &fake.Run{Steps: []fake.Step{{Output: "~\n~\n", Read: &fake.Read{Raw: true, Program: "vim.basic"}}}}, "vi -u NONE", input.Editor, "~"},
		{"a REPL", &fake.Run{Steps: []fake.Step{{Read: &fake.Read{Prompt: ">>> ", Raw: true, Program: "python3.11"}}}}, "python3", input.REPL, ">>>"},
		{"ssh's passphrase", &fake.Run{Steps: []fake.Step{{Read: &fake.Read{Prompt: "Enter passphrase for key 'id': ", Secret: true, Program: "ssh-keygen"}}}}, "ssh-keygen -y -f id", input.Secret, "Enter passphrase for key 'id':"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t, domain.DefaultConfig())
			start := r.clock.Now()
			res := r.asks(c.run, c.command, "")
			if res.Input.Kind != c.kind || res.Input.Prompt != c.prompt {
				t.Errorf("input = %+v, want %s, prompt %q", *res.Input, c.kind, c.prompt)
			}
			if res.ExitStatus != nil || res.NotStarted {
				t.Errorf("result = %+v: no exit status, and the command started", res)
			}
			if waited := r.clock.Now().Sub(start); waited < domain.DefaultInputQuiet || waited > domain.DefaultInputQuiet+2*r.svc.Config().LivenessInterval {
				t.Errorf("the call returned after %v; want the quiet time %v, and a liveness check or two more", waited, domain.DefaultInputQuiet)
			}
			select {
			case <-r.svc.Released(r.pane):
				t.Fatal("the pane was released while its command waits for input")
			default:
			}
		})
	}
}

// Output resets the quiet time: a command that reads between bursts of
// output is not asking until the pane has been quiet for InputQuiet.
func TestOutputPutsOffAwaitingInputUntilThePaneIsQuiet(t *testing.T) {
	cfg := domain.DefaultConfig()
	cfg.InputQuiet = time.Second
	r := newRig(t, cfg)
	reply := r.runAsync(context.Background(), domain.RunRequest{Command: "read -p 'Name: ' x", TimeoutMs: 30_000, AwaitInput: true})
	if _, _, ok := r.ticks(reply, 2, 3); ok {
		t.Fatal("the call returned before the pane was quiet for a second")
	}
	r.term.Inject(r.pane, []byte("a line from elsewhere\r\n"))
	if _, _, ok := r.ticks(reply, 2, 3); ok {
		t.Fatal("the call returned less than a second after the pane last printed")
	}
	got, _, ok := r.ticks(reply, 2, 2)
	if !ok || got.res.Outcome != domain.OutcomeAwaitingInput {
		t.Fatalf("run = %+v, %v (returned: %v); want awaiting_input once quiet for a second", got.res, got.err, ok)
	}
}

// A command that reads what the server typed for it (a heredoc, a pipe),
// or one that only sleeps, is not awaiting input; neither is any command
// on a terminal that cannot tell, nor a call that did not ask.
func TestWhatIsNotAwaitingInput(t *testing.T) {
	for _, c := range []struct {
		name string
		run  fake.Run
		prep func(*rig)
		req  domain.RunRequest
	}{
		{"a pipe", fake.Run{Steps: []fake.Step{{Read: &fake.Read{Pipe: true, Program: "cat"}}}}, nil, domain.RunRequest{AwaitInput: true}},
		{"a sleep", fake.Run{Delay: time.Hour}, nil, domain.RunRequest{AwaitInput: true}},
		{"awaitInput false", fake.Run{Steps: []fake.Step{{Read: &fake.Read{Prompt: "Password: ", Secret: true}}}}, nil, domain.RunRequest{}},
		{"a terminal that cannot tell", fake.Run{Steps: []fake.Step{{Read: &fake.Read{Prompt: "Password: ", Secret: true}}}},
			func(r *rig) { r.term.SetNoJobControl(true, true) }, domain.RunRequest{AwaitInput: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t, domain.DefaultConfig())
			if c.prep != nil {
				c.prep(r)
			}
			r.term.Expect(r.pane, c.run)
			c.req.Command, c.req.TimeoutMs = "work", 3000
			reply := r.runAsync(context.Background(), c.req)
			got, _, ok := r.ticks(reply, 2, 12)
			if !ok || got.err != nil || got.res.Outcome != domain.OutcomeTimedOut || !got.res.StillRunning || got.res.Input != nil {
				t.Fatalf("run = %+v, %v (returned: %v); want timed_out at the deadline, still running", got.res, got.err, ok)
			}
		})
	}
}

// The caller whose command asked answers it through the command's
// reservation, with paste_text or send_keys; any other caller is told
// the pane is busy. wait_for_command then goes on to the end.
func TestTheCallerAnswersItsCommandAndTheWaitGoesOnToTheEnd(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.asks(nil, "read -s -p 'Password: ' pw; echo done", "alice")
	ctx := context.Background()
	var busy *fault.BusyError
	if _, err := r.svc.PasteText(ctx, domain.PasteRequest{PaneID: r.pane, Text: "guess", Enter: true, Caller: "bob"}); !errors.As(err, &busy) || !busy.AwaitingInput {
		t.Fatalf("another caller's paste: %v, want busy with a command awaiting input", err)
	}
	if _, err := r.svc.SendKeys(ctx, domain.SendKeysRequest{PaneID: r.pane, Keys: "y", Enter: true, Caller: "bob"}); !errors.As(err, &busy) {
		t.Fatalf("another caller's keys: %v, want busy", err)
	}
	if len(r.term.Answers(r.pane)) != 0 {
		t.Fatalf("the command read %q from the refused callers", r.term.Answers(r.pane))
	}
	if res, err := r.svc.PasteText(ctx, domain.PasteRequest{PaneID: r.pane, Text: "hunter2", Caller: "alice"}); err != nil || res.Bytes != 7 {
		t.Fatalf("the caller's own paste = %+v, %v", res, err)
	}
	// The answer may come in parts: Enter next, as keys.
	if res, err := r.svc.SendKeys(ctx, domain.SendKeysRequest{PaneID: r.pane, Keys: "Enter", Caller: "alice"}); err != nil || len(res.Sent) != 1 {
		t.Fatalf("the caller's own Enter = %+v, %v", res, err)
	}
	if got := r.term.Answers(r.pane); len(got) != 1 || got[0] != "hunter2" {
		t.Fatalf("the command read %q, want hunter2", got)
	}
	got, _, ok := r.ticks(r.waitAsync(domain.WaitCommandRequest{AwaitInput: true}), 2, 4)
	if !ok || got.err != nil || got.res.Outcome != domain.OutcomeCompleted || status(got.res) != "0" || got.res.Output != "Password: \ndone" {
		t.Fatalf("wait = %+v, %v (returned: %v); want completed, status 0, the prompt and done", got.res, got.err, ok)
	}
	r.released()
}

// A command that asks again is reported again, once for each ask; an ask
// already reported and not answered is not reported twice.
func TestWaitForCommandReportsEachAskOnce(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	ask := &fake.Read{Prompt: "[sudo] password for me: ", Secret: true, Program: "sudo"}
	r.asks(&fake.Run{Steps: []fake.Step{{Read: ask}, {Output: "Sorry, try again.\n", Read: ask}, {Output: "ok\n"}}}, "sudo true", "")

	// Reported already: the wait runs to its deadline.
	got, _, ok := r.ticks(r.waitAsync(domain.WaitCommandRequest{AwaitInput: true, TimeoutMs: 2000}), 2, 10)
	if !ok || got.res.Outcome != domain.OutcomeTimedOut || !got.res.StillRunning || got.res.Input != nil {
		t.Fatalf("a wait on an ask reported before = %+v, %v (returned: %v); want timed_out", got.res, got.err, ok)
	}
	ctx := context.Background()
	if _, err := r.svc.PasteText(ctx, domain.PasteRequest{PaneID: r.pane, Text: "wrong", Enter: true}); err != nil {
		t.Fatal(err)
	}
	got, _, ok = r.ticks(r.waitAsync(domain.WaitCommandRequest{AwaitInput: true}), 2, 8)
	if !ok || got.res.Outcome != domain.OutcomeAwaitingInput || got.res.Input == nil || got.res.Input.Kind != input.Secret ||
		got.res.Input.Prompt != "[sudo] password for me:" || !got.res.StillRunning {
		t.Fatalf("a wait on the second ask = %+v, %v (returned: %v); want awaiting_input, secret", got.res, got.err, ok)
	}
	if _, err := r.svc.SendKeys(ctx, domain.SendKeysRequest{PaneID: r.pane, Keys: "right", Literal: true, Enter: true}); err != nil {
		t.Fatal(err)
	}
	got, _, ok = r.ticks(r.waitAsync(domain.WaitCommandRequest{AwaitInput: true}), 2, 8)
	if !ok || got.res.Outcome != domain.OutcomeCompleted || status(got.res) != "0" {
		t.Fatalf("a wait after the second answer = %+v, %v (returned: %v); want completed", got.res, got.err, ok)
	}
	if a := r.term.Answers(r.pane); len(a) != 2 || a[0] != "wrong" || a[1] != "right" {
		t.Errorf("answers read: %q", a)
	}
}

// A call that did not await input leaves the ask for wait_for_command,
// which reports it at once; only then may the caller answer.
func TestAnAskTheCallDidNotAwaitIsReportedByTheWait(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.term.Expect(r.pane, fake.Run{Steps: []fake.Step{{Read: &fake.Read{Prompt: "Continue? [y/N] "}}}})
	got, _, ok := r.ticks(r.runAsync(context.Background(), domain.RunRequest{Command: "apt upgrade", TimeoutMs: 2000}), 2, 10)
	if !ok || got.res.Outcome != domain.OutcomeTimedOut {
		t.Fatalf("run = %+v, %v; want timed_out", got.res, got.err)
	}
	var busy *fault.BusyError
	if _, err := r.svc.PasteText(context.Background(), domain.PasteRequest{PaneID: r.pane, Text: "y", Enter: true}); !errors.As(err, &busy) {
		t.Fatalf("a paste before any call reported the ask: %v, want busy", err)
	}
	res, err := r.svc.WaitForCommand(context.Background(), domain.WaitCommandRequest{PaneID: r.pane, AwaitInput: true})
	if err != nil || res.Outcome != domain.OutcomeAwaitingInput || res.Input == nil || res.Input.Kind != input.Confirm {
		t.Fatalf("wait = %+v, %v; want awaiting_input at once, confirm", res, err)
	}
	if _, err := r.svc.PasteText(context.Background(), domain.PasteRequest{PaneID: r.pane, Text: "y", Enter: true}); err != nil {
		t.Fatalf("the answer once reported: %v", err)
	}
}

// An answer still obeys the write policy: a pane a person watches is
// refused, and nothing is typed.
func TestAnAnswerObeysTheWritePolicy(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.asks(nil, "read -p 'Name: ' x", "")
	r.term.Attach(r.pane, "/dev/pts/9")
	var refusal *fault.RefusalError
	if _, err := r.svc.PasteText(context.Background(), domain.PasteRequest{PaneID: r.pane, Text: "me", Enter: true}); !errors.As(err, &refusal) {
		t.Fatalf("an answer into a watched pane: %v, want refused", err)
	}
	if len(r.term.Answers(r.pane)) != 0 {
		t.Errorf("the command read %q", r.term.Answers(r.pane))
	}
}

// A prompt longer than the pane is wide is asked whole: the screen's
// rows it wraps over are read as the one line it is.
func TestAPromptWiderThanThePaneIsWhole(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.pane = r.term.AddPane(fake.PaneSpec{Width: 20})
	res := r.asks(nil, "read -p 'Enter the name of the new branch: ' x", "")
	if want := "Enter the name of the new branch:"; res.Input.Prompt != want {
		t.Errorf("the prompt on a pane 20 wide = %q, want %q", res.Input.Prompt, want)
	}
}
