package screen

import (
	"context"
	"fmt"
	"os"
	"strconv"

	"github.com/tmux-mcp/tmux-mcp/adapters/internal/tty"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// The ScriptStore and JobControl halves: screen runs its windows on this
// machine, so scripts are files in a private directory (internal/scripts,
// inside the Terminal's own), and what a window's terminal says is read
// from the kernel: the window's program's controlling terminal from /proc,
// then that terminal's foreground group and mode (internal/tty).

// PutScript writes the script into the Terminal's private directory.
func (t *Terminal) PutScript(ctx context.Context, id ports.PaneID, build func(path string) []byte) (string, error) {
	if _, err := t.lookup(ctx, id); err != nil {
		return "", fmt.Errorf("put a script for pane %s: %w", id, err)
	}
	return t.scripts.Put(build)
}

// ReadScript reads a script's file back.
func (t *Terminal) ReadScript(ctx context.Context, id ports.PaneID, path string) ([]byte, bool, error) {
	return t.scripts.Read(path)
}

// ScriptExposed tells whether something besides the window's shell read a
// script (internal/scripts' witness).
func (t *Terminal) ScriptExposed(ctx context.Context, id ports.PaneID, path string) (bool, error) {
	return t.scripts.Exposed(path)
}

// RemoveScript deletes a script that PutScript wrote.
func (t *Terminal) RemoveScript(ctx context.Context, id ports.PaneID, path string) (ports.ScriptState, error) {
	return t.scripts.Remove(path)
}

// Foreground reads the foreground process group of the window's
// terminal through the window's program.
func (t *Terminal) Foreground(ctx context.Context, id ports.PaneID) (ports.Foreground, error) {
	w, err := t.liveWindow(ctx, id, "read the foreground of")
	if err != nil {
		return ports.Foreground{}, err
	}
	fg, err := tty.Foreground(w.proc.pid, w.proc.ttyNr)
	if err != nil {
		return ports.Foreground{}, fmt.Errorf("read the foreground of pane %s: %w", id, err)
	}
	return fg, nil
}

// LineEditing reads the mode of the window's terminal, which its program
// has as standard input.
func (t *Terminal) LineEditing(ctx context.Context, id ports.PaneID) (bool, error) {
	w, err := t.liveWindow(ctx, id, "read the terminal of")
	if err != nil {
		return false, err
	}
	path, err := os.Readlink("/proc/" + strconv.Itoa(w.proc.pid) + "/fd/0")
	if err != nil {
		return false, fmt.Errorf("read the terminal of pane %s: %w: %w", id, err, ports.ErrUnsupported)
	}
	if dev, err := tty.Device(path); err != nil || dev != w.proc.ttyNr {
		return false, fmt.Errorf("read the terminal of pane %s: its program's input %s is not its terminal: %w", id, path, ports.ErrUnsupported)
	}
	editing, err := tty.LineEditing(path)
	if err != nil {
		return false, fmt.Errorf("read the terminal of pane %s: %w", id, err)
	}
	return editing, nil
}

// liveWindow finds the window of a live pane.
func (t *Terminal) liveWindow(ctx context.Context, id ports.PaneID, what string) (window, error) {
	w, err := t.lookup(ctx, id)
	if err != nil {
		return window{}, fmt.Errorf("%s pane %s: %w", what, id, err)
	}
	if !w.stillLive() {
		return window{}, fmt.Errorf("%s pane %s: %w", what, id, ports.ErrPaneDead)
	}
	return w, nil
}
