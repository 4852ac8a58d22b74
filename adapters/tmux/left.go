package tmux

import (
	"context"
	"fmt"

	"github.com/tmux-mcp/tmux-mcp/adapters/internal/tty"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// What a command left running in a pane, read from /proc (see
// adapters/internal/tty's Started), over ssh by the remote reader
// (remoteleft.go).

// ProcessMark marks the newest process id on the pane's host.
func (t *shellSupport) ProcessMark(ctx context.Context, id ports.PaneID) (ports.ProcessMark, error) {
	if t.proc != nil {
		m, err := t.remoteProcessMark(ctx, id)
		if err != nil {
			return ports.ProcessMark{}, fmt.Errorf("mark the processes of pane %s: %w", id, err)
		}
		return m, nil
	}
	n, err := tty.LastPID()
	if err != nil {
		return ports.ProcessMark{}, fmt.Errorf("mark the processes of pane %s: %w", id, err)
	}
	return ports.ProcessMark{Seq: int64(n)}, nil
}

// ProcessesSince lists the processes on the pane's terminal that started
// after mark and still run.
func (t *shellSupport) ProcessesSince(ctx context.Context, id ports.PaneID, mark ports.ProcessMark) ([]ports.Process, error) {
	ps, err := t.processesSince(ctx, id, mark)
	if err != nil {
		return nil, fmt.Errorf("list the processes of pane %s: %w", id, err)
	}
	return ps, nil
}

func (t *shellSupport) processesSince(ctx context.Context, id ports.PaneID, mark ports.ProcessMark) ([]ports.Process, error) {
	if t.proc != nil {
		return t.remoteProcessesSince(ctx, id, mark)
	}
	_, dev, err := t.localTTY(ctx, id)
	if err != nil {
		return nil, err
	}
	upto, err := tty.LastPID()
	if err != nil {
		return nil, err
	}
	return tty.Started(int(mark.Seq), upto, dev)
}

var _ ports.ProcessWatcher = (*Terminal)(nil)
