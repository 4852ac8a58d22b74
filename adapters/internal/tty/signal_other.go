//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package tty

import (
	"fmt"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// SignalGroup cannot send signals on this system.
func SignalGroup(panePID int, dev uint64, pgid int, sig ports.Signal) ([]ports.Process, error) {
	return nil, fmt.Errorf("send %s to process group %d: %w", sig, pgid, ports.ErrUnsupported)
}
