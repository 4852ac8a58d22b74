// Package proc answers the two questions the adapters ask before they
// remove what a process of theirs left behind: whether that process still
// runs, and whether a file is this user's.
package proc

import (
	"errors"
	"os"
	"syscall"
)

// Runs reports whether a process with that pid runs, or may: a process of
// another user answers EPERM, and counts as running.
func Runs(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// Mine reports whether this process's user owns the file.
func Mine(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}
