package frame

import "strings"

// AgentEnvironment is what Options.AgentEnv sets in the command's child
// shell: no pager (git, man, systemctl and whatever reads $PAGER print
// straight through), and git never asks for credentials on the terminal.
var AgentEnvironment = []string{"PAGER=cat", "GIT_PAGER=cat", "MANPAGER=cat", "SYSTEMD_PAGER=", "GIT_TERMINAL_PROMPT=0"}

// envExport is the command that exports AgentEnvironment, and a "; ". It
// is the same in every POSIX family and in the sh that runs fish's child.
const envExport = "export PAGER=cat GIT_PAGER=cat MANPAGER=cat SYSTEMD_PAGER= GIT_TERMINAL_PROMPT=0; "

// persistEnd is a POSIX family's end (__tmcp_s=$?; ...) for a command
// run in the shell itself: the status is taken first, and xtrace, which
// the command may have turned on, goes off quietly before the rest
// (__tmcp_x keeps whether it was on).
func persistEnd(end string) string {
	rest, ok := strings.CutPrefix(end, "__tmcp_s=$?; ")
	if !ok {
		panic("frame: an end that does not start by taking the status")
	}
	return "{ __tmcp_s=$?; __tmcp_x=$-; set +x; } 2>/dev/null; " + rest
}

// persistTail restores xtrace after a persisting command when the shell
// had it on before the frame or the command turned it on.
const persistTail = "case $__tmcp_o$__tmcp_x in *x*) unset __tmcp_o __tmcp_x; set -x;; *) unset __tmcp_o __tmcp_x;; esac"

// fishRun is what fish's typed line runs the text file with: the child
// shell, with or without AgentEnvironment, or for Persist the shell's own
// source.
func (c Command) fishRun() string {
	switch {
	case c.Persist:
		return "source "
	case c.AgentEnv:
		return fishChildEnv
	}
	return fishChild
}

// allOptions are every combination of Options, the default first.
var allOptions = []Options{{}, {AgentEnv: true}, {Persist: true}}

// lineOptions are the Options a family's typed line can tell apart: all
// of fish's, which runs the command from the line; only the default for
// the others, whose scripts run it.
func lineOptions(sh Shell) []Options {
	if (Command{Shell: sh}).NeedsTextFile() {
		return allOptions
	}
	return allOptions[:1]
}

// scriptOptions are the Options a family's script can tell apart: the
// converse of lineOptions.
func scriptOptions(sh Shell) []Options {
	if (Command{Shell: sh}).NeedsTextFile() {
		return allOptions[:1]
	}
	return allOptions
}

// Normalize returns o as the frame applies it: AgentEnv does nothing with
// Persist.
func (o Options) Normalize() Options {
	if o.Persist {
		o.AgentEnv = false
	}
	return o
}
