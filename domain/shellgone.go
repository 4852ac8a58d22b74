package domain

import (
	"context"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// shellGone reports whether the shell that ran the frame has exited while
// the pane lives on: another group is in front of the pane's terminal and
// the backend (ports.ProcessChecker) says that the frame's shell no longer
// exists. A shell nested in the pane's does that when a command run in it
// (persist) runs exit, or when something kills it: its frame's end never
// comes, and the run ends as abandoned (completed, status unknown) rather
// than hold the pane for good. The pane's own shell exiting is the pane's
// death, which checkAlive tells first; while it is being told, the
// foreground cannot be read, and nothing is concluded here.
func (r *commandRun) shellGone(ctx context.Context) bool {
	pid := r.scanner.ShellPID()
	pc, ok := r.s.term.(ports.ProcessChecker)
	if pid == 0 || r.noJobs || !ok {
		return false
	}
	fg, err := r.s.term.Foreground(ctx, r.pane)
	if err != nil || fg.Group <= 0 || fg.Group == pid {
		return false
	}
	exists, err := pc.ProcessExists(ctx, r.pane, pid)
	return err == nil && !exists
}
