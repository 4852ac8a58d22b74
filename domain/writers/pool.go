// Package writers keeps one writer per pane: Reservations within this
// process, Leases across the processes that share a multiplexer, and the
// Pool that takes both for a call, in the one order that is safe.
package writers

import (
	"context"
	"sync"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// A Pool holds the pane writers of one process. One Pool must serve every
// call of a process (the pane tools and the lifecycle tools alike), since
// it holds the reservations.
type Pool struct {
	res    *Reservations
	leases *Leases // nil: no cross-process leases

	// releasing counts the holds whose leases are being given back in the
	// background (Hold.Release).
	releasing sync.WaitGroup
}

// NewPool returns a pool that takes leases from leases, or none when it is
// nil.
func NewPool(leases *Leases) *Pool { return &Pool{res: NewReservations(), leases: leases} }

// A Hold is one writer's hold on a pane: its reservation and its lease.
// A Hold of HoldAll that took over the pane from a writer that yields
// (see Reservation.Yield) holds neither.
type Hold struct {
	pool  *Pool
	rv    *Reservation
	lease *Lease
	once  sync.Once
}

// Hold reserves the pane for holder and then leases it. It returns a
// *fault.BusyError when another writer of this process or another
// process holds it; nothing is held then.
func (p *Pool) Hold(ctx context.Context, pane ports.PaneID, holder string) (*Hold, error) {
	rv, err := p.res.Acquire(ctx, pane, holder)
	if err != nil {
		return nil, err
	}
	lease, err := p.leases.Take(ctx, pane)
	if err != nil {
		rv.Release()
		return nil, err
	}
	return &Hold{pool: p, rv: rv, lease: lease}, nil
}

// HoldAll holds every pane for holder, in order, or none of them: the
// first that another writer holds is reported as a *fault.BusyError. With
// takeOver, a pane that a writer of this process holds with a reservation
// that yields (a command of run_shell_command, see Hold.Yield) is taken
// over rather than busy: its Hold holds nothing, and that writer, which
// keeps its reservation and lease, sees the pane end. It is for the calls
// that end a pane, when told to with force.
func (p *Pool) HoldAll(ctx context.Context, panes []ports.PaneID, holder string, takeOver bool) (Holds, error) {
	var hs Holds
	for _, id := range panes {
		var (
			rv    *Reservation
			taken bool
			err   error
		)
		if takeOver {
			rv, taken, err = p.res.AcquireOrTake(ctx, id, holder)
		} else {
			rv, err = p.res.Acquire(ctx, id, holder)
		}
		if err != nil {
			hs.Release()
			return nil, err
		}
		if taken {
			hs = append(hs, &Hold{pool: p})
			continue
		}
		hs = append(hs, &Hold{pool: p, rv: rv})
	}
	// Reserved first, all of them, so that no lease is taken for a call
	// that another call of this process turns away.
	for _, h := range hs {
		if h.rv == nil {
			continue
		}
		lease, err := p.leases.Take(ctx, h.rv.pane)
		if err != nil {
			hs.Release()
			return nil, err
		}
		h.lease = lease
	}
	return hs, nil
}

// Release gives the lease back, then the reservation: a lease is never
// released after its reservation, or a call that took the pane in between
// would see its lease given back under it. Giving a lease back is a round
// trip to the multiplexer that the caller need not wait for, so it
// happens in the background: meanwhile the pane is no longer busy, and
// the next writer of this process waits for it (Reservations.Acquire).
// Calling Release again is harmless.
func (h *Hold) Release() {
	h.once.Do(func() {
		if h.rv == nil {
			return // a pane taken over: nothing is held
		}
		if h.lease == nil {
			h.rv.Release()
			return
		}
		h.rv.Releasing()
		h.pool.releasing.Add(1)
		go func() {
			defer h.pool.releasing.Done()
			h.lease.Release()
			h.rv.Release()
		}()
	})
}

// Returned records that the call holding the pane has returned while its
// command may still run (see Reservation.Returned).
func (h *Hold) Returned(holder string, interrupted func()) { h.rv.Returned(holder, interrupted) }

// Answerable lets caller answer the hold's command (see
// Reservation.Answerable).
func (h *Hold) Answerable(caller string, answered func()) { h.rv.Answerable(caller, answered) }

// Yield lets a forced end of the pane take it while this hold keeps it
// (see Reservation.Yield, HoldAll).
func (h *Hold) Yield() { h.rv.Yield() }

// Described returns the description of the pane taken with its lease, in
// the same exchange with the multiplexer, if the Leaser could give one:
// fresh as of the moment the pane was leased to this hold. A caller that
// gets none describes the pane itself.
func (h *Hold) Described() (ports.PaneInfo, bool) { return h.lease.Described() }

// Holds are the holds of one call on several panes.
type Holds []*Hold

// Release releases every hold.
func (hs Holds) Release() {
	for _, h := range hs {
		h.Release()
	}
}

// Lookup returns what holds pane, if anything, and whether its call has
// returned.
func (p *Pool) Lookup(pane ports.PaneID) (holder string, returned, held bool) {
	rv, returned, ok := p.res.Lookup(pane)
	if !ok {
		return "", false, false
	}
	return rv.Holder(), returned, true
}

// WhileReturned runs f while pane is held by a call that has returned
// (see Reservations.WhileReturned).
func (p *Pool) WhileReturned(pane ports.PaneID, f func() error) (ran bool, err error) {
	return p.res.WhileReturned(pane, f)
}

// WhileAnswerable runs f while pane is held by a call whose command asked
// caller for input (see Reservations.WhileAnswerable).
func (p *Pool) WhileAnswerable(pane ports.PaneID, caller string, f func() error) (ran bool, err error) {
	return p.res.WhileAnswerable(pane, caller, f)
}

// Released returns a channel closed once nothing of this process holds
// pane, its lease given back included.
func (p *Pool) Released(pane ports.PaneID) <-chan struct{} { return p.res.Released(pane) }

// Settle returns once no lease is being given back in the background.
func (p *Pool) Settle() { p.releasing.Wait() }

// Close waits for the leases being given back, then stops renewing the
// others (see Leases.Close).
func (p *Pool) Close() {
	p.Settle()
	p.leases.Close()
}

// Reserve reserves the pane for holder within this process and takes no
// lease: for a write that checks the lease itself in the same exchange as
// it writes (ports.GuardedWriter), and so holds it for no time at all. It
// returns a *fault.BusyError as Hold does.
func (p *Pool) Reserve(ctx context.Context, pane ports.PaneID, holder string) (*Hold, error) {
	rv, err := p.res.Acquire(ctx, pane, holder)
	if err != nil {
		return nil, err
	}
	return &Hold{pool: p, rv: rv}, nil
}

// Owner is the owner this pool leases panes as, "" when it takes no
// leases.
func (p *Pool) Owner() string {
	if p.leases == nil {
		return ""
	}
	return p.leases.owner
}
