package fake

import "github.com/tmux-mcp/tmux-mcp/adapters/internal/outbuf"

// DefaultOutputWindow is how many of a pane's newest output bytes the fake
// retains unless told otherwise (WithOutputWindow, PaneSpec.OutputWindow).
const DefaultOutputWindow = 1 << 20

// ErrStreamClosed is what a closed stream's chunks carry in Ended. It is
// the error every adapter built on outbuf uses.
var ErrStreamClosed = outbuf.ErrClosed

// A pane's output is an outbuf.Buffer guarded by the Terminal's mutex, of
// which the newest OutputWindow bytes are retained; its streams are
// outbuf.Streams, which report bytes written before they opened as missed
// even while the pane retains them, because a real backend only promises
// what is written after OpenOutput returns.
