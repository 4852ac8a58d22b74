package screen

import (
	"fmt"
	"os"
	"syscall"
	"unsafe"
)

// ttyPending returns how many bytes of input wait in the terminal for its
// program to read them (in canonical mode: in complete lines).
func ttyPending(f *os.File) (int, error) {
	var n int32
	if err := ioctl(f, syscall.TIOCINQ, uintptr(unsafe.Pointer(&n))); err != nil {
		return 0, fmt.Errorf("input queue of %s: %w", f.Name(), err)
	}
	return int(n), nil
}

// termios returns the terminal's local and input mode flags.
func termios(f *os.File) (lflag, iflag uint32, err error) {
	var t syscall.Termios
	if err := ioctl(f, syscall.TCGETS, uintptr(unsafe.Pointer(&t))); err != nil {
		return 0, 0, err
	}
	return t.Lflag, t.Iflag, nil
}
