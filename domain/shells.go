package domain

import (
	"sync"

	"github.com/tmux-mcp/tmux-mcp/domain/frame"
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
