package policy

import (
	"errors"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/domain/frame"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// What runs decides, not the name it was started under: the programs and
// names that /proc/PID/exe and tmux's pane_current_command (argv[0]) give
// for the panes people have.
var programs = []struct {
	program, name string
	sh            frame.Shell // "" for no supported shell
}{
	{"bash", "bash", frame.ShellBash},
	{"bash", "-bash", frame.ShellBash}, // a login shell
	{"dash", "sh", frame.ShellSh},      // /bin/sh links to dash
	{"bash", "sh", frame.ShellBash},    // /bin/sh links to bash: bash's own frame, in its POSIX mode
	{"zsh", "-zsh", frame.ShellZsh},
	{"zsh5", "zsh", frame.ShellZsh},
	{"mksh", "ksh", frame.ShellKsh}, // ksh links to mksh
	{"ksh93", "ksh", frame.ShellKsh},
	{"fish", "fish", frame.ShellFish},
	{"busybox", "sh", frame.ShellSh}, // the applet its name selects
	{"busybox", "ash", frame.ShellSh},
	{"", "zsh", frame.ShellZsh},     // the backend cannot see what runs: the name is all there is
	{"dash", "bash", frame.ShellSh}, // exec -a bash dash: framed for dash, which runs

	{"python3.11", "bash", ""}, // exec -a bash python3 -i -q
	{"python3.11", "python3", ""},
	{"bash", "rbash", ""},    // restricted
	{"bash", "python3", ""},  // named like a program it is not: not a shell the frame can trust
	{"busybox", "vi", ""},    // another applet
	{"vim.basic", "vim", ""}, // not a shell at all
	{"", "vim", ""},
	{"", "", ""},
}

func TestShellOfTakesTheFamilyOfWhatRuns(t *testing.T) {
	for _, tt := range programs {
		sh, ok := ShellOf(tt.program, tt.name)
		if ok != (tt.sh != "") || sh != tt.sh && ok {
			t.Errorf("ShellOf(%q, %q) = %q, %v; want %q, %v", tt.program, tt.name, sh, ok, tt.sh, tt.sh != "")
		}
	}
}

func TestCheckRunRefusesAProgramNamedLikeAShell(t *testing.T) {
	for _, tt := range programs {
		sh, err := CheckRun(ports.PaneInfo{ID: "%1", Command: tt.name, Program: tt.program}, false)
		if tt.sh != "" {
			if err != nil || sh != tt.sh {
				t.Errorf("CheckRun of %q named %q = %q, %v; want %q", tt.program, tt.name, sh, err, tt.sh)
			}
			continue
		}
		var refusal *fault.RefusalError
		if !errors.As(err, &refusal) || refusal.Why != fault.RefusedNotAShell {
			t.Errorf("CheckRun of %q named %q = %q, %v; want a not-a-shell refusal", tt.program, tt.name, sh, err)
		}
	}
	// The refusal names what runs, and the name where it differs.
	_, err := CheckRun(ports.PaneInfo{ID: "%1", Command: "bash", Program: "python3.11"}, false)
	if err == nil || !strings.Contains(err.Error(), `"python3.11" (started under the name "bash")`) {
		t.Errorf("refusal %v, want it to name python3.11 and the name bash", err)
	}
	_, err = CheckRun(ports.PaneInfo{ID: "%1", Command: "vim", Program: "vim"}, false)
	if err == nil || !strings.Contains(err.Error(), `program is "vim", not`) {
		t.Errorf("refusal %v, want it to name vim once", err)
	}
	_, err = CheckRun(ports.PaneInfo{ID: "%1", Command: "/usr/bin/less", Program: "less"}, false)
	if err == nil || !strings.Contains(err.Error(), `program is "less", not`) {
		t.Errorf("refusal %v, want it to name less once: the name differs only by its path", err)
	}
	_, err = CheckRun(ports.PaneInfo{ID: "%1", Command: "vim"}, false)
	if err == nil || !strings.Contains(err.Error(), `program is "vim", not`) {
		t.Errorf("refusal %v, want it to name vim by its name", err)
	}
}

func TestCheckFrontRefusesAShellsNameOnAnotherProgram(t *testing.T) {
	// exec -a bash python3 -i -q: the command line says bash.
	err := CheckFront("%3", ports.Foreground{Group: 9, Args: []string{"bash", "-i", "-q"}, Program: "python3.11"})
	var refusal *fault.RefusalError
	if !errors.As(err, &refusal) || refusal.Why != fault.RefusedNotAShell || !strings.Contains(err.Error(), "python3.11") {
		t.Errorf("CheckFront of python3.11 named bash = %v, want a not-a-shell refusal naming it", err)
	}
	// The family is the program's: a zsh named bash reads zsh's options,
	// whose -O takes no argument, so "bash -O extglob" runs the script
	// extglob.
	if err := CheckFront("%3", ports.Foreground{Group: 9, Args: []string{"bash", "-O", "extglob"}, Program: "zsh"}); err == nil {
		t.Error("CheckFront of zsh named bash with an operand: nil, want the operand taken for zsh's script")
	}
	for _, fg := range []ports.Foreground{
		{Group: 9, Args: []string{"bash"}, Program: "bash"},
		{Group: 9, Args: []string{"-zsh"}, Program: "zsh"},
		{Group: 9, Args: []string{"sh"}, Program: "dash"},
		{Group: 9, Args: []string{"bash", "-O", "extglob"}, Program: "bash"},
		{Group: 9, Args: []string{"bash"}},                          // the program could not be read: the name is all there is
		{Group: 9, Args: []string{"git", "status"}, Program: "git"}, // a prompt's program: the name's rule applies first
	} {
		if err := CheckFront("%3", fg); err != nil {
			t.Errorf("CheckFront(%+v) = %v, want nil", fg, err)
		}
	}
}
