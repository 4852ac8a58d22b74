//go:build linux

package tmux

import (
	"os"
	"syscall"
	"testing"
)

func TestGrowPipeEnlargesThePipeBuffer(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	const fGetPipeSize = 1032
	size := func() int {
		var n uintptr
		rc, _ := w.SyscallConn()
		rc.Control(func(fd uintptr) { n, _, _ = syscall.Syscall(syscall.SYS_FCNTL, fd, fGetPipeSize, 0) })
		return int(n)
	}
	before := size()
	growPipe(w, controlPipeSize)
	if after := size(); after <= before {
		t.Errorf("pipe buffer is %d bytes after growPipe, was %d", after, before)
	}
}
