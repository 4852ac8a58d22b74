package domain

import (
	"context"
	"errors"
	"fmt"

	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/domain/frame"
	"github.com/tmux-mcp/tmux-mcp/domain/policy"
	"github.com/tmux-mcp/tmux-mcp/domain/termtext"
	"github.com/tmux-mcp/tmux-mcp/domain/writers"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// The start of a run: the pane checked, the shell awaited, the script
// staged and the line typed.

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
	if req.FarShell != "" {
		return s.startFarRun(ctx, w, hold, req, maxLines, info)
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
		poked: make(chan struct{}, 1), command: quoteCommand(req.Command), ask: newAsking(req.AwaitInput), caller: req.Caller,
		ended: make(chan struct{}), snap: make(chan snapRequest)}
	ids := s.frameIDs()
	// Output is held until the pane's process is confirmed (heldOutput),
	// then normalized; the final line break goes (finalNewline); the tail
	// keeps what the result can hold.
	r.tail = termtext.NewTail(maxLines, s.cfg.MaxResultBytes)
	r.trim = &finalNewline{w: r.tail}
	r.out = s.outputs.Start(s.ids.NewID(), req.PaneID)
	w.showing(r.out)
	r.norm = termtext.NewNormalizer(teeOutput{result: r.trim, kept: r.out})
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
	r.mark, r.marked = s.markProcesses(typeCtx, req.PaneID)
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
