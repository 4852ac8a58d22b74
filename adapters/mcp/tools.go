package mcpadapter

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmux-mcp/tmux-mcp/domain"
)

// Descriptions are the reference pages' own, so that clients see the
// contract's words; run_shell_command adds what a caller must know about
// refusals, which the page leaves to CONTRACT.md.
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
	return out, runNotice(out), nil
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
