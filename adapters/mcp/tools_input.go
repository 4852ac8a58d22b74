package mcp

import (
	"context"

	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// paste_text and send_keys, the tools that type into a pane.

// writeForce is the force argument of the tools that write to a pane.
type writeForce struct {
	Force bool `json:"force,omitempty" jsonschema:"Allow writing to the pane this server itself was called from, which is otherwise refused. It does not override the refusal to write to a pane a person is watching — a pane an attached client has on screen is still refused with force."`
}

// paste_text: its description is its page's.

func (s *Server) pasteText() declaration {
	return tool[pasteArgs, pasteOutput]{
		name:        "paste_text",
		description: pasteTextDescription,
		annotations: writingAnnotations("Paste text"),
		call: withCaller(serve(func(ctx context.Context, r domain.PasteRequest) (domain.PasteResult, error) {
			r.Caller = callerOf(ctx)
			return s.tools.PasteText(ctx, r)
		}, pasteArgs.request, fromPasteResult)),
	}
}

const pasteTextDescription = "Send input to a pane's program; a shell that receives it runs it with your user's permissions. " +
	"Put text into a pane without tmux interpreting any of it as key names. " +
	"Use for content — a password, a code block, anything with characters a key parser would claim. " +
	"A pane busy with run_shell_command refuses it, except from the session whose command returned awaiting_input: " +
	"that is its answer (enter true to end the line)."

type pasteArgs struct {
	PaneID ports.PaneID `json:"paneId"`
	Text   string       `json:"text" jsonschema:"Text to paste. Sent through a tmux buffer, so a shell's line editor does not redraw on every character."`
	Enter  bool         `json:"enter,omitempty" jsonschema:"Press Enter afterwards. Default false."`
	writeForce
}

func (a pasteArgs) request() domain.PasteRequest {
	return domain.PasteRequest{PaneID: a.PaneID, Text: a.Text, Enter: a.Enter, Force: a.Force}
}

type pasteOutput struct {
	Bytes  int64        `json:"bytes"`
	PaneID ports.PaneID `json:"paneId"`
}

func fromPasteResult(r domain.PasteResult) pasteOutput {
	return pasteOutput{Bytes: r.Bytes, PaneID: r.PaneID}
}

// send_keys has no page: its description opens with the safety sentence of
// paste_text's, then says how to use it, exceptions included, since a
// model has nothing else to go by.

func (s *Server) sendKeys() declaration {
	return tool[sendKeysArgs, sendKeysOutput]{
		name:        "send_keys",
		description: sendKeysDescription,
		annotations: writingAnnotations("Send keys"),
		call: withCaller(serve(func(ctx context.Context, r domain.SendKeysRequest) (domain.SendKeysResult, error) {
			r.Caller = callerOf(ctx)
			return s.tools.SendKeys(ctx, r)
		}, sendKeysArgs.request, fromSendKeysResult)),
	}
}

const sendKeysDescription = "Send input to a pane's program; a shell that receives it runs it with your user's permissions. " +
	"Press keys in a pane: keys holds key names separated by spaces, pressed in order, then Enter unless enter " +
	"is false. Names: Enter, Escape, Tab, BTab, BSpace, Space, Up, Down, Left, Right, Home, End, PageUp, " +
	"PageDown, Insert, Delete, F1 to F12, or a single character: \"C-c\", \"Escape : w q\", \"M-x\". Modifiers " +
	"C- (Ctrl), M- (Alt) and S- (Shift) go only where a terminal can send them with the key: all three before " +
	"Up, Down, Left, Right, Home, End, PageUp, PageDown, Insert, Delete and F1-F12; M- before any key; C- before " +
	"Space, a letter or one of @ [ \\ ] ^ _ ?. Elsewhere Shift is named by the shifted key itself: A, not S-a; " +
	"BTab, not S-Tab. An unknown key name is a tool error, as is any other modifier, and nothing is sent; it " +
	"is never typed as text. With literal: true, keys is typed exactly as given instead, reading no names. " +
	"Prefer paste_text to enter text and run_shell_command to run commands. Writes are refused, before anything " +
	"is sent, to a pane busy with run_shell_command, a pane a person is watching, a pane in a mode such as copy " +
	"mode, a pane whose input also reaches other panes, and this server's own pane unless force is set. One " +
	"designed exception frees a stuck pane: interrupt keys alone (C-c, C-\\) are accepted for a pane whose " +
	"run_shell_command call already returned timed_out or cancelled; Enter is not pressed then, and the pane " +
	"stays busy until the command ends. The session whose run_shell_command returned awaiting_input may answer " +
	"its command with any keys. sent lists what was pressed in canonical names (or the literal text), " +
	"then Enter if it was pressed; attended says a person is attached to the pane's session and may notice."

type sendKeysArgs struct {
	PaneID ports.PaneID `json:"paneId"`
	Keys   string       `json:"keys" jsonschema:"Key names separated by white space, pressed in order: e.g. \"Escape : w q\" or \"C-c\". With literal, text typed exactly as given instead."`
	// Enter is true when not given: the schema's default.
	Enter   bool `json:"enter,omitempty" jsonschema:"Press Enter afterwards. Default true." schema:"default=true"`
	Literal bool `json:"literal,omitempty" jsonschema:"Type keys as text, reading no key names. Default false."`
	writeForce
}

func (a sendKeysArgs) request() domain.SendKeysRequest {
	return domain.SendKeysRequest{PaneID: a.PaneID, Keys: a.Keys, Enter: a.Enter, Literal: a.Literal, Force: a.Force}
}

type sendKeysOutput struct {
	Attended        bool           `json:"attended" jsonschema:"A person is attached to the pane's session, so the input may be noticed."`
	PaneID          ports.PaneID   `json:"paneId"`
	ResolvedPaneIDs []ports.PaneID `json:"resolvedPaneIds" jsonschema:"Every pane the input reached."`
	Sent            []string       `json:"sent" jsonschema:"What was pressed, in order: each key in its canonical name (or the literal text), then Enter if it was pressed."`
}

func fromSendKeysResult(r domain.SendKeysResult) sendKeysOutput {
	// Arrays are never null: the schema says array, and a client should
	// not have to tell "nothing" from "unknown".
	return sendKeysOutput{
		Attended:        r.Attended,
		PaneID:          r.PaneID,
		ResolvedPaneIDs: append([]ports.PaneID{}, r.ResolvedPaneIDs...),
		Sent:            append([]string{}, r.Sent...),
	}
}
