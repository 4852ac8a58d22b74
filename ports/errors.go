package ports

import (
	"errors"
	"fmt"
)

// Errors a Terminal returns, possibly wrapped. Callers test them with
// errors.Is; the MCP adapter maps them to tool errors once, at the transport.
var (
	// ErrPaneNotFound: no pane has the given id (it never existed, or it has
	// been closed and its id is no longer known).
	ErrPaneNotFound = errors.New("pane not found")

	// ErrPaneDead: the pane exists but its process has exited, so it takes no
	// input and produces no more output.
	ErrPaneDead = errors.New("pane is dead")

	// ErrUnsupported: the backend cannot do or cannot tell what was asked.
	// The domain refuses rather than guesses when it sees it.
	ErrUnsupported = errors.New("not supported by this terminal backend")

	// ErrUnavailable: the backend itself cannot be reached (the multiplexer
	// is not installed, or no server answers).
	ErrUnavailable = errors.New("terminal backend unavailable")

	// ErrNoAnswer: the backend's server is there but did not answer in
	// time (it is stopped or stuck). What was asked may still be carried
	// out once it answers. It wraps ErrUnavailable.
	ErrNoAnswer = fmt.Errorf("no answer in time: %w", ErrUnavailable)

	// ErrUnknownKey: a key name the backend does not know.
	ErrUnknownKey = errors.New("unknown key name")
)
