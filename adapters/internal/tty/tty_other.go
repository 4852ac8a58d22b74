//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package tty

import (
	"fmt"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// LineEditing cannot read a terminal's mode on this system.
func LineEditing(tty string) (bool, error) {
	return false, fmt.Errorf("read the mode of %s: %w", tty, ports.ErrUnsupported)
}

// ReadMode cannot read a terminal's mode on this system.
func ReadMode(tty string) (Mode, error) {
	return Mode{}, fmt.Errorf("read the mode of %s: %w", tty, ports.ErrUnsupported)
}

// Device cannot read a terminal's device number on this system.
func Device(tty string) (uint64, error) {
	return 0, fmt.Errorf("read the device of %s: %w", tty, ports.ErrUnsupported)
}
