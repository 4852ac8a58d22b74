package ports

import (
	"context"
	"errors"
	"time"
)

// ErrLeaseLost: Renew found the lease held by another owner, who took it
// over after it expired. The caller no longer has the pane to itself.
var ErrLeaseLost = errors.New("lease lost to another owner")

// A Leaser keeps one writer per pane across server processes: a writer
// leases the pane before it writes, and another process that asks for the
// same pane meanwhile is told who holds it. A lease lasts ttl from when it
// was taken or last renewed, so that a lease whose owner died (and stopped
// renewing) can be taken over once it has expired; a holder renews it
// well before then, for as long as it writes.
//
// Owners are strings that tell processes apart; the same owner asking
// again for a pane it holds gets it, renewed. Expiry is judged on a clock
// that every process sharing the backend reads alike (the system clock
// for a real multiplexer).
//
// Implementations must be safe for concurrent use, within a process and
// across the processes that share the backend: of two callers asking for a
// free pane at once, exactly one gets it.
type Leaser interface {
	// TryAcquire leases the pane to owner for ttl, unless another owner
	// holds an unexpired lease on it; then ok is false and holder names
	// that owner. It does not wait. Errors wrap ErrPaneNotFound when the
	// backend knows panes and has no such pane.
	TryAcquire(ctx context.Context, pane PaneID, owner string, ttl time.Duration) (ok bool, holder string, err error)

	// Renew extends owner's lease on the pane to ttl from now. A pane that
	// nobody holds (the lease expired and nobody took it) is leased to
	// owner again. It returns an error wrapping ErrLeaseLost when another
	// owner holds the pane, and ErrPaneNotFound as TryAcquire does.
	Renew(ctx context.Context, pane PaneID, owner string, ttl time.Duration) error

	// Release ends owner's lease on the pane. It never ends another
	// owner's lease, and releasing a lease that is not held, or the lease
	// of a pane that is gone, is not an error.
	Release(ctx context.Context, pane PaneID, owner string) error
}

// A DescribingLeaser is a Leaser that can also describe the pane in the
// same exchange with the multiplexer: what every write starts with, in one
// round trip instead of two. A Leaser that offers it should; the domain
// otherwise asks TryAcquire and then Terminal.Pane.
type DescribingLeaser interface {
	Leaser

	// AcquireAndDescribe is TryAcquire, then, when the lease is granted,
	// Terminal.Pane of the same pane, described after the lease was taken.
	// When it is not granted, info is the zero value. Errors are those of
	// TryAcquire and Pane.
	AcquireAndDescribe(ctx context.Context, pane PaneID, owner string, ttl time.Duration) (ok bool, holder string, info PaneInfo, err error)
}
