package policy

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/domain/frame"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// Connectors are the programs that connect a pane's terminal to a shell
// elsewhere, on another host, in a container, or as another user, by
// executable: what run_shell_command with farShell accepts in front of
// the pane. The list is docs/CONTRACT.md's.
var Connectors = []string{
	"ssh", "mosh-client", // another host
	"docker", "podman", "kubectl", "oc", "machinectl", "nsenter", "lxc", "incus", // a container
	"su", "sudo", "doas", // another user
	"script",         // a shell on a new terminal
	"tmux", "screen", // a nested multiplexer's client
}

// Connector reports whether the program in front of a pane connects its
// terminal to a shell elsewhere, by what runs (program) and, where the
// backend cannot see that, by its name.
func Connector(program, name string) bool {
	if program == "" {
		program = baseName(name)
	}
	return slices.Contains(Connectors, program)
}

// FarShells are the families farShell may name.
var FarShells = []frame.Shell{frame.ShellBash, frame.ShellZsh, frame.ShellSh, frame.ShellKsh, frame.ShellFish}

// CheckFar is CheckRun for a command to run in a far shell of family far:
// the rules of every write, and a program in front of the pane that
// connects to a shell elsewhere (Connector). A shell of this host in
// front is refused rather than run in: the caller meant the command for
// the far side, which may have exited (RefusedNotFar).
func CheckFar(info ports.PaneInfo, force bool, far frame.Shell) (frame.Shell, error) {
	if err := Check(info, Type, force, ""); err != nil {
		return "", err
	}
	if !slices.Contains(FarShells, far) {
		return "", &fault.ArgumentError{Field: "farShell", Reason: fmt.Sprintf("%q is not one of %s", far, farShellNames())}
	}
	if slices.Contains(info.Unknown, ports.FactCommand) {
		return "", &fault.RefusalError{Pane: info.ID, Why: fault.RefusedNoCommand,
			Reason: "the terminal backend cannot tell which program runs in the pane, so it cannot tell whether a far shell answers there"}
	}
	if _, ok := ShellOf(info.Program, info.Command); ok {
		return "", &fault.RefusalError{Pane: info.ID, Why: fault.RefusedNotFar,
			Reason: fmt.Sprintf("farShell was given, but its foreground program is %s, a shell of this host, not a program that connects to a shell elsewhere (the far side may have exited)",
				describeProgram(info.Program, info.Command))}
	}
	if !Connector(info.Program, info.Command) {
		return "", &fault.RefusalError{Pane: info.ID, Why: fault.RefusedNotAShell,
			Reason: fmt.Sprintf("its foreground program is %s, neither a shell run_shell_command supports nor a program that connects to one elsewhere (%s)",
				describeProgram(info.Program, info.Command), strings.Join(Connectors, ", "))}
	}
	return far, nil
}

func farShellNames() string {
	names := make([]string, len(FarShells))
	for i, sh := range FarShells {
		names[i] = string(sh)
	}
	return strings.Join(names, ", ")
}
