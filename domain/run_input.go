package domain

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/tmux-mcp/tmux-mcp/domain/input"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// A run that waits for input: its command blocked reading its terminal
// (ports.InputWatcher) while its pane prints nothing. The run's follower
// looks at every liveness check once the pane has been quiet for
// Config.InputQuiet; what it finds is an ask, which lasts until the pane
// prints again or its caller answers (PasteText and SendKeys write under
// the run's reservation: writers.Pool.WhileAnswerable). A call that waits
// for the run (with AwaitInput) ends at an ask it has not reported yet;
// once one is reported, the run's caller may answer it until the run ends.

// maxPrompt bounds the prompt a result quotes, in bytes, from its end.
const maxPrompt = 200

// asking is what a run knows of its command's asks. The follower writes
// it; wait_for_command's awaitRun reads it, hence the lock.
type asking struct {
	inCall   bool          // the run's call ends at an ask (RunRequest.AwaitInput)
	off      bool          // the terminal cannot tell: ask no more (follower only)
	lastOut  time.Time     // when the pane last printed, or was answered (follower only)
	outs     int           // counts the outputs and answers (follower only)
	answered chan struct{} // an answer went through the reservation

	mu       sync.Mutex
	cur      *InputAsk     // the ask now, until output or an answer
	seq      int           // counts the asks found
	reported int           // the seq last reported by a call
	wake     chan struct{} // closed, and replaced, at each new ask
}

func newAsking(inCall bool) *asking {
	return &asking{inCall: inCall, answered: make(chan struct{}, 1), wake: make(chan struct{})}
}

// output notes that the pane printed at now: an ask is over.
func (a *asking) output(now time.Time) {
	a.lastOut = now
	a.outs++
	a.mu.Lock()
	a.cur = nil
	a.mu.Unlock()
}

// pending returns the ask not reported yet, if any, and a channel closed
// at the next new ask.
func (a *asking) pending() (*InputAsk, <-chan struct{}) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cur != nil && a.seq != a.reported {
		return a.cur, a.wake
	}
	return nil, a.wake
}

// report marks the ask now as reported and returns it; nil when there is
// none.
func (a *asking) report() *InputAsk {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cur == nil {
		return nil
	}
	a.reported = a.seq
	ask := *a.cur
	return &ask
}

// found records a new ask.
func (a *asking) found(ask InputAsk) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.cur = &ask
	a.seq++
	close(a.wake)
	a.wake = make(chan struct{})
}

// now reports whether an ask stands.
func (a *asking) now() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.cur != nil
}

// answer tells the run that its caller wrote to the pane through its
// reservation: the ask, if any, is answered.
func (r *commandRun) answer() {
	select {
	case r.ask.answered <- struct{}{}:
	default:
	}
}

// answeredNow ends the ask standing, as its caller answered it.
func (r *commandRun) answeredNow() { r.ask.output(r.s.clock.Now()) }

// checkInput looks for a new ask: the command started and has not ended,
// the pane has been quiet for InputQuiet, no ask stands, and the terminal
// says that a process of the job in front reads it. It reports whether it
// found one.
func (r *commandRun) checkInput() bool {
	a := r.ask
	now := r.s.clock.Now()
	if a.lastOut.IsZero() {
		a.lastOut = now
	}
	if a.off || r.start != startSeen || r.end != endNone || a.now() || now.Sub(a.lastOut) < r.s.cfg.InputQuiet {
		return false
	}
	if _, ended := r.scanner.Ended(); ended {
		return false
	}
	iw, ok := r.s.term.(ports.InputWatcher)
	if !ok {
		a.off = true
		return false
	}
	ctx, cancel := r.s.bounded(reopenTimeout)
	defer cancel()
	rd, err := iw.Reading(ctx, r.pane)
	switch {
	case errors.Is(err, ports.ErrUnsupported):
		a.off = true
		return false
	case err != nil || !rd.Blocked:
		return false
	case rd.PID != 0 && rd.PID == r.before.Group && !rd.Canonical:
		// The pane's shell itself, in its line editor: the command has
		// ended, and its end marker is on its way.
		return false
	}
	// What came meanwhile may be the command's end, or more output.
	if outs := a.outs; func() bool { _, done := r.pump(); return done }() || a.outs != outs {
		return false
	}
	prompt := r.screenPrompt(ctx)
	a.found(InputAsk{Kind: input.Classify(rd, prompt), Prompt: prompt})
	return true
}

// screenPrompt is the last line on the pane's screen that is not blank,
// below the line typed to run the command when that is still on the
// screen: a command that printed no prompt has none, rather than the
// typed line's.
func (r *commandRun) screenPrompt(ctx context.Context) string {
	req := CaptureRequest{PaneID: r.pane, JoinWrapped: true}
	c, err := r.s.CapturePane(ctx, req)
	if err != nil {
		req.JoinWrapped = false
		if c, err = r.s.CapturePane(ctx, req); err != nil {
			return ""
		}
	}
	lines := strings.Split(c.Text, "\n")
	if typed := r.files.Script; typed != "" {
		for i := len(lines) - 1; i >= 0; i-- {
			if strings.Contains(lines[i], typed) {
				lines = lines[i+1:]
				break
			}
		}
	}
	return input.Prompt(lines, maxPrompt)
}

// snapResult is the result so far that a snapshot asks for as o (see
// snapshot): for awaiting_input, only while an ask stands that no call
// has reported (else the zero result, whose empty outcome says so); its
// caller may answer it from then on.
func (r *commandRun) snapResult(o Outcome) RunResult {
	if o != OutcomeAwaitingInput {
		return r.result(o)
	}
	if ask, _ := r.ask.pending(); ask == nil {
		return RunResult{}
	}
	res := r.result(o)
	if res.Input != nil {
		r.hold.Answerable(r.caller, r.answer)
	}
	return res
}
