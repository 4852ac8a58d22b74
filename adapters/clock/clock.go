// Package clock is the ports.Clock of the real world: the time package's
// clock and timers. Tests use adapters/fake's Clock instead.
package clock

import "github.com/tmux-mcp/tmux-mcp/adapters/internal/sysclock"

// System reads the system clock. The zero value is ready to use and safe
// for concurrent use.
type System = sysclock.System

// New returns the system clock.
func New() System { return System{} }
