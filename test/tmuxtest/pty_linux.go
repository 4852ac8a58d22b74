package tmuxtest

import (
	"fmt"
	"os"
	"syscall"
	"testing"
	"unsafe"
)

// OpenPTY opens a new pseudo-terminal and returns its two sides; the test
// closes them. It skips the test where there is no pseudo-terminal to
// open.
func OpenPTY(t testing.TB) (master, slave *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	var unlock int32
	var num uint32
	if err := ioctl(master, syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); err != nil {
		master.Close()
		t.Fatalf("unlock pty: %v", err)
	}
	if err := ioctl(master, syscall.TIOCGPTN, uintptr(unsafe.Pointer(&num))); err != nil {
		master.Close()
		t.Fatalf("pty number: %v", err)
	}
	slave, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", num), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		master.Close()
		t.Fatalf("open pty: %v", err)
	}
	return master, slave
}

// ioctl runs the ioctl req on f with arg.
func ioctl(f *os.File, req, arg uintptr) error {
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), req, arg); errno != 0 {
		return errno
	}
	return nil
}
