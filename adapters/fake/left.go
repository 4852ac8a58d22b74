package fake

import (
	"context"
	"fmt"
	"time"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// bgProc is a process a command started in the background of its pane
// (sleep N &): it runs on the pane's terminal until the clock passes
// until, and prints nothing.
type bgProc struct {
	pid     int
	command string
	until   time.Time
}

// ProcessMark marks the processes started so far: the newest process id,
// as on Linux. A Terminal without job control (WithoutJobControl) cannot
// tell.
func (t *Terminal) ProcessMark(ctx context.Context, id ports.PaneID) (ports.ProcessMark, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, err := t.lookupLive(ctx, id, "mark the processes of pane %s"); err != nil {
		return ports.ProcessMark{}, err
	}
	if t.noJobs {
		return ports.ProcessMark{}, fmt.Errorf("mark the processes of pane %s: %w", id, ports.ErrUnsupported)
	}
	return ports.ProcessMark{Seq: int64(t.nextPID)}, nil
}

// ProcessesSince lists the pane's background processes started after
// mark that still run. The pane's shell and its commands are not listed:
// a command's process has ended by the time its end marker is printed,
// and the fake's prompt runs nothing of its own but the group PromptRuns
// puts in front, which is not one of the pane's processes here.
func (t *Terminal) ProcessesSince(ctx context.Context, id ports.PaneID, mark ports.ProcessMark) ([]ports.Process, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p, err := t.lookupLive(ctx, id, "list the processes of pane %s")
	if err != nil {
		return nil, err
	}
	if t.noJobs {
		return nil, fmt.Errorf("list the processes of pane %s: %w", id, ports.ErrUnsupported)
	}
	now := t.clock.Now()
	out := []ports.Process{}
	for _, b := range p.bg {
		if int64(b.pid) > mark.Seq && now.Before(b.until) {
			// An orphan by now: its parent, the command's, has gone.
			out = append(out, ports.Process{PID: b.pid, Parent: 1, Group: b.pid, Command: b.command})
		}
	}
	return out, nil
}

var _ ports.ProcessWatcher = (*Terminal)(nil)
