package domain

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/domain/frame"
	"github.com/tmux-mcp/tmux-mcp/domain/policy"
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
			EffectiveTimeoutMs: timeout.Milliseconds()}, nil
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
	outcome := run.wait(ctx, w)
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
		s.background(run)
	} else {
		run.close()
	}
	return res, nil
}

// outcomeUnread ends a wait whose script the shell could not read; it
// never reaches a result.
const outcomeUnread Outcome = "unread"

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

	gone      error // why the pane went away, once it has
	replaced  bool  // its process was replaced
	broken    bool  // the stream ended with the pane alive and could not be reopened yet
	taken     bool  // the backend saw the shell take the script
	gap       bool  // the stream lost bytes, which may have held the end marker
	fileEnd   *int  // the status the script wrote into its file, read after a gap
	abandon   int   // liveness checks in a row that found the frame abandoned (see checkAbandoned)
	abandoned bool  // the shell gave up the frame after the command ended: no status will come
	withdrawn bool  // the command never started, and never will
	raced     bool  // it started while being withdrawn

	// The end marker is trusted once confirm has found nothing against it.
	confirmed bool
	before    ports.Foreground // the pane's foreground as the line was typed
	noJobs    bool             // the backend cannot tell the foreground
	cmd       cmdSeen          // what was seen running the command
	retry     ports.Timer      // the next confirmation attempt
	retries   int
	quiet     int  // liveness checks in a row with the shell back, no end marker and no output
	exposed   bool // the witness saw the script read by another process (see exposedNow)

	poked   chan struct{} // an interrupt reached the pane (see Service.interrupt)
	command string        // the command, quoted for messages

	// Once its call has returned, the run is followed in the background
	// (finish), which owns it: snap asks it for its result so far, and
	// ended is closed once final holds its end (see runs).
	snap  chan snapRequest
	ended chan struct{}
	final RunResult
}

// startRun checks the pane, waits for a new pane's shell to be ready,
// opens its output, stages the script and types the line. early is the
// outcome of a call whose wait for the shell ended first (nothing was
// typed then).
func (s *Service) startRun(ctx context.Context, w *waiter, hold *writers.Hold, req RunRequest, maxLines int) (_ *commandRun, early Outcome, _ error) {
	info, err := s.describeHeld(ctx, hold, req.PaneID)
	if err != nil {
		return nil, "", err
	}
	// The rules of every write first, so that a refusal is not kept
	// waiting for a starting shell.
	if err := policy.Check(info, policy.Type, req.Force, ""); err != nil {
		return nil, "", err
	}
	info, early, err = s.awaitFront(ctx, w, info)
	if err != nil || early != "" {
		return nil, early, err
	}
	info, early, err = s.awaitPrompt(ctx, w, info)
	if err != nil || early != "" {
		return nil, early, err
	}
	sh, err := policy.CheckRun(info, req.Force)
	if err != nil {
		return nil, "", err
	}
	if o := s.awaitShell(ctx, w, req.PaneID, sh); o != "" {
		return nil, o, nil
	}
	stream, err := s.term.OpenOutput(ctx, req.PaneID)
	if err != nil {
		return nil, "", err
	}
	r := &commandRun{s: s, hold: hold, pane: req.PaneID, gen: info.Generation, in: streamReader{stream: stream, offset: stream.End()},
		poked: make(chan struct{}, 1), command: quoteCommand(req.Command),
		ended: make(chan struct{}), snap: make(chan snapRequest)}
	ids := s.frameIDs()
	// Output is held until the pane's process is confirmed (heldOutput),
	// then normalized; the final line break goes (finalNewline); the tail
	// keeps what the result can hold.
	r.tail = termtext.NewTail(maxLines, s.cfg.MaxResultBytes)
	r.trim = &finalNewline{w: r.tail}
	r.norm = termtext.NewNormalizer(r.trim)
	r.held = &heldOutput{w: r.norm}
	r.scanner = frame.NewScanner(ids, r.held)

	// What runs in front of the pane's terminal now (the shell that will
	// read the line, and its children), for telling its end (confirm),
	// and for telling a shell at its prompt from one running a script;
	// a job that is ending is waited for first.
	if r.before, early, err = s.awaitJobEnd(ctx, w, req.PaneID); early != "" {
		r.close()
		return nil, early, nil
	} else if errors.Is(err, ports.ErrUnsupported) {
		r.noJobs = true
	} else if err == nil {
		if err := policy.CheckFront(req.PaneID, r.before); err != nil {
			r.close()
			return nil, "", err
		}
		// A shell in front that reads a line of its own (shells.go).
		if o, err := s.awaitLineEditor(ctx, w, req.PaneID, info.Generation, &r.before); err != nil || o != "" {
			r.close()
			return nil, o, err
		}
	}
	pid := shellPID(r.before, r.noJobs)
	cmd := s.frameFor(req.PaneID, info.Generation, pid, sh, ids, req.Command)
	cmd.Options = s.frameOptions(req)
	if err := r.stage(ctx, cmd); err != nil {
		r.close()
		return nil, "", err
	}
	if r.exposedNow(ctx) {
		// Something read the script the moment it was written: it knows
		// the frame's secret, and could end the command's call with any
		// status. Nothing is typed.
		r.close()
		return nil, "", &fault.RefusalError{Pane: req.PaneID, Why: fault.RefusedExposed,
			Reason: "another process read the command's script " + r.files.Script + " before the pane's shell could, so it could forge the command's end; nothing was typed"}
	}
	// The line ends in a line feed, which every supported shell reads as
	// Enter: one write instead of two. Typing is not cancelled half-way
	// (a cancelled call answers once it is typed); should it fail all the
	// same, C-c abandons what was typed. It ends at the call's deadline,
	// though: a terminal that has not typed the line by then does not
	// answer, and would not take a C-c either; the script is deleted, so
	// that the line, should the terminal type it later, runs nothing.
	typeCtx, cancel := s.clock.WithTimeout(context.WithoutCancel(ctx), min(typeTimeout, w.left()))
	defer cancel()
	if err := s.term.SendText(typeCtx, req.PaneID, cmd.Line(r.files)); err != nil {
		if !paneGone(err) && !errors.Is(err, ports.ErrNoAnswer) && typeCtx.Err() == nil {
			_ = s.term.SendKeys(typeCtx, req.PaneID, []string{"C-c"})
		}
		r.close()
		return nil, "", err
	}
	s.typed(req.PaneID, info.Generation, pid)
	s.started.add(r)
	return r, "", nil
}

// stage puts the command's files where the pane's shell reads them.
func (r *commandRun) stage(ctx context.Context, cmd frame.Command) error {
	files, err := cmd.Stage(func(build func(string) []byte) (string, error) {
		return r.s.term.PutScript(ctx, r.pane, build)
	})
	r.files = files
	if err != nil {
		return fmt.Errorf("stage the command for pane %s: %w", r.pane, err)
	}
	return nil
}

// unstage deletes the command's files and reports whether the shell had
// taken the script.
func (r *commandRun) unstage() ports.ScriptState {
	ctx, cancel := r.s.bounded(reopenTimeout)
	defer cancel()
	state := ports.ScriptUnknown
	for _, path := range r.files.Paths() {
		st, err := r.s.term.RemoveScript(ctx, r.pane, path)
		if path == r.files.Script && err == nil {
			state = st
		}
	}
	r.files = frame.Files{}
	return state
}

// wait follows the command until it ends or the call must return.
func (r *commandRun) wait(ctx context.Context, w *waiter) Outcome {
	var live ports.Timer
	defer func() {
		if live != nil {
			live.Stop()
		}
		r.stopRetry()
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
		case <-r.in.changed():
		case <-w.ticks():
			w.report()
		case <-live.C():
			r.checkAlive()
			r.checkAbandoned()
			live = nil
		case <-r.retryC():
			r.retry = nil
		case <-w.done():
			if o, done := r.pump(); done {
				return o
			}
			live.Stop()
			live = nil
			return r.timeUp(OutcomeTimedOut)
		case <-ctx.Done():
			if o, done := r.pump(); done {
				return o
			}
			live.Stop()
			live = nil
			return r.timeUp(OutcomeCancelled)
		}
	}
}

// pump feeds what the stream holds into the scanner and reports whether
// the command has ended (completed), can no longer end (pane_died) or
// never ran (unread).
func (r *commandRun) pump() (Outcome, bool) {
	if r.broken {
		if r.reopen(); r.broken && r.gone == nil {
			return "", false
		}
	}
	if r.gone == nil {
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
			r.quiet = 0
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
		if r.fileEnd != nil || r.abandoned {
			return OutcomeCompleted, true
		}
		if r.held.size() > heldMax {
			r.checkAlive()
		}
		switch {
		case r.gone != nil:
		case got.Gone != nil:
			r.gone = got.Gone
		case got.Broken != nil:
			// The stream broke but the pane may well live on, and its
			// command with it: listen again rather than call it dead.
			r.reopen()
		}
	}
	if r.gone != nil {
		if !r.replaced {
			// The pane died: what it wrote before was its process's.
			r.held.commit()
		}
		return OutcomePaneDied, true
	}
	return "", false
}

// confirm reports whether the end marker the scanner holds is the
// frame's end. It carries the frame's secret, which nothing but the
// frame's shell can know, unless another process read the script before
// the shell emptied it (which the witness, where there is one, tells:
// exposedNow) or read the shell's memory. Where the backend tells the
// foreground of the pane's terminal (ports.JobControl), the marker must
// also fit what runs there, so that one printed by something that learnt
// the secret is found out:
//
//   - what was seen running the command still runs in front: the marker
//     was printed before the command ended, and is false;
//   - the frame's shell is back in front, with no child it did not have
//     as the line was typed, or what was seen running the command is
//     gone: the marker is the end;
//   - something else is in front, and the command was never seen running
//     (it may be the command, or a program the prompt runs after the end:
//     a git prompt, PROMPT_COMMAND): the script's file tells. The script
//     writes the status there just before it prints its end marker, so a
//     file with a status in it says the script has reached its end, and
//     one without says the command still runs and the marker is false.
//     (A file is what any process of the user can write, so it only ever
//     tells which marker to take, never the status; and once the witness
//     has seen the script exposed, only the shell back in front counts.)
//   - what cannot be told now is asked again shortly.
//
// A false marker is given up, and the secret is then known to something
// else (frame.Scanner.SecretKnown): the next marker with it may end the
// frame, but its status is not taken (see result). The first marker
// confirmed is the end, and nothing printed after it changes that.
func (r *commandRun) confirm() bool {
	if r.confirmed || r.noJobs {
		r.confirmed = true
		return true
	}
	pid := r.scanner.ShellPID()
	if pid == 0 {
		// The start marker was lost: the shell is not known, and only
		// the secret tells.
		r.confirmed = true
		return true
	}
	ctx, cancel := r.s.bounded(reopenTimeout)
	defer cancel()
	fg, err := r.s.term.Foreground(ctx, r.pane)
	switch {
	case errors.Is(err, ports.ErrUnsupported):
		r.noJobs, r.confirmed = true, true
		return true
	case paneGone(err):
		r.gone = err
		return false
	case err != nil:
		r.retryConfirm()
		return false
	case r.cmd.running(fg, pid):
		r.scanner.Demote()
		return false
	case r.idle(fg, pid) || r.cmd.seen() && !r.exposedNow(ctx):
		r.confirmed = true
		return true
	case r.exposed:
		r.retryConfirm()
		return false
	}
	switch st, known := r.statusInFile(ctx); {
	case !known:
		r.retryConfirm()
		return false
	case st == nil:
		r.scanner.Demote()
		return false
	}
	r.confirmed = true
	return true
}

// retryConfirm has confirm asked again shortly.
func (r *commandRun) retryConfirm() {
	if r.retry == nil {
		d := r.s.cfg.LivenessInterval
		if r.retries < len(confirmDelays) {
			d = confirmDelays[r.retries]
		}
		r.retries++
		r.retry = r.s.clock.NewTimer(d)
	}
}

// statusInFile reads the status the script wrote into its file: nil when
// it holds none yet. known is false when the file cannot be read back.
func (r *commandRun) statusInFile(ctx context.Context) (status *int, known bool) {
	if r.files.Script == "" {
		return nil, false
	}
	b, ok, err := r.s.term.ReadScript(ctx, r.pane, r.files.Script)
	if err != nil || !ok {
		return nil, false
	}
	if st, ok := frame.ParseStatusFile(b); ok {
		return &st, true
	}
	return nil, true
}

// idle reports whether fg shows the frame's shell (pid) between commands:
// it leads the foreground group of the pane's terminal, and (when it led
// it as the line was typed too) its children are among those it had
// then.
func (r *commandRun) idle(fg ports.Foreground, pid int) bool {
	if fg.Group != pid {
		return false
	}
	if pid == r.before.Group && fg.Children != nil && r.before.Children != nil {
		for _, c := range fg.Children {
			if !slices.Contains(r.before.Children, c) {
				return false
			}
		}
	}
	return true
}

// shellIdle reports whether the frame's shell sits between commands (see
// idle). It reports true when the backend cannot tell or the shell's pid
// is not known.
func (r *commandRun) shellIdle(ctx context.Context) (bool, error) {
	pid := r.scanner.ShellPID()
	if pid == 0 || r.noJobs {
		return true, nil
	}
	fg, err := r.s.term.Foreground(ctx, r.pane)
	if errors.Is(err, ports.ErrUnsupported) {
		r.noJobs = true
		return true, nil
	}
	if err != nil {
		return false, err
	}
	return r.idle(fg, pid), nil
}

// cmdSeen is what the run saw running its command, at the liveness checks
// before an end marker came: the foreground group, where it was not the
// shell's (a shell with job control runs the frame's subshell as a job of
// its own), or the shell's children it did not have as the line was typed,
// where the shell's own group stayed in front (zsh's subshell).
type cmdSeen struct {
	group    int
	children []int
}

func (c cmdSeen) seen() bool { return c.group != 0 || len(c.children) > 0 }

// note adds what fg shows running besides the frame's shell (pid), whose
// children as the line was typed were before.
func (c *cmdSeen) note(fg ports.Foreground, pid int, before ports.Foreground) {
	if fg.Group != pid {
		if c.group == 0 && fg.Group > 0 {
			c.group = fg.Group
		}
		return
	}
	for _, ch := range fg.Children {
		if !slices.Contains(before.Children, ch) && !slices.Contains(c.children, ch) {
			c.children = append(c.children, ch)
		}
	}
}

// running reports whether fg shows something that was seen running the
// command still running in front of the terminal.
func (c cmdSeen) running(fg ports.Foreground, pid int) bool {
	if c.group != 0 && fg.Group == c.group {
		return true
	}
	if fg.Group == pid {
		for _, ch := range c.children {
			if slices.Contains(fg.Children, ch) {
				return true
			}
		}
	}
	return false
}

// exposedNow asks the witness, where the terminal has one
// (ports.ScriptWitness), whether another process read the script before
// the shell emptied it, and remembers the answer.
func (r *commandRun) exposedNow(ctx context.Context) bool {
	if r.exposed || r.files.Script == "" {
		return r.exposed
	}
	if w, ok := r.s.term.(ports.ScriptWitness); ok {
		if e, err := w.ScriptExposed(ctx, r.pane, r.files.Script); err == nil && e {
			r.exposed = true
		}
	}
	return r.exposed
}

// confirmDelays are the waits before the first attempts to confirm an
// end marker again; later attempts come with the liveness checks.
var confirmDelays = [...]time.Duration{2 * time.Millisecond, 10 * time.Millisecond, 50 * time.Millisecond}

func (r *commandRun) retryC() <-chan time.Time {
	if r.retry == nil {
		return nil
	}
	return r.retry.C()
}

func (r *commandRun) stopRetry() {
	if r.retry != nil {
		r.retry.Stop()
		r.retry = nil
	}
}

// timeUp ends a wait at the deadline or the cancellation. A command that
// started goes on (the outcome stands, StillRunning). One that did not is
// withdrawn: its script is deleted, so that the typed line, should the
// shell ever run it, finds nothing to run, and C-c abandons the line
// itself (an open quote, a busy shell's type-ahead). If the shell took the
// script as it was being withdrawn, the command has started after all.
func (r *commandRun) timeUp(o Outcome) Outcome {
	r.checkAlive()
	if r.gone != nil {
		return OutcomePaneDied
	}
	if r.scanner.Started() || r.taken {
		return o
	}
	state := r.unstage()
	if state == ports.ScriptTaken {
		r.taken, r.raced = true, true
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
		if r.scanner.Started() {
			r.raced = true
			return o
		}
		select {
		case <-r.in.changed():
		case <-t.C():
			r.pump()
			if r.scanner.Started() {
				r.raced = true
				return o
			}
			r.withdrawn = true
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
	if r.checkAlive(); r.gone != nil {
		return
	}
	ctx, cancel := r.s.bounded(reopenTimeout)
	defer cancel()
	stream, err := r.s.term.OpenOutput(ctx, r.pane)
	switch {
	case paneGone(err):
		r.gone = err
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
	if r.gone != nil {
		return
	}
	ctx, cancel := r.s.bounded(reopenTimeout)
	defer cancel()
	// What was read before the question came from the process that the
	// answer names: a process replaced before the answer shows in it.
	info, err := r.s.term.Pane(ctx, r.pane)
	switch {
	case errors.Is(err, ports.ErrPaneNotFound):
		r.gone = err
	case err != nil:
		// Not known now; the next check asks again.
	case info.Dead:
		r.gone = fmt.Errorf("pane %s: its process exited: %w", r.pane, ports.ErrPaneDead)
	case info.Generation != r.gen && r.gen != "":
		r.gone = fmt.Errorf("pane %s: its process was replaced: %w", r.pane, ports.ErrPaneDead)
		r.replaced = true
		r.held.drop()
	default:
		r.held.commit()
		if r.gap {
			r.readStatusFile()
		}
	}
}

// abandonChecks is how many liveness checks in a row must find a frame
// abandoned (see checkAbandoned) before the run ends: two, so that a shell
// caught between its command's end and its end marker, a matter of
// microseconds, is never taken for one that gave up.
const abandonChecks = 2

// quietChecks is how many liveness checks in a row must find the frame's
// shell back in front, no end marker and no output at all, before a frame
// whose script did write its status into its file ends (see
// checkAbandoned): its end marker, which the script prints right after,
// would have come long since. A file that any process of the user can
// write is no reason to hold the pane for good.
const quietChecks = 40

// checkAbandoned looks for a frame the shell gave up after the command
// started: the frame's shell is known to be back in front of its terminal
// with no child it did not have as the line was typed, yet the script
// never wrote the status it writes just before its end marker, and no end
// marker came. An interactive shell does that when its job dies of a
// signal the frame's trap did not catch, and drops the rest of the line,
// end marker and all: a command that exec'd another program and then got
// a C-c, a C-\ in zsh, a command that signalled its own shell. Nothing
// more will come of such a frame, so the run ends (completed, its status
// unknown) rather than hold the pane for good; so does one whose file
// holds a status but whose end marker, quietChecks checks on, has still
// not come. It needs a backend that tells the foreground and the shell's
// children; without one a lost end is never concluded.
func (r *commandRun) checkAbandoned() {
	if r.gone != nil || r.fileEnd != nil || r.abandoned || !r.scanner.Started() {
		return
	}
	if _, ended := r.scanner.Ended(); ended {
		r.abandon, r.quiet = 0, 0
		return
	}
	ctx, cancel := r.s.bounded(reopenTimeout)
	defer cancel()
	if !r.shellBack(ctx) {
		r.abandon, r.quiet = 0, 0
		r.abandoned = r.shellGone(ctx) // shellgone.go
		return
	}
	st, readable := r.statusInFile(ctx)
	switch {
	case !readable:
		r.abandon = 0
	case st == nil:
		if r.abandon++; r.abandon >= abandonChecks {
			r.abandoned = true
		}
	default:
		r.abandon = 0
		if r.quiet++; r.quiet >= quietChecks {
			r.abandoned = true
		}
	}
}

// shellBack reports whether the frame's shell is known to sit between
// commands: the backend tells the foreground group and the shell's
// children, the shell led the group as the line was typed and leads it
// now, and its children are among those it had then. Unlike shellIdle it
// is false whenever that cannot be told. What it sees running instead is
// the command's (no end marker came yet): it is noted for confirm.
func (r *commandRun) shellBack(ctx context.Context) bool {
	pid := r.scanner.ShellPID()
	if pid == 0 || r.noJobs {
		return false
	}
	fg, err := r.s.term.Foreground(ctx, r.pane)
	if err != nil {
		return false
	}
	if r.idle(fg, pid) && pid == r.before.Group && r.before.Children != nil && fg.Children != nil {
		return true
	}
	// What runs is the command's only while the script has not reached
	// its end: once it has, it may be a program the prompt runs, whose
	// end marker the stream has not brought yet. The file is read after
	// the foreground, and holds a status only once the command has ended.
	if st, known := r.statusInFile(ctx); known && st == nil {
		r.cmd.note(fg, pid, r.before)
	}
	return false
}

// readStatusFile looks for the end of a command whose end marker may have
// been lost in a gap of the stream: the script writes the command's
// status into its file just before it prints the end marker. A status
// there counts once the frame's shell is back in the foreground, as for
// the marker; when the start marker was lost too, the shell is not known
// and the file alone tells.
func (r *commandRun) readStatusFile() {
	if r.files.Script == "" || r.fileEnd != nil {
		return
	}
	ctx, cancel := r.s.bounded(reopenTimeout)
	defer cancel()
	b, ok, err := r.s.term.ReadScript(ctx, r.pane, r.files.Script)
	if err != nil || !ok {
		return
	}
	status, ok := frame.ParseStatusFile(b)
	if !ok || r.scanner.SecretKnown() || r.exposedNow(ctx) {
		// Something else knows the secret, or read the script: it may
		// have written the file too.
		return
	}
	if idle, err := r.shellIdle(ctx); err != nil || !idle {
		return
	}
	r.fileEnd = &status
}

// result turns what was read into the tool's result.
func (r *commandRun) result(o Outcome) RunResult {
	if o != OutcomeCompleted && o != OutcomePaneDied && r.gone == nil {
		// Settle what is held against the pane's process once more.
		r.checkAlive()
		if r.gone != nil {
			o = OutcomePaneDied
		}
	}
	if !r.replaced {
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
		StillRunning:           (o == OutcomeTimedOut || o == OutcomeCancelled) && !r.withdrawn,
		NotStarted:             r.withdrawn,
		Raced:                  r.raced,
		UnattributedBytes:      r.held.dropped,
		Abandoned:              r.abandoned && o == OutcomeCompleted,
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
	case r.fileEnd != nil:
		res.ExitStatus = r.fileEnd
	}
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
	var live, grace ports.Timer
	graceC := func() <-chan time.Time {
		if grace == nil {
			return nil
		}
		return grace.C()
	}
	// The run's end, for wait_for_command; kept unless abandoned.
	var final RunResult
	keep := true
	defer func() {
		for _, t := range []ports.Timer{live, grace} {
			if t != nil {
				t.Stop()
			}
		}
		r.stopRetry()
		// The end is recorded before the pane is released, and told
		// after, so that whoever hears of it finds the pane free.
		r.s.runs.end(r, final, keep)
		r.close()
		r.s.runs.tell(r)
	}()
	for {
		if o, done := r.pump(); done && o != outcomeUnread {
			final = r.result(o)
			return
		}
		if live == nil {
			live = r.s.clock.NewTimer(r.s.cfg.LivenessInterval)
		}
		select {
		case <-r.in.changed():
		case <-live.C():
			r.checkAlive()
			r.checkAbandoned()
			live = nil
		case <-r.retryC():
			r.retry = nil
		case <-r.poked:
			// An interrupt reached the pane. A command that never showed
			// its start (the shell took the script as it was withdrawn,
			// then printed nothing) is waited for no longer than a
			// withdrawal would wait: its end marker comes at once if it
			// ran, since the frame traps the interrupt.
			if !r.scanner.Started() && grace == nil {
				grace = r.s.clock.NewTimer(withdrawGraceUnknown)
			}
		case <-graceC():
			grace = nil
			if r.pump(); !r.scanner.Started() {
				r.withdrawn = true
				final = r.result(OutcomeTimedOut)
				return
			}
		case q := <-r.snap:
			q.reply <- r.result(q.outcome)
		case <-r.s.closing:
			r.s.event(EventAbandoned, r.pane, fmt.Sprintf("the server is stopping; pane %s is released although it may still run %s",
				r.pane, r.command))
			final, keep = r.result(OutcomeCancelled), false
			return
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

func (r *commandRun) close() {
	if _, ended := r.scanner.Ended(); ended || r.abandoned || r.fileEnd != nil {
		// The shell is back, and may be drawing its prompt.
		r.s.prompts.ended(r.pane, r.s.clock.Now())
	}
	r.s.started.remove(r)
	r.unstage()
	r.hold.Release()
	r.in.stream.Close()
}

// frameIDs returns fresh ids for one frame: the secret is two ids long.
func (s *Service) frameIDs() frame.IDs {
	return frame.IDs{ID: s.ids.NewID(), Secret: s.ids.NewID() + s.ids.NewID(), Unread: s.ids.NewID()}
}

// heldOutput holds the command's output until the pane's process is
// confirmed to be the one that read the frame (checkAlive, or the end
// marker itself), so that a process that replaced it contributes nothing.
type heldOutput struct {
	w       io.Writer
	pending []byte
	dropped int64 // bytes dropped as not attributable
}

func (h *heldOutput) Write(p []byte) (int, error) {
	h.pending = append(h.pending, p...)
	return len(p), nil
}

func (h *heldOutput) size() int { return len(h.pending) }

func (h *heldOutput) commit() {
	if len(h.pending) > 0 {
		_, _ = h.w.Write(h.pending)
		h.pending = h.pending[:0]
	}
}

func (h *heldOutput) drop() {
	h.dropped += int64(len(h.pending))
	h.pending = nil
}

// finalNewline passes text on but for a final line feed, which it holds
// back until more text follows: so the line break just before the end
// marker, which every line-ending command prints, is not output
// (`echo hi` gives "hi"), and neither is the last line feed of a command
// that did not end.
type finalNewline struct {
	w    io.Writer
	held bool
}

func (f *finalNewline) Write(p []byte) (int, error) {
	n := len(p)
	if n == 0 {
		return 0, nil
	}
	if f.held {
		if _, err := f.w.Write([]byte{'\n'}); err != nil {
			return 0, err
		}
		f.held = false
	}
	if p[len(p)-1] == '\n' {
		f.held, p = true, p[:len(p)-1]
	}
	if len(p) > 0 {
		if _, err := f.w.Write(p); err != nil {
			return 0, err
		}
	}
	return n, nil
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
