package policy

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/domain/frame"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// CheckFront is run_shell_command's rule for the program in front of the
// pane's terminal, read just before the line is typed: a shell that runs a
// script file or a -c command (a bash script started from the prompt, a
// "bash -c '…; exec bash'" wrapper still in its command) is not at a
// prompt, and would read the typed line as its script's input — the
// answer to its "Continue? [y/N]" — and never run it. Such a shell is
// named like one that reads its commands from the terminal, so only its
// command line tells them apart (fg.Args); when the backend could not read
// it, the pane is not refused for it. A program named like a shell that
// runs another executable (fg.Program) is refused as well.
//
// A job whose leader has exited (Args empty, not nil) is refused too: a
// shell at its prompt leads its own group, so what is in front is the
// rest of a pipeline such as "curl … | sh", whose shell reads the
// terminal for its questions.
func CheckFront(id ports.PaneID, fg ports.Foreground) error {
	if fg.Args == nil {
		return nil
	}
	if len(fg.Args) == 0 {
		return &fault.RefusalError{Pane: id, Why: fault.RefusedNotAShell,
			Reason: "the program that leads the job in front of its terminal has exited and the rest of the job runs on (a pipeline such as `curl … | sh`), not a shell at its prompt: the command would be read as that job's input"}
	}
	sh, ok := frame.ShellFor(fg.Args[0])
	if !ok {
		return nil
	}
	if fg.Program != "" {
		// Named like a shell, it may still be another program (`exec -a
		// bash python3`), or a shell of another family.
		if sh, ok = ShellOf(fg.Program, fg.Args[0]); !ok {
			return &fault.RefusalError{Pane: id, Why: fault.RefusedNotAShell,
				Reason: fmt.Sprintf("its foreground program is %s, not a shell: the command would be read as its input", describeProgram(fg.Program, fg.Args[0]))}
		}
	}
	if ReadsTerminal(sh, fg.Args[1:]) {
		return nil
	}
	return &fault.RefusalError{Pane: id, Why: fault.RefusedNotAShell,
		Reason: fmt.Sprintf("its foreground program is a shell running a script or command (%s), not one at its prompt: the command would be read as that script's input", shownArgs(fg.Args))}
}

// ReadsTerminal reports whether a shell of family sh started with the
// arguments args (its program name left out) reads its commands from its
// standard input, which for a shell in front of a pane is the terminal:
// it was given no -c command and no script file, or -s says to read
// commands from the input all the same. Options are read as each family
// reads them, so that an option's argument (bash --rcfile FILE, as
// nix-shell starts it; -o vi) is not taken for a script.
func ReadsTerminal(sh frame.Shell, args []string) bool {
	opts := shellOptions[sh]
	command, stdin := false, false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || a == "-" {
			return !command && (i+1 == len(args) || stdin)
		}
		if strings.HasPrefix(a, "--") {
			name, _, hasValue := strings.Cut(a[2:], "=")
			command = command || (sh == frame.ShellFish && name == "command")
			if opts.longArgs[name] && !hasValue {
				i++
			}
			continue
		}
		if len(a) < 2 || (a[0] != '-' && a[0] != '+') {
			// The first operand: the script file, or, after -c, the
			// command; either way not the terminal, unless -s.
			return !command && stdin
		}
		for j := 1; j < len(a); j++ {
			if a[0] == '-' {
				command = command || a[j] == 'c'
				stdin = stdin || a[j] == 's'
			}
			if strings.IndexByte(opts.shortArgs, a[j]) >= 0 {
				// The rest of the word, or else the next one, is the
				// option's argument.
				if j == len(a)-1 {
					i++
				}
				break
			}
		}
	}
	return !command
}

// shellOptions are, for each family, the options that take an argument:
// short ones (after "-" or "+"), and long ones (after "--", their
// argument either after "=" or the next word).
var shellOptions = map[frame.Shell]struct {
	shortArgs string
	longArgs  map[string]bool
}{
	frame.ShellBash: {"oO", map[string]bool{"rcfile": true, "init-file": true}},
	frame.ShellZsh:  {"o", map[string]bool{"emulate": true}},
	frame.ShellSh:   {"o", map[string]bool{"rcfile": true, "profile": true}}, // yash's
	frame.ShellKsh:  {"oT", nil},
	frame.ShellFish: {"cCdDofp", map[string]bool{"command": true, "init-command": true, "debug": true,
		"debug-output": true, "debug-stack-frames": true, "features": true, "profile": true, "profile-startup": true}},
}

// shownArgs is a command line as a refusal shows it: quoted where a word
// needs it, and cut short.
func shownArgs(args []string) string {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		if a == "" || strings.IndexFunc(a, needsQuoting) >= 0 {
			fmt.Fprintf(&b, "%q", a)
		} else {
			b.WriteString(a)
		}
		if b.Len() > 80 {
			break
		}
	}
	s := b.String()
	if r := []rune(s); len(r) > 80 {
		s = string(r[:77]) + "..."
	}
	return s
}

// needsQuoting tells the characters that a word is quoted for: blanks,
// characters that do not print, and a shell's quotes and expansions.
func needsQuoting(r rune) bool {
	return r <= ' ' || !unicode.IsPrint(r) || strings.ContainsRune(`'"\$`+"`", r)
}
