// Package mcpadapter is the MCP transport: it serves the tools of
// CONTRACT.md (run_shell_command, paste_text, capture_pane, capture_since,
// wait_for_text, send_keys) over the github.com/modelcontextprotocol/go-sdk
// server, on any transport the SDK offers (stdio, streamable HTTP,
// in-memory for tests).
//
// The package owns the protocol face of the tools and nothing else: the
// exact input and output JSON schemas (embedded from schemas/: copied from
// the contract's reference pages for the three tools that have one, written
// from CONTRACT.md's field lists for the others), the tool descriptions and
// annotations, the relay of a waiting call's progress to the client,
// argument validation, the conversion of domain results to structured
// content plus the same JSON as text, and the one mapping from errors to
// tool errors (see toolError). What a call does is the business of the
// Tools it is given, normally a *domain.Service.
//
// The directory is adapters/mcp; the package is named mcpadapter so that
// it does not shadow the SDK's package mcp in files that use both.
package mcpadapter
