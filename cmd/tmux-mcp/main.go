// Command tmux-mcp is an MCP server that lets AI agents work in terminal
// panes safely. Run it with -help for its settings; see app.Main.
//
// Two subcommands help a person get it running: `tmux-mcp setup CLIENT`
// writes it into an MCP client's configuration, and `tmux-mcp doctor`
// checks what it needs. `tmux-mcp shell-integration SHELL` prints the
// prompt marks for a shell's start-up file on another host.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/tmux-mcp/tmux-mcp/app"
	"github.com/tmux-mcp/tmux-mcp/cmd/tmux-mcp/internal/clients"
	"github.com/tmux-mcp/tmux-mcp/cmd/tmux-mcp/internal/doctor"
)

func main() {
	args := os.Args[1:]
	if len(args) > 0 {
		switch args[0] {
		case "setup":
			os.Exit(clients.Setup(args[1:], os.Getenv, executable(), time.Now(), os.Stdout, os.Stderr))
		case "doctor":
			os.Exit(doctor.Main(args[1:], os.Getenv, executable(), os.Stdout, os.Stderr))
		case "shell-integration":
			os.Exit(app.ShellIntegrationMain(args[1:], os.Stdout, os.Stderr))
		}
	}
	os.Exit(app.Main(args, os.Getenv, app.Stdio{In: os.Stdin, Out: os.Stdout, Err: os.Stderr}))
}

// executable is the absolute path of this binary, its symbolic links
// resolved, as a client's configuration is to name it: a desktop app does
// not search the user's PATH, and a link such as npx's in its cache may
// not outlive the command that made it. An upgrade that moves the binary
// (Homebrew's versioned Cellar) needs setup run again; doctor says so.
func executable() string {
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintf(os.Stderr, "tmux-mcp: cannot tell where this binary is: %v\n", err)
		os.Exit(1)
	}
	if resolved, err := filepath.EvalSymlinks(exe); err == nil {
		exe = resolved
	}
	return exe
}
