package fake

import (
	"context"
	"fmt"

	"github.com/tmux-mcp/tmux-mcp/domain/frame"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

var _ ports.InputWatcher = (*Terminal)(nil)

// Reading tells who reads the pane's terminal, as the /proc reader of a
// real backend tells it: a command in a read (Read, the interpreter's read)
// or cat, reading the terminal; the shell itself in a read of its own
// (Ask), a line at a time; the shell's line editor at its prompt, keys one
// at a time with echo off, as bash's readline sets the terminal. A command
// that sleeps, hangs or reads a pipe (Read.Pipe) reads nothing. Without
// job control (SetNoJobControl) it cannot tell: ErrUnsupported.
func (t *Terminal) Reading(ctx context.Context, id ports.PaneID) (ports.Reading, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p, err := t.lookupLive(ctx, id, "read who reads the terminal of pane %s")
	if err != nil {
		return ports.Reading{}, err
	}
	if t.noJobs {
		return ports.Reading{}, fmt.Errorf("read who reads the terminal of pane %s: %w", id, ports.ErrUnsupported)
	}
	shell := p.program()
	switch j := p.job; {
	case p.dead || p.mode != "" || !p.isShell() || p.starting:
		return ports.Reading{}, nil
	case j == nil && p.asking:
		return ports.Reading{Blocked: true, Echo: !p.noEcho, Canonical: true, PID: p.pid, Program: shell, Command: shell}, nil
	case j == nil:
		if fam, _ := frame.ShellFor(shell); fam != frame.ShellSh {
			// A line editor: keys, one at a time, echoed by the editor.
			return ports.Reading{Blocked: true, PID: p.pid, Program: shell, Command: shell}, nil
		}
		// sh reads its lines as the terminal edits them.
		return ports.Reading{Blocked: true, Echo: true, Canonical: true, PID: p.pid, Program: shell, Command: shell}, nil
	case j.ask != nil && !j.ask.Pipe:
		r := ports.Reading{Blocked: true, Echo: !j.ask.Secret && !p.noEcho, Canonical: !j.ask.Raw, PID: j.pid,
			Program: shell, Command: shell}
		if j.ask.Raw {
			r.Echo = false
		}
		if j.ask.Program != "" {
			r.Program, r.Command = j.ask.Program, j.ask.Program
		}
		return r, nil
	case j.reading:
		return ports.Reading{Blocked: true, Echo: !p.noEcho, Canonical: true, PID: j.pid, Program: "cat", Command: "cat"}, nil
	}
	return ports.Reading{}, nil
}
