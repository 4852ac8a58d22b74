package domain

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/domain/frame"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// SignalRequest is a signal_command call.
type SignalRequest struct {
	PaneID ports.PaneID
	// Signal is INT, TERM, HUP or KILL.
	Signal string
}

// SignalResult is what signal_command reports: who got the signal.
type SignalResult struct {
	PaneID ports.PaneID
	Signal ports.Signal
	// Group is the process group the signal was sent to: the command's.
	Group int
	// Processes are the group's processes as the backend found them just
	// before (ports.Signaler).
	Processes []ports.Process
}

// Signals are the signals SignalCommand sends, in the order the contract
// lists them.
var Signals = []ports.Signal{ports.SignalINT, ports.SignalTERM, ports.SignalHUP, ports.SignalKILL}

// SignalCommand sends req.Signal to the process group of the command that
// a run_shell_command call of this Service started in the pane and that
// still runs there, whether its call has returned or not — never to the
// pane's shell. The command's group is the foreground group of the pane's
// terminal while the command runs, when that is not the shell's own: a
// shell with job control runs the frame's subshell (and, for a command
// run in the shell itself, each of its pipelines) as a job of its own. A
// command whose processes share the shell's group (shell code run in the
// shell itself; zsh's subshell until it starts a program) has no group of
// its own to signal, and is refused. The command's end then comes as
// usual: wait_for_command reports it, with the status the shell gives a
// command killed by the signal (128+n) unless it caught the signal.
//
// Errors: *fault.ArgumentError for a signal name not in Signals; an error
// wrapping fault.ErrNoCommand when no command of this Service runs in the
// pane (none was started, or it ended); one wrapping ports.ErrNoGroup when
// the command's own group is not known or not in front (nothing is sent
// then); one wrapping ports.ErrUnsupported when the backend cannot tell
// the pane's foreground or cannot send signals; wrapped ports errors from
// the terminal.
func (s *Service) SignalCommand(ctx context.Context, req SignalRequest) (SignalResult, error) {
	sig := ports.Signal(req.Signal)
	if sig.Number() == 0 {
		return SignalResult{}, &fault.ArgumentError{Field: "signal", Reason: fmt.Sprintf("is %q; want INT, TERM, HUP or KILL", req.Signal)}
	}
	fail := func(err error) (SignalResult, error) {
		return SignalResult{}, fmt.Errorf("signal the command in pane %s: %w", req.PaneID, err)
	}
	sg, ok := s.term.(ports.Signaler)
	if !ok {
		return fail(fmt.Errorf("the terminal backend cannot send signals: %w", ports.ErrUnsupported))
	}
	c := s.started.lookup(req.PaneID)
	if c == nil {
		return fail(fault.ErrNoCommand)
	}
	if c.noJobs {
		return fail(fmt.Errorf("the terminal backend cannot tell which process group runs the command: %w", ports.ErrUnsupported))
	}
	group, err := s.commandGroup(ctx, c)
	if err != nil {
		return fail(err)
	}
	procs, err := sg.SignalGroup(ctx, req.PaneID, group, sig)
	if err != nil {
		return SignalResult{}, err
	}
	return SignalResult{PaneID: req.PaneID, Signal: sig, Group: group, Processes: procs}, nil
}

// commandGroup returns the process group of c's command, as the pane's
// terminal shows it now: its foreground group, while the script's file
// says that the command runs and that group is not the shell's.
func (s *Service) commandGroup(ctx context.Context, c *startedCommand) (int, error) {
	// The script writes the command's status into its file as it ends:
	// a program the prompt runs afterwards is not the command's.
	b, ok, err := s.term.ReadScript(ctx, c.pane, c.script)
	switch {
	case err != nil:
		// Not known: the foreground alone tells.
	case !ok:
		return 0, fault.ErrNoCommand
	case len(b) > 0:
		if _, ended := frame.ParseStatusFile(b); ended {
			return 0, fmt.Errorf("it has ended (wait_for_command reports its end): %w", fault.ErrNoCommand)
		}
		return 0, fmt.Errorf("the command has not started yet: %w", ports.ErrNoGroup)
	}
	fg, err := s.term.Foreground(ctx, c.pane)
	switch {
	case errors.Is(err, ports.ErrUnsupported):
		return 0, fmt.Errorf("the terminal backend cannot tell which process group runs the command: %w", err)
	case err != nil:
		return 0, err
	case fg.Group <= 1 || fg.Group == c.shell:
		return 0, fmt.Errorf("the process group in front of the pane's terminal is the shell's own (%d): the command runs as shell code "+
			"in the shell itself, or in a subshell without a group of its own (zsh's until it starts a program), and only the shell "+
			"could be signalled; nothing was sent: %w", fg.Group, ports.ErrNoGroup)
	}
	return fg.Group, nil
}

// startedCommand is what SignalCommand needs of a command this Service
// typed into a pane, copied as it was typed, for as long as it runs: the
// run itself belongs to the goroutine that follows it.
type startedCommand struct {
	run    *commandRun
	pane   ports.PaneID
	shell  int    // the group of the shell that read the line (its pid)
	noJobs bool   // the backend cannot tell the pane's foreground
	script string // the script's file, which holds the status once the command ended
}

// startedCommands are the commands this Service typed and that run, by
// pane; safe for concurrent use.
type startedCommands struct {
	mu    sync.Mutex
	panes map[ports.PaneID]*startedCommand
}

// add records r, whose line was just typed.
func (sc *startedCommands) add(r *commandRun) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sc.panes == nil {
		sc.panes = make(map[ports.PaneID]*startedCommand)
	}
	sc.panes[r.pane] = &startedCommand{run: r, pane: r.pane, shell: r.before.Group, noJobs: r.noJobs, script: r.files.Script}
}

// remove forgets r, which has ended or was given up.
func (sc *startedCommands) remove(r *commandRun) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if c := sc.panes[r.pane]; c != nil && c.run == r {
		delete(sc.panes, r.pane)
	}
}

// lookup returns the command running in pane, or nil.
func (sc *startedCommands) lookup(pane ports.PaneID) *startedCommand {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return sc.panes[pane]
}
