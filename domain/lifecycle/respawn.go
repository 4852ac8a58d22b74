package lifecycle

import (
	"context"

	"github.com/tmux-mcp/tmux-mcp/domain/policy"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// RespawnPane restarts the pane's program in the same pane, which keeps
// its id: for a pane whose program exited, or one stuck past what keys
// can reach. Ending a live program is a write like a kill: the pane is
// held for the call and checked as policy.End says, so a pane a person
// watches, the server's own pane (unless Force) and a pane about which
// the backend cannot tell those facts are refused. A dead pane ends
// nothing and is respawned whoever watches it. Either way a pane that
// another writer holds (a command of run_shell_command still running,
// another process's lease) is busy, but for a command of this process's
// run_shell_command when Force is set: a program that ignores C-c would
// otherwise keep the pane for good, and that command's call, or
// wait_for_command, reports the respawn as pane_died. The new program's shell is reported
// to the created callback, so that the pane tools wait for it to read
// input before they type. The result describes the pane as the listings
// do, after the respawn.
//
// Errors: *fault.BusyError when another writer holds the pane;
// *fault.RefusalError when the policy forbids ending its program; wrapped
// ports errors (ErrPaneNotFound, ErrUnsupported). Nothing is respawned
// when an error returns before the backend was asked to.
func (s *Service) RespawnPane(ctx context.Context, req RespawnPaneRequest) (Pane, error) {
	r, err := require("respawn_pane", s.b.Respawner)
	if err != nil {
		return Pane{}, err
	}
	l, err := require("respawn_pane", s.b.Lister)
	if err != nil {
		return Pane{}, err
	}
	// With force, a pane that a command of run_shell_command holds is
	// taken from it (see end).
	holds, err := s.writers.HoldAll(ctx, []ports.PaneID{req.PaneID}, "respawn_pane", req.Force)
	if err != nil {
		return Pane{}, err
	}
	hold := holds[0]
	defer hold.Release()
	info, ok := hold.Described()
	if !ok {
		if info, err = s.panes.Pane(ctx, req.PaneID); err != nil {
			return Pane{}, err
		}
	}
	if !info.Dead {
		if err := policy.Check(info, policy.End, req.Force, "respawn_pane would end its program"); err != nil {
			return Pane{}, err
		}
	}
	if err := r.RespawnPane(ctx, req.PaneID); err != nil {
		return Pane{}, err
	}
	s.created(req.PaneID)
	// Free before it is described, so that the listing does not call the
	// pane busy with this call.
	hold.Release()
	return s.listPane(ctx, l, req.PaneID)
}
