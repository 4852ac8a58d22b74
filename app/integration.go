package app

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/adapters/tmux"
)

// shellIntegrationUsage is -shell-integration's line in -help.
const shellIntegrationUsage = "start the shells of the panes the server makes (its private session, create_session, create_window, split_window) " +
	"with prompt marks (OSC 133), when tmux would start its default shell and that is bash, zsh or fish; " +
	"never in a pane it did not make, nor with -ssh (env " + EnvShellIntegration + "=0 or 1; default on)"

// parseShellIntegration reads -shell-integration: the flag, when given,
// else TMUX_MCP_SHELL_INTEGRATION (1, 0, true, false, on, off), else on.
func parseShellIntegration(flag, fromFlag bool, env func(string) string) (bool, error) {
	if fromFlag {
		return flag, nil
	}
	switch v := strings.ToLower(strings.TrimSpace(env(EnvShellIntegration))); v {
	case "":
		return true, nil
	case "on":
		return true, nil
	case "off":
		return false, nil
	default:
		b, err := strconv.ParseBool(v)
		if err != nil {
			return false, fmt.Errorf("%w: %s=%q: want 1 or 0 (true, false, on, off)", ErrInvalidSetting, EnvShellIntegration, env(EnvShellIntegration))
		}
		return b, nil
	}
}

// ShellIntegrationMain is `tmux-mcp shell-integration SHELL`: it prints
// the prompt marks of SHELL (bash, zsh or fish) to stdout, for a remote
// shell's start-up file, and returns the exit status: 0, or 2 for a
// usage error, said on stderr.
func ShellIntegrationMain(args []string, stdout, stderr io.Writer) int {
	shells := strings.Join(tmux.ShellIntegrationShells(), ", ")
	usage := func() {
		fmt.Fprintf(stderr, "Usage: tmux-mcp shell-integration SHELL\n\n"+
			"Prints the prompt marks (OSC 133) for SHELL (%s), as the panes tmux-mcp makes get them,\n"+
			"to add at the end of that shell's start-up file on another host, for run_shell_command's farShell:\n\n"+
			"  tmux-mcp shell-integration bash | ssh HOST 'cat >> ~/.bashrc'\n"+
			"  tmux-mcp shell-integration zsh  | ssh HOST 'cat >> ~/.zshrc'\n"+
			"  tmux-mcp shell-integration fish | ssh HOST 'mkdir -p ~/.config/fish/conf.d && cat > ~/.config/fish/conf.d/tmux-mcp.fish'\n\n"+
			"Adding it twice does no harm: it marks once.\n", shells)
	}
	if len(args) == 1 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
		usage()
		return 0
	}
	if len(args) != 1 {
		usage()
		return 2
	}
	text, ok := tmux.ShellIntegration(args[0])
	if !ok {
		fmt.Fprintf(stderr, "tmux-mcp shell-integration: %q is not a shell with an integration; want one of %s\n", args[0], shells)
		return 2
	}
	if _, err := stdout.Write(text); err != nil {
		fmt.Fprintf(stderr, "tmux-mcp shell-integration: %v\n", err)
		return 1
	}
	return 0
}
