//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package tty

import "syscall"

const getTermios = syscall.TIOCGETA
