package tmux

import (
	"context"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// The flat-argv forms of the adapter's command lists that tests build
// and read: the program builds cmdLists and never re-splits them.

// paneArgs is paneCmds as a process's argv.
func paneArgs(id ports.PaneID) []string { return paneCmds(id).argv() }

// pasteArgs is pasteCmds as a process's argv.
func pasteArgs(id ports.PaneID, name, text string) []string { return pasteCmds(id, name, text).argv() }

// writeLists is writeCmds as processes' argvs.
func writeLists(name, p string, content []byte) [][]string {
	var lists [][]string
	for _, l := range writeCmds(name, p, content) {
		lists = append(lists, l.argv())
	}
	return lists
}

// command is exec for a command list given as a process's argv (commands
// separated by ";" arguments, as for run). Only commands whose output a
// pane's program cannot shape may go over a control client (see
// controlSafe and doc.go).
func (t *terminal) command(ctx context.Context, r route, args ...string) (string, error) {
	return t.exec(ctx, r, splitCommands(args))
}
