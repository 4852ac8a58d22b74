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

// toolError is the one place where an error becomes what the client sees: a
// tool result with IsError set, whose text says what was wrong and what to
// do next. Every tool handler hands its errors here.
//
// Refusals, busy panes and bad arguments carry their own advice (the domain
// writes it), so their message is used as it is. Errors from the terminal
// get advice added according to the sentinel they wrap.
func toolError(err error) *mcp.CallToolResult {
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: errorText(err)}}}
	res.SetError(err) // keeps err for middleware; Content is already set
	return res
}

func errorText(err error) string {
	var (
		refusal *domain.RefusalError
		busy    *domain.BusyError
		arg     *domain.ArgumentError
	)
	msg := err.Error()
	switch {
	case errors.As(err, &refusal), errors.As(err, &busy):
		return msg
	case errors.As(err, &arg):
		return msg + "; correct it and call again"
	case errors.Is(err, ErrServerClosing):
		return msg + "; call again once the server is back"
	case errors.Is(err, context.Canceled):
		return "the call was cancelled before it finished: " + msg
	case errors.Is(err, context.DeadlineExceeded):
		return "the call ran out of time before it finished: " + msg
	case errors.Is(err, ports.ErrPaneNotFound):
		return msg + "; check the pane id (ids look like %3): the pane may have been closed"
	case errors.Is(err, ports.ErrNotFound):
		return msg + "; check the id or name (session ids look like $1, window ids like @2): list_sessions and list_windows list them"
	case errors.Is(err, ports.ErrNameInUse):
		return msg + "; choose another name, or use that session (list_sessions lists them)"
	case errors.Is(err, ports.ErrPaneDead):
		return msg + "; its program has exited, so it takes no input: use another pane, or restart this one"
	case errors.Is(err, ports.ErrUnavailable):
		return msg + "; check that the terminal multiplexer is installed and that the server's socket settings (-socket-name, -socket-path) name a running server"
	case errors.Is(err, ports.ErrUnsupported):
		return msg + "; this terminal backend cannot do that, so the call was not carried out"
	case errors.Is(err, ports.ErrUnknownKey):
		return msg + "; use key names such as Enter, Escape, C-c or Up, or send the text with paste_text"
	default:
		return msg
	}
}
