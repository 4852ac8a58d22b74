package writers

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// The cross-process half of one writer per pane. Reservations keep two
// calls of this process apart; a lease keeps this process apart from other
// server processes on the same multiplexer. Every write takes the lease
// right after its reservation and gives it back with it: paste_text and
// send_keys for the duration of the call, run_shell_command until its
// command ends (renewed meanwhile), the kill tools and
// clear_pane_scrollback for every pane they touch.
//
// Every call of a process leases as the same owner, and the reservation is
// what keeps two of them apart: so a lease is always released before its
// reservation, never after, or a call that took the pane in between would
// see its lease given back under it.

// DefaultLeaseTTL is how long a lease lasts unless renewed. A process that
// dies holding a lease blocks the pane for at most this long.
const DefaultLeaseTTL = 30 * time.Second

// Leases takes, renews and gives back the leases of one process, through
// a ports.Leaser. A nil *Leases takes none: one writer per pane then holds
// within the process only.
type Leases struct {
	leaser ports.Leaser
	clock  ports.Clock
	owner  string
	ttl    time.Duration

	// closing ends every renewal at Close.
	closing   chan struct{}
	closeOnce sync.Once
	wg        sync.WaitGroup
}

// NewLeases returns the leases of a process that leases as owner, for ttl
// at a time (0 or less: DefaultLeaseTTL), renewed every ttl/3 on clock
// while they are held. owner must tell this process from every other one
// sharing the multiplexer.
func NewLeases(l ports.Leaser, clock ports.Clock, owner string, ttl time.Duration) *Leases {
	if ttl <= 0 {
		ttl = DefaultLeaseTTL
	}
	return &Leases{leaser: l, clock: clock, owner: owner, ttl: ttl, closing: make(chan struct{})}
}

// Close stops every renewal and returns once none runs; the leases still
// held are not given back (their holders do that), and expire unrenewed.
func (ls *Leases) Close() {
	if ls == nil {
		return
	}
	ls.closeOnce.Do(func() { close(ls.closing) })
	ls.wg.Wait()
}

// A Lease is one held lease, renewed in the background until Release. A
// nil *Lease does nothing.
type Lease struct {
	ls   *Leases
	pane ports.PaneID
	stop chan struct{}
	done chan struct{}
	once sync.Once
	// info is the pane's description, taken with the lease when the
	// Leaser can (ports.DescribingLeaser).
	info *ports.PaneInfo
}

// Take leases pane, or returns a *fault.BusyError naming the other process
// that holds it. It returns nil, nil for a nil *Leases. Errors of the
// Leaser pass through. A Leaser that can describe the pane as it leases
// it (ports.DescribingLeaser) is asked to: see Described.
func (ls *Leases) Take(ctx context.Context, pane ports.PaneID) (*Lease, error) {
	if ls == nil {
		return nil, nil
	}
	var (
		ok     bool
		holder string
		info   *ports.PaneInfo
		err    error
	)
	if dl, can := ls.leaser.(ports.DescribingLeaser); can {
		var described ports.PaneInfo
		ok, holder, described, err = dl.AcquireAndDescribe(ctx, pane, ls.owner, ls.ttl)
		info = &described
	} else {
		ok, holder, err = ls.leaser.TryAcquire(ctx, pane, ls.owner, ls.ttl)
	}
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, &fault.BusyError{Pane: pane, Holder: fmt.Sprintf("a call of another tmux-mcp process (owner %s)", holder), Owner: holder}
	}
	l := &Lease{ls: ls, pane: pane, stop: make(chan struct{}), done: make(chan struct{}), info: info}
	ls.wg.Add(1)
	// The first timer is made before Take returns, so that a test on the
	// fake clock knows it is there.
	go l.renew(ls.clock.NewTimer(ls.ttl / 3))
	return l, nil
}

// renew renews the lease every ttl/3 until Release or Close. A renewal
// that fails because the multiplexer did not answer is tried again at the
// next tick: the lease outlives two missed renewals. Each renewal is
// bounded by the time to the next one, so that a backend that hangs
// cannot keep Release waiting. Once the lease is lost to another owner or
// the pane is gone there is nothing left to renew.
func (l *Lease) renew(t ports.Timer) {
	defer l.ls.wg.Done()
	defer close(l.done)
	ls := l.ls
	for {
		select {
		case <-l.stop:
			t.Stop()
			return
		case <-ls.closing:
			t.Stop()
			return
		case <-t.C():
		}
		ctx, cancel := ls.clock.WithTimeout(context.Background(), ls.ttl/3)
		go func() {
			// Release and Close end the renewal at once.
			select {
			case <-l.stop:
			case <-ls.closing:
			case <-ctx.Done():
			}
			cancel()
		}()
		err := ls.leaser.Renew(ctx, l.pane, ls.owner, ls.ttl)
		cancel()
		if errors.Is(err, ports.ErrLeaseLost) || errors.Is(err, ports.ErrPaneNotFound) {
			return
		}
		t = ls.clock.NewTimer(ls.ttl / 3)
	}
}

// Described returns the pane's description taken with the lease, if the
// Leaser gave one.
func (l *Lease) Described() (ports.PaneInfo, bool) {
	if l == nil || l.info == nil {
		return ports.PaneInfo{}, false
	}
	return *l.info, true
}

// releaseTimeout bounds giving a lease back: one that cannot be released
// expires by itself.
const releaseTimeout = 5 * time.Second

// Release stops renewing the lease and gives it back. Calling it more than
// once is harmless. A failed release is not reported: the lease then
// expires by itself.
func (l *Lease) Release() {
	if l == nil {
		return
	}
	l.once.Do(func() {
		close(l.stop)
		<-l.done
		ctx, cancel := l.ls.clock.WithTimeout(context.Background(), releaseTimeout)
		defer cancel()
		_ = l.ls.leaser.Release(ctx, l.pane, l.ls.owner)
	})
}
