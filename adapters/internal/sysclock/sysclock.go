// Package sysclock is the ports.Clock of the real world: the time
// package's clock and timers. It is adapters/clock's, and the MCP
// adapter's default for subscriptions: adapters share it from here
// rather than import one another.
package sysclock

import (
	"context"
	"time"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// System reads the system clock. The zero value is ready to use and safe
// for concurrent use.
type System struct{}

var _ ports.Clock = System{}

// New returns the system clock.
func New() System { return System{} }

// Now returns time.Now().
func (System) Now() time.Time { return time.Now() }

// NewTimer returns a timer on time.NewTimer. A d of zero or less fires at
// once.
func (System) NewTimer(d time.Duration) ports.Timer { return timer{time.NewTimer(d)} }

// WithTimeout returns context.WithTimeout(parent, d).
func (System) WithTimeout(parent context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(parent, d)
}

// timer adapts *time.Timer. Since Go 1.23 its channel keeps a fired value
// until it is received, and Stop discards one not yet received, which is
// the port's contract.
type timer struct{ t *time.Timer }

func (t timer) C() <-chan time.Time { return t.t.C }

func (t timer) Stop() bool { return t.t.Stop() }
