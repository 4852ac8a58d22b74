package mcp

import sdk "github.com/modelcontextprotocol/go-sdk/mcp"

// The tools are declared one by one (see tool), each beside its argument
// and result types: run_shell_command in tools_run.go, paste_text and
// send_keys in tools_input.go, capture_pane, capture_since and
// wait_for_text in tools_read.go.
//
// Descriptions of the three tools with a reference page are the page's
// own, so that clients see the contract's words. The others have no page:
// their descriptions open with the same safety sentence as the page of a
// tool of their kind, then say how to use them.

// paneTools are the tools of CONTRACT.md, in the order they are listed.
func (s *Server) paneTools() []declaration {
	return []declaration{s.runShellCommand(), s.pasteText(), s.capturePane(), s.captureSince(), s.waitForText(), s.sendKeys()}
}

// The annotations are the true ones (CONTRACT.md, "Annotations"), not the
// MCP defaults the reference pages print: the writing tools neither kill
// nor clear anything, so they are not destructive; they reach whatever the
// pane's program reaches, so the world is open.
func writingAnnotations(title string) *sdk.ToolAnnotations {
	return &sdk.ToolAnnotations{
		Title:           title,
		ReadOnlyHint:    false,
		IdempotentHint:  false,
		DestructiveHint: new(false),
		OpenWorldHint:   new(true),
	}
}

// readingAnnotations are idempotent too: a reading tool changes nothing, so
// calling it again has no further effect, even when its answer differs
// because the pane moved on. A cursor is held by the client, not by the
// server, so capture_since advances nothing either.
func readingAnnotations(title string) *sdk.ToolAnnotations {
	return &sdk.ToolAnnotations{
		Title:           title,
		ReadOnlyHint:    true,
		IdempotentHint:  true,
		DestructiveHint: new(false),
		OpenWorldHint:   new(false),
	}
}
