package screen

import (
	"context"
	"fmt"

	"github.com/tmux-mcp/tmux-mcp/adapters/internal/proc"
	"github.com/tmux-mcp/tmux-mcp/adapters/internal/tty"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// SignalGroup sends a signal to a process group on the window's terminal
// (ports.Signaler), read from /proc and signalled with kill(2) as the
// tmux backend does on this host: never the group of the window's own
// program.
func (t *Terminal) SignalGroup(ctx context.Context, id ports.PaneID, pgid int, sig ports.Signal) ([]ports.Process, error) {
	w, err := t.liveWindow(ctx, id, "signal a process group in")
	if err != nil {
		return nil, err
	}
	procs, err := tty.SignalGroup(w.proc.pid, w.proc.ttyNr, pgid, sig)
	if err != nil {
		return nil, fmt.Errorf("send %s to process group %d in pane %s: %w", sig, pgid, id, err)
	}
	return procs, nil
}

var _ ports.Signaler = (*Terminal)(nil)

// ProcessExists tells whether a process on this host exists
// (ports.ProcessChecker), by kill(pid, 0).
func (t *Terminal) ProcessExists(ctx context.Context, id ports.PaneID, pid int) (bool, error) {
	if _, err := t.lookup(ctx, id); err != nil {
		return false, fmt.Errorf("look for process %d of pane %s: %w", pid, id, err)
	}
	return pid > 0 && proc.Runs(pid), nil
}

var _ ports.ProcessChecker = (*Terminal)(nil)
