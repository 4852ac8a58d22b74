package tmux

import (
	"context"
	"io"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// A cmdList is a tmux command list as it is built: each command its own
// argv, commands in the order tmux runs them. It is rendered once for the
// route that carries it (exec): as one line of tmux's command syntax for a
// control client (commandLine), or as a process's argv (argv); and as the
// text of a command that takes commands as an argument (if-shell's, see
// text). It is never re-split.
type cmdList [][]string

// tmuxCmd is a list of one command.
func tmuxCmd(args ...string) cmdList { return cmdList{args} }

// then is l followed by the command args. l itself is left as it was, so
// lists can share a head.
func (l cmdList) then(args ...string) cmdList { return append(l[:len(l):len(l)], args) }

// and is l followed by the commands of m, l left as it was.
func (l cmdList) and(m cmdList) cmdList { return append(l[:len(l):len(l)], m...) }

// argv renders l as a tmux process's arguments: the commands separated
// by ";" arguments, and every argument that ends in ";" written with
// "\;" (escapeArg), which tmux turns back into ";" instead of ending the
// command there.
func (l cmdList) argv() []string {
	var args []string
	for i, cmd := range l {
		if i > 0 {
			args = append(args, ";")
		}
		for _, arg := range cmd {
			args = append(args, escapeArg(arg))
		}
	}
	return args
}

// text renders l as the text of commands that a command such as if-shell
// takes as one argument and parses: each argument quoted (quoteArg) and
// the commands separated by " ; ", so that tmux reads back exactly l's
// arguments, whatever bytes they hold but NUL.
func (l cmdList) text() string {
	var b strings.Builder
	for i, cmd := range l {
		if i > 0 {
			b.WriteString(" ; ")
		}
		writeCommand(&b, cmd)
	}
	return b.String()
}

// How a command list is to travel, for exec.
type route struct {
	// pane is the pane the commands target. When no control client is
	// attached, one is started for the session holding it (the one
	// OpenOutput would start); without a pane, no client is started.
	pane ports.PaneID

	// typing marks commands that must not run twice (typing into a pane):
	// once written to a control client that then went away without an
	// answer, they are not run again as a process.
	typing bool

	// process runs the list as a tmux process whatever it holds: commands
	// that create, change or remove sessions, windows and panes (see
	// doc.go). stdin, when set, is the process's standard input, and
	// implies process.
	process bool
	stdin   io.Reader
}

// exec runs l over a control client when r and l allow it (see
// controlCommand) and as a tmux process otherwise, and returns what the
// commands printed. It is the one place that picks the route. Errors are
// runGated's, and controlCommand's for typing commands whose client went
// away after they were written.
func (t *terminal) exec(ctx context.Context, r route, l cmdList) (string, error) {
	if r.stdin == nil && !r.process {
		if out, ok, err := t.controlCommand(ctx, r, l); ok {
			return out, err
		}
	}
	if notifies(l) {
		t.attachGate.RLock()
		defer t.attachGate.RUnlock()
	}
	return t.runGated(ctx, r.stdin, l.argv()...)
}
