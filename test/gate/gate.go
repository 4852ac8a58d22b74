// Package gate is the one switch between the unit tests and the tests
// that need the real machine: that start processes (a multiplexer, a
// shell, ssh, make, the Go toolchain, the built binary) or wait on the
// wall clock. Under `go test -short` none of the latter runs, so that the
// unit tests need nothing but Go and finish in seconds. Every such test
// calls Real before it starts anything; the architecture test checks that
// nothing else reads testing.Short, and TestShortTestsStartNoProcess
// traces every test binary under -short to prove that none starts a
// process.
package gate

import "testing"

// Real skips the test under -short, saying what it needs.
func Real(t testing.TB, what string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("needs the real machine (%s): not under -short", what)
	}
}
