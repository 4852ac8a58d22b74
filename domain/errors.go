package domain

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
)

// A RefusalError says why a write to a pane was refused before anything was
// sent, and what the caller can do about it.
type RefusalError struct {
	Pane   ports.PaneID
	Reason string // what is wrong, e.g. "a person is watching it (client /dev/pts/3)"
	Hint   string // what to do next
}

func (e *RefusalError) Error() string {
	msg := fmt.Sprintf("refused to write to pane %s: %s", e.Pane, e.Reason)
	if e.Hint != "" {
		msg += "; " + e.Hint
	}
	return msg
}

func (e *RefusalError) Unwrap() error { return ErrRefused }

// A BusyError says that another writer holds the pane.
type BusyError struct {
	Pane   ports.PaneID
	Holder string // what holds it, e.g. `run_shell_command "make test"`
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("pane %s is busy: it is running %s; wait for it to finish or interrupt it (send_keys C-c) and try again", e.Pane, e.Holder)
}

func (e *BusyError) Unwrap() error { return ErrBusy }

// An ArgumentError says which argument of a request is wrong.
type ArgumentError struct {
	Field  string
	Reason string
}

func (e *ArgumentError) Error() string { return fmt.Sprintf("invalid %s: %s", e.Field, e.Reason) }

func (e *ArgumentError) Unwrap() error { return ErrInvalidArgument }
