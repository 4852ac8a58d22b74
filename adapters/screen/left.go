package screen

import (
	"context"
	"fmt"

	"github.com/tmux-mcp/tmux-mcp/adapters/internal/tty"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// What a command left running in a window, read from /proc (see
// adapters/internal/tty's Started).

// ProcessMark marks the newest process id on this host.
func (t *Terminal) ProcessMark(ctx context.Context, id ports.PaneID) (ports.ProcessMark, error) {
	if _, err := t.liveWindow(ctx, id, "mark the processes of"); err != nil {
		return ports.ProcessMark{}, err
	}
	n, err := tty.LastPID()
	if err != nil {
		return ports.ProcessMark{}, fmt.Errorf("mark the processes of pane %s: %w", id, err)
	}
	return ports.ProcessMark{Seq: int64(n)}, nil
}

// ProcessesSince lists the processes on the window's terminal that
// started after mark and still run.
func (t *Terminal) ProcessesSince(ctx context.Context, id ports.PaneID, mark ports.ProcessMark) ([]ports.Process, error) {
	w, err := t.liveWindow(ctx, id, "list the processes of")
	if err != nil {
		return nil, err
	}
	upto, err := tty.LastPID()
	if err == nil {
		var ps []ports.Process
		if ps, err = tty.Started(int(mark.Seq), upto, w.proc.ttyNr); err == nil {
			return ps, nil
		}
	}
	return nil, fmt.Errorf("list the processes of pane %s: %w", id, err)
}

var _ ports.ProcessWatcher = (*Terminal)(nil)
