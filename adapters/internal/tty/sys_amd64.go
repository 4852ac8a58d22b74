//go:build linux && amd64

package tty

// The system call numbers of x86_64 Linux.
var local = amd64Calls
