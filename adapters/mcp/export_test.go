package mcp

// Every Server of the package's tests checks every result against its
// output schema (see checkResult), so that each result a test produces is
// held to it, as a served one no longer is.
func init() { alwaysCheckResults = true }
