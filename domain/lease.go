package domain

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

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

// leaseConfig is the Service's lease setting; the zero value takes none.
type leaseConfig struct {
	leaser ports.Leaser
	owner  string
	ttl    time.Duration
}

// WithLeaser makes the Service lease every pane it writes to from l, as
// owner, for ttl at a time, renewed every ttl/3 while it writes. owner must
// tell this process from every other one sharing the multiplexer; ""
// takes a fresh random id. A ttl of 0 or less means DefaultLeaseTTL.
//
// Without it the Service keeps one writer per pane within the process
// only.
func WithLeaser(l ports.Leaser, owner string, ttl time.Duration) Option {
	if ttl <= 0 {
		ttl = DefaultLeaseTTL
	}
	return func(s *Service) { s.lease = leaseConfig{leaser: l, owner: owner, ttl: ttl} }
}

// LeaseOwner returns the owner id this Service leases panes as, or "" when
// it takes no leases.
func (s *Service) LeaseOwner() string {
	if s.lease.leaser == nil {
		return ""
	}
	if s.lease.owner != "" {
		return s.lease.owner
	}
	return "tmux-mcp-" + s.instance
}

// A paneLease is a lease this Service holds, renewed in the background
// until Release. A nil *paneLease (no Leaser configured) does nothing.
type paneLease struct {
	s     *Service
	pane  ports.PaneID
	owner string
	stop  chan struct{}
	done  chan struct{}
	once  sync.Once
}

// takeLease leases pane, or returns a *BusyError naming the other process
// that holds it. It returns nil, nil when the Service takes no leases.
func (s *Service) takeLease(ctx context.Context, pane ports.PaneID) (*paneLease, error) {
	cfg := s.lease
	if cfg.leaser == nil {
		return nil, nil
	}
	owner := s.LeaseOwner()
	ok, holder, err := cfg.leaser.TryAcquire(ctx, pane, owner, cfg.ttl)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, &BusyError{Pane: pane, Holder: fmt.Sprintf("a call of another tmux-mcp process (owner %s)", holder)}
	}
	l := &paneLease{s: s, pane: pane, owner: owner, stop: make(chan struct{}), done: make(chan struct{})}
	// The first timer is made before takeLease returns, so that a test on
	// the fake clock knows it is there.
	go l.renew(s.clock.NewTimer(cfg.ttl / 3))
	return l, nil
}

// takeLeases leases every pane, in order, or none: on an error the leases
// already taken are released.
func (s *Service) takeLeases(ctx context.Context, panes []ports.PaneID) ([]*paneLease, error) {
	var leases []*paneLease
	for _, p := range panes {
		l, err := s.takeLease(ctx, p)
		if err != nil {
			releaseLeases(leases)
			return nil, err
		}
		leases = append(leases, l)
	}
	return leases, nil
}

func releaseLeases(leases []*paneLease) {
	for _, l := range leases {
		l.Release()
	}
}

// renew renews the lease every ttl/3 until Release. A renewal that fails
// because the multiplexer did not answer is tried again at the next tick:
// the lease outlives two missed renewals. Once the lease is lost to
// another owner or the pane is gone there is nothing left to renew.
func (l *paneLease) renew(t ports.Timer) {
	defer close(l.done)
	cfg := l.s.lease
	for {
		select {
		case <-l.stop:
			t.Stop()
			return
		case <-t.C():
		}
		err := cfg.leaser.Renew(context.Background(), l.pane, l.owner, cfg.ttl)
		if errors.Is(err, ports.ErrLeaseLost) || errors.Is(err, ports.ErrPaneNotFound) {
			return
		}
		t = l.s.clock.NewTimer(cfg.ttl / 3)
	}
}

// Release stops renewing the lease and gives it back. Calling it more than
// once is harmless. A failed release is not reported: the lease then
// expires by itself.
func (l *paneLease) Release() {
	if l == nil {
		return
	}
	l.once.Do(func() {
		close(l.stop)
		<-l.done
		_ = l.s.lease.leaser.Release(context.Background(), l.pane, l.owner)
	})
}
