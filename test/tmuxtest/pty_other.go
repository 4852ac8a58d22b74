//go:build !linux

package tmuxtest

import (
	"os"
	"testing"
)

// OpenPTY skips the test: a pseudo-terminal is opened the Linux way only,
// where the tests that need one run.
func OpenPTY(t testing.TB) (master, slave *os.File) {
	t.Helper()
	t.Skip("needs a Linux pseudo-terminal")
	return nil, nil
}
