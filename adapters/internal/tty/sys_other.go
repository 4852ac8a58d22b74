//go:build !linux || !(amd64 || arm64 || riscv64 || loong64 || 386 || arm)

package tty

// No system call numbers are known here: no number matches, and a
// process is found blocked only through its wait channel, where there is
// one (see WaitsOnTerminal).
const sysRead = -1

var waitsOnMany = map[int]bool{}
