package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/domain/writers"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// ErrServerClosing is the cause of the cancellation a running call sees
// when the server shuts down under it.
var ErrServerClosing = errors.New("the server is shutting down")

// errorKind is the class of an error that ends a call. Its value is the
// audit log's errorKind, so that the log and the client's text always
// name the same class.
type errorKind string

// Error kinds, in the order classify tests for them.
const (
	kindRefused         errorKind = "refused"          // *fault.RefusalError
	kindBusy            errorKind = "busy"             // *fault.BusyError
	kindInvalidArgument errorKind = "invalid_argument" // *fault.ArgumentError
	kindServerClosing   errorKind = "server_closing"   // ErrServerClosing
	kindCancelled       errorKind = "cancelled"
	kindDeadline        errorKind = "deadline_exceeded"
	kindPaneNotFound    errorKind = "pane_not_found"
	kindNotFound        errorKind = "not_found" // a session or window
	kindNameInUse       errorKind = "name_in_use"
	kindInvalidName     errorKind = "invalid_name"
	kindNotRun          errorKind = "not_run"    // fault.ErrNotRun
	kindNoCommand       errorKind = "no_command" // fault.ErrNoCommand
	kindRunNotFound     errorKind = "run_not_found"
	kindRunEvicted      errorKind = "run_evicted"
	kindNoGroup         errorKind = "no_group" // ports.ErrNoGroup
	kindPaneDead        errorKind = "pane_dead"
	kindNoAnswer        errorKind = "no_answer"
	kindUnavailable     errorKind = "unavailable"
	kindUnsupported     errorKind = "unsupported"
	kindUnknownKey      errorKind = "unknown_key"
	kindInternal        errorKind = "internal" // anything else
)

// classify is the one place that decides what kind of error err is; the
// tool-error text, the resource errors and the audit log all follow it.
// An error can wrap several of the domain's types and the ports'
// sentinels at once (a cancelled call whose pane also vanished); the
// first match in the order of the kind constants wins. The domain's
// types come first because they say most exactly what is wrong, and the
// end of the call (shutdown, cancellation, deadline) before the
// terminal's sentinels because it is why the call stopped.
func classify(err error) errorKind {
	var (
		refusal *fault.RefusalError
		busy    *fault.BusyError
		arg     *fault.ArgumentError
	)
	switch {
	case errors.As(err, &refusal):
		return kindRefused
	case errors.As(err, &busy):
		return kindBusy
	case errors.As(err, &arg):
		return kindInvalidArgument
	case errors.Is(err, ErrServerClosing):
		return kindServerClosing
	case errors.Is(err, context.Canceled):
		return kindCancelled
	case errors.Is(err, context.DeadlineExceeded):
		return kindDeadline
	case errors.Is(err, ports.ErrPaneNotFound):
		return kindPaneNotFound
	case errors.Is(err, ports.ErrNotFound):
		return kindNotFound
	case errors.Is(err, ports.ErrNameInUse):
		return kindNameInUse
	case errors.Is(err, ports.ErrInvalidName):
		return kindInvalidName
	case errors.Is(err, fault.ErrNotRun):
		return kindNotRun
	case errors.Is(err, fault.ErrNoCommand):
		return kindNoCommand
	case errors.Is(err, ports.ErrRunNotFound):
		return kindRunNotFound
	case errors.Is(err, ports.ErrRunEvicted):
		return kindRunEvicted
	case errors.Is(err, ports.ErrNoGroup):
		return kindNoGroup
	case errors.Is(err, ports.ErrPaneDead):
		return kindPaneDead
	case errors.Is(err, ports.ErrNoAnswer):
		return kindNoAnswer
	case errors.Is(err, ports.ErrUnavailable):
		return kindUnavailable
	case errors.Is(err, ports.ErrUnsupported):
		return kindUnsupported
	case errors.Is(err, ports.ErrUnknownKey):
		return kindUnknownKey
	default:
		return kindInternal
	}
}

// toolError is the one place where an error becomes what the client sees: a
// tool result with IsError set, whose text says what was wrong and what to
// do next. Every tool handler hands its errors here.
func toolError(err error) *sdk.CallToolResult {
	res := &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: errorText(err)}}}
	res.SetError(err) // keeps err for middleware and the audit log; Content is already set
	return res
}

// errorText is the text a client sees for err: what is wrong, then what
// to do next in the words of this server's tools, by the error's kind
// (classify) and, for a refusal, by why it was refused. The domain says
// only what is wrong; the advice is written here, once.
func errorText(err error) string {
	msg := err.Error()
	switch classify(err) {
	case kindRefused:
		var refusal *fault.RefusalError
		errors.As(err, &refusal)
		if advice := refusalAdvice(refusal); advice != "" {
			return msg + "; " + advice
		}
		return msg
	case kindBusy:
		var busy *fault.BusyError
		errors.As(err, &busy) // classify found one: that is kindBusy
		return msg + "; " + busyAdvice(busy)
	case kindInvalidArgument:
		var arg *fault.ArgumentError
		if errors.As(err, &arg) && arg.Field == "keys" {
			return msg + "; to type text, set literal: true or use paste_text"
		}
		// paste_text's text is refused for one thing only: it holds the
		// end of a bracketed paste.
		if arg != nil && arg.Field == "text" {
			return msg + "; remove that sequence from the text and paste it again " +
				"(a text that holds it may have been made to run commands)"
		}
		return msg + "; correct it and call again"
	case kindServerClosing:
		return msg + "; call again once the server is back"
	case kindCancelled:
		return "the call was cancelled before it finished: " + msg
	case kindDeadline:
		return "the call ran out of time before it finished: " + msg
	case kindPaneNotFound:
		return msg + "; check the pane id (ids look like %3): the pane may have been closed"
	case kindNotFound:
		return msg + "; check the id or name (session ids look like $1, window ids like @2): list_sessions and list_windows list them"
	case kindNameInUse:
		return msg + "; choose another name, or use that session (list_sessions lists them)"
	case kindInvalidName:
		return msg + "; choose a name without it"
	case kindNotRun:
		return msg + "; nothing ran: talk to the pane's program with paste_text or send_keys instead"
	case kindNoCommand:
		return msg + "; nothing that run_shell_command started there is still running, and any end it had was " +
			"already returned: to run a command in the pane use run_shell_command, and to see what the pane shows, capture_pane"
	case kindRunNotFound:
		return msg + "; a runId comes from a run_shell_command or wait_for_command result of this server process " +
			"(a server that restarted knows none of the runs before): check it, or run the command again"
	case kindRunEvicted:
		return msg + "; the server let it go to keep the output of all runs within its budget (-output-budget; the oldest " +
			"runs go first): run the command again, and read it with read_output before running much more"
	case kindNoGroup:
		return msg + "; no signal was sent: to interrupt the command use send_keys C-c, and to end a command that ignores it, " +
			"kill_pane or respawn_pane with force: true (the destructive tools)"
	case kindPaneDead:
		return msg + "; its program has exited, so it takes no input: use another pane, or restart this one"
	case kindNoAnswer:
		return msg + "; the terminal multiplexer is running but did not answer in time (it may be stopped, suspended or overloaded), " +
			"and may still carry out what was asked once it answers: look at the pane before trying again"
	case kindUnavailable:
		return msg + "; check that the terminal multiplexer is installed and that the server's socket settings (-socket-name, -socket-path) name a running server"
	case kindUnsupported:
		return msg + "; this terminal backend cannot do that, so the call was not carried out"
	case kindUnknownKey:
		return msg + "; use key names such as Enter, Escape, C-c or Up, or send the text with paste_text"
	default: // internal
		return msg
	}
}

// writeAdvice and endAdvice say what to do about a refused write, and a
// refused kill or clear, by why it was refused; respawnAdvice replaces
// endAdvice where a refused respawn_pane needs other words: it restarts a
// program rather than removing a pane, and a dead pane is respawned
// whatever is refused of a live one.
var (
	writeAdvice = map[fault.Refusal]string{
		fault.RefusedUnknown:       "use a backend that can tell it, or a pane you have checked by hand with capture_pane",
		fault.RefusedDead:          "choose a live pane",
		fault.RefusedWatched:       "choose a pane no attached client has on screen; force does not override this",
		fault.RefusedSelf:          "pass force: true if you mean to write there",
		fault.RefusedSynchronized:  "turn off synchronized input for its window or choose a pane in another window",
		fault.RefusedInMode:        "leave the mode first: send_keys reaches the mode (for copy mode, keys \"q\" or \"Escape\" with enter: false, since an Enter pressed after them reaches the pane's program once the mode is left)",
		fault.RefusedNoCommand:     "use paste_text or send_keys instead",
		fault.RefusedNotAShell:     "let that program finish or quit it, or use send_keys / paste_text to talk to it",
		fault.RefusedShellStarting: "try again in a moment",
		fault.RefusedExposed: "a process of the server's user watches the server's private script directory; find and " +
			"stop it before running commands here (it could make their results lie), then call again",
		fault.RefusedNotFar: "if you mean the command for this host, call again without farShell; if for the far side, " +
			"connect the pane to it again first (capture_pane shows what is there)",
		fault.RefusedFarNotReady: "capture_pane shows what the far side shows: if its shell is at its prompt, press Enter " +
			"(send_keys Enter) so that it draws the prompt again and call again; if it marks no prompt, give farPrompt " +
			"(its prompt, as the cursor line shows it), or add the integration to its rc file (tmux-mcp shell-integration bash); " +
			"if a command runs there, wait for it (wait_for_text)",
		fault.RefusedFarSilent: "capture_pane shows what the far side is: answer or end what it asks (a password prompt) " +
			"yourself, or give the family of the shell that really answers there as farShell",
		fault.RefusedReading: "capture_pane shows what it asks: answer it yourself with paste_text or send_keys if you mean to, " +
			"or end it (send_keys C-c) and run the command again; if that shell has turned its line editor off, start a new one",
	}
	endAdvice = map[fault.Refusal]string{
		fault.RefusedUnknown: "use a backend that can tell it, or end the pane by hand",
		fault.RefusedWatched: "leave panes that people have on screen alone; force does not override this",
		fault.RefusedSelf:    "pass force: true if you mean to",
	}
	respawnAdvice = map[fault.Refusal]string{
		fault.RefusedUnknown: "use a backend that can tell it, or restart the program by hand; once the program has " +
			"exited (the pane is dead), respawn_pane restarts it without these checks",
		fault.RefusedWatched: "leave panes that people have on screen alone; force does not override this, though " +
			"once the program has exited (the pane is dead), respawn_pane restarts it whoever watches it",
	}
)

// respawnAction opens the reason of a refused respawn_pane: the domain
// words an ending refusal as what the call would do first
// (fault.RefusalError.Reason).
const respawnAction = "respawn_pane "

// refusalAdvice is the advice for r, or "" when there is none to give.
func refusalAdvice(r *fault.RefusalError) string {
	if !r.Ending {
		return writeAdvice[r.Why]
	}
	if strings.HasPrefix(r.Reason, respawnAction) {
		if advice, ok := respawnAdvice[r.Why]; ok {
			return advice
		}
	}
	return endAdvice[r.Why]
}

// busyAdvice says what can be done about a busy pane, which depends on
// who holds it: interrupt keys reach a command whose call has returned,
// and nothing of this server's reaches another process's call.
func busyAdvice(busy *fault.BusyError) string {
	switch {
	case busy.Owner != "":
		return fmt.Sprintf("this server can neither write to it nor interrupt it until that process gives its lease back; "+
			"if that process is gone, the lease expires by itself, at most %.0f s after it was last renewed, so try again then",
			writers.DefaultLeaseTTL.Seconds())
	case busy.AwaitingInput:
		return "the command waits for input, which only the MCP session that started it may give (its paste_text and " +
			"send_keys answer it); ask the person, or that session, to answer, or interrupt it (send_keys C-c)"
	case busy.Returned:
		return "wait for it to finish (wait_for_command) or interrupt it (send_keys C-c) and try again; " +
			"a command that ignores C-c ends with its pane: kill_pane or respawn_pane with force: true " +
			"(the destructive tools) take a pane that this server's command holds"
	}
	return "wait for that call to return and try again"
}
