package policy

import (
	"fmt"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/domain/frame"
)

// ShellOf tells whether a pane's foreground program is a shell the frame
// supports, and its family, from what runs (program: its executable, as
// ports.PaneInfo.Program and ports.Foreground.Program give it) and the
// name it was started under (name: its argv[0], as the multiplexer
// reports it).
//
// The family is the executable's: a name says nothing that the
// program's starter did not choose (`exec -a bash python3` is a Python
// REPL named "bash", `exec -a bash dash` a dash). The name must be a
// shell's as well, because a shell reads its name too: bash started as
// rbash is restricted and cannot run the frame. Two exceptions: a
// multi-call binary (busybox) runs the applet its name selects, so there
// the name tells which; and where the backend cannot see what runs
// (program ""), the name is all there is.
func ShellOf(program, name string) (frame.Shell, bool) {
	named, isShell := frame.ShellFor(name)
	if program == "" || program == "busybox" {
		return named, isShell
	}
	sh, ok := frame.ShellFor(program)
	return sh, ok && isShell
}

// describeProgram is a foreground program as a refusal names it: its
// executable, and the name it was started under when that differs.
func describeProgram(program, name string) string {
	switch {
	case program == "":
		return fmt.Sprintf("%q", name)
	case baseName(name) == program:
		return fmt.Sprintf("%q", program)
	}
	return fmt.Sprintf("%q (started under the name %q)", program, name)
}

// baseName is a program's name without a login shell's "-" and without
// its path.
func baseName(name string) string {
	name = strings.TrimPrefix(name, "-")
	return name[strings.LastIndexByte(name, '/')+1:]
}
