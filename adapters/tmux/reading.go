package tmux

import (
	"context"
	"fmt"

	"github.com/tmux-mcp/tmux-mcp/adapters/internal/tty"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

var _ ports.InputWatcher = (*Terminal)(nil)

// Reading tells who reads the pane's terminal, from /proc and the
// terminal's mode (internal/tty), through the pane's first process and
// terminal as Foreground reads them; over ssh (Options.SSH), the remote
// reader reads the same on the remote host (remotereading.go).
func (t *Terminal) Reading(ctx context.Context, id ports.PaneID) (ports.Reading, error) {
	r, err := t.reading(ctx, id)
	if err != nil {
		return ports.Reading{}, fmt.Errorf("read who reads the terminal of pane %s: %w", id, err)
	}
	return r, nil
}

func (t *Terminal) reading(ctx context.Context, id ports.PaneID) (ports.Reading, error) {
	if t.proc != nil {
		return t.remoteReading(ctx, id)
	}
	c, dev, err := t.localTTY(ctx, id)
	if err != nil {
		return ports.Reading{}, err
	}
	return tty.Reading(c.pid, dev, c.path)
}
