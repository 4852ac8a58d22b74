//go:build !linux

package tmux

import "os"

// growPipe does nothing where pipe buffers cannot be resized.
func growPipe(f *os.File, size int) {}
