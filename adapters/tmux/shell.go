package tmux

import (
	"context"
	"fmt"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/adapters/internal/tty"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// The ScriptStore and JobControl halves of the adapter, for a tmux server
// on this machine: scripts are files in a private directory of the
// Terminal's (adapters/internal/scripts), and what a pane's terminal says
// is read from the kernel, without tmux, so that it costs no round trip:
// the foreground process group from /proc (Linux), the terminal's mode
// from the pane's tty device.

// PutScript writes the script into the Terminal's private directory, or
// over ssh into tmux's own on the remote host (scripts.go).
func (t *Terminal) PutScript(ctx context.Context, id ports.PaneID, build func(path string) []byte) (string, error) {
	if err := checkPaneID(id); err != nil {
		return "", err
	}
	return t.scripts.Put(ctx, id, build)
}

// RemoveScript deletes a script that PutScript wrote; the pane need not
// exist any more.
func (t *Terminal) RemoveScript(ctx context.Context, id ports.PaneID, path string) (ports.ScriptState, error) {
	return t.scripts.Remove(ctx, id, path)
}

// Foreground reads the pane's foreground process group from /proc
// (internal/tty), through the pane's first process, whose controlling
// terminal is the pane's.
func (t *Terminal) Foreground(ctx context.Context, id ports.PaneID) (ports.Foreground, error) {
	c, err := t.paneTTY(ctx, id)
	if err != nil {
		return ports.Foreground{}, fmt.Errorf("read the foreground of pane %s: %w", id, err)
	}
	dev, err := tty.Device(c.path)
	if err != nil {
		return ports.Foreground{}, fmt.Errorf("read the foreground of pane %s: %w", id, err)
	}
	fg, err := tty.Foreground(c.pid, dev)
	if err != nil {
		return ports.Foreground{}, fmt.Errorf("read the foreground of pane %s: %w", id, err)
	}
	return fg, nil
}

// LineEditing reads the pane's tty's mode.
func (t *Terminal) LineEditing(ctx context.Context, id ports.PaneID) (bool, error) {
	c, err := t.paneTTY(ctx, id)
	if err != nil {
		return false, fmt.Errorf("read the terminal of pane %s: %w", id, err)
	}
	editing, err := tty.LineEditing(c.path)
	if err != nil {
		return false, fmt.Errorf("read the terminal of pane %s: %w", id, err)
	}
	return editing, nil
}

// paneTTY returns the pane's tty and first process, asking tmux the first
// time and after the pane's process was replaced (the cached pid is
// checked against /proc).
func (t *Terminal) paneTTY(ctx context.Context, id ports.PaneID) (ttyOf, error) {
	if err := checkPaneID(id); err != nil {
		return ttyOf{}, err
	}
	if t.launch.remote() {
		return ttyOf{}, fmt.Errorf("the tmux server is not on this machine: %w", ports.ErrUnsupported)
	}
	t.mu.Lock()
	c, ok := t.ttys[id]
	t.mu.Unlock()
	if ok && tty.Exists(c.pid) {
		return c, nil
	}
	out, err := t.command(ctx, route{pane: id}, append(probeArgs(id), ";",
		"display-message", "-p", "-t", string(id), "T"+sep+"#{pane_pid}"+sep+clean("pane_tty"))...)
	if err != nil {
		return ttyOf{}, err
	}
	if dead(out) {
		return ttyOf{}, ports.ErrPaneDead
	}
	l := tagged(out, "T", 2)
	if len(l) != 1 {
		return ttyOf{}, fmt.Errorf("tmux printed %q, not the pane's tty", out)
	}
	c = ttyOf{pid: atoi(l[0][0]), path: l[0][1]}
	if c.pid <= 0 || !strings.HasPrefix(c.path, "/dev/") {
		return ttyOf{}, fmt.Errorf("tmux gave the pane no tty (%q): %w", out, ports.ErrUnsupported)
	}
	t.mu.Lock()
	t.ttys[id] = c
	t.mu.Unlock()
	return c, nil
}

// ttyOf is what the Terminal remembers of a pane's terminal.
type ttyOf struct {
	pid  int // the pane's first process
	path string
}

// ReadScript reads a script's file back.
func (t *Terminal) ReadScript(ctx context.Context, id ports.PaneID, path string) ([]byte, bool, error) {
	return t.scripts.Read(ctx, id, path)
}

// ScriptExposed tells whether something besides the pane's shell read a
// script (internal/scripts' witness); over ssh it cannot tell.
func (t *Terminal) ScriptExposed(ctx context.Context, id ports.PaneID, path string) (bool, error) {
	return t.scripts.Exposed(ctx, id, path)
}
