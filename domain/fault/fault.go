// Package fault holds the errors with which the domain declines a call:
// what a caller is told when a pane is unsafe to write to, when another
// writer holds it, when the request itself is wrong, or when a command
// was typed but could not run. Each wraps a sentinel for errors.Is. The
// messages say what is wrong; what to do about it, in the words of the
// transport's own tools, is the transport's to add (adapters/mcp maps
// each kind of refusal to its advice).
package fault

import (
	"errors"
	"fmt"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// Sentinels for errors.Is.
var (
	ErrRefused         = errors.New("refused")
	ErrBusy            = errors.New("pane busy")
	ErrInvalidArgument = errors.New("invalid argument")

	// ErrNotRun: a command was typed but did not run, and never will.
	ErrNotRun = errors.New("the command did not run")

	// ErrNoCommand: no command of this server runs in the pane, so there
	// is nothing to wait for.
	ErrNoCommand = errors.New("no command of this server runs in the pane")
)

// A Refusal names why a write to a pane was refused.
type Refusal string

// The refusals of the write policy (domain/policy).
const (
	RefusedUnknown       Refusal = "unknown"        // the backend cannot tell a fact safety needs
	RefusedDead          Refusal = "dead"           // the pane's process has exited
	RefusedWatched       Refusal = "watched"        // a person has the pane on screen
	RefusedSelf          Refusal = "self"           // the server runs in the pane (force allows it)
	RefusedSynchronized  Refusal = "synchronized"   // input would reach other panes too
	RefusedInMode        Refusal = "in-mode"        // input would go to a mode
	RefusedNoCommand     Refusal = "no-command"     // the backend cannot tell the pane's program
	RefusedNotAShell     Refusal = "not-a-shell"    // the pane's program is not a shell the frame supports
	RefusedShellStarting Refusal = "shell-starting" // the pane's shell does not read input yet
	RefusedExposed       Refusal = "exposed"        // another process read the command's script first
	RefusedReading       Refusal = "reading"        // the pane's shell reads a line of its own (read), not at its prompt
	RefusedNotFar        Refusal = "not-far"        // farShell was given, but a shell of this host is in front
	RefusedFarNotReady   Refusal = "far-not-ready"  // the far shell cannot be told to be at its prompt
	RefusedFarSilent     Refusal = "far-silent"     // the far side did not answer the probe as a shell of its family
)

// A RefusalError says why a write to a pane was refused before anything was
// sent.
type RefusalError struct {
	Pane ports.PaneID
	Why  Refusal
	// Ending is set when the call would end the pane or clear its history
	// rather than write to it.
	Ending bool
	// Reason says what is wrong, e.g. "a person is watching it
	// (/dev/pts/3)"; for an ending call, what the call would do first
	// ("kill_window @1 would end it, and a person is watching it").
	Reason string
}

func (e *RefusalError) Error() string {
	return fmt.Sprintf("refused to write to pane %s: %s", e.Pane, e.Reason)
}

func (e *RefusalError) Unwrap() error { return ErrRefused }

// A BusyError says that another writer holds the pane.
type BusyError struct {
	Pane   ports.PaneID
	Holder string // what holds it, e.g. `run_shell_command "make test"`
	// Owner is the lease owner of the other process that holds it; ""
	// when a call of this process does.
	Owner string
	// Returned says that the call of this process holding the pane has
	// returned while its command may still run: interrupt keys are then
	// accepted (see Service.SendKeys).
	Returned bool
	// AwaitingInput says that the command holding the pane was reported
	// waiting for input: only the caller that started it may answer it.
	AwaitingInput bool
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("pane %s is busy: it is running %s", e.Pane, e.Holder)
}

func (e *BusyError) Unwrap() error { return ErrBusy }

// An ArgumentError says which argument of a request is wrong.
type ArgumentError struct {
	Field  string
	Reason string
}

func (e *ArgumentError) Error() string { return fmt.Sprintf("invalid %s: %s", e.Field, e.Reason) }

func (e *ArgumentError) Unwrap() error { return ErrInvalidArgument }
