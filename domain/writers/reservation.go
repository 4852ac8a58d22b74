package writers

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// Reservations enforce one writer per pane within this process. A writer
// takes a pane with Acquire and gives it back with Release; a second writer
// is refused at once with a *fault.BusyError naming what holds the pane. Nothing
// waits in a queue: an agent that finds a pane busy should be told so, not
// left hanging behind a command that may run for an hour.
//
// The zero value is not usable; call NewReservations.
type Reservations struct {
	mu   sync.Mutex
	held map[ports.PaneID]*Reservation
}

// NewReservations returns an empty set of reservations.
func NewReservations() *Reservations {
	return &Reservations{held: make(map[ports.PaneID]*Reservation)}
}

// A Reservation is one writer's hold on a pane.
type Reservation struct {
	set    *Reservations
	pane   ports.PaneID
	mu     sync.Mutex
	holder string
	// returned marks a reservation whose call has returned (timed out or
	// cancelled) while its command may still run: the one state in which
	// an interrupt key may reach the pane.
	returned bool
	// releasing marks a reservation whose writer is done, held only until
	// its lease has been given back: the next writer waits for it rather
	// than being told the pane is busy.
	releasing bool
	once      sync.Once
	done      chan struct{}
	// acting is held while an interrupt is sent through a returned
	// reservation, and by Release, so that an interrupt never reaches the
	// next writer's command.
	acting sync.Mutex
	// interrupted, if set, hears that an interrupt was sent.
	interrupted func()
	// yields marks a reservation that a forced end of the pane may take
	// from its writer (see Yield).
	yields bool
	// answerable marks a reservation whose command asked for input: the
	// caller named answerer may write to the pane through it (see
	// WhileAnswerable), and answered hears of each such write.
	answerable bool
	answerer   string
	answered   func()
}

// Acquire reserves pane for the writer described by holder (for example
// `run_shell_command "make test"`). It returns a *fault.BusyError if
// another writer holds the pane.
//
// A reservation that is only being released (see Releasing) is waited
// for, until ctx is done, whose error is then returned.
func (r *Reservations) Acquire(ctx context.Context, pane ports.PaneID, holder string) (*Reservation, error) {
	for {
		r.mu.Lock()
		cur, ok := r.held[pane]
		if !ok {
			rv := &Reservation{set: r, pane: pane, holder: holder, done: make(chan struct{})}
			r.held[pane] = rv
			r.mu.Unlock()
			return rv, nil
		}
		cur.mu.Lock()
		releasing, curHolder, returned, answerable := cur.releasing, cur.holder, cur.returned, cur.answerable
		cur.mu.Unlock()
		r.mu.Unlock()
		if !releasing {
			return nil, &fault.BusyError{Pane: pane, Holder: curHolder, Returned: returned, AwaitingInput: answerable}
		}
		select {
		case <-cur.done:
		case <-ctx.Done():
			return nil, fmt.Errorf("reserve pane %s: %w", pane, ctx.Err())
		}
	}
}

// AcquireOrTake is Acquire, but for a pane that a writer holds with a
// reservation that yields (see Yield): then it holds nothing and reports
// taken, so that the caller, which means to end the pane, goes ahead
// while that writer keeps its reservation until it sees the pane end.
func (r *Reservations) AcquireOrTake(ctx context.Context, pane ports.PaneID, holder string) (rv *Reservation, taken bool, err error) {
	rv, err = r.Acquire(ctx, pane, holder)
	var busy *fault.BusyError
	if !errors.As(err, &busy) {
		return rv, false, err
	}
	r.mu.Lock()
	cur, ok := r.held[pane]
	r.mu.Unlock()
	if ok {
		cur.mu.Lock()
		yields := cur.yields && !cur.releasing
		cur.mu.Unlock()
		if yields {
			return nil, true, nil
		}
	}
	if !ok {
		// Released meanwhile: try once more.
		rv, err = r.Acquire(ctx, pane, holder)
	}
	return rv, false, err
}

// Yield lets a forced end of the pane (kill_pane, respawn_pane with
// force) go ahead while this reservation's writer holds it: a command
// that ignores its interrupts would otherwise keep the pane for good.
// The writer keeps its reservation until it sees the pane's end.
func (rv *Reservation) Yield() {
	rv.mu.Lock()
	rv.yields = true
	rv.mu.Unlock()
}

// Releasing marks the reservation as held only until its writer has
// given back what else it holds (its lease), which takes a moment: the
// pane no longer counts as busy, and the next writer waits for Release
// instead of being refused.
func (rv *Reservation) Releasing() {
	// Not while an interrupt or an answer is being sent through it: its
	// writer gives its lease back next, and the write must be over first.
	rv.acting.Lock()
	defer rv.acting.Unlock()
	rv.mu.Lock()
	rv.releasing = true
	rv.mu.Unlock()
}

// Holder describes the writer holding the reservation.
func (rv *Reservation) Holder() string {
	rv.mu.Lock()
	defer rv.mu.Unlock()
	return rv.holder
}

// Returned records that the call holding the reservation has returned
// while its command may still run, and describes the holder anew.
// interrupted, if not nil, is called after each interrupt sent through
// the reservation (see WhileReturned).
func (rv *Reservation) Returned(holder string, interrupted func()) {
	rv.mu.Lock()
	rv.holder, rv.returned, rv.interrupted = holder, true, interrupted
	rv.mu.Unlock()
}

// Answerable lets the caller named caller write to the pane through this
// reservation, whose command waits for input (see WhileAnswerable);
// answered, if not nil, is called after each such write. It lasts until
// the reservation is released.
func (rv *Reservation) Answerable(caller string, answered func()) {
	rv.mu.Lock()
	rv.answerable, rv.answerer, rv.answered = true, caller, answered
	rv.mu.Unlock()
}

// Lookup returns the reservation on pane, if any, and whether its call has
// returned; a reservation that is being released is none.
func (r *Reservations) Lookup(pane ports.PaneID) (rv *Reservation, returned, ok bool) {
	r.mu.Lock()
	rv, ok = r.held[pane]
	r.mu.Unlock()
	if !ok {
		return nil, false, false
	}
	rv.mu.Lock()
	defer rv.mu.Unlock()
	if rv.releasing {
		return nil, false, false
	}
	return rv, rv.returned, true
}

// Release gives the pane back. Calling it more than once is harmless.
func (rv *Reservation) Release() {
	rv.once.Do(func() {
		rv.acting.Lock()
		defer rv.acting.Unlock()
		rv.set.mu.Lock()
		if rv.set.held[rv.pane] == rv {
			delete(rv.set.held, rv.pane)
		}
		rv.set.mu.Unlock()
		close(rv.done)
	})
}

// WhileReturned runs f while pane is held by a reservation whose call has
// returned, and reports whether it did: the reservation cannot be released
// (and the pane handed to another writer) while f runs.
func (r *Reservations) WhileReturned(pane ports.PaneID, f func() error) (ran bool, err error) {
	rv, returned, ok := r.Lookup(pane)
	if !ok || !returned {
		return false, nil
	}
	rv.acting.Lock()
	defer rv.acting.Unlock()
	r.mu.Lock()
	still := r.held[pane] == rv
	r.mu.Unlock()
	if !still {
		return false, nil
	}
	err = f()
	rv.mu.Lock()
	hook := rv.interrupted
	rv.mu.Unlock()
	if err == nil && hook != nil {
		hook()
	}
	return true, err
}

// WhileAnswerable runs f while pane is held by a reservation whose command
// asked caller for input (see Answerable), and reports whether it did: as
// for WhileReturned, the reservation cannot be released while f runs.
// The reservation's answered hook hears of it when f succeeds.
func (r *Reservations) WhileAnswerable(pane ports.PaneID, caller string, f func() error) (ran bool, err error) {
	rv, _, ok := r.Lookup(pane)
	if !ok {
		return false, nil
	}
	rv.acting.Lock()
	defer rv.acting.Unlock()
	r.mu.Lock()
	still := r.held[pane] == rv
	r.mu.Unlock()
	rv.mu.Lock()
	ok = still && !rv.releasing && rv.answerable && rv.answerer == caller
	hook := rv.answered
	rv.mu.Unlock()
	if !ok {
		return false, nil
	}
	if err = f(); err == nil && hook != nil {
		hook()
	}
	return true, err
}

// Released returns a channel that is closed once pane is free of the
// reservation holding it now; closed at once if none does.
func (r *Reservations) Released(pane ports.PaneID) <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	if rv, ok := r.held[pane]; ok {
		return rv.done
	}
	closed := make(chan struct{})
	close(closed)
	return closed
}
