package domain

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/domain/policy"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// A light write (send_keys, paste_text) on a backend that is a
// ports.GuardedWriter is judged on the pane's last description and sent
// with that description's Guard, which the backend checks right before it
// writes, in the same exchange: on a pane already described, one round
// trip, and nothing can change the pane between the judgement and the
// bytes. When the pane changed, nothing is sent and the backend tells how
// it is now: the policy judges that, so a refusal says what it always
// says, and a pane that still passes is written to once more. A refusal
// is only ever made on a description fresh from this call: a stale one
// that refuses is described again first.

// guardedTries bounds the guarded writes of one call: a pane that changes
// under each of them is reported, not chased.
const guardedTries = 3

// errPaneChanging is a pane that changed under every guarded write of a
// call, in ways the policy allows (a control client coming and going).
var errPaneChanging = errors.New("the pane changed under each try, so nothing was sent; try again")

// maxGuards bounds the panes whose last guarded description is kept:
// past it, the cache starts again, so that a long-lived server whose
// panes come and go does not keep one entry per pane it ever wrote to
// (tmux does not reuse pane ids, so a gone pane's entry is never met
// again). Forgetting costs one description on the next write.
const maxGuards = 256

// guardCache holds each pane's last guarded description.
type guardCache struct {
	mu sync.Mutex
	by map[ports.PaneID]guarded
}

type guarded struct {
	info  ports.PaneInfo
	guard ports.Guard
}

func (c *guardCache) get(pane ports.PaneID) (guarded, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	g, ok := c.by[pane]
	return g, ok
}

func (c *guardCache) put(pane ports.PaneID, g guarded) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.by[pane]; c.by == nil || !ok && len(c.by) >= maxGuards {
		c.by = map[ports.PaneID]guarded{}
	}
	c.by[pane] = g
}

func (c *guardCache) drop(pane ports.PaneID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.by, pane)
}

// guardedWriter returns the terminal's GuardedWriter role, if it has one.
func (s *Service) guardedWriter() (ports.GuardedWriter, bool) {
	gw, ok := s.term.(ports.GuardedWriter)
	return gw, ok
}

// writeGuarded judges the pane for use and sends act, checked by the
// backend (see above), under a reservation of this process that the
// caller holds; the lease is checked as the write is made. It returns the
// description the write was made on. Errors: the policy's
// *fault.RefusalError, a *fault.BusyError for a lease another process
// holds, errPaneChanging, and gw's errors (ports.ErrUnsupported among
// them, before anything is sent).
func (s *Service) writeGuarded(ctx context.Context, gw ports.GuardedWriter, pane ports.PaneID, use policy.Use, force bool, act ports.GuardedAction, holder string) (ports.PaneInfo, error) {
	cur, fresh := s.guards.get(pane)
	fresh = !fresh
	if fresh {
		info, guard, err := gw.DescribeGuarded(ctx, pane)
		if err != nil {
			return info, err
		}
		cur = guarded{info, guard}
		s.guards.put(pane, cur)
	}
	for try := 0; try < guardedTries; {
		if err := policy.Check(cur.info, use, force, ""); err != nil {
			if fresh {
				return cur.info, err
			}
			info, guard, derr := gw.DescribeGuarded(ctx, pane)
			if derr != nil {
				s.guards.drop(pane)
				return info, derr
			}
			cur, fresh = guarded{info, guard}, true
			s.guards.put(pane, cur)
			continue
		}
		if use == policy.Press && cur.info.Mode != "" {
			// Keys for a mode go the usual way: a guarded list that
			// presses keys in copy mode was seen not to be answered,
			// for a cause not yet found (issue 26 is open on it).
			return cur.info, fmt.Errorf("write to pane %s in %s: %w", pane, cur.info.Mode, ports.ErrUnsupported)
		}
		try++
		res, err := gw.GuardedWrite(ctx, ports.GuardedWrite{Pane: pane, Guard: cur.guard, Owner: s.writers.Owner(), Action: act})
		if err != nil {
			s.guards.drop(pane)
			return cur.info, err
		}
		cur, fresh = guarded{res.Info, res.Guard}, true
		s.guards.put(pane, cur)
		if res.Written {
			return res.Info, nil
		}
		if res.Holder != "" {
			s.event(EventLeaseRefused, pane, fmt.Sprintf("pane %s is leased by another tmux-mcp process (owner %s); %s was refused",
				pane, res.Holder, holder))
			return res.Info, &fault.BusyError{Pane: pane, Holder: fmt.Sprintf("a call of another tmux-mcp process (owner %s)", res.Holder), Owner: res.Holder}
		}
	}
	return cur.info, fmt.Errorf("write to pane %s: %w", pane, errPaneChanging)
}
