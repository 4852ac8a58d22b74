package domain

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/domain/frame"
	"github.com/tmux-mcp/tmux-mcp/domain/policy"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// What the Service remembers of the shells it has met in front of a
// pane's terminal, each by its process, for as long as the pane's process
// is the same (its Generation): whether the shell was seen with line
// editing on at its prompt, so that a canonical terminal later means that
// it reads a line of its own (see awaitLineEditor); and whether this
// Service has typed a frame into it, which for zsh means that the frame's
// history hook is there (see frameFor).

// shellsSeen is that memory, for every pane. It is safe for concurrent
// use.
type shellsSeen struct {
	mu    sync.Mutex
	panes map[ports.PaneID]*paneShells
}

// paneShells are the shells met in one pane.
type paneShells struct {
	gen    string             // the pane's process generation they were met in
	shells map[int]*shellSeen // by process id; 0 where the backend cannot tell it
}

// shellSeen is what is known of one shell.
type shellSeen struct {
	editing bool // seen with line editing on at its prompt
	framed  bool // this Service typed a frame into it
}

// maxShellsSeen bounds the shells remembered in one pane: past it, the
// pane's memory starts again (a pane whose shells come and go, nested
// and exited, one after another).
const maxShellsSeen = 32

// seen returns what is known of the shell pid of pane id in the pane's
// process generation gen.
func (ss *shellsSeen) seen(id ports.PaneID, gen string, pid int) shellSeen {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if p := ss.panes[id]; p != nil && p.gen == gen && p.shells[pid] != nil {
		return *p.shells[pid]
	}
	return shellSeen{}
}

// note records what update says of the shell pid of pane id in
// generation gen, forgetting the shells of an earlier generation.
func (ss *shellsSeen) note(id ports.PaneID, gen string, pid int, update func(*shellSeen)) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.panes == nil {
		ss.panes = make(map[ports.PaneID]*paneShells)
	}
	p := ss.panes[id]
	if p == nil || p.gen != gen || len(p.shells) >= maxShellsSeen && p.shells[pid] == nil {
		p = &paneShells{gen: gen, shells: make(map[int]*shellSeen)}
		ss.panes[id] = p
	}
	if p.shells[pid] == nil {
		p.shells[pid] = &shellSeen{}
	}
	update(p.shells[pid])
}

// shellPID is the process id by which the shell in front is remembered:
// the foreground group's leader, or 0 when the backend cannot tell it.
func shellPID(fg ports.Foreground, noJobs bool) int {
	if noJobs {
		return 0
	}
	return fg.Group
}

// frameFor frames text for the shell sh in front of the pane. zsh saves
// a line before any of it runs, so the first frame typed into a zsh that
// has no frame's history hook yet may stay in its history (see
// frame.Command.NoPreview): that line does not show the command.
func (s *Service) frameFor(id ports.PaneID, gen string, pid int, sh frame.Shell, ids frame.IDs, text string) frame.Command {
	first := sh == frame.ShellZsh && !s.shells.seen(id, gen, pid).framed
	return frame.Command{Shell: sh, IDs: ids, Text: text, NoPreview: first}
}

// typed records that a frame was typed into the shell pid.
func (s *Service) typed(id ports.PaneID, gen string, pid int) {
	s.shells.note(id, gen, pid, func(sh *shellSeen) { sh.framed = true })
}

// ReadingGrace bounds how long a run waits for a shell seen with line
// editing at its prompt, in front again with its terminal canonical, to
// turn its line editor back on: between a command and its prompt (its
// precmd hooks and PROMPT_COMMAND run with the terminal canonical) it
// does so soon; a shell that reads a line of its own does not.
const ReadingGrace = 2 * time.Second

// awaitLineEditor applies policy.CheckReading to the shell in front of
// the pane (fg, the pane's foreground as the run read it) and remembers
// what it sees. A terminal that says the shell is at its prompt is noted
// for that shell; one that does not, for a shell seen at its prompt
// before, is looked at every StartingPoll until it does, for at most
// ReadingGrace, and then refused. A shell that turned its line editor
// back on is at its prompt only if it is still the one in front: fg is
// read again then. A backend that cannot tell the terminal's mode is not
// refused. It returns the outcome that ended the wait first (the call's
// deadline or cancellation, nothing typed) or the refusal.
func (s *Service) awaitLineEditor(ctx context.Context, w *waiter, id ports.PaneID, gen string, fg *ports.Foreground) (Outcome, error) {
	editing, err := s.term.LineEditing(ctx, id)
	if err != nil {
		return "", nil
	}
	pid := fg.Group
	if editing {
		s.shells.note(id, gen, pid, func(sh *shellSeen) { sh.editing = true })
		return "", nil
	}
	seen := s.shells.seen(id, gen, pid).editing
	if !seen {
		return "", nil
	}
	until := s.clock.Now().Add(ReadingGrace)
	for s.clock.Now().Before(until) {
		if o := s.startingPoll(ctx, w); o != "" {
			return o, nil
		}
		if editing, err = s.term.LineEditing(ctx, id); err != nil || editing {
			return "", s.stillInFront(ctx, id, fg)
		}
	}
	return "", policy.CheckReading(id, editing, seen)
}

// stillInFront reads the pane's foreground again into fg after a wait,
// and refuses the pane if another group than fg's is in front now (the
// shell ran something meanwhile, whose own line editor may be what the
// terminal shows).
func (s *Service) stillInFront(ctx context.Context, id ports.PaneID, fg *ports.Foreground) error {
	now, err := s.term.Foreground(ctx, id)
	switch {
	case errors.Is(err, ports.ErrUnsupported):
		return nil
	case err != nil:
		return err
	case now.Group != fg.Group:
		return &fault.RefusalError{Pane: id, Why: fault.RefusedNotAShell,
			Reason: "another program came in front of its terminal while its shell was waited for at its prompt"}
	}
	*fg = now
	return policy.CheckFront(id, now)
}
