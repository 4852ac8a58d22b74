package domain

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/domain/frame"
	"github.com/tmux-mcp/tmux-mcp/domain/pattern"
	"github.com/tmux-mcp/tmux-mcp/domain/policy"
	"github.com/tmux-mcp/tmux-mcp/domain/termtext"
	"github.com/tmux-mcp/tmux-mcp/domain/writers"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// A command run in a far shell: one that a program in front of the pane
// (ssh, docker exec, su: policy.Connectors) connects the pane's terminal
// to. The server sees neither its processes nor its files, so:
//
//   - it must first tell the shell is at its prompt (awaitFarPrompt): from
//     the shell's prompt marks (OSC 133), which the Service reads from the
//     pane's output from the first far call on (farWatch), or from the
//     screen's cursor line matching the prompt the caller named, the
//     cursor at its end and the pane quiet;
//   - it then types a probe that only a shell of the named family at its
//     prompt answers (frame.FarProbe); nothing more is typed unless the
//     answer comes within FarProbeWait;
//   - and only then the frame, inline (frame.Command.FarLine). The end is
//     the end marker with the secret, which no foreground reading confirms
//     (the result says Far); a shell seen back at its prompt with no end
//     marker, as its marks or the named prompt tell, gave the frame up
//     (checkFarAbandoned), so that no far pane stays busy for good.

// Bounds of the far shell's readiness.
const (
	// FarReadyWait bounds the wait for a far shell to show it is at its
	// prompt: one drawing its prompt is waited for, one running a
	// command is refused.
	FarReadyWait = 3 * time.Second
	// FarProbeWait bounds the wait for the probe's answer: a round trip
	// to the far side and back.
	FarProbeWait = 5 * time.Second
	// farPromptChecks is how many liveness checks in a row must find the
	// named prompt back on a quiet screen, with no end marker, before a
	// far frame counts as given up; farMarkChecks the same for prompt
	// marks, which no command's output prints by chance.
	farPromptChecks = 8
	farMarkChecks   = abandonChecks
	// farWatchMax bounds the panes watched for prompt marks at once.
	farWatchMax = 64
)

// farWatch keeps a pane's output stream open from the first far call on
// the pane, so that the far shell's prompt marks written between calls
// are read at the next (refresh): until the pane's process is replaced,
// its stream ends, the watch is displaced by newer ones (farWatchMax), or
// the Service closes. Nothing reads it in between: the stream retains what
// comes, and what it could not retain is a gap, after which the marks are
// forgotten.
type farWatch struct {
	pane ports.PaneID
	gen  string

	mu      sync.Mutex
	in      streamReader
	marks   promptMarks
	since   time.Time // when the watch began
	lastOut time.Time // when output was last found; zero if never
	ended   bool
}

// farPanes are the Service's far watches.
type farPanes struct {
	mu    sync.Mutex
	panes map[ports.PaneID]*farWatch
	order []*farWatch // oldest first
}

// farState is what a watch has seen.
type farState struct {
	seen, atPrompt bool
	quietSince     time.Time // since when no output was found
}

// refresh reads what the pane wrote since the last read, at now.
func (w *farWatch) refresh(now time.Time) farState {
	w.mu.Lock()
	defer w.mu.Unlock()
	for !w.ended {
		got := w.in.read()
		if got.Missed > 0 {
			w.marks = promptMarks{}
		}
		if len(got.Data) > 0 {
			w.marks.Write(got.Data)
			w.lastOut = now
		}
		if got.Ended() {
			w.end()
		}
		if len(got.Data) == 0 && got.Missed == 0 {
			break
		}
	}
	q := w.since
	if w.lastOut.After(q) {
		q = w.lastOut
	}
	return farState{seen: w.marks.seen(), atPrompt: w.marks.atPrompt(), quietSince: q}
}

// end closes the watch's stream; w.mu is held.
func (w *farWatch) end() {
	if !w.ended {
		w.ended = true
		w.in.stream.Close()
	}
}

// farWatchFor returns the pane's watch, starting one if there is none
// for the pane's present process (gen); fresh reports a watch that began
// now, which has seen nothing yet.
func (s *Service) farWatchFor(ctx context.Context, pane ports.PaneID, gen string) (w *farWatch, fresh bool, err error) {
	s.far.mu.Lock()
	defer s.far.mu.Unlock()
	if w := s.far.panes[pane]; w != nil {
		w.mu.Lock()
		live := !w.ended && w.gen == gen
		w.mu.Unlock()
		if live {
			return w, false, nil
		}
		s.far.drop(w)
	}
	if s.closed() {
		return nil, false, fmt.Errorf("watch pane %s: the server is stopping: %w", pane, ports.ErrUnavailable)
	}
	stream, err := s.term.OpenOutput(ctx, pane)
	if err != nil {
		return nil, false, err
	}
	if s.far.panes == nil {
		s.far.panes = make(map[ports.PaneID]*farWatch)
	}
	if len(s.far.order) >= farWatchMax {
		s.far.drop(s.far.order[0])
	}
	w = &farWatch{pane: pane, gen: gen, in: streamReader{stream: stream, offset: stream.End()}, since: s.clock.Now()}
	s.far.panes[pane] = w
	s.far.order = append(s.far.order, w)
	return w, true, nil
}

// drop ends w and forgets it; f.mu is held.
func (f *farPanes) drop(w *farWatch) {
	if f.panes[w.pane] == w {
		delete(f.panes, w.pane)
	}
	for i, o := range f.order {
		if o == w {
			f.order = append(f.order[:i], f.order[i+1:]...)
			break
		}
	}
	w.mu.Lock()
	w.end()
	w.mu.Unlock()
}

// close ends every watch, for Service.Close.
func (f *farPanes) close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for len(f.order) > 0 {
		f.drop(f.order[0])
	}
}

// farPrompt is the prompt the caller named, matched against the whole of
// the screen's cursor line.
type farPrompt struct {
	literal string
	re      *regexp.Regexp
}

// compileFarPrompt checks the farPrompt argument with the one pattern
// compiler (empty and never-matching patterns are refused as wait_for_text
// refuses them) and anchors it to the whole line.
func compileFarPrompt(p string, regex bool) (*farPrompt, error) {
	if p == "" {
		return nil, nil
	}
	if _, err := pattern.Compile([]string{p}, regex); err != nil {
		var arg *fault.ArgumentError
		if errors.As(err, &arg) {
			return nil, &fault.ArgumentError{Field: "farPrompt", Reason: arg.Reason}
		}
		return nil, err
	}
	if !regex {
		return &farPrompt{literal: p}, nil
	}
	re, err := regexp.Compile(`^(?:` + p + `)$`)
	if err != nil {
		return nil, &fault.ArgumentError{Field: "farPrompt", Reason: err.Error()}
	}
	return &farPrompt{re: re}, nil
}

// matches reports whether line, the cursor line with the cursor at
// column x, is the prompt with the cursor at its end. The capture drops
// the blanks at a line's end, which a prompt often ends in ("$ "): the
// line is taken up to the cursor, either way.
func (p *farPrompt) matches(line string, x int) bool {
	n := utf8.RuneCountInString(line)
	if x < n {
		return false // the cursor is inside the line: something follows it
	}
	full := line + strings.Repeat(" ", x-n)
	for _, l := range []string{full, line} {
		if p.re != nil && p.re.MatchString(l) || p.re == nil && l == p.literal {
			return true
		}
	}
	return false
}

// cursorLine reads the pane's cursor line and the cursor's column.
func (s *Service) cursorLine(ctx context.Context, pane ports.PaneID) (line string, x int, err error) {
	l := s.lister
	if l == nil {
		return "", 0, fmt.Errorf("the terminal backend cannot tell where the cursor is: %w", ports.ErrUnsupported)
	}
	ps, err := l.ListPanes(ctx, ports.PaneFilter{Pane: pane})
	if err != nil {
		return "", 0, err
	}
	if len(ps) != 1 {
		return "", 0, fmt.Errorf("pane %s: %w", pane, ports.ErrPaneNotFound)
	}
	for _, f := range ps[0].Unknown {
		if f == ports.FactCursor {
			return "", 0, fmt.Errorf("the terminal backend cannot tell where the cursor is: %w", ports.ErrUnsupported)
		}
	}
	rows, err := s.term.Capture(ctx, pane, ports.CaptureRange{Start: ps[0].CursorY, End: ps[0].CursorY})
	if err != nil {
		return "", 0, err
	}
	if len(rows) > 0 {
		line = rows[0]
	}
	return line, ps[0].CursorX, nil
}

// awaitFarPrompt waits, within FarReadyWait and the call's wait, until
// the far shell is at its prompt (see above), and returns the watch; or
// the outcome that ended the wait first, or the refusal that says what it
// saw instead.
func (s *Service) awaitFarPrompt(ctx context.Context, w *waiter, info ports.PaneInfo, prompt *farPrompt) (*farWatch, Outcome, error) {
	watch, fresh, err := s.farWatchFor(ctx, info.ID, info.Generation)
	if err != nil {
		return nil, "", err
	}
	start := s.clock.Now()
	lastLine := ""
	for {
		st := watch.refresh(s.clock.Now())
		switch {
		case prompt == nil && st.atPrompt:
			return watch, "", nil
		case prompt == nil && !st.seen && fresh:
			return nil, "", &fault.RefusalError{Pane: info.ID, Why: fault.RefusedFarNotReady,
				Reason: "no prompt mark (OSC 133) of its far shell has reached the server yet: it reads them from the pane's output, which it watches from now on"}
		case prompt != nil && s.clock.Now().Sub(st.quietSince) >= s.cfg.InputQuiet:
			line, x, err := s.cursorLine(ctx, info.ID)
			if err != nil {
				return nil, "", err
			}
			if prompt.matches(line, x) {
				return watch, "", nil
			}
			lastLine = line
		}
		if s.clock.Now().Sub(start) >= FarReadyWait {
			reason := "its far shell's prompt marks (OSC 133) say it is not at its prompt: a command runs there, or a line was entered since the prompt"
			if !st.seen {
				reason = "no prompt mark (OSC 133) of its far shell has reached the server since it began watching the pane"
			}
			if prompt != nil {
				reason = fmt.Sprintf("the cursor line %q is not the prompt farPrompt names with the cursor at its end, on a pane quiet for %v",
					lastLine, s.cfg.InputQuiet)
			}
			return nil, "", &fault.RefusalError{Pane: info.ID, Why: fault.RefusedFarNotReady, Reason: reason}
		}
		if o := s.startingPoll(ctx, w); o != "" {
			return nil, o, nil
		}
	}
}

// probeFar types the probe of family sh and waits, within FarProbeWait
// and the call's wait, for its answer on in, which it reads on past it.
// With no answer the line is withdrawn (C-c, as for a frame that never
// started) and nothing more is typed.
func (s *Service) probeFar(ctx context.Context, w *waiter, pane ports.PaneID, sh frame.Shell, in *streamReader) (Outcome, error) {
	ids := frame.IDs{ID: s.ids.NewID(), Secret: s.ids.NewID() + s.ids.NewID(), Unread: s.ids.NewID()}
	sc := frame.NewScanner(ids, io.Discard)
	typeCtx, cancel := s.clock.WithTimeout(context.WithoutCancel(ctx), min(typeTimeout, w.left()))
	defer cancel()
	if err := s.term.SendText(typeCtx, pane, frame.FarProbe(sh, ids.ID)); err != nil {
		return "", err
	}
	t := s.clock.NewTimer(min(FarProbeWait, w.left()))
	defer t.Stop()
	for {
		got := in.read()
		sc.Write(got.Data)
		switch {
		case sc.Started():
			return "", nil
		case got.Gone != nil:
			return OutcomePaneDied, nil
		}
		select {
		case <-in.changed():
		case <-t.C():
			if sc.Write(in.read().Data); sc.Started() {
				return "", nil
			}
			_ = s.term.SendKeys(typeCtx, pane, []string{"C-c"})
			return "", &fault.RefusalError{Pane: pane, Why: fault.RefusedFarSilent,
				Reason: fmt.Sprintf("the far side did not answer the probe of a %s shell within %v: it may not be a %s shell at its prompt "+
					"(a password prompt, another program, a shell of another family); only the probe line was typed, and it was withdrawn with C-c",
					sh, min(FarProbeWait, w.left()), sh)}
		case <-w.ticks():
			w.report()
		case <-w.done():
			_ = s.term.SendKeys(typeCtx, pane, []string{"C-c"})
			return OutcomeTimedOut, nil
		case <-ctx.Done():
			_ = s.term.SendKeys(typeCtx, pane, []string{"C-c"})
			return OutcomeCancelled, nil
		}
	}
}

// startFarRun is startRun for a far shell: the pane checked for a
// connector in front, the far shell awaited at its prompt, probed, and
// the frame typed inline.
func (s *Service) startFarRun(ctx context.Context, w *waiter, hold *writers.Hold, req RunRequest, maxLines int, info ports.PaneInfo) (_ *commandRun, early Outcome, _ error) {
	if req.Persist {
		return nil, "", &fault.ArgumentError{Field: "persist", Reason: "is not offered with farShell: a far shell's command runs in a child shell"}
	}
	prompt, err := compileFarPrompt(req.FarPrompt, req.FarPromptRegex)
	if err != nil {
		return nil, "", err
	}
	sh, err := policy.CheckFar(info, req.Force, frame.Shell(req.FarShell))
	if err != nil {
		return nil, "", err
	}
	watch, early, err := s.awaitFarPrompt(ctx, w, info, prompt)
	if err != nil || early != "" {
		return nil, early, err
	}
	stream, err := s.term.OpenOutput(ctx, req.PaneID)
	if err != nil {
		return nil, "", err
	}
	in := streamReader{stream: stream, offset: stream.End()}
	if early, err := s.probeFar(ctx, w, req.PaneID, sh, &in); err != nil || early != "" {
		stream.Close()
		return nil, early, err
	}
	r := &commandRun{s: s, hold: hold, pane: req.PaneID, gen: info.Generation, in: in,
		poked: make(chan struct{}, 1), command: quoteCommand(req.Command), ask: newAsking(false), caller: req.Caller,
		ended: make(chan struct{}), snap: make(chan snapRequest),
		noJobs: true, far: &farRun{watch: watch, prompt: prompt, marks: &promptMarks{}}}
	// A far terminal's mode is the connector's (ssh keeps it raw), not the
	// far command's: what it reads is not told.
	r.ask.off = true
	ids := s.frameIDs()
	r.far.id = ids.ID
	r.tail = termtext.NewTail(maxLines, s.cfg.MaxResultBytes)
	r.trim = &finalNewline{w: r.tail}
	r.out = s.outputs.Start(s.ids.NewID(), req.PaneID)
	w.showing(r.out)
	r.norm = termtext.NewNormalizer(teeOutput{result: r.trim, kept: r.out})
	r.held = &heldOutput{w: r.norm}
	r.scanner = frame.NewScanner(ids, r.held)
	cmd := frame.Command{Shell: sh, IDs: ids, Text: req.Command, Options: s.frameOptions(req)}
	typeCtx, cancel := s.clock.WithTimeout(context.WithoutCancel(ctx), min(typeTimeout, w.left()))
	defer cancel()
	if err := s.term.SendText(typeCtx, req.PaneID, cmd.FarLine()); err != nil {
		if !paneGone(err) && !errors.Is(err, ports.ErrNoAnswer) && typeCtx.Err() == nil {
			_ = s.term.SendKeys(typeCtx, req.PaneID, []string{"C-c"})
		}
		r.close()
		return nil, "", err
	}
	s.started.add(r)
	return r, "", nil
}

// connectorGone reports whether a shell of this host is back in front of
// the pane: the program that connected it to the far shell has exited.
func (r *commandRun) connectorGone() bool {
	ctx, cancel := r.s.bounded(reopenTimeout)
	defer cancel()
	info, err := r.s.term.Pane(ctx, r.pane)
	if err != nil || info.Dead || slices.Contains(info.Unknown, ports.FactCommand) {
		return false
	}
	_, local := policy.ShellOf(info.Program, info.Command)
	return local
}

// farRun is what a run in a far shell keeps besides a local run's.
type farRun struct {
	id     string // the frame's id, whose start marker the marks are read after
	watch  *farWatch
	prompt *farPrompt
	marks  *promptMarks // the prompt marks since the start marker
	idle   int          // liveness checks in a row that found the shell back at its prompt
}

// note reads the run's output for prompt marks after its start marker.
func (f *farRun) note(started bool, data []byte) {
	if !started {
		return
	}
	if f.marks == nil {
		return
	}
	if i := bytes.Index(data, []byte("\x1b]7717;tmcp;S;"+f.id+";")); i >= 0 {
		f.marks = &promptMarks{}
		data = data[i:]
	}
	f.marks.Write(data)
	f.idle = 0
}

// checkFarAbandoned is checkAbandoned for a far shell, which no process
// table tells about: a frame whose start marker came and whose end did
// not, while the far shell is back at its prompt on a quiet pane (its
// marks say so, or its cursor line is the named prompt), was given up —
// its job died of a signal the frame does not catch, or the shell dropped
// the line — and no end will come.
func (r *commandRun) checkFarAbandoned() {
	f := r.far
	// The watch reads along, so that what the run sees does not overflow
	// what its stream retains for the next call.
	st := f.watch.refresh(r.s.clock.Now())
	if r.end != endNone || r.start != startSeen {
		return
	}
	if _, ended := r.scanner.Ended(); ended {
		f.idle = 0
		return
	}
	back := false
	need := farMarkChecks
	switch {
	case r.connectorGone():
		// The connection ended (ssh exited, the container stopped): a
		// shell of this host is in front, and the far frame will never
		// end. Nor will the marks or the far prompt come back.
		back = true
	case f.marks.seen():
		back = f.marks.atPrompt()
	case f.prompt != nil:
		need = farPromptChecks
		if r.s.clock.Now().Sub(st.quietSince) >= r.s.cfg.InputQuiet {
			ctx, cancel := r.s.bounded(reopenTimeout)
			line, x, err := r.s.cursorLine(ctx, r.pane)
			cancel()
			back = err == nil && f.prompt.matches(line, x)
		}
	}
	if !back {
		f.idle = 0
		return
	}
	if f.idle++; f.idle >= need {
		r.ends(endAbandoned)
	}
}
