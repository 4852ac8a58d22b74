package domain

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/domain/frame"
	"github.com/tmux-mcp/tmux-mcp/domain/runlog"
	"github.com/tmux-mcp/tmux-mcp/domain/termtext"
	"github.com/tmux-mcp/tmux-mcp/domain/writers"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// RunShellCommand runs req.Command in a child shell of the pane's shell and
// waits for it to end, for the deadline, for the pane to die or for ctx to
// be cancelled, whichever comes first; the result's Outcome says which.
//
// The command reaches the shell as a script file that a short typed line
// sources (see package frame), and the call knows from the frame's markers
// whether the command started and how it ended:
//
//   - A command that never started by the deadline (or the cancellation) —
//     the typed line landed in an open quote, the shell is busy or not yet
//     reading — is withdrawn: its script is deleted, so that it can never
//     run later, and C-c clears the typed line. The result then says
//     StillRunning false, or, if the shell took the script as it was
//     being withdrawn, StillRunning true.
//   - A command that started keeps the pane reserved until it ends or the
//     pane dies, even after a call that returned timed_out or cancelled: a
//     later write to the pane is refused with a *BusyError until then.
//   - The end counts only when the end marker carries the frame's secret
//     and, where the backend can tell (ports.JobControl), the shell that
//     ran the frame is back in the foreground of its terminal: an end
//     marker the command printed itself is ignored and flagged, and the
//     call waits for the real end.
//   - A pane whose process is replaced (respawned) ends the call as
//     pane_died, and what the new process printed is not output: bytes
//     read since the pane's process was last seen to be the same one are
//     dropped, and the output is then not complete.
//
// Errors: *fault.ArgumentError for a bad request; *fault.BusyError when
// another writer holds the pane; *fault.RefusalError when the policy
// forbids writing to the pane; an error wrapping fault.ErrNotRun when the
// pane's shell could not read the script; wrapped ports errors (ErrPaneNotFound, ErrUnavailable) from
// the terminal. When an error returns, no command has run.
func (s *Service) RunShellCommand(ctx context.Context, req RunRequest) (RunResult, error) {
	if req.TimeoutMs < 0 {
		return RunResult{}, &fault.ArgumentError{Field: "timeoutMs", Reason: "must be at least 1"}
	}
	if req.MaxLines < 0 {
		return RunResult{}, &fault.ArgumentError{Field: "maxLines", Reason: "must be at least 1"}
	}
	if req.Command == "" {
		return RunResult{}, &fault.ArgumentError{Field: "command", Reason: "is empty"}
	}
	if strings.IndexByte(req.Command, 0) >= 0 {
		return RunResult{}, &fault.ArgumentError{Field: "command", Reason: "holds a NUL byte, which no shell can take; nothing was typed"}
	}
	timeout := s.effectiveTimeout(req.TimeoutMs)
	maxLines := s.maxLines(req.MaxLines)
	holder := "run_shell_command " + quoteCommand(req.Command)

	notStarted := func(o Outcome) (RunResult, error) {
		return RunResult{PaneID: req.PaneID, Outcome: o, OutputComplete: true, NotStarted: true,
			EffectiveTimeoutMs: timeout.Milliseconds(), RunID: s.emptyRun(req.PaneID)}, nil
	}
	// The call's deadline bounds what comes before the line is typed too:
	// a terminal that does not answer (a stopped tmux server) ends the
	// call timed_out with nothing typed, instead of keeping it waiting and
	// typing the line whenever the terminal answers. (A lease that the
	// terminal takes after all expires by itself.)
	startCtx, endStart := s.clock.WithTimeout(ctx, timeout)
	defer endStart()
	expired := func() bool { return startCtx.Err() != nil && ctx.Err() == nil }
	w := s.newWaiter(timeout, req.Progress)
	defer w.stop()
	hold, err := s.hold(startCtx, req.PaneID, holder)
	if err != nil {
		if expired() {
			return notStarted(OutcomeTimedOut)
		}
		return RunResult{}, err
	}
	// A forced kill or respawn may end the pane under this command: one
	// that ignores C-c would otherwise hold it for good.
	hold.Yield()
	// What ended in the pane before is no longer what runs there.
	s.runs.forget(req.PaneID)
	run, early, err := s.startRun(startCtx, w, hold, req, maxLines)
	if err != nil || early != "" {
		hold.Release()
		switch {
		case expired():
			// What failed came before typing, or typing ran out of the
			// call's time with the script deleted, so that nothing runs.
			return notStarted(OutcomeTimedOut)
		case err != nil:
			return RunResult{}, err
		}
		// The shell never became ready: nothing was typed.
		return notStarted(early)
	}
	outcome := run.follow(ctx, w)
	// The call's wait is over: its timers go before a follower in the
	// background arms its own, so that a test on the fake clock can tell
	// the two apart.
	w.stop()
	if outcome == outcomeUnread {
		script := run.files.Script
		run.close()
		return RunResult{}, fmt.Errorf("run in pane %s: the pane's shell could not read the command's script %s "+
			"(it may run as another user, or in a container or chroot that does not see the file): %w",
			req.PaneID, script, fault.ErrNotRun)
	}
	res := run.result(outcome)
	res.EffectiveTimeoutMs = timeout.Milliseconds()
	if res.StillRunning {
		hold.Returned(holder+fmt.Sprintf(" (its call returned %s; the command may still be running)", outcome), run.poke)
		if res.Input != nil {
			hold.Answerable(req.Caller, run.answer)
		}
		s.background(run)
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

// Bounds of the terminal operations a run makes on its own behalf, whose
// caller may be gone.
const (
	typeTimeout   = 30 * time.Second // typing the line, and withdrawing it
	reopenTimeout = 5 * time.Second  // listening to a pane again, checking it
)

// Grace periods after a command was withdrawn, in which a start marker
// that raced with the withdrawal may still arrive: short when the backend
// told that the shell had not touched the script (only a shell that had
// just opened it may still run it), longer when it cannot tell.
const (
	WithdrawGrace        = 100 * time.Millisecond
	withdrawGraceUnknown = 500 * time.Millisecond
)

// heldMax bounds the output held until the pane's process is confirmed
// (see heldOutput): past it the run checks the pane at once.
const heldMax = 1 << 20

// A run's life has two sides, each a phase that only moves forward: how
// its command started (startPhase), and how its run ended (endPhase).
// They are apart because they are told apart: a command withdrawn before
// it started may still meet its pane's death, and a late start (raced)
// ends as any other.

// startPhase is how far the command has got towards running.
type startPhase uint8

const (
	// startTyped: the line is typed; no start marker has come.
	startTyped startPhase = iota
	// startTaken: the shell took the script as it was being withdrawn,
	// and no start marker has come: the command may run.
	startTaken
	// startSeen: the start marker came (or, after a gap in the stream,
	// may have been lost): the command runs, or ran.
	startSeen
	// startWithdrawn: the command never started, and never will: its
	// script is deleted.
	startWithdrawn
)

// endPhase is how the run ended, if it has. The first end the run finds
// is its end: nothing found after changes it.
type endPhase uint8

const (
	// endNone: not ended.
	endNone endPhase = iota
	// endMarker: the frame's end marker came and was confirmed (confirm).
	endMarker
	// endFile: the end marker was lost in a gap of the stream, and the
	// script's status file told the end (readStatusFile).
	endFile
	// endAbandoned: the shell gave up the frame after the command
	// started, so no status will come (checkAbandoned).
	endAbandoned
	// endDied: the pane or its process went away; what it wrote before
	// was its process's.
	endDied
	// endReplaced: the pane's process was replaced; what was held
	// unconfirmed may be the new process's, and is dropped.
	endReplaced
)

// completed reports whether the end is the command's own.
func (e endPhase) completed() bool { return e == endMarker || e == endFile || e == endAbandoned }

// gone reports whether the pane went away under the run.
func (e endPhase) gone() bool { return e == endDied || e == endReplaced }

// commandRun is one framed command in flight: the stream it reads, the
// scanner that follows its frame and the pipeline that keeps its output.
type commandRun struct {
	s      *Service
	hold   *writers.Hold // the pane, for this run
	pane   ports.PaneID
	gen    string       // the pane's process generation when the line was typed
	files  frame.Files  // the staged files; none once removed
	in     streamReader // the pane's output, from just before the line was typed
	missed int64

	scanner *frame.Scanner
	held    *heldOutput
	norm    *termtext.Normalizer
	trim    *finalNewline
	tail    *termtext.Tail
	out     *runlog.Writer // the whole output, kept (output.go)

	start      startPhase
	end        endPhase
	raced      bool // it started while being withdrawn
	fileStatus int  // the status the script wrote into its file, for endFile

	// What the stream went through.
	broken bool // it ended with the pane alive and could not be reopened yet
	gap    bool // it lost bytes, which may have held the end marker

	// What tells an end marker true or false (confirm, checkAbandoned).
	before  ports.Foreground // the pane's foreground as the line was typed
	noJobs  bool             // the backend cannot tell the foreground
	far     *farRun          // set for a command run in a far shell (run_far.go)
	cmd     cmdSeen          // what was seen running the command
	exposed bool             // the witness saw the script read by another process (see exposedNow)
	retry   ports.Timer      // the next confirmation attempt
	retries int
	abandon int // liveness checks in a row that found the frame abandoned
	quiet   int // liveness checks in a row with the shell back, no end marker and no output

	// The processes on the pane's terminal as the line was typed, for
	// what the command leaves running (left.go); marked false where the
	// terminal cannot tell.
	mark   ports.ProcessMark
	marked bool

	poked   chan struct{} // an interrupt reached the pane (see Service.interrupt)
	ask     *asking       // what the command asked for (run_input.go)
	caller  string        // the session whose call started the run, who may answer it
	command string        // the command, quoted for messages

	// Once its call has returned, the run is followed in the background
	// (finish), which owns it: snap asks it for its result so far, and
	// ended is closed once final holds its end (see runs).
	snap  chan snapRequest
	ended chan struct{}
	final RunResult
}

// ends moves the run to e, unless it has ended already.
func (r *commandRun) ends(e endPhase) {
	if r.end == endNone {
		r.end = e
	}
}

// died ends the run because the pane went away.
func (r *commandRun) died() { r.ends(endDied) }

// result turns what was read into the tool's result.
func (r *commandRun) result(o Outcome) RunResult {
	if o != OutcomeCompleted && o != OutcomePaneDied && !r.end.gone() {
		// Settle what is held against the pane's process once more.
		r.checkAlive()
		if r.end.gone() {
			o = OutcomePaneDied
		}
	}
	if r.end != endReplaced {
		r.held.commit()
	}
	r.norm.Flush()
	t, loss := r.tail.Result(), r.norm.Loss()
	res := RunResult{
		PaneID:                 r.pane,
		Outcome:                o,
		Output:                 t.Text,
		DroppedLines:           t.DroppedLines,
		OmittedBytes:           t.OmittedBytes,
		MissedBytes:            r.missed,
		ReturnedBytes:          t.ReturnedBytes,
		ReplacedBytes:          loss.Replaced,
		UnterminatedBytes:      loss.Unterminated,
		ForeignOutputSuspected: r.scanner.ForeignSeen(),
		StillRunning:           (o == OutcomeTimedOut || o == OutcomeCancelled || o == OutcomeAwaitingInput) && r.start != startWithdrawn,
		NotStarted:             r.start == startWithdrawn,
		Raced:                  r.raced,
		UnattributedBytes:      r.held.dropped,
		Abandoned:              r.end == endAbandoned && o == OutcomeCompleted,
		Far:                    r.far != nil,
	}
	if o == OutcomeAwaitingInput {
		res.Input = r.ask.report()
	}
	// A frame whose secret something else knows ends all the same, but
	// its end marker could have been that something's: its status and
	// the place its output ends are not taken on its word.
	ctx, cancel := r.s.bounded(reopenTimeout)
	res.Unverified = r.scanner.SecretKnown() || r.exposedNow(ctx)
	cancel()
	res.ForeignOutputSuspected = res.ForeignOutputSuspected || res.Unverified
	// An abandoned frame's output runs on past the command's end, which no
	// marker tells: it may hold the shell's own echo and prompt.
	res.OutputComplete = res.DroppedLines == 0 && res.OmittedBytes == 0 && res.MissedBytes == 0 &&
		res.UnattributedBytes == 0 && !res.Abandoned && !res.Unverified && loss.Exact()
	switch status, ok := r.scanner.Ended(); {
	case o != OutcomeCompleted || res.Unverified:
	case ok:
		res.ExitStatus = &status
	case r.end == endFile:
		status := r.fileStatus
		res.ExitStatus = &status
	}
	if o == OutcomeCompleted && r.marked {
		ctx, cancel := r.s.bounded(reopenTimeout)
		if ps, ok := r.s.leftBy(ctx, r.pane, r.mark, r.scanner.ShellPID()); ok {
			res.LeftRunning = listed(ps)
			r.s.left.add(r.pane, r.mark, ps)
		}
		cancel()
	}
	r.keep(&res)
	return res
}

// background keeps following a command whose call has returned, so that
// the pane is released the moment the command ends or the pane dies and
// not before. The Service owns the goroutine: Close abandons the command
// (its pane is released; the command itself runs on).
func (s *Service) background(r *commandRun) {
	s.runs.follow(r)
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		r.finish()
	}()
}

func (r *commandRun) finish() {
	// The run's end, for wait_for_command; kept unless abandoned.
	var final RunResult
	keep := true
	defer func() {
		// The end is recorded before the pane is released, and told
		// after, so that whoever hears of it finds the pane free.
		r.s.runs.end(r, final, keep)
		r.close()
		r.s.runs.tell(r)
	}()
	switch o := r.follow(context.Background(), nil); o {
	case outcomeClosed:
		r.s.event(EventAbandoned, r.pane, fmt.Sprintf("the server is stopping; pane %s is released although it may still run %s",
			r.pane, r.command))
		final, keep = r.result(OutcomeCancelled), false
	default:
		final = r.result(o)
	}
}

func (r *commandRun) close() {
	if _, ended := r.scanner.Ended(); ended || r.end.completed() {
		// The shell is back, and may be drawing its prompt.
		r.s.prompts.ended(r.pane, r.s.clock.Now())
	}
	r.s.started.remove(r)
	r.unstage()
	r.out.End()
	r.hold.Release()
	r.in.stream.Close()
}

// frameIDs returns fresh ids for one frame: the secret is two ids long.
func (s *Service) frameIDs() frame.IDs {
	return frame.IDs{ID: s.ids.NewID(), Secret: s.ids.NewID() + s.ids.NewID(), Unread: s.ids.NewID()}
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
