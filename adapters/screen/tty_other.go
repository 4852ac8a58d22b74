//go:build !linux

package screen

import (
	"errors"
	"fmt"
	"os"
)

// Elsewhere than on Linux the adapter does not read a terminal's input
// queue or modes; like the facts /proc gives, they are unknown there, and
// writes that depend on them wait as for a program that reads nothing.

func ttyPending(f *os.File) (int, error) {
	return 0, fmt.Errorf("input queue of %s: %w", f.Name(), errors.ErrUnsupported)
}

func termios(f *os.File) (lflag, iflag uint32, err error) {
	return 0, 0, fmt.Errorf("modes of %s: %w", f.Name(), errors.ErrUnsupported)
}
