package tty

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/tmux-mcp/tmux-mcp/test/gate"
)

// Reading on a pseudo-terminal of the test's own, without a multiplexer:
// a shell's read of it is seen, from the system call and, where that is
// not shown, from the wait channel; a read of a pipe is not.

// onPTY starts script under sh with a new pseudo-terminal as its
// controlling terminal and standard streams, and returns its pid, the
// terminal's path and device.
func onPTY(t *testing.T, script string) (pid int, path string, dev uint64) {
	t.Helper()
	gate.Real(t, "a shell on a pseudo-terminal")
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	t.Cleanup(func() { master.Close() })
	var unlock int32
	var num uint32
	for _, c := range []struct {
		req uintptr
		arg unsafe.Pointer
	}{{syscall.TIOCSPTLCK, unsafe.Pointer(&unlock)}, {syscall.TIOCGPTN, unsafe.Pointer(&num)}} {
		if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, master.Fd(), c.req, uintptr(c.arg)); errno != 0 {
			t.Fatalf("pty ioctl: %v", errno)
		}
	}
	path = fmt.Sprintf("/dev/pts/%d", num)
	slave, err := os.OpenFile(path, os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer slave.Close()
	cmd := exec.Command("sh", "-c", script)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	if dev, err = Device(path); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid, path, dev
}

// settles polls Reading until ok holds of it, for up to 5 s.
func settles(t *testing.T, pid int, dev uint64, path string, what string, ok func(r seen) bool) seen {
	t.Helper()
	var last seen
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		r, err := Reading(pid, dev, path)
		last = seen{r.Blocked, r.Echo, r.Canonical, r.PID, r.Weak, err}
		if err == nil && ok(last) {
			return last
		}
	}
	t.Fatalf("%s: never so; last %+v", what, last)
	return last
}

// seen is what the tests look at of a Reading, and its error.
type seen struct {
	Blocked, Echo, Canonical bool
	PID                      int
	Weak                     bool
	Err                      error
}

func TestAShellsReadOfItsTerminalIsSeen(t *testing.T) {
	pid, path, dev := onPTY(t, "read x")
	got := settles(t, pid, dev, path, "the read blocked", func(r seen) bool { return r.Blocked })
	if got.PID != pid || !got.Canonical || !got.Echo || got.Weak {
		t.Errorf("Reading = %+v; want the shell, canonical, echo, from its system call", got)
	}

	// Where the system call is not shown, the wait channel tells.
	readSyscall = func(string) ([]byte, error) { return nil, errors.New("not allowed") }
	t.Cleanup(func() { readSyscall = func(dir string) ([]byte, error) { return os.ReadFile(dir + "/syscall") } })
	got = settles(t, pid, dev, path, "the read blocked, by the wait channel", func(r seen) bool { return r.Blocked })
	if !got.Weak || got.PID != pid {
		t.Errorf("Reading without the system call = %+v; want the shell, weak", got)
	}
}

func TestAReadOfAPipeIsNotTheTerminal(t *testing.T) {
	pid, path, dev := onPTY(t, "sleep 30 | cat; read x")
	// The pipeline runs in the shell's group (no job control): cat reads
	// the pipe, sleep sleeps; nothing reads the terminal.
	time.Sleep(300 * time.Millisecond)
	for range 5 {
		r, err := Reading(pid, dev, path)
		if err != nil || r.Blocked {
			t.Fatalf("Reading while cat reads a pipe = %+v, %v; want nothing blocked on the terminal", r, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
