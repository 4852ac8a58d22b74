//go:build linux && (386 || arm)

package tty

// The system call numbers of i386 and 32-bit arm Linux.
var local = x86arm32Calls
