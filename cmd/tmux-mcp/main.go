// Command tmux-mcp is an MCP server that lets AI agents work in terminal
// panes safely. Run it with -help for its settings; see app.Main.
package main

import (
	"os"

	"github.com/tmux-mcp/tmux-mcp/app"
)

func main() {
	os.Exit(app.Main(os.Args[1:], os.Getenv, app.Stdio{In: os.Stdin, Out: os.Stdout, Err: os.Stderr}))
}
