package screen

import (
	"context"
	"fmt"
	"os"
	"strconv"

	"github.com/tmux-mcp/tmux-mcp/adapters/internal/tty"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

var _ ports.InputWatcher = (*Terminal)(nil)

// Reading tells who reads the window's terminal, from /proc and the
// terminal's mode (internal/tty), through the window's program, whose
// standard input is its terminal.
func (t *Terminal) Reading(ctx context.Context, id ports.PaneID) (ports.Reading, error) {
	w, err := t.liveWindow(ctx, id, "read who reads the terminal of")
	if err != nil {
		return ports.Reading{}, err
	}
	path, err := os.Readlink("/proc/" + strconv.Itoa(w.proc.pid) + "/fd/0")
	if err != nil {
		return ports.Reading{}, fmt.Errorf("read who reads the terminal of pane %s: %w: %w", id, err, ports.ErrUnsupported)
	}
	if dev, err := tty.Device(path); err != nil || dev != w.proc.ttyNr {
		return ports.Reading{}, fmt.Errorf("read who reads the terminal of pane %s: its program's input %s is not its terminal: %w", id, path, ports.ErrUnsupported)
	}
	r, err := tty.Reading(w.proc.pid, w.proc.ttyNr, path)
	if err != nil {
		return ports.Reading{}, fmt.Errorf("read who reads the terminal of pane %s: %w", id, err)
	}
	return r, nil
}
