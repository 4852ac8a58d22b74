package domain_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// signal_command on the fake: the command's group gets the signal, never
// the shell's, and the command's end then comes as usual.

// commandGroup is the group in front of the rig's pane: the command's,
// while one runs.
func (r *rig) commandGroup() int {
	r.t.Helper()
	fg, err := r.term.Foreground(context.Background(), r.pane)
	if err != nil {
		r.t.Fatal(err)
	}
	return fg.Group
}

func (r *rig) signal(sig string) (domain.SignalResult, error) {
	return r.svc.SignalCommand(context.Background(), domain.SignalRequest{PaneID: r.pane, Signal: sig})
}

// waitEnd collects the end of the command a call left running.
func (r *rig) waitEnd() domain.RunResult {
	r.t.Helper()
	reply := r.waitAsync(domain.WaitCommandRequest{TimeoutMs: 5000})
	got := r.await(reply)
	if got.err != nil {
		r.t.Fatalf("wait_for_command: %v", got.err)
	}
	return got.res
}

func TestSignalCommandEndsACommandThatOutlivedItsCallWith128PlusN(t *testing.T) {
	for _, c := range []struct {
		sig    string
		status int
	}{{"TERM", 143}, {"HUP", 129}, {"KILL", 137}, {"INT", 130}} {
		t.Run(c.sig, func(t *testing.T) {
			r := newRig(t, domain.DefaultConfig())
			r.timedOut(fake.Run{Output: "working\n", Hang: true, Command: "sleep"}, "trap '' INT QUIT; sleep 30")
			group := r.commandGroup()
			res, err := r.signal(c.sig)
			if err != nil {
				t.Fatalf("signal_command %s: %v", c.sig, err)
			}
			want := domain.SignalResult{PaneID: r.pane, Signal: ports.Signal(c.sig), Group: group, Processes: []ports.Process{{PID: group, Command: "sleep"}}}
			if res.PaneID != want.PaneID || res.Signal != want.Signal || res.Group != want.Group || !slices.Equal(res.Processes, want.Processes) {
				t.Errorf("signal_command = %+v, want %+v", res, want)
			}
			if got := r.term.Signals(r.pane); !slices.Equal(got, []fake.SentSignal{{Group: group, Signal: ports.Signal(c.sig)}}) {
				t.Errorf("signals sent %+v", got)
			}
			end := r.waitEnd()
			if end.Outcome != domain.OutcomeCompleted || status(end) != itoa(c.status) || end.Output != "working" {
				t.Errorf("wait_for_command = %+v, status %s; want completed, %d", end, status(end), c.status)
			}
			r.released()
		})
	}
}

func TestSignalCommandEndsACommandWhoseCallStillWaits(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.term.Expect(r.pane, fake.Run{Output: "up\n", Hang: true})
	reply := r.runAsync(context.Background(), domain.RunRequest{Command: "serve", TimeoutMs: 60_000})
	r.waitTimers(2)
	if _, err := r.signal("TERM"); err != nil {
		t.Fatal(err)
	}
	got := r.await(reply)
	if got.err != nil || got.res.Outcome != domain.OutcomeCompleted || status(got.res) != "143" || got.res.Output != "up" {
		t.Fatalf("run = %+v, %v; want completed, 143", got.res, got.err)
	}
}

func TestSignalCommandOfAPersistingCommand(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.term.Expect(r.pane, fake.Run{Hang: true})
	reply := r.runAsync(context.Background(), domain.RunRequest{Command: "sleep 30", Persist: true, TimeoutMs: 1000})
	r.waitTimers(2)
	if _, err := r.signal("TERM"); err != nil {
		t.Fatal(err)
	}
	if got := r.await(reply); got.err != nil || got.res.Outcome != domain.OutcomeCompleted || status(got.res) != "143" {
		t.Fatalf("run = %+v, %v; want completed, 143", got.res, got.err)
	}
	// INT makes the shell drop the frame's end: the command ends, its
	// status unknown, once the shell is seen back.
	r.term.Expect(r.pane, fake.Run{Hang: true})
	reply = r.runAsync(context.Background(), domain.RunRequest{Command: "sleep 30", Persist: true, TimeoutMs: 60_000})
	r.waitTimers(2)
	if _, err := r.signal("INT"); err != nil {
		t.Fatal(err)
	}
	// Two liveness checks tell; the call may return at either.
	var got runReply
	for i := 0; ; i++ {
		if i == 10 {
			t.Fatal("the call never returned")
		}
		r.waitTimers(1)
		r.clock.Advance(domain.DefaultConfig().LivenessInterval)
		select {
		case got = <-reply:
		case <-time.After(time.Second):
			continue
		}
		break
	}
	if got.err != nil || got.res.Outcome != domain.OutcomeCompleted || got.res.ExitStatus != nil || !got.res.Abandoned {
		t.Fatalf("run = %+v, %v; want completed, abandoned, no status", got.res, got.err)
	}
}

func TestSignalCommandRefusesWhatIsNotACommandOfOurs(t *testing.T) {
	t.Run("an unknown signal", func(t *testing.T) {
		r := newRig(t, domain.DefaultConfig())
		r.timedOut(fake.Run{Hang: true}, "sleep 30")
		for _, sig := range []string{"STOP", "term", "SIGTERM", "", "9", "QUIT"} {
			var arg *fault.ArgumentError
			if _, err := r.signal(sig); !errors.As(err, &arg) || arg.Field != "signal" {
				t.Errorf("signal %q: %v; want an argument error", sig, err)
			}
		}
		if got := r.term.Signals(r.pane); len(got) != 0 {
			t.Errorf("sent %+v", got)
		}
	})
	t.Run("no command", func(t *testing.T) {
		r := newRig(t, domain.DefaultConfig())
		if _, err := r.signal("TERM"); !errors.Is(err, fault.ErrNoCommand) {
			t.Errorf("err = %v; want ErrNoCommand", err)
		}
	})
	t.Run("a command that ended", func(t *testing.T) {
		r := newRig(t, domain.DefaultConfig())
		r.run(domain.RunRequest{Command: "echo done"})
		if _, err := r.signal("TERM"); !errors.Is(err, fault.ErrNoCommand) {
			t.Errorf("err = %v; want ErrNoCommand", err)
		}
		// Also one whose end nobody collected yet.
		r.timedOut(fake.Run{Delay: 2 * time.Second}, "sleep 2")
		r.waitTimers(1)
		r.clock.Advance(2 * time.Second)
		r.released()
		if _, err := r.signal("KILL"); !errors.Is(err, fault.ErrNoCommand) {
			t.Errorf("err = %v; want ErrNoCommand", err)
		}
		if got := r.term.Signals(r.pane); len(got) != 0 {
			t.Errorf("sent %+v", got)
		}
	})
	t.Run("a command in the shell's own group", func(t *testing.T) {
		// zsh's subshell runs in the shell's group until it starts a
		// program: only the shell could be signalled.
		r := newRig(t, domain.DefaultConfig())
		r.timedOut(fake.Run{Hang: true, KeepsTerminal: true}, "while :; do :; done")
		if _, err := r.signal("TERM"); !errors.Is(err, ports.ErrNoGroup) {
			t.Errorf("err = %v; want ErrNoGroup", err)
		}
		if got := r.term.Signals(r.pane); len(got) != 0 {
			t.Errorf("sent %+v", got)
		}
	})
	t.Run("a backend without job control", func(t *testing.T) {
		r := newRig(t, domain.DefaultConfig())
		r.term.SetNoJobControl(true, false)
		r.timedOut(fake.Run{Hang: true}, "sleep 30")
		if _, err := r.signal("TERM"); !errors.Is(err, ports.ErrUnsupported) {
			t.Errorf("err = %v; want ErrUnsupported", err)
		}
	})
}
