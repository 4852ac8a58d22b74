//go:build !linux

package tmux

import (
	"os"
	"os/exec"
)

// growPipe does nothing where pipe buffers cannot be resized.
func growPipe(f *os.File, size int) {}

// dieWithParent can do nothing here: without Linux's parent-death signal a
// client ends when it reads the end of its standard input, which is when
// this process dies.
func dieWithParent(cmd *exec.Cmd) {}
