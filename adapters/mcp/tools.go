package mcp

import sdk "github.com/modelcontextprotocol/go-sdk/mcp"

// The tools are declared one by one (see tool), each beside its argument
// and result types, by kind: run_shell_command and wait_for_command in tools_run.go, signal_command
// in tools_signal.go, paste_text
// and send_keys in tools_input.go, capture_pane, capture_since and
// wait_for_text in tools_read.go, read_output in tools_output.go; the inspect tools in tools_inspect.go,
// those that create, select, resize and rename in tools_layout.go, and
// those that kill, respawn or clear in tools_end.go.
//
// Descriptions of the three tools with a reference page are the page's
// own, so that clients see the contract's words. The others have no page:
// their descriptions open as the pages' do, with what a tool may do to the
// user's world (the reading tools with "accepts no client-supplied
// executable input", the others with what they change), then say what a
// model needs to use them: the ids they take and return, cursors, and when
// a call is refused.

// paneTools are the tools of CONTRACT.md, in the order they are listed.
func (s *Server) paneTools() []declaration {
	return []declaration{s.runShellCommand(), s.waitForCommand(), s.readOutput(), s.pasteText(), s.capturePane(), s.captureSince(), s.waitForText(), s.sendKeys(),
		s.signalCommand()}
}

// manageTools are the inspect and lifecycle tools, in the order they are
// listed.
func (s *Server) manageTools() []declaration {
	return []declaration{
		s.listSessions(), s.listWindows(), s.listPanes(), s.searchPanes(), s.getPaneInfo(), s.display(), s.getServerInfo(),
		s.createSession(), s.createWindow(), s.splitWindow(), s.selectPane(), s.selectWindow(), s.resizePane(), s.resizeWindow(),
		s.renameSession(), s.renameWindow(),
		s.clearPaneScrollback(), s.respawnPane(), s.killPane(), s.killWindow(), s.killSession(),
	}
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

// layoutAnnotations are those of the tools that create, select, resize
// and rename. CONTRACT.md makes every writing tool non-idempotent. They
// act on the multiplexer alone, a closed world, except where a program
// starts that the caller chose (create_session's command).
func layoutAnnotations(title string, openWorld bool) *sdk.ToolAnnotations {
	return &sdk.ToolAnnotations{
		Title:           title,
		ReadOnlyHint:    false,
		IdempotentHint:  false,
		DestructiveHint: new(false),
		OpenWorldHint:   new(openWorld),
	}
}

// endingAnnotations are those of the tools that kill, respawn or clear:
// the only destructive ones. respawn_pane starts a program again, but only
// the one the pane was made with, never one the caller names, so its world
// is as closed as kill_pane's.
func endingAnnotations(title string) *sdk.ToolAnnotations {
	return &sdk.ToolAnnotations{
		Title:           title,
		ReadOnlyHint:    false,
		IdempotentHint:  false,
		DestructiveHint: new(true),
		OpenWorldHint:   new(false),
	}
}
