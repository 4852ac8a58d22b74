package domain

import (
	"context"
	"errors"
	"time"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// Following a run: reading its output until it ends, in its call and,
// once the call has returned, in the background.

// Outcomes of follow that never reach a result.
const (
	// outcomeUnread ends a wait whose script the shell could not read.
	outcomeUnread Outcome = "unread"
	// outcomeClosed ends a background run because the Service closes.
	outcomeClosed Outcome = "closed"
)

// follow reads the command's output until its run ends (completed or
// pane_died) and returns the outcome. Its two callers differ in when
// else it returns:
//
//   - In the call (w set): at w's deadline, as timed_out, or at ctx's
//     cancellation, as cancelled (see timeUp), reporting progress
//     meanwhile; and with outcomeUnread when the shell could not read
//     the script.
//   - In the background (w nil, after the call returned: finish): when
//     an interrupt found a command that never showed its start (as
//     timed_out, the command withdrawn), or when the Service closes
//     (outcomeClosed). It answers snapshots meanwhile.
func (r *commandRun) follow(ctx context.Context, w *waiter) Outcome {
	var live, grace ports.Timer
	defer func() {
		stopTimers(live, grace)
		r.stopRetry()
	}()
	// What only the background listens to.
	var poked <-chan struct{}
	var snap <-chan snapRequest
	var closing <-chan struct{}
	if w == nil {
		poked, snap, closing = r.poked, r.snap, r.s.closing
	}
	for {
		if o, done := r.pump(); done && (w != nil || o != outcomeUnread) {
			return o
		}
		// Armed after pump, so that a test that sees the timer pending
		// knows the run has read everything so far.
		if live == nil {
			live = r.s.clock.NewTimer(r.s.cfg.LivenessInterval)
		}
		select {
		case <-r.in.changed():
		case <-live.C():
			r.checkAlive()
			r.checkAbandoned()
			live = nil
			if r.checkInput() && w != nil && r.ask.inCall {
				return OutcomeAwaitingInput
			}
		case <-r.ask.answered:
			r.answeredNow()
		case <-r.retryC():
			r.retry = nil
		case <-w.ticks():
			w.report()
		case <-w.done():
			return r.due(&live, OutcomeTimedOut)
		case <-ctx.Done():
			return r.due(&live, OutcomeCancelled)
		case <-poked:
			// An interrupt reached the pane. A command that never showed
			// its start (the shell took the script as it was withdrawn,
			// then printed nothing) is waited for no longer than a
			// withdrawal would wait: its end marker comes at once if it
			// ran, since the frame traps the interrupt.
			if r.start != startSeen && grace == nil {
				grace = r.s.clock.NewTimer(withdrawGraceUnknown)
			}
		case <-timerC(grace):
			grace = nil
			if r.pump(); r.start != startSeen {
				r.start = startWithdrawn
				return OutcomeTimedOut
			}
		case q := <-snap:
			q.reply <- r.snapResult(q.outcome)
		case <-closing:
			return outcomeClosed
		}
	}
}

// due ends a call's wait at its deadline or cancellation (o), after a
// last read: the liveness timer goes first, so that only the withdrawal
// waits on the clock (timeUp).
func (r *commandRun) due(live *ports.Timer, o Outcome) Outcome {
	if got, done := r.pump(); done {
		return got
	}
	(*live).Stop()
	*live = nil
	return r.timeUp(o)
}

func timerC(t ports.Timer) <-chan time.Time {
	if t == nil {
		return nil
	}
	return t.C()
}

func stopTimers(ts ...ports.Timer) {
	for _, t := range ts {
		if t != nil {
			t.Stop()
		}
	}
}

// pump feeds what the stream holds into the scanner and reports whether
// the command has ended (completed), can no longer end (pane_died) or
// never ran (unread).
func (r *commandRun) pump() (Outcome, bool) {
	if r.broken {
		if r.reopen(); r.broken && !r.end.gone() {
			return "", false
		}
	}
	if !r.end.gone() {
		got := r.in.read()
		if got.Missed > 0 {
			r.s.lost(r.pane, got.Missed, "it ran "+r.command)
			r.missed += got.Missed
			r.gap = true
			if !r.scanner.Started() {
				// The start marker may have been among the lost bytes:
				// what follows may be the command's.
				r.scanner.Resume()
			}
		}
		if len(got.Data) > 0 {
			r.scanner.Write(got.Data)
			if r.far != nil {
				r.far.note(r.scanner.Started(), got.Data)
			}
			r.quiet = 0
			r.ask.output(r.s.clock.Now())
		}
		if r.scanner.Started() && r.start < startSeen {
			r.start = startSeen
		}
		if r.scanner.Unread() {
			return outcomeUnread, true
		}
		if _, ok := r.scanner.Ended(); ok && r.confirm() {
			// Only the frame's own shell prints its end marker: what came
			// before it is the pane's process's.
			r.held.commit()
			return OutcomeCompleted, true
		}
		if r.end.completed() {
			return OutcomeCompleted, true
		}
		if r.held.size() > heldMax {
			r.checkAlive()
		}
		switch {
		case r.end.gone():
		case got.Gone != nil:
			r.died()
		case got.Broken != nil:
			// The stream broke but the pane may well live on, and its
			// command with it: listen again rather than call it dead.
			r.reopen()
		}
	}
	if r.end.gone() {
		if r.end == endDied {
			// The pane died: what it wrote before was its process's.
			r.held.commit()
		}
		return OutcomePaneDied, true
	}
	return "", false
}

// timeUp ends a wait at the deadline or the cancellation. A command that
// started goes on (the outcome stands, StillRunning). One that did not is
// withdrawn: its script is deleted, so that the typed line, should the
// shell ever run it, finds nothing to run, and C-c abandons the line
// itself (an open quote, a busy shell's type-ahead). If the shell took the
// script as it was being withdrawn, the command has started after all.
func (r *commandRun) timeUp(o Outcome) Outcome {
	r.checkAlive()
	if r.end.gone() {
		return OutcomePaneDied
	}
	if r.start != startTyped {
		return o
	}
	state := r.unstage()
	if state == ports.ScriptTaken {
		r.start, r.raced = startTaken, true
		return o
	}
	ctx, cancel := r.s.bounded(typeTimeout)
	_ = r.s.term.SendKeys(ctx, r.pane, []string{"C-c"})
	cancel()
	grace := WithdrawGrace
	if state == ports.ScriptUnknown {
		grace = withdrawGraceUnknown
	}
	t := r.s.clock.NewTimer(grace)
	defer t.Stop()
	for {
		if done, ok := r.pump(); ok && done != outcomeUnread {
			return done
		}
		if r.start == startSeen {
			r.raced = true
			return o
		}
		select {
		case <-r.in.changed():
		case <-t.C():
			r.pump()
			if r.start == startSeen {
				r.raced = true
				return o
			}
			r.start = startWithdrawn
			return o
		}
	}
}

// reopen replaces a stream that ended for another reason than the pane
// going away. Offsets carry on across streams, so what was written
// meanwhile is counted as missed by the next read. If the terminal cannot
// listen now, the run keeps its reservation and tries again at the next
// liveness check: only the pane's end, or the command's, frees the pane.
func (r *commandRun) reopen() {
	if r.checkAlive(); r.end.gone() {
		return
	}
	ctx, cancel := r.s.bounded(reopenTimeout)
	defer cancel()
	stream, err := r.s.term.OpenOutput(ctx, r.pane)
	switch {
	case paneGone(err):
		r.died()
	case err == nil:
		r.in.stream.Close()
		r.in.stream = stream
		r.broken = false
		// What was written while nobody listened may have held the end.
		r.gap = true
	default:
		r.broken = true
	}
}

// checkAlive asks the terminal whether the pane still runs the process
// that read the frame, for backends whose stream does not end by itself
// when the pane dies or its process is replaced. Output held so far is
// the process's when it does; when another process has replaced it, the
// held output may be the new process's, and is dropped.
func (r *commandRun) checkAlive() {
	if r.end != endNone {
		return
	}
	ctx, cancel := r.s.bounded(reopenTimeout)
	defer cancel()
	// What was read before the question came from the process that the
	// answer names: a process replaced before the answer shows in it.
	info, err := r.s.term.Pane(ctx, r.pane)
	switch {
	case errors.Is(err, ports.ErrPaneNotFound):
		r.died()
	case err != nil:
		// Not known now; the next check asks again.
	case info.Dead:
		r.died()
	case info.Generation != r.gen && r.gen != "":
		r.ends(endReplaced)
		r.held.drop()
	default:
		r.held.commit()
		if r.gap {
			r.readStatusFile()
		}
	}
}

// poke tells a background run that an interrupt reached its pane.
func (r *commandRun) poke() {
	select {
	case r.poked <- struct{}{}:
	default:
	}
}
