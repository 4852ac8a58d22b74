package fake

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// Leaser is an in-memory ports.Leaser: one table of leases, judged on a
// Clock, that several Services share as several server processes share
// one multiplexer. It knows nothing of panes: any pane id can be leased.
//
// Leaser is safe for concurrent use.
type Leaser struct {
	clock ports.Clock

	mu     sync.Mutex
	leases map[ports.PaneID]fakeLease
}

type fakeLease struct {
	owner   string
	expires time.Time
}

var _ ports.Leaser = (*Leaser)(nil)

// NewLeaser returns a Leaser without leases that reads the time from c.
func NewLeaser(c ports.Clock) *Leaser {
	return &Leaser{clock: c, leases: map[ports.PaneID]fakeLease{}}
}

// TryAcquire leases the pane to owner for ttl unless another owner holds a
// lease that has not expired (a lease expires at its expiry time).
func (l *Leaser) TryAcquire(ctx context.Context, pane ports.PaneID, owner string, ttl time.Duration) (bool, string, error) {
	if err := ctx.Err(); err != nil {
		return false, "", fmt.Errorf("lease pane %s: %w", pane, err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.clock.Now()
	if cur, ok := l.leases[pane]; ok && cur.owner != owner && now.Before(cur.expires) {
		return false, cur.owner, nil
	}
	l.leases[pane] = fakeLease{owner: owner, expires: now.Add(ttl)}
	return true, "", nil
}

// Renew extends owner's lease, or takes the pane again if nobody holds
// it; another owner's unexpired lease is ErrLeaseLost.
func (l *Leaser) Renew(ctx context.Context, pane ports.PaneID, owner string, ttl time.Duration) error {
	ok, holder, err := l.TryAcquire(ctx, pane, owner, ttl)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("renew the lease on pane %s: held by %s: %w", pane, holder, ports.ErrLeaseLost)
	}
	return nil
}

// Release ends owner's lease on the pane, if owner holds it.
func (l *Leaser) Release(ctx context.Context, pane ports.PaneID, owner string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if cur, ok := l.leases[pane]; ok && cur.owner == owner {
		delete(l.leases, pane)
	}
	return nil
}

// Holder returns who holds the lease on the pane and until when. An
// expired lease nobody has taken over is still reported, with its past
// expiry; ok is false when there is no lease at all.
func (l *Leaser) Holder(pane ports.PaneID) (owner string, expires time.Time, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	cur, ok := l.leases[pane]
	return cur.owner, cur.expires, ok
}
