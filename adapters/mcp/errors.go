package mcpadapter

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmux-mcp/tmux-mcp/domain"
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
	kindRefused         errorKind = "refused"          // *domain.RefusalError
	kindBusy            errorKind = "busy"             // *domain.BusyError
	kindInvalidArgument errorKind = "invalid_argument" // *domain.ArgumentError
	kindServerClosing   errorKind = "server_closing"   // ErrServerClosing
	kindCancelled       errorKind = "cancelled"
	kindDeadline        errorKind = "deadline_exceeded"
	kindPaneNotFound    errorKind = "pane_not_found"
	kindNotFound        errorKind = "not_found" // a session or window
	kindNameInUse       errorKind = "name_in_use"
	kindInvalidName     errorKind = "invalid_name"
	kindNotRun          errorKind = "not_run" // domain.ErrNotRun
	kindPaneDead        errorKind = "pane_dead"
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
// types come first because they carry their own advice, and the end of
// the call (shutdown, cancellation, deadline) before the terminal's
// sentinels because it is why the call stopped.
func classify(err error) errorKind {
	var (
		refusal *domain.RefusalError
		busy    *domain.BusyError
		arg     *domain.ArgumentError
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
	case errors.Is(err, domain.ErrNotRun):
		return kindNotRun
	case errors.Is(err, ports.ErrPaneDead):
		return kindPaneDead
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
func toolError(err error) *mcp.CallToolResult {
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: errorText(err)}}}
	res.SetError(err) // keeps err for middleware and the audit log; Content is already set
	return res
}

// errorText is the text a client sees for err, by its kind (classify).
// Refusals, busy panes and bad arguments carry their own advice (the
// domain writes it), so their message is used as it is. Errors from the
// terminal get advice added according to the sentinel they wrap.
func errorText(err error) string {
	msg := err.Error()
	switch classify(err) {
	case kindInvalidArgument:
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
	case kindPaneDead:
		return msg + "; its program has exited, so it takes no input: use another pane, or restart this one"
	case kindUnavailable:
		return msg + "; check that the terminal multiplexer is installed and that the server's socket settings (-socket-name, -socket-path) name a running server"
	case kindUnsupported:
		return msg + "; this terminal backend cannot do that, so the call was not carried out"
	case kindUnknownKey:
		return msg + "; use key names such as Enter, Escape, C-c or Up, or send the text with paste_text"
	default: // refused, busy, internal
		return msg
	}
}
