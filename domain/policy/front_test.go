package policy

import (
	"errors"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// The command lines of shells in front of a pane, as /proc gives them,
// and whether that shell reads its commands from the terminal.
var frontArgs = []struct {
	args  []string
	reads bool
}{
	// At a prompt: how terminals, tmux, su, sudo -s, nix-shell and
	// people start interactive shells.
	{[]string{"-bash"}, true},
	{[]string{"bash"}, true},
	{[]string{"/bin/bash", "--norc", "--noprofile"}, true},
	{[]string{"bash", "--rcfile", "/tmp/nix-shell-1-0/rc"}, true},
	{[]string{"bash", "--init-file", "x.sh"}, true},
	{[]string{"bash", "-o", "vi"}, true},
	{[]string{"bash", "+O", "extglob", "-l"}, true},
	{[]string{"bash", "-i"}, true},
	{[]string{"bash", "-s", "a", "b"}, true}, // -s: commands from the input, a and b are $1 and $2
	{[]string{"bash", "-"}, true},
	{[]string{"-zsh"}, true},
	{[]string{"zsh", "-o", "vi", "--emulate", "sh"}, true},
	{[]string{"zsh", "-l"}, true},
	{[]string{"dash", "-i"}, true},
	{[]string{"sh"}, true},
	{[]string{"mksh", "-o", "emacs", "-l"}, true},
	{[]string{"ksh", "-T", "/dev/pts/3"}, true},
	{[]string{"fish"}, true},
	{[]string{"fish", "-C", "set x 1", "--features", "qmark-noglob"}, true},
	{[]string{"fish", "--init-command=set x 1", "-l"}, true},
	{[]string{"fish", "-d", "env", "-P"}, true},
	{[]string{"fish", "-N", "-D", "3"}, true},
	{[]string{"fish", "--debug-stack-frames", "3"}, true},
	{[]string{"yash", "--rcfile", "rc"}, true},
	{[]string{"yash", "--profile", "p", "-i"}, true},

	// Not at a prompt: a script, a -c command.
	{[]string{"/bin/bash", "./build.sh"}, false},
	{[]string{"bash", "./build.sh", "--rcfile"}, false},
	{[]string{"bash", "-x", "deploy.sh", "prod"}, false},
	{[]string{"bash", "-c", "make; exec bash"}, false},
	{[]string{"bash", "-lc", "make"}, false},
	{[]string{"bash", "-ic", "make"}, false}, // interactive, but runs its command and exits
	{[]string{"bash", "-i", "script.sh"}, false},
	{[]string{"bash", "-o", "pipefail", "script.sh"}, false},
	{[]string{"bash", "--rcfile", "rc", "script.sh"}, false},
	{[]string{"bash", "-O", "extglob", "--", "script.sh"}, false},
	{[]string{"bash", "-", "script.sh"}, false},
	{[]string{"zsh", "script.zsh"}, false},
	{[]string{"zsh", "-c", "sleep 1"}, false},
	{[]string{"sh", "-e", "./configure"}, false},
	{[]string{"dash", "-c", "read x"}, false},
	{[]string{"mksh", "-T", "/dev/pts/3", "x.sh"}, false},
	{[]string{"fish", "x.fish"}, false},
	{[]string{"fish", "-c", "read x"}, false},
	{[]string{"fish", "--command=read x"}, false},
	{[]string{"fish", "--command", "read x", "-i"}, false},
	{[]string{"fish", "-Cset x 1", "x.fish"}, false},
}

func TestCheckFrontRefusesAShellThatRunsAScriptOrACommand(t *testing.T) {
	for _, tt := range frontArgs {
		err := CheckFront("%3", ports.Foreground{Group: 9, Args: tt.args})
		if tt.reads && err != nil {
			t.Errorf("CheckFront(%q) = %v, want nil: the shell reads the terminal", tt.args, err)
		}
		if !tt.reads {
			var refusal *fault.RefusalError
			if !errors.As(err, &refusal) || refusal.Why != fault.RefusedNotAShell || refusal.Pane != "%3" {
				t.Errorf("CheckFront(%q) = %v, want a not-a-shell refusal of %%3", tt.args, err)
			} else if !strings.Contains(refusal.Reason, tt.args[len(tt.args)-1]) {
				t.Errorf("CheckFront(%q) says %q, which does not show the command line", tt.args, refusal.Reason)
			}
		}
	}
}

func TestCheckFrontRefusesAJobWhoseLeaderHasExited(t *testing.T) {
	// curl … | sh: curl, the group's leader, is done; sh asks on the tty.
	err := CheckFront("%3", ports.Foreground{Group: 9, Args: []string{}})
	var refusal *fault.RefusalError
	if !errors.As(err, &refusal) || refusal.Why != fault.RefusedNotAShell || !strings.Contains(err.Error(), "has exited") {
		t.Errorf("CheckFront with the leader gone = %v, want a not-a-shell refusal saying why", err)
	}
}

func TestCheckFrontAllowsWhatItCannotJudge(t *testing.T) {
	for _, args := range [][]string{
		nil,                      // the backend could not read it
		{"python3", "-c", "x"},   // not a shell: the rule of the program's name applies first
		{"/usr/bin/env", "bash"}, // env has exec'd by the time anything is typed
	} {
		if err := CheckFront("%3", ports.Foreground{Group: 9, Args: args}); err != nil {
			t.Errorf("CheckFront(%q) = %v, want nil", args, err)
		}
	}
}

func TestCheckFrontShowsACommandLineQuotedAndCutShort(t *testing.T) {
	err := CheckFront("%3", ports.Foreground{Args: []string{"bash", "-c", "read x\x1b[2J; echo \"$x\"", ""}})
	if err == nil || !strings.Contains(err.Error(), `bash -c "read x\x1b[2J; echo \"$x\"" ""`) {
		t.Errorf("refusal %v, want the command line quoted, its escape shown as \\x1b", err)
	}
	err = CheckFront("%3", ports.Foreground{Args: []string{"bash", "./build.sh", strings.Repeat("é", 200)}})
	if err == nil || !strings.Contains(err.Error(), "bash ./build.sh ééé") || !strings.Contains(err.Error(), "...") ||
		strings.Contains(err.Error(), strings.Repeat("é", 80)) {
		t.Errorf("refusal %v, want the command line cut to 80 characters", err)
	}
}

func TestShownArgs(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"bash", "./build.sh"}, "bash ./build.sh"},
		{[]string{"bash", "-c", "a b"}, `bash -c "a b"`},
		{[]string{"bash", "$x"}, `bash "$x"`},
		{[]string{"bash", "-c", ""}, `bash -c ""`},
		// Exactly 80 characters are shown whole; 81 are cut to 77 and "...".
		{[]string{"bash", strings.Repeat("x", 75)}, "bash " + strings.Repeat("x", 75)},
		{[]string{"bash", strings.Repeat("x", 76)}, "bash " + strings.Repeat("x", 72) + "..."},
	} {
		if got := shownArgs(tt.args); got != tt.want {
			t.Errorf("shownArgs(%q) = %q, want %q", tt.args, got, tt.want)
		}
	}
}
