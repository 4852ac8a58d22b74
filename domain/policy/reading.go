package policy

import (
	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// CheckReading is run_shell_command's rule for a shell in front of the
// pane's terminal, with nothing of its own running, whose terminal does
// not say it is at its prompt. A line-editing shell (bash, zsh and mksh
// with their editors on) sets its terminal raw while it waits at its
// prompt, and back to canonical input while it runs anything, a `read`
// of its own included: `read -p 'Password: ' pw`, typed by a person at
// the prompt, has the shell itself read the next line, so a command typed
// now would be its answer. editing says whether the terminal is set as a
// line editor sets it now (ports.JobControl.LineEditing); seenEditing,
// whether this shell, the same process, was seen so at its prompt
// before. Only then does a canonical terminal tell: a shell never seen
// with line editing on (dash, bash --noediting, or one met for the first
// time) is not refused for it.
func CheckReading(id ports.PaneID, editing, seenEditing bool) error {
	if editing || !seenEditing {
		return nil
	}
	return &fault.RefusalError{Pane: id, Why: fault.RefusedReading,
		Reason: "its shell is not at its prompt: its line editor is off, as while the shell itself reads a line " +
			"(a `read` at its prompt, such as a password prompt), so the command would be typed in as that line"}
}
