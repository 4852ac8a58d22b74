package domain

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/tmux-mcp/tmux-mcp/domain/frame"
	"github.com/tmux-mcp/tmux-mcp/domain/policy"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// A new pane's shell may take a while before it reads input: its rc files
// run first (a stalled "pyenv init" took a minute on one machine). Text
// typed before then is echoed by the terminal, read again by the line
// editor once it starts, or thrown away by a program that flushes the
// terminal's input. So the Service waits before it first types into a pane
// whose shell it saw start — the panes it created, and those the caller
// names with ExpectStartingShell — until the pane's terminal is set as a
// line editor sets it (ports.JobControl.LineEditing), within the call's
// own deadline. Before that, the rc files may run other programs in
// front of the terminal (a login shell's .profile runs mesg): the Service
// waits for the shell itself to be in front again (awaitFront). A shell
// without line editing (sh, dash) shows no further sign and is not waited
// for once in front; nor is any pane of a backend that cannot tell.

// StartingPoll is how often a starting shell is looked at.
const StartingPoll = 25 * time.Millisecond

// startingShells are the panes whose shells may still be starting.
type startingShells struct {
	mu    sync.Mutex
	panes map[ports.PaneID]bool
}

func (st *startingShells) add(id ports.PaneID) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.panes == nil {
		st.panes = make(map[ports.PaneID]bool)
	}
	st.panes[id] = true
}

func (st *startingShells) has(id ports.PaneID) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.panes[id]
}

func (st *startingShells) done(id ports.PaneID) {
	st.mu.Lock()
	defer st.mu.Unlock()
	delete(st.panes, id)
}

// ExpectStartingShell tells the Service that the pane's shell was just
// started, so that the first write to the pane waits for it to read input
// (see above). The Service does this itself for the panes it creates.
func (s *Service) ExpectStartingShell(id ports.PaneID) { s.starting.add(id) }

// awaitShell waits, if the pane's shell may still be starting, until it
// reads input, and returns "" then; or the outcome that ended the wait
// first (the deadline or ctx), nothing having been typed.
func (s *Service) awaitShell(ctx context.Context, w *waiter, id ports.PaneID, sh frame.Shell) Outcome {
	if !s.starting.has(id) {
		return ""
	}
	if sh == frame.ShellSh {
		s.starting.done(id)
		return ""
	}
	for {
		editing, err := s.term.LineEditing(ctx, id)
		if err != nil || editing {
			// Ready, or nothing to learn: type.
			if err == nil || errors.Is(err, ports.ErrUnsupported) {
				s.starting.done(id)
			}
			return ""
		}
		if o := s.startingPoll(ctx, w); o != "" {
			return o
		}
	}
}

// awaitFront waits, if the pane's shell may still be starting and some
// other program is in front of its terminal (one its rc files run), until
// a shell is in front again, and returns the pane's description then; or
// the outcome that ended the wait first. info is the pane as last
// described.
func (s *Service) awaitFront(ctx context.Context, w *waiter, info ports.PaneInfo) (ports.PaneInfo, Outcome, error) {
	return s.awaitFrontWhile(ctx, w, info, func() bool { return s.starting.has(info.ID) })
}

// awaitFrontWhile waits, while keep holds and the pane lives, until a
// shell is in front of the pane's terminal, looking every StartingPoll,
// and returns the pane's description then (or as it was when keep stopped
// holding); or the outcome that ended the wait first.
func (s *Service) awaitFrontWhile(ctx context.Context, w *waiter, info ports.PaneInfo, keep func() bool) (ports.PaneInfo, Outcome, error) {
	for keep() && !info.Dead {
		if _, ok := policy.ShellOf(info.Program, info.Command); ok {
			break
		}
		if o := s.startingPoll(ctx, w); o != "" {
			return info, o, nil
		}
		var err error
		if info, err = s.term.Pane(ctx, info.ID); err != nil {
			return info, "", err
		}
	}
	return info, "", nil
}

// startingPoll waits one StartingPoll, telling progress, and returns ""
// then; or the outcome that ended the wait first.
func (s *Service) startingPoll(ctx context.Context, w *waiter) Outcome {
	t := s.clock.NewTimer(StartingPoll)
	defer t.Stop()
	for {
		select {
		case <-t.C():
			return ""
		case <-w.ticks():
			w.report()
		case <-w.done():
			return OutcomeTimedOut
		case <-ctx.Done():
			return OutcomeCancelled
		}
	}
}

// awaitStarted is awaitFront and then awaitShell: the wait of a paste
// into a pane whose shell may still be starting.
func (s *Service) awaitStarted(ctx context.Context, w *waiter, info ports.PaneInfo) Outcome {
	info, o, err := s.awaitFront(ctx, w, info)
	if o != "" || err != nil {
		return o
	}
	if sh, ok := policy.ShellOf(info.Program, info.Command); ok {
		return s.awaitShell(ctx, w, info.ID, sh)
	}
	return ""
}

// PromptGrace bounds how long after one of this server's commands ended
// in a pane a run waits for the pane's shell to be back in front of its
// terminal, rather than refuse the program there: a prompt that runs
// programs (a git prompt, starship, PROMPT_COMMAND) has one of them in
// front while it draws, for a moment after every command.
const PromptGrace = 2 * time.Second

// drawnPrompts are the panes whose shells went back to their prompt after
// a command of this server's, and when.
type drawnPrompts struct {
	mu    sync.Mutex
	since map[ports.PaneID]time.Time
}

func (d *drawnPrompts) ended(id ports.PaneID, at time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.since == nil {
		d.since = make(map[ports.PaneID]time.Time)
	}
	d.since[id] = at
}

// at returns when a command of this server's last ended in the pane.
func (d *drawnPrompts) at(id ports.PaneID) (time.Time, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	t, ok := d.since[id]
	return t, ok
}

// awaitPrompt waits, while the pane's shell may still be drawing its
// prompt after a command of this server's (PromptGrace), until a shell is
// in front of its terminal again, and returns the pane's description then
// (or as it still is when the grace or the call's wait ran out, for the
// policy to judge); or the outcome that ended the wait first.
func (s *Service) awaitPrompt(ctx context.Context, w *waiter, info ports.PaneInfo) (ports.PaneInfo, Outcome, error) {
	end, ok := s.prompts.at(info.ID)
	if !ok {
		return info, "", nil
	}
	return s.awaitFrontWhile(ctx, w, info, func() bool { return s.clock.Now().Sub(end) < PromptGrace })
}

// JobEndGrace bounds how long a run waits for a job in front of the
// pane's terminal whose leader has exited to go. Every job looks so for a
// moment when it ends: its last process has exited, and its shell has
// not yet taken the terminal back (it does once it has reaped the job).
// A job still so after the grace is the rest of a pipeline such as
// "curl … | sh", whose shell runs on and reads the terminal, and
// policy.CheckFront refuses it.
const JobEndGrace = time.Second

// awaitJobEnd reads what runs in front of the pane's terminal and, while
// it is a job whose leader has exited (ports.Foreground.Args empty, not
// nil), looks again every StartingPoll, within JobEndGrace and the call's
// wait; it returns what it read last, and any error reading it; or the
// outcome that ended the wait first.
func (s *Service) awaitJobEnd(ctx context.Context, w *waiter, id ports.PaneID) (ports.Foreground, Outcome, error) {
	fg, err := s.term.Foreground(ctx, id)
	for start := s.clock.Now(); err == nil && fg.Args != nil && len(fg.Args) == 0 && s.clock.Now().Sub(start) < JobEndGrace; {
		if o := s.startingPoll(ctx, w); o != "" {
			return fg, o, nil
		}
		fg, err = s.term.Foreground(ctx, id)
	}
	return fg, "", err
}
