//go:build !linux

package sshtest

import "syscall"

// sysProcAttr puts sshd in a process group of its own, so that Stop ends
// it with the connections it serves.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
