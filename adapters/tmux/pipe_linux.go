//go:build linux

package tmux

import (
	"os"
	"os/exec"
	"syscall"
)

// fSetPipeSize is Linux's F_SETPIPE_SZ, which the syscall package lacks.
const fSetPipeSize = 1031

// growPipe asks for a pipe buffer of size bytes, as far as the system
// allows (unprivileged processes up to /proc/sys/fs/pipe-max-size, 1 MiB by
// default); failing leaves the pipe as it was.
func growPipe(f *os.File, size int) {
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	rc.Control(func(fd uintptr) {
		syscall.Syscall(syscall.SYS_FCNTL, fd, fSetPipeSize, uintptr(size))
	})
}

// dieWithParent makes the kernel kill the process the moment this one
// dies, however it dies (SIGKILL included), so that no tmux client the
// adapter started outlives the server.
func dieWithParent(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
