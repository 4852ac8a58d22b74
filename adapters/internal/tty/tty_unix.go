//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package tty

import (
	"fmt"
	"os"
	"syscall"
	"unsafe"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// LineEditing opens the tty (without making it this process's controlling
// terminal, and without waiting for a carrier) and reads its mode: a line
// editor turns canonical input and echo off while it reads a line.
func LineEditing(tty string) (bool, error) {
	m, err := ReadMode(tty)
	return !m.Echo && !m.Canonical, err
}

// ReadMode opens the tty as LineEditing does and reads its ECHO and ICANON
// flags.
func ReadMode(tty string) (Mode, error) {
	f, err := os.OpenFile(tty, os.O_RDONLY|syscall.O_NOCTTY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return Mode{}, fmt.Errorf("open %s: %w: %w", tty, err, ports.ErrUnsupported)
	}
	defer f.Close()
	var tio syscall.Termios
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), uintptr(getTermios), uintptr(unsafe.Pointer(&tio))); errno != 0 {
		return Mode{}, fmt.Errorf("read the mode of %s: %w: %w", tty, errno, ports.ErrUnsupported)
	}
	return Mode{Echo: tio.Lflag&syscall.ECHO != 0, Canonical: tio.Lflag&syscall.ICANON != 0}, nil
}

// Device returns the device number of the tty, as /proc/PID/stat
// gives a process's controlling terminal.
func Device(tty string) (uint64, error) {
	fi, err := os.Stat(tty)
	if err != nil {
		return 0, fmt.Errorf("%w: %w", err, ports.ErrUnsupported)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, fmt.Errorf("no device number for %s: %w", tty, ports.ErrUnsupported)
	}
	return uint64(st.Rdev), nil
}
