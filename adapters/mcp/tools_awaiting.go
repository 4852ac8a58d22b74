package mcp

import (
	"context"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/domain/input"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// A command that waits for input (issue 23): the awaitInput argument of
// run_shell_command and wait_for_command, the input field of their
// result, what its text tells the agent to do, and who may answer: the
// session that made the call (the caller, from the request's session).

// awaitInputArg is the awaitInput argument.
type awaitInputArg struct {
	AwaitInput *bool `json:"awaitInput,omitempty" jsonschema:"Return awaiting_input as soon as the command is blocked reading its terminal (a password, a y/n question, a pager, an editor, a REPL) and the pane has been quiet briefly, instead of waiting until the timeout. Default true; false waits for the end or the timeout whatever the command does." schema:"default=true"`
}

// awaitInput is the argument's value, true when absent.
func awaitInput(v *bool) bool { return v == nil || *v }

// inputOutput is the input field of a result.
type inputOutput struct {
	Kind   string `json:"kind" jsonschema:"What the command asks for: secret (the terminal does not echo: a password or passphrase), confirm (a yes-or-no question), pager, editor, repl, line (a line of text), unknown." schema:"enum=secret|confirm|pager|editor|repl|line|unknown"`
	Prompt string `json:"prompt" jsonschema:"The last line on the pane's screen that is not blank (what the command asked), cut to 200 bytes from its end; empty when the command printed none."`
}

func fromInputAsk(r domain.RunResult) *inputOutput {
	if r.Input == nil || r.Outcome != domain.OutcomeAwaitingInput {
		return nil
	}
	return &inputOutput{Kind: string(r.Input.Kind), Prompt: r.Input.Prompt}
}

// callerKey keys the caller in a call's context.
type callerKey struct{}

// withCaller puts the calling session into the call's context, for
// callerOf.
func withCaller[In, Out any](c call[In, Out]) call[In, Out] {
	return func(ctx context.Context, req *sdk.CallToolRequest, in In) (Out, string, error) {
		return c(context.WithValue(ctx, callerKey{}, sessionOf(req)), req, in)
	}
}

// callerOf names the session whose call ctx is (see withCaller): its
// session id, or for a transport without ids (stdio, one session; an
// in-memory one) the session itself.
func callerOf(ctx context.Context) string {
	c, _ := ctx.Value(callerKey{}).(string)
	return c
}

func sessionOf(req *sdk.CallToolRequest) string {
	if req == nil || req.Session == nil {
		return ""
	}
	if id := req.Session.ID(); id != "" {
		return "session " + id
	}
	return fmt.Sprintf("session at %p", req.Session)
}

// awaitingNotice is what the text of a result says of a command that
// awaits input: what it asks, what to do, and that the pane stays this
// session's. For a secret, it says to have the person type it, and how
// they reach the pane (attach, "" when not known), never to guess.
func awaitingNotice(pane ports.PaneID, in domain.InputAsk, attach string) string {
	asked := "It printed no prompt."
	if in.Prompt != "" {
		asked = fmt.Sprintf("The last line on its screen: %q.", in.Prompt)
	}
	var what string
	switch in.Kind {
	case input.Secret:
		reach := "on the pane's terminal"
		if attach != "" {
			reach = fmt.Sprintf("in the pane: they see it with `%s`, pane %s", attach, pane)
		}
		what = fmt.Sprintf("the command is waiting for a secret (a password or passphrase: the terminal does not echo what is typed). %s "+
			"Do not guess it, make one up or type one you found; ask the person to type it themselves %s, "+
			"or send_keys C-c to stop the command and run it so that it needs none.", asked, reach)
	case input.Confirm:
		what = fmt.Sprintf("the command asks a yes-or-no question. %s Answer only what the person asked of you: "+
			"if the answer changes or deletes what they did not ask for, ask them first. Answer with send_keys "+
			"(keys \"y\" or \"n\", Enter pressed) or paste_text with enter true; a command run with its own yes flag "+
			"(-y, --yes) does not ask.", asked)
	case input.Pager:
		what = fmt.Sprintf("a pager is showing output and waiting for keys. %s Read the output with capture_pane, "+
			"then quit the pager with send_keys keys \"q\" enter false; to avoid pagers, run the command with "+
			"--no-pager, PAGER=cat, or piped through cat.", asked)
	case input.Editor:
		what = fmt.Sprintf("an editor is open and waiting for keys. %s Quit it without saving with send_keys "+
			"(vi: keys \"Escape : q ! Enter\" enter false; nano: \"C-x\" then \"n\"), or edit with keys if you mean to; "+
			"to avoid editors, give the text on the command line (git commit -m, GIT_EDITOR=true).", asked)
	case input.REPL:
		what = fmt.Sprintf("an interactive interpreter is waiting for its next line. %s Send it a line with paste_text "+
			"(enter true), or end it (send_keys C-d); to run code once, pass it on the command line instead "+
			"(python3 -c, node -e, psql -c).", asked)
	case input.Line:
		what = fmt.Sprintf("the command is waiting for a line of input. %s Answer with paste_text (enter true) if "+
			"the answer is yours to give, else ask the person; or send_keys C-c and run it with its input given "+
			"(an option, a file, a heredoc).", asked)
	default:
		what = fmt.Sprintf("the command is waiting for input on its terminal. %s Look at the pane with capture_pane, "+
			"answer with send_keys or paste_text, or send_keys C-c to stop it.", asked)
	}
	return fmt.Sprintf("Notice: %s The command still runs and pane %s stays reserved for it: only this session's "+
		"paste_text and send_keys reach it. After answering, call wait_for_command with paneId %s to wait for the "+
		"end; it returns awaiting_input again if the command asks again.", what, pane, pane)
}
