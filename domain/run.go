package domain

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// RunShellCommand runs req.Command in a subshell of the pane's shell and
// waits for it to end, for the deadline, for the pane to die or for ctx to
// be cancelled, whichever comes first; the result's Outcome says which.
//
// The pane stays reserved until the command ends or the pane dies, even
// after a call that returned timed_out or cancelled: a later write to it is
// refused with a *BusyError until then.
//
// Errors: *ArgumentError for a bad request; *BusyError when another writer
// holds the pane; *RefusalError when the policy forbids writing to the
// pane; wrapped ports errors (ErrPaneNotFound, ErrUnavailable) from the
// terminal. When an error returns, no command has run: either nothing was
// typed, or what was typed has been abandoned with C-c.
func (s *Service) RunShellCommand(ctx context.Context, req RunRequest) (RunResult, error) {
	if req.TimeoutMs < 0 {
		return RunResult{}, &ArgumentError{Field: "timeoutMs", Reason: "must be at least 1"}
	}
	if req.MaxLines < 0 {
		return RunResult{}, &ArgumentError{Field: "maxLines", Reason: "must be at least 1"}
	}
	if req.Command == "" {
		return RunResult{}, &ArgumentError{Field: "command", Reason: "is empty"}
	}
	timeout := s.effectiveTimeout(req.TimeoutMs)
	maxLines := s.maxLines(req.MaxLines)
	holder := "run_shell_command " + quoteCommand(req.Command)

	rv, err := s.res.Acquire(req.PaneID, holder)
	if err != nil {
		return RunResult{}, err
	}
	lease, err := s.takeLease(ctx, req.PaneID)
	if err != nil {
		rv.Release()
		return RunResult{}, err
	}
	run, err := s.startRun(ctx, rv, req, maxLines)
	if err != nil {
		lease.Release()
		rv.Release()
		return RunResult{}, err
	}
	run.lease = lease
	outcome := run.wait(ctx, timeout, req.Progress)
	res := run.result(outcome)
	res.EffectiveTimeoutMs = timeout.Milliseconds()
	if res.StillRunning {
		rv.Returned(holder + fmt.Sprintf(" (its call returned %s; the command may still be running)", outcome))
		go run.finish()
	} else {
		run.close()
	}
	return res, nil
}

// effectiveTimeout clamps the requested wait to the ceiling.
func (s *Service) effectiveTimeout(ms int64) time.Duration {
	d := DefaultTimeout
	if ms > 0 {
		d = time.Duration(min(ms, s.cfg.WaitMax.Milliseconds())) * time.Millisecond
	}
	return min(d, s.cfg.WaitMax)
}

func (s *Service) maxLines(n int64) int {
	if n <= 0 {
		return s.cfg.MaxResultLines
	}
	return int(min(n, int64(maxInt)))
}

const maxInt = int(^uint(0) >> 1)

// typeTimeout bounds typing one framed command into a pane.
const typeTimeout = 30 * time.Second

// commandRun is one framed command in flight: the stream it reads, the
// scanner that finds its frame and the pipeline that keeps its output.
type commandRun struct {
	s       *Service
	rv      *Reservation
	pane    ports.PaneID
	id      string
	stream  ports.OutputStream
	offset  int64
	missed  int64
	scanner *FrameScanner
	norm    *TextNormalizer
	tail    *Tail
	sink    *switchWriter
	gone    error      // why the pane went away, once it has
	broken  bool       // the stream ended with the pane alive and could not be reopened yet
	lease   *paneLease // the cross-process lease, released with rv
}

// startRun checks the pane, opens its output and types the framed command.
func (s *Service) startRun(ctx context.Context, rv *Reservation, req RunRequest, maxLines int) (*commandRun, error) {
	info, err := s.term.Pane(ctx, req.PaneID)
	if err != nil {
		return nil, fmt.Errorf("describe pane %s: %w", req.PaneID, err)
	}
	sh, err := CheckRun(info, req.Force)
	if err != nil {
		return nil, err
	}
	stream, err := s.term.OpenOutput(ctx, req.PaneID)
	if err != nil {
		return nil, fmt.Errorf("open output of pane %s: %w", req.PaneID, err)
	}
	r := &commandRun{s: s, rv: rv, pane: req.PaneID, id: s.newID(), stream: stream, offset: stream.End()}
	// The switch sits before the normalizer, so that once the call has
	// returned the command's output is only scanned for the end marker,
	// not normalized and kept.
	r.tail = NewTail(maxLines, s.cfg.MaxResultBytes)
	r.norm = NewTextNormalizer(r.tail)
	r.sink = &switchWriter{w: r.norm}
	r.scanner = NewFrameScanner(r.id, r.sink)

	// The frame ends in a line feed, which every supported shell reads as
	// Enter: one write instead of two, which matters when each write costs
	// a multiplexer round trip.
	//
	// A backend may type a long frame in pieces, so typing is not
	// cancelled half-way (a cancelled call answers once it is typed);
	// should it fail half-way all the same, C-c abandons the partial line,
	// so that the next writer's text is not appended to it.
	typeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), typeTimeout)
	defer cancel()
	if err := s.term.SendText(typeCtx, req.PaneID, Frame(sh, r.id, req.Command)+"\n"); err != nil {
		if !errors.Is(err, ports.ErrPaneDead) && !errors.Is(err, ports.ErrPaneNotFound) {
			_ = s.term.SendKeys(typeCtx, req.PaneID, []string{"C-c"})
		}
		stream.Close()
		return nil, fmt.Errorf("type command into pane %s: %w", req.PaneID, err)
	}
	return r, nil
}

// wait follows the command until it ends or the call must return.
func (r *commandRun) wait(ctx context.Context, timeout time.Duration, progress ProgressFunc) Outcome {
	w := r.s.newWaiter(timeout, progress)
	defer w.stop()
	var live ports.Timer
	defer func() {
		if live != nil {
			live.Stop()
		}
	}()
	for {
		if o, done := r.pump(); done {
			return o
		}
		// Armed after pump, so that a test that sees the timer pending
		// knows the run has read everything so far.
		if live == nil {
			live = r.s.clock.NewTimer(r.s.cfg.LivenessInterval)
		}
		select {
		case <-r.stream.Changed():
		case <-w.ticks():
			w.report()
		case <-live.C():
			r.checkAlive(ctx)
			live = nil
		case <-w.done():
			if o, done := r.pump(); done {
				return o
			}
			return OutcomeTimedOut
		case <-ctx.Done():
			if o, done := r.pump(); done {
				return o
			}
			return OutcomeCancelled
		}
	}
}

// pump feeds what the stream holds into the scanner and reports whether
// the command has ended (completed) or can no longer end (pane_died).
func (r *commandRun) pump() (Outcome, bool) {
	if r.broken {
		if r.reopen(); r.broken || r.gone != nil {
			if r.gone != nil {
				return OutcomePaneDied, true
			}
			return "", false
		}
	}
	chunk := r.stream.ReadFrom(r.offset)
	if chunk.Missed > 0 {
		r.missed += chunk.Missed
		if !r.scanner.Started() {
			// The start marker may have been among the lost bytes. The
			// command was typed, so it has started; without this the end
			// marker would never be recognised.
			r.scanner.Write(StartMarker(r.id))
		}
	}
	if len(chunk.Data) > 0 {
		r.scanner.Write(chunk.Data)
		r.offset = chunk.Offset + int64(len(chunk.Data))
	} else if chunk.Offset > r.offset {
		r.offset = chunk.Offset
	}
	if _, ok := r.scanner.Ended(); ok {
		return OutcomeCompleted, true
	}
	if chunk.Ended != nil && r.gone == nil {
		if errors.Is(chunk.Ended, ports.ErrPaneDead) || errors.Is(chunk.Ended, ports.ErrPaneNotFound) {
			r.gone = chunk.Ended
		} else {
			// The stream broke but the pane may well live on, and its
			// command with it: listen again rather than call it dead.
			r.reopen()
		}
	}
	if r.gone != nil {
		return OutcomePaneDied, true
	}
	return "", false
}

// reopen replaces a stream that ended for another reason than the pane
// going away. Offsets carry on across streams, so what was written
// meanwhile is counted as missed by the next read. If the terminal cannot
// listen now, the run keeps its reservation and tries again at the next
// liveness check: only the pane's end, or the command's, frees the pane.
func (r *commandRun) reopen() {
	ctx, cancel := context.WithTimeout(context.Background(), reopenTimeout)
	defer cancel()
	if r.checkAlive(ctx); r.gone != nil {
		return
	}
	stream, err := r.s.term.OpenOutput(ctx, r.pane)
	switch {
	case errors.Is(err, ports.ErrPaneDead) || errors.Is(err, ports.ErrPaneNotFound):
		r.gone = err
	case err == nil:
		r.stream.Close()
		r.stream = stream
		r.broken = false
	default:
		r.broken = true
	}
}

// reopenTimeout bounds one attempt to listen to a pane again.
const reopenTimeout = 5 * time.Second

// checkAlive asks the terminal whether the pane still runs, for backends
// whose stream does not end by itself when the pane dies.
func (r *commandRun) checkAlive(ctx context.Context) {
	info, err := r.s.term.Pane(ctx, r.pane)
	switch {
	case errors.Is(err, ports.ErrPaneNotFound):
		r.gone = err
	case err == nil && info.Dead:
		r.gone = ports.ErrPaneDead
	}
}

// result turns what was read into the tool's result.
func (r *commandRun) result(o Outcome) RunResult {
	r.norm.Flush()
	t := r.tail.Result()
	res := RunResult{
		PaneID:                 r.pane,
		Outcome:                o,
		Output:                 t.Text,
		DroppedLines:           t.DroppedLines,
		OmittedBytes:           t.OmittedBytes,
		MissedBytes:            r.missed,
		ReturnedBytes:          t.ReturnedBytes,
		ForeignOutputSuspected: r.scanner.ForeignSeen(),
		StillRunning:           o == OutcomeTimedOut || o == OutcomeCancelled,
	}
	res.OutputComplete = res.DroppedLines == 0 && res.OmittedBytes == 0 && res.MissedBytes == 0
	if status, ok := r.scanner.Ended(); ok && o == OutcomeCompleted {
		res.ExitStatus = &status
	}
	return res
}

// finish keeps following a command whose call has returned, so that the
// pane is released the moment the command ends or the pane dies and not
// before.
func (r *commandRun) finish() {
	r.sink.set(io.Discard)
	ctx := context.Background()
	var live ports.Timer
	defer func() {
		if live != nil {
			live.Stop()
		}
	}()
	for {
		if _, done := r.pump(); done {
			r.close()
			return
		}
		if live == nil {
			live = r.s.clock.NewTimer(r.s.cfg.LivenessInterval)
		}
		select {
		case <-r.stream.Changed():
		case <-live.C():
			r.checkAlive(ctx)
			live = nil
		}
	}
}

func (r *commandRun) close() {
	r.lease.Release()
	r.rv.Release()
	r.stream.Close()
}

// switchWriter lets a running command's output be dropped once nobody will
// read it any more, without rebuilding the pipeline.
type switchWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *switchWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

func (s *switchWriter) set(w io.Writer) {
	s.mu.Lock()
	s.w = w
	s.mu.Unlock()
}

// quoteCommand shortens a command for messages about the pane's holder.
func quoteCommand(cmd string) string {
	const limit = 60
	if len(cmd) > limit {
		cut := limit
		for cut > 0 && !utf8.RuneStart(cmd[cut]) {
			cut--
		}
		cmd = cmd[:cut] + "…"
	}
	return fmt.Sprintf("%q", cmd)
}
