package sshtest

import "syscall"

// sysProcAttr puts sshd in a process group of its own, so that Stop ends
// it with the connections it serves, and ends it should the test process
// die first.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}
