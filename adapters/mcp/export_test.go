package mcp

import "testing"

// Every Server of the package's tests checks every result against its
// output schema (see checkResult), so that each result a test produces is
// held to it, as a served one no longer is.
func init() { alwaysCheckResults = true }

// WithoutResultChecks makes the Servers of a benchmark serve as a served
// one does, without checking results, until it ends.
func WithoutResultChecks(b *testing.B) {
	alwaysCheckResults = false
	b.Cleanup(func() { alwaysCheckResults = true })
}
