package ports

import (
	"context"
	"time"
)

// A Clock tells the time and makes timers. The domain takes every deadline
// from a Clock so that tests can drive time by hand (see adapters/fake).
//
// Implementations must be safe for concurrent use.
type Clock interface {
	// Now returns the current time.
	Now() time.Time

	// NewTimer returns a timer that fires once, d after now. A d of zero
	// or less fires at once.
	NewTimer(d time.Duration) Timer

	// WithTimeout returns a copy of parent that is done d after now on
	// this clock (its error then context.DeadlineExceeded), or when parent
	// is, whichever comes first; cancel releases it. It is how the domain
	// bounds what it asks of a port on its own behalf.
	WithTimeout(parent context.Context, d time.Duration) (ctx context.Context, cancel context.CancelFunc)
}

// A Timer fires once on its channel. It is the port's version of
// time.Timer, narrowed to what the domain needs.
type Timer interface {
	// C returns the channel that receives the time when the timer fires.
	// It is buffered: a timer that fires while nobody waits does not block.
	C() <-chan time.Time

	// Stop prevents the timer from firing. It reports whether the call
	// stopped the timer (false if it had already fired or been stopped).
	Stop() bool
}
