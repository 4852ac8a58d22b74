package domain

import (
	"time"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// ProgressInterval is how often a waiting call tells its progress; the
// contract asks for at least every 2 s.
const ProgressInterval = time.Second

// A waiter is the clock side of every wait: one deadline and, when the
// caller listens, a progress tick.
type waiter struct {
	clock    ports.Clock
	start    time.Time
	total    time.Duration
	deadline ports.Timer
	progress ProgressFunc
	tickT    ports.Timer
	// line, once set (showing), gives the newest line of the output the
	// call waits for.
	line interface{ Newest() string }
}

func (s *Service) newWaiter(total time.Duration, progress ProgressFunc) *waiter {
	w := &waiter{clock: s.clock, start: s.clock.Now(), total: total, progress: progress}
	w.deadline = s.clock.NewTimer(total)
	if progress != nil {
		w.tickT = s.clock.NewTimer(ProgressInterval)
	}
	return w
}

// left is how long the wait has to go; 0 once it is over.
func (w *waiter) left() time.Duration {
	return max(w.total-w.clock.Now().Sub(w.start), 0)
}

// done fires when the wait is over; never for a nil waiter (a wait with
// no call behind it).
func (w *waiter) done() <-chan time.Time {
	if w == nil {
		return nil
	}
	return w.deadline.C()
}

// ticks fires when progress is due; never when nobody listens.
func (w *waiter) ticks() <-chan time.Time {
	if w == nil || w.tickT == nil {
		return nil
	}
	return w.tickT.C()
}

// showing makes each report carry out's newest line.
func (w *waiter) showing(out interface{ Newest() string }) { w.line = out }

// report tells progress and arms the next tick.
func (w *waiter) report() {
	p := Progress{Elapsed: min(w.clock.Now().Sub(w.start), w.total), Total: w.total}
	if w.line != nil {
		p.Line = w.line.Newest()
	}
	w.progress(p)
	w.tickT = w.clock.NewTimer(ProgressInterval)
}

func (w *waiter) stop() {
	w.deadline.Stop()
	if w.tickT != nil {
		w.tickT.Stop()
	}
}
