package mcpadapter

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmux-mcp/tmux-mcp/domain"
)

// Descriptions of the three tools with a reference page are the page's
// own, so that clients see the contract's words; run_shell_command adds
// what a caller must know about refusals, which the page leaves to
// CONTRACT.md. The other three have no page: their descriptions open with
// the same safety sentence as the page of a tool of their kind, then say
// how to use them, cursors and exceptions included, since a model has
// nothing else to go by.
const (
	runShellCommandDescription = "Run a shell command in a pane with your user's permissions. " +
		"Run a shell command in a pane, wait for it to finish, and report its exit status and output. " +
		"Prefer this over send_keys plus capture_pane: it frames the command so a pane's echo of what you typed " +
		"can never be mistaken for what the command printed, and it knows when the command actually ended rather " +
		"than guessing from the screen. The command runs in a subshell, so cd and export do not persist to a later call. " +
		"A pane is effectively single-writer: this server reserves it until the command settles, but another process " +
		"with the same tmux socket can still write into it. " +
		"While a command runs in a pane, even after this call returned timed_out, every other write to that pane is " +
		"refused at once as busy rather than queued; a write is also refused, before anything is sent, to a pane a " +
		"person is watching, a pane in a mode such as copy mode, a pane whose input also reaches other panes, a pane " +
		"not running a supported shell, and this server's own pane unless force is set."

	pasteTextDescription = "Send input to a pane's program; a shell that receives it runs it with your user's permissions. " +
		"Put text into a pane without tmux interpreting any of it as key names. " +
		"Use for content — a password, a code block, anything with characters a key parser would claim."

	capturePaneDescription = "Read pane output; accepts no client-supplied executable input. " +
		"Returned content may be sensitive or untrusted. The text a pane is showing, or its scrollback. " +
		"Negative start reaches back into history (-100 is a hundred lines above the top of the screen). " +
		"For repeated reads of the same pane use capture_since instead — it returns only what is new."

	captureSinceDescription = "Read pane output; accepts no client-supplied executable input. " +
		"Returned content may be sensitive or untrusted. " +
		"Read only what a pane wrote since your last read. Call it first without a cursor: it returns the visible " +
		"screen (seeded: true) and a cursor. Pass that cursor back to get just the output written after it, as plain " +
		"text (escape sequences removed, carriage returns and backspaces applied), with a new cursor to read on from. " +
		"With waitMs it waits that long (clamped to the server ceiling) when nothing is new yet, so a loop of calls " +
		"follows a pane without polling. A cursor also works with wait_for_text. Cursors are opaque and belong to one " +
		"pane and one run of its program: a cursor of another pane, of a pane that was restarted, or from an earlier " +
		"run of this server is a tool error; call without a cursor to start again. missedBytes above 0 means output " +
		"was lost between two reads (the pane wrote more than is kept); streaming false means nothing more will come."

	waitForTextDescription = "Read pane output; accepts no client-supplied executable input. " +
		"Returned content may be sensitive or untrusted. " +
		"Wait until a pane prints one of the given patterns. Patterns are plain substrings, or RE2 regular " +
		"expressions with regex: true; they are matched against the output with terminal escape sequences removed, " +
		"so colours do not split them, and a pattern may arrive across several writes. Only output written after the " +
		"call began counts, or after cursor when one is given: text already on the screen is not a match unless new " +
		"output repeats it (alreadyOnScreen says it was there). To wait without a race, take a cursor with " +
		"capture_since before you trigger the output, then pass it here. outcome says why the call returned: matched " +
		"(matched is the pattern exactly as you gave it), timed_out, pane_died, cancelled, or output_lost (the " +
		"terminal lost output a match could have been in). output is the new output read while waiting, screen the " +
		"visible screen at return, and cursor where to read on. timeoutMs defaults to 30000 and is clamped by the " +
		"server ceiling; effectiveTimeoutMs says what was used."

	sendKeysDescription = "Send input to a pane's program; a shell that receives it runs it with your user's permissions. " +
		"Press keys in a pane: keys holds key names separated by spaces, pressed in order, then Enter unless enter " +
		"is false. Names: Enter, Escape, Tab, BTab, BSpace, Space, Up, Down, Left, Right, Home, End, PageUp, " +
		"PageDown, Insert, Delete, F1 to F12, or a single character, each optionally after C- (Ctrl), M- (Alt) or " +
		"S- (Shift): \"C-c\", \"Escape : w q\", \"M-x\". An unknown key name is a tool error and nothing is sent; " +
		"it is never typed as text. With literal: true, keys is typed exactly as given instead, reading no names. " +
		"Prefer paste_text to enter text and run_shell_command to run commands. Writes are refused, before anything " +
		"is sent, to a pane busy with run_shell_command, a pane a person is watching, a pane in a mode such as copy " +
		"mode, a pane whose input also reaches other panes, and this server's own pane unless force is set. One " +
		"designed exception frees a stuck pane: interrupt keys alone (C-c, C-\\) are accepted for a pane whose " +
		"run_shell_command call already returned timed_out or cancelled; Enter is not pressed then, and the pane " +
		"stays busy until the command ends. sent lists what was pressed in canonical names (or the literal text), " +
		"then Enter if it was pressed; attended says a person is attached to the pane's session and may notice."
)

// The annotations are the true ones (CONTRACT.md, "Annotations"), not the
// MCP defaults the reference pages print: the writing tools neither kill
// nor clear anything, so they are not destructive; they reach whatever the
// pane's program reaches, so the world is open.
func writingAnnotations(title string) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{
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
func readingAnnotations(title string) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{
		Title:           title,
		ReadOnlyHint:    true,
		IdempotentHint:  true,
		DestructiveHint: new(false),
		OpenWorldHint:   new(false),
	}
}

func (s *Server) specs() []toolSpec {
	return []toolSpec{
		{
			name:        "run_shell_command",
			title:       "Run shell command",
			description: runShellCommandDescription,
			annotations: writingAnnotations("Run shell command"),
			call:        s.runShellCommand,
		},
		{
			name:        "paste_text",
			title:       "Paste text",
			description: pasteTextDescription,
			annotations: writingAnnotations("Paste text"),
			call:        s.pasteText,
		},
		{
			name:        "capture_pane",
			title:       "Capture pane",
			description: capturePaneDescription,
			annotations: readingAnnotations("Capture pane"),
			call:        s.capturePane,
		},
		{
			name:        "capture_since",
			title:       "Capture since",
			description: captureSinceDescription,
			annotations: readingAnnotations("Capture since"),
			call:        s.captureSince,
		},
		{
			name:        "wait_for_text",
			title:       "Wait for text",
			description: waitForTextDescription,
			annotations: readingAnnotations("Wait for text"),
			call:        s.waitForText,
		},
		{
			name:        "send_keys",
			title:       "Send keys",
			description: sendKeysDescription,
			annotations: writingAnnotations("Send keys"),
			call:        s.sendKeys,
		},
	}
}

func (s *Server) runShellCommand(ctx context.Context, req *mcp.CallToolRequest, a arguments) (any, string, error) {
	progress, stop := relayProgress(ctx, req)
	r, err := s.tools.RunShellCommand(ctx, domain.RunRequest{
		PaneID:    a.pane(),
		Command:   a.str("command"),
		TimeoutMs: a.intOrZero("timeoutMs"),
		MaxLines:  a.intOrZero("maxLines"),
		Force:     a.flag("force"),
		Progress:  progress,
	})
	stop()
	if err != nil {
		return nil, "", err
	}
	out := fromRunResult(r)
	return out, runNotice(out, r), nil
}

func (s *Server) pasteText(ctx context.Context, _ *mcp.CallToolRequest, a arguments) (any, string, error) {
	r, err := s.tools.PasteText(ctx, domain.PasteRequest{
		PaneID: a.pane(),
		Text:   a.str("text"),
		Enter:  a.flag("enter"),
		Force:  a.flag("force"),
	})
	if err != nil {
		return nil, "", err
	}
	return fromPasteResult(r), "", nil
}

func (s *Server) capturePane(ctx context.Context, _ *mcp.CallToolRequest, a arguments) (any, string, error) {
	r, err := s.tools.CapturePane(ctx, domain.CaptureRequest{
		PaneID:      a.pane(),
		Start:       a.intPtr("start"),
		End:         a.intPtr("end"),
		JoinWrapped: a.flag("joinWrapped"),
		MaxLines:    a.intOrZero("maxLines"),
	})
	if err != nil {
		return nil, "", err
	}
	return fromCaptureResult(r), "", nil
}

func (s *Server) captureSince(ctx context.Context, req *mcp.CallToolRequest, a arguments) (any, string, error) {
	progress, stop := relayProgress(ctx, req)
	r, err := s.tools.CaptureSince(ctx, domain.CaptureSinceRequest{
		PaneID:   a.pane(),
		Cursor:   a.str("cursor"),
		MaxLines: a.intOrZero("maxLines"),
		WaitMs:   a.intOrZero("waitMs"),
		Progress: progress,
	})
	stop()
	if err != nil {
		return nil, "", err
	}
	out := fromCaptureSinceResult(r)
	return out, captureSinceNotice(out), nil
}

func (s *Server) waitForText(ctx context.Context, req *mcp.CallToolRequest, a arguments) (any, string, error) {
	progress, stop := relayProgress(ctx, req)
	r, err := s.tools.WaitForText(ctx, domain.WaitForTextRequest{
		PaneID:    a.pane(),
		Patterns:  a.strs("patterns"),
		Regex:     a.flag("regex"),
		Cursor:    a.str("cursor"),
		TimeoutMs: a.intOrZero("timeoutMs"),
		MaxLines:  a.intOrZero("maxLines"),
		Progress:  progress,
	})
	stop()
	if err != nil {
		return nil, "", err
	}
	out := fromWaitResult(r)
	return out, waitNotice(out), nil
}

func (s *Server) sendKeys(ctx context.Context, _ *mcp.CallToolRequest, a arguments) (any, string, error) {
	r, err := s.tools.SendKeys(ctx, domain.SendKeysRequest{
		PaneID:  a.pane(),
		Keys:    a.str("keys"),
		Enter:   a.flagOr("enter", true),
		Literal: a.flag("literal"),
		Force:   a.flag("force"),
	})
	if err != nil {
		return nil, "", err
	}
	return fromSendKeysResult(r), "", nil
}
