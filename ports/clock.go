package ports

import "time"

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
