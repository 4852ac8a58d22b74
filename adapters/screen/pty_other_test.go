//go:build !linux

package screen

import (
	"os"
	"testing"
)

// openPTY skips the test: opening a pseudo-terminal is done the Linux way
// only, where the adapter's tests run.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	t.Skip("attaching a display needs a Linux pseudo-terminal")
	return nil, nil
}
