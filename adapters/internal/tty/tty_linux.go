package tty

import "syscall"

const getTermios = syscall.TCGETS
