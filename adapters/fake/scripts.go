package fake

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/domain/frame"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// scriptDir is where the fake keeps the scripts of its ScriptStore; no
// file is written there.
const scriptDir = "/tmp/tmux-mcp-fake"

// PutScript stores the script in memory, where the scripted shells read
// it, under a fresh path in scriptDir.
func (t *Terminal) PutScript(ctx context.Context, id ports.PaneID, build func(path string) []byte) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, err := t.lookup(ctx, id, "put a script for pane %s"); err != nil {
		return "", err
	}
	t.nextScript++
	path := scriptDir + "/" + strconv.Itoa(t.nextScript)
	content := build(path)
	t.scripts[path] = &script{data: append([]byte{}, content...), put: len(content), exposed: t.exposeAll}
	return path, nil
}

// script is one file of the ScriptStore.
type script struct {
	data    []byte
	put     int  // the length of what was put there
	written bool // a shell wrote it since
	exposed bool // another process read it first (ExposeScripts, ExposeScript)
}

var _ ports.ScriptWitness = (*Terminal)(nil)

// ScriptExposed reports whether the script was marked as read by another
// process (ExposeScripts, ExposeScript). Like the real witness, it tells
// only of scripts the ScriptStore still holds.
func (t *Terminal) ScriptExposed(ctx context.Context, id ports.PaneID, path string) (bool, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return false, fmt.Errorf("tell who read the script %s of pane %s: %w", path, id, err)
	}
	if t.noJobs {
		return false, fmt.Errorf("tell who read the script %s of pane %s: %w", path, id, ports.ErrUnsupported)
	}
	sc, ok := t.scripts[path]
	if !ok {
		return false, fmt.Errorf("tell who read the script %s of pane %s: no such script: %w", path, id, ports.ErrUnsupported)
	}
	return sc.exposed, nil
}

// ExposeScripts makes every script put from now on (while on) read by
// another process the moment it is written, as a process that watches the
// script directory would.
func (t *Terminal) ExposeScripts(on bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.exposeAll = on
}

// OverwriteScript writes data into the script's file, as another process
// of the user may. It panics if there is no such script.
func (t *Terminal) OverwriteScript(path string, data []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	sc, ok := t.scripts[path]
	if !ok {
		panic("fake: no script " + path)
	}
	sc.data, sc.written = append([]byte{}, data...), true
}

// ExposeScript marks the script at path as read by another process while
// it still held what was put there. It panics if there is no such script.
func (t *Terminal) ExposeScript(path string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	sc, ok := t.scripts[path]
	if !ok {
		panic("fake: no script " + path)
	}
	sc.exposed = true
}

// ReadScript returns what the script's file holds now.
func (t *Terminal) ReadScript(ctx context.Context, id ports.PaneID, path string) ([]byte, bool, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return nil, false, fmt.Errorf("read the script %s of pane %s: %w", path, id, err)
	}
	if t.noJobs && t.noReadBack {
		return nil, false, fmt.Errorf("read the script %s of pane %s: %w", path, id, ports.ErrUnsupported)
	}
	sc, ok := t.scripts[path]
	if !ok {
		return nil, false, nil
	}
	return append([]byte{}, sc.data...), true, nil
}

// RemoveScript deletes the script and tells whether a shell had written it
// (emptied it, or written a status there). The pane need not exist any
// more.
func (t *Terminal) RemoveScript(ctx context.Context, id ports.PaneID, path string) (ports.ScriptState, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return ports.ScriptUnknown, fmt.Errorf("remove the script %s of pane %s: %w", path, id, err)
	}
	sc, ok := t.scripts[path]
	delete(t.scripts, path)
	switch {
	case !ok:
		return ports.ScriptUnknown, nil
	case sc.written:
		return ports.ScriptTaken, nil
	}
	return ports.ScriptUntouched, nil
}

// Foreground is the shell's group while it runs no command, and the
// command's while it runs one; the command is the shell's one child. A
// job whose leader has exited is in front for as long as
// SetLeaderlessFront says.
func (t *Terminal) Foreground(ctx context.Context, id ports.PaneID) (ports.Foreground, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p, err := t.lookupLive(ctx, id, "read the foreground of pane %s")
	if err != nil {
		return ports.Foreground{}, err
	}
	switch {
	case t.noJobs:
		return ports.Foreground{}, fmt.Errorf("read the foreground of pane %s: %w", id, ports.ErrUnsupported)
	case t.clock.Now().Before(p.leaderless.until):
		return ports.Foreground{Group: p.leaderless.group, Args: []string{}}, nil
	case p.job != nil && p.job.keepsTerm:
		return ports.Foreground{Group: p.pid, Children: []int{p.job.pid}, Args: p.shellArgs(), Program: p.shellProgram()}, nil
	case p.job != nil:
		// A command's own command line and program are not kept.
		return ports.Foreground{Group: p.job.pid}, nil
	case p.promptJob != 0:
		return ports.Foreground{Group: p.promptJob}, nil
	}
	return ports.Foreground{Group: p.pid, Children: []int{}, Args: p.shellArgs(), Program: p.shellProgram()}, nil
}

// shellArgs is the command line of the pane's program: what
// SetForegroundArgs set, else its name alone.
func (p *pane) shellArgs() []string {
	if p.args != nil {
		return slices.Clone(p.args)
	}
	return []string{p.spec.Command}
}

// shellProgram is the executable of the pane's own program, the one
// Foreground reports while it runs no command: what SetProgram set, else
// its command's base name.
func (p *pane) shellProgram() string {
	if p.exe != "" {
		return p.exe
	}
	name := strings.TrimPrefix(p.spec.Command, "-")
	return name[strings.LastIndexByte(name, '/')+1:]
}

// LineEditing reports whether the pane's shell sits at its prompt with a
// line editor: a started shell of a family other than sh, running no
// command and reading no line of its own (Ask). A mode does not change it, as a mode is the multiplexer's and
// leaves the terminal as the shell set it.
func (t *Terminal) LineEditing(ctx context.Context, id ports.PaneID) (bool, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p, err := t.lookupLive(ctx, id, "read the terminal of pane %s")
	if err != nil {
		return false, err
	}
	if t.noJobs {
		return false, fmt.Errorf("read the terminal of pane %s: %w", id, ports.ErrUnsupported)
	}
	fam, ok := frame.ShellFor(p.program())
	return ok && fam != frame.ShellSh && !p.starting && p.job == nil && !p.asking, nil
}
