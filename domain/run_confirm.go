package domain

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/tmux-mcp/tmux-mcp/domain/frame"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// Confirming a run's end: whether an end marker is the frame's, and how
// an end is found when no marker will come.

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
	if r.end == endMarker || r.noJobs || r.scanner.ShellPID() == 0 {
		// Once confirmed, it stays so. Where the foreground cannot be
		// told, or the start marker was lost (the shell is not known),
		// only the secret tells.
		r.ends(endMarker)
		return true
	}
	ctx, cancel := r.s.bounded(reopenTimeout)
	defer cancel()
	fg, pid, known, err := r.shellFront(ctx)
	switch {
	case err == nil && !known:
		r.ends(endMarker)
		return true
	case paneGone(err):
		r.died()
		return false
	case err != nil:
		r.retryConfirm()
		return false
	case r.cmd.running(fg, pid):
		r.scanner.Demote()
		return false
	case r.idle(fg, pid) || r.cmd.seen() && !r.exposedNow(ctx):
		r.ends(endMarker)
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
	r.ends(endMarker)
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

// shellFront reads the foreground of the pane's terminal, and the pid of
// the frame's shell that it is read for. known is false when it cannot
// be told: the shell's pid is not known (its start marker was lost), or
// the backend cannot tell the foreground (noJobs is then set).
func (r *commandRun) shellFront(ctx context.Context) (fg ports.Foreground, pid int, known bool, err error) {
	pid = r.scanner.ShellPID()
	if pid == 0 || r.noJobs {
		return fg, pid, false, nil
	}
	fg, err = r.s.term.Foreground(ctx, r.pane)
	if errors.Is(err, ports.ErrUnsupported) {
		r.noJobs = true
		return fg, pid, false, nil
	}
	return fg, pid, err == nil, err
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
	if r.far != nil {
		r.checkFarAbandoned()
		return
	}
	if r.end != endNone || r.start != startSeen {
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
		if r.shellGone(ctx) { // shellgone.go
			r.ends(endAbandoned)
		}
		return
	}
	st, readable := r.statusInFile(ctx)
	switch {
	case !readable:
		r.abandon = 0
	case st == nil:
		if r.abandon++; r.abandon >= abandonChecks {
			r.ends(endAbandoned)
		}
	default:
		r.abandon = 0
		if r.quiet++; r.quiet >= quietChecks {
			r.ends(endAbandoned)
		}
	}
}

// shellBack reports whether the frame's shell is known to sit between
// commands: the backend tells the foreground group and the shell's
// children, the shell led the group as the line was typed and leads it
// now, and its children are among those it had then; false whenever that
// cannot be told. What it sees running instead is the command's (no end
// marker came yet): it is noted for confirm.
func (r *commandRun) shellBack(ctx context.Context) bool {
	fg, pid, known, err := r.shellFront(ctx)
	if !known || err != nil {
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
	if r.files.Script == "" || r.end != endNone {
		return
	}
	ctx, cancel := r.s.bounded(reopenTimeout)
	defer cancel()
	status, _ := r.statusInFile(ctx)
	if status == nil || r.scanner.SecretKnown() || r.exposedNow(ctx) {
		// No status yet; or something else knows the secret, or read
		// the script: it may have written the file too.
		return
	}
	// The shell must be back between commands, where that can be told.
	if fg, pid, known, err := r.shellFront(ctx); err != nil || known && !r.idle(fg, pid) {
		return
	}
	r.fileStatus = *status
	r.ends(endFile)
}
