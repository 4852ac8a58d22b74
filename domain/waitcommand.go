package domain

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/domain/termtext"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// WaitCommandRequest is a wait_for_command call.
type WaitCommandRequest struct {
	PaneID ports.PaneID
	// TimeoutMs is the wait the caller asked for; 0 means none given.
	// Negative values are refused.
	TimeoutMs int64
	// MaxLines keeps at most this many lines from the end; 0 means the
	// server default (or fewer, if the run_shell_command call that started
	// the command kept fewer). Negative values are refused.
	MaxLines int64
	Progress ProgressFunc
	// AwaitInput returns awaiting_input when the command waits for input
	// on its terminal and has not been answered since that was last
	// reported (see Service.WaitForCommand).
	AwaitInput bool
}

// WaitForCommand waits for the command that a run_shell_command call of
// this Service started in the pane, and whose call returned before it
// ended (timed_out or cancelled), to end; for the deadline; for the pane
// to die; or for ctx to be cancelled. It returns what run_shell_command
// would have returned had it waited so long: the outcome, the exit status
// once the command ended, and its output since it started, kept and
// accounted as run_shell_command keeps it. It may be called again and
// again while the command runs; once the command has ended, the first
// call to ask gets its end.
//
// Errors: *fault.ArgumentError for a bad request; an error wrapping
// fault.ErrNoCommand when no command of this Service runs in the pane (and
// none ended there since it was last asked for).
func (s *Service) WaitForCommand(ctx context.Context, req WaitCommandRequest) (RunResult, error) {
	if req.TimeoutMs < 0 {
		return RunResult{}, &fault.ArgumentError{Field: "timeoutMs", Reason: "must be at least 1"}
	}
	if req.MaxLines < 0 {
		return RunResult{}, &fault.ArgumentError{Field: "maxLines", Reason: "must be at least 1"}
	}
	timeout := s.effectiveTimeout(req.TimeoutMs)
	r, ended := s.runs.lookup(req.PaneID)
	if r == nil {
		return RunResult{}, fmt.Errorf("wait for the command in pane %s: %w", req.PaneID, fault.ErrNoCommand)
	}
	var res RunResult
	if ended {
		res = s.runs.collect(r)
	} else {
		w := s.newWaiter(timeout, req.Progress)
		w.showing(r.out)
		res = s.awaitRun(ctx, w, r, req.AwaitInput)
		w.stop()
	}
	res = retail(res, s.maxLines(req.MaxLines), s.cfg.MaxResultBytes)
	res.EffectiveTimeoutMs = timeout.Milliseconds()
	return res, nil
}

// awaitRun waits for r to end, for w's deadline or for ctx, and returns
// r's end, or what it has printed so far; with awaitInput, also for an
// ask of r's command that no call has reported yet (run_input.go).
func (s *Service) awaitRun(ctx context.Context, w *waiter, r *commandRun, awaitInput bool) RunResult {
	for {
		var asked <-chan struct{}
		if awaitInput {
			var ask *InputAsk
			if ask, asked = r.ask.pending(); ask != nil {
				// Its follower reports it, unless it is over meanwhile.
				if res := r.snapshot(OutcomeAwaitingInput); res.Outcome != "" {
					return res
				}
				continue
			}
		}
		select {
		case <-asked:
		case <-r.ended:
			return s.runs.collect(r)
		case <-w.ticks():
			w.report()
		case <-w.done():
			return r.snapshot(OutcomeTimedOut)
		case <-ctx.Done():
			return r.snapshot(OutcomeCancelled)
		}
	}
}

// snapshot asks r's follower for its result so far; the follower owns r.
// A run that ends meanwhile gives its end.
func (r *commandRun) snapshot(o Outcome) RunResult {
	reply := make(chan RunResult, 1)
	select {
	case r.snap <- snapRequest{outcome: o, reply: reply}:
		return <-reply
	case <-r.ended:
		return r.s.runs.collect(r)
	}
}

// A snapRequest asks a followed run for its result as of now.
type snapRequest struct {
	outcome Outcome
	reply   chan<- RunResult
}

// retail keeps the newest maxLines lines of res's output, when that is
// fewer than it holds, and accounts for what it withholds.
func retail(res RunResult, maxLines, maxBytes int) RunResult {
	t := termtext.TailOf(res.Output, maxLines, maxBytes)
	if t.DroppedLines == 0 && t.OmittedBytes == 0 {
		return res
	}
	res.Output, res.ReturnedBytes = t.Text, t.ReturnedBytes
	res.DroppedLines += t.DroppedLines
	res.OmittedBytes += t.OmittedBytes
	res.OutputComplete = false
	return res
}

// runs are the commands a Service follows after their calls returned, by
// pane, and the ends of those that ended since anyone asked (so that an
// exit status is not lost between two wait_for_command calls).
type runs struct {
	mu     sync.Mutex
	active map[ports.PaneID]*commandRun
	ended  map[ports.PaneID]*commandRun
	order  []ports.PaneID // of ended, oldest first
}

// maxEnded bounds the ends kept for asking; the oldest goes first.
const maxEnded = 64

// follow records r as followed in its pane.
func (rs *runs) follow(r *commandRun) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.active == nil {
		rs.active = map[ports.PaneID]*commandRun{}
		rs.ended = map[ports.PaneID]*commandRun{}
	}
	rs.active[r.pane] = r
}

// end records that r ended with res, kept until asked for; abandoned
// runs (the Service is closing) keep nothing. The end is recorded before
// the pane is released, so that a new command of this Service, which
// can take the pane only after, forgets it (forget); those waiting hear
// of it through tell, once the pane is free.
func (rs *runs) end(r *commandRun, res RunResult, keep bool) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	r.final = res
	if rs.active[r.pane] == r {
		delete(rs.active, r.pane)
	}
	if keep {
		rs.ended[r.pane] = r
		rs.order = append(slices.DeleteFunc(rs.order, func(p ports.PaneID) bool { return p == r.pane }), r.pane)
		for len(rs.order) > maxEnded {
			delete(rs.ended, rs.order[0])
			rs.order = rs.order[1:]
		}
	}
}

// tell wakes those waiting for r's end.
func (rs *runs) tell(r *commandRun) { close(r.ended) }

// lookup returns the run followed in pane, or the one that ended there
// and was not asked for yet (ended then true).
func (rs *runs) lookup(pane ports.PaneID) (r *commandRun, ended bool) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if r := rs.active[pane]; r != nil {
		return r, false
	}
	if r := rs.ended[pane]; r != nil {
		return r, true
	}
	return nil, false
}

// collect returns r's end and forgets it: the first to ask gets it.
func (rs *runs) collect(r *commandRun) RunResult {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.ended[r.pane] == r {
		delete(rs.ended, r.pane)
		rs.order = slices.DeleteFunc(rs.order, func(p ports.PaneID) bool { return p == r.pane })
	}
	return r.final
}

// forget drops the end kept for pane: a new command of this Service
// takes the pane, and the old end is no longer what runs there.
func (rs *runs) forget(pane ports.PaneID) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	delete(rs.ended, pane)
	rs.order = slices.DeleteFunc(rs.order, func(p ports.PaneID) bool { return p == pane })
}
