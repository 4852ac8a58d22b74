package frame

import (
	"fmt"
	"strings"
)

// A far shell is a shell the server reaches through a program in front of
// the pane's terminal (ssh, docker exec, su, ...): it runs where the
// server can put no file and see no process. Its frame is therefore typed
// whole, in two steps:
//
//   - FarProbe, a line whose only effect, in a shell of the family at its
//     prompt, is to print a start marker of its own id. Nothing of the
//     command is in it, so that a far side that is not such a shell (a
//     password prompt, a REPL, cat) is typed nothing that matters: if its
//     marker does not come back, nothing more is typed. A probe of one
//     family does not answer in another (it tests the family's own
//     variable), so a wrong farShell is found out before the command.
//   - FarLine, the frame itself, inline: the command in a child shell
//     between a start and an end marker, as the script of a local frame
//     runs it, with no file (no status file: a lost end marker is not made
//     up for).
//
// As in a local frame the markers are built by printf at run time, so the
// shell's echo of the typed text is never a marker; the line starts with
// Kill and a space, bash's deletes its own history entry, and zsh's probe
// sets up the hook (zshHistoryHook) that keeps the frame line out of the
// history. The secret is typed, so it is on the far shell's screen and in
// its memory: a far command could learn it (from the shell's history, where
// that was not kept clean), which is why a far run's result says it is far.

// farMark is the text a far line and probe carry for zsh's history hook,
// which keeps out of the history the lines that hold it after " : ".
const farMark = `'\033]7717;tmcp;X;'`

// farTest is the test a family's probe passes only in a shell of that
// family: its own variable set. POSIX sh has none of its own: any POSIX
// shell answers for it.
func farTest(sh Shell) string {
	switch sh {
	case ShellBash:
		return `[ -n "${BASH_VERSION-}" ] && `
	case ShellZsh:
		return `[ -n "${ZSH_VERSION-}" ] && `
	case ShellKsh:
		return `[ -n "${KSH_VERSION-}" ] && `
	}
	return ""
}

// FarProbe returns the probe line for a far shell of family sh (see
// above): Kill, a line that prints StartMarker(id, the shell's pid) in a
// shell of that family at its prompt, and a line feed. It panics if id is
// not a valid id.
func FarProbe(sh Shell, id string) string {
	if !validID(id) {
		panic(fmt.Sprintf("frame: probe id %q is not 1-64 ASCII letters, digits, '_' or '-'", id))
	}
	return farProbe(Command{Shell: sh}.family(), id)
}

func farProbe(sh Shell, id string) string {
	switch sh {
	case ShellFish:
		return Kill + " true " + farMark + "; set -q fish_pid; and builtin printf '\\033]7717;tmcp;S;" + id + ";%d\\007' $fish_pid\n"
	case ShellKsh:
		return Kill + " : " + farMark + "; " + farTest(sh) + `command print -n "\033]7717;tmcp;S;` + id + `;$$\007"` + "\n"
	}
	hook := ""
	if sh == ShellZsh {
		hook = zshHistoryHook
	}
	return Kill + " : " + farMark + "; " + hook + farTest(sh) + printer(sh) + ` '\033]7717;tmcp;S;` + id + `;%d\007' "$$"` + "\n"
}

// ParseFarProbe is FarProbe's inverse, for in-memory terminals and tests:
// the id of the probe typed (Kill and the final line feed, as "\r" or
// "\n", optional) into a shell of family sh; ok is false for anything else.
func ParseFarProbe(sh Shell, typed string) (id string, ok bool) {
	typed = strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(typed, Kill), "\n"), "\r")
	i := strings.Index(typed, "tmcp;S;")
	if i < 0 {
		return "", false
	}
	id, _, _ = strings.Cut(typed[i+len("tmcp;S;"):], ";")
	if !validID(id) {
		return "", false
	}
	want := strings.TrimSuffix(strings.TrimPrefix(farProbe(Command{Shell: sh}.family(), id), Kill), "\n")
	return id, typed == want
}

// FarLine returns the frame to type into a far shell of the command's
// family (see above): Kill, the command run between its start and end
// markers, and a line feed. A command of several lines is typed as it is,
// inside quotes, so the shell reads on (showing its continuation prompt)
// until the quote closes. Options.Persist is not offered: FarLine panics
// on it, as on ids that are not valid or a command with a NUL byte.
func (c Command) FarLine() string {
	if !c.IDs.Valid() {
		panic(fmt.Sprintf("frame: ids %+v are not three different ids of 1-64 ASCII letters, digits, '_' or '-'", c.IDs))
	}
	if c.Persist {
		panic("frame: a far shell's frame does not persist")
	}
	checkText(c.Text)
	return c.farLine(Preview(c.Text))
}

func (c Command) farLine(preview string) string {
	sh := c.family()
	q := quoter(sh)
	env := ""
	if c.AgentEnv {
		env = envExport
	}
	if sh == ShellFish {
		child := `sh -c 'trap "exit 130" INT; ` + env + `fish -c "$1"' sh `
		return Kill + " true " + q(preview) + " " + farMark + "; builtin printf '\\033]7717;tmcp;S;" + c.ID + ";%d\\007' $fish_pid; " +
			child + q(c.Text) + "; set __tmcp_s $status; builtin printf '\\033]7717;tmcp;E;" + c.ID + ";" + c.Secret +
			";%d\\007' $__tmcp_s; set -e __tmcp_s\n"
	}
	p := printer(sh)
	start := p + ` '\033]7717;tmcp;S;` + c.ID + `;%d\007' "$$"`
	end := `__tmcp_s=$?; ` + p + ` '\033]7717;tmcp;E;` + c.ID + `;` + c.Secret + `;%d\007' "$__tmcp_s"; unset __tmcp_s`
	if sh == ShellKsh {
		start = p + ` "\033]7717;tmcp;S;` + c.ID + `;$$\007"`
		end = `__tmcp_s=$?; ` + p + ` "\033]7717;tmcp;E;` + c.ID + `;` + c.Secret + `;$__tmcp_s\007"; unset __tmcp_s`
	}
	var b strings.Builder
	b.WriteString(Kill + " : " + q(preview) + " " + farMark + "; __tmcp_o=$-; set +x; ")
	if sh == ShellBash {
		// bash has recorded the line unless told not to: its newest entry
		// goes when it is this frame's, never an entry of the user's.
		b.WriteString("case $(builtin history 1 2>/dev/null) in *tmcp\\;S\\;" + c.ID + "*) builtin history -d -1 2>/dev/null;; esac; ")
	}
	b.WriteString(start + "; (trap 'exit 130' INT; " + env + "eval " + q(c.Text+"\n") + "); " + end + "; ")
	b.WriteString("case $__tmcp_o in *x*) unset __tmcp_o; set -x;; *) unset __tmcp_o;; esac\n")
	return b.String()
}

// ParseFarLine is FarLine's inverse, for in-memory terminals and tests:
// given text typed into a far shell of family sh (Kill and the final line
// feed, as "\r" or "\n", optional), it returns the command (with Unread
// empty, which a far frame does not use). ok is false when typed is not
// exactly a line FarLine writes.
func ParseFarLine(sh Shell, typed string) (c Command, ok bool) {
	typed = strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(typed, Kill), "\n"), "\r")
	c = Command{Shell: sh}
	i, j := strings.Index(typed, "tmcp;S;"), strings.LastIndex(typed, "tmcp;E;")
	if i < 0 || j < 0 {
		return Command{}, false
	}
	c.ID, _, _ = strings.Cut(typed[i+len("tmcp;S;"):], ";")
	_, rest, _ := strings.Cut(typed[j+len("tmcp;E;"):], ";")
	c.Secret, _, _ = strings.Cut(rest, ";")
	if !validID(c.ID) || !validID(c.Secret) || c.ID == c.Secret {
		return Command{}, false
	}
	fish := c.family() == ShellFish
	at := "eval "
	if fish {
		at = `"$1"' sh `
	}
	k := strings.Index(typed, at)
	if k < 0 {
		return Command{}, false
	}
	text, _, ok := cutWord(c.family(), typed[k+len(at):])
	if !ok {
		return Command{}, false
	}
	if !fish {
		if text, ok = strings.CutSuffix(text, "\n"); !ok {
			return Command{}, false
		}
	}
	c.Text = text
	for _, o := range []Options{{}, {AgentEnv: true}} {
		c.Options = o
		if strings.TrimSuffix(strings.TrimPrefix(c.farLine(Preview(c.Text)), Kill), "\n") == typed {
			return c, true
		}
	}
	return Command{}, false
}
