package ports

import (
	"context"
	"errors"
)

// Signal is a signal a Signaler sends, by its POSIX name without "SIG".
type Signal string

// The signals a Signaler sends.
const (
	SignalHUP  Signal = "HUP"
	SignalINT  Signal = "INT"
	SignalKILL Signal = "KILL"
	SignalTERM Signal = "TERM"
)

// Number returns the signal's number, the same on every POSIX system
// (HUP 1, INT 2, KILL 9, TERM 15): what a shell reports a process killed
// by it as, less 128. It is 0 for any other name.
func (s Signal) Number() int {
	switch s {
	case SignalHUP:
		return 1
	case SignalINT:
		return 2
	case SignalKILL:
		return 9
	case SignalTERM:
		return 15
	}
	return 0
}

// ErrNoGroup: the process group is not one a Signaler signals in the pane:
// no process of it has the pane's terminal as its controlling terminal
// (it ended, or it is another terminal's), or it is the group of the
// pane's own process, which a Signaler never signals.
var ErrNoGroup = errors.New("no such process group of a command on the pane's terminal")

// A Signaler is a Terminal that can send a signal to a process group on a
// pane's terminal: the job of a command, never the pane's own process.
// A Terminal that can should; the domain otherwise refuses to signal.
type Signaler interface {
	// SignalGroup sends sig to every process of the process group pgid
	// (kill(-pgid, sig)), which must be a group of processes on the
	// pane's terminal other than the group of the pane's own process,
	// and returns the processes of the group as it found them just
	// before: all of them, or where the backend sees only the group's
	// leader (over ssh), the leader.
	//
	// Errors: ErrPaneNotFound, ErrPaneDead for the pane; an error
	// wrapping ErrNoGroup when pgid is no such group, and nothing is
	// sent; ErrUnsupported when the backend cannot send signals or cannot
	// tell the group's terminal; ErrUnavailable when the host of the
	// pane's processes cannot be reached.
	SignalGroup(ctx context.Context, id PaneID, pgid int, sig Signal) ([]Process, error)
}

// A ProcessChecker is a Terminal that can tell whether a process still
// exists on the host of a pane's processes: what ends a framed command
// whose shell exited while the pane lives on (a shell nested in the
// pane's, which exit ended). A Terminal that can should; the domain
// otherwise waits for such a frame's end, which never comes.
type ProcessChecker interface {
	// ProcessExists reports whether process pid exists (a zombie not yet
	// reaped counts) on the host of the pane's processes. Errors:
	// ErrPaneNotFound for the pane; ErrUnsupported when the backend cannot
	// tell (a /proc that hides other users' processes, a host without
	// /proc); ErrUnavailable when that host cannot be reached.
	ProcessExists(ctx context.Context, id PaneID, pid int) (bool, error)
}
