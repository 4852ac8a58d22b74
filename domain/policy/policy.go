// Package policy is the write policy: every write is checked against a
// fresh description of the pane before a single byte is sent, and refused
// with a *fault.RefusalError that says why. It also holds the vocabulary
// of the keys a caller may press.
package policy

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/domain/frame"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// A Use is what a call would do to a pane; the rules it is checked
// against follow from it.
type Use int

const (
	// Type is input for the pane's program: a framed command, a paste,
	// typed text.
	Type Use = iota
	// Press is keys pressed on purpose, which may go to the pane's mode:
	// the one way out of a mode with the server's own tools is to press
	// its keys (q or Escape leave copy mode).
	Press
	// End is ending the pane or clearing its history: who would be
	// affected matters, not where input would go.
	End
)

// A rule refuses a pane for some uses.
type rule struct {
	why     fault.Refusal
	fact    ports.Fact // the fact the rule reads, refused for when unknown; "" for none
	uses    []Use
	applies func(info ports.PaneInfo, force bool) bool
	reason  func(info ports.PaneInfo) string
}

// rules are checked in order; the first that applies refuses.
var rules = []rule{
	{fault.RefusedDead, "", []Use{Type, Press},
		func(info ports.PaneInfo, _ bool) bool { return info.Dead },
		func(ports.PaneInfo) string { return "its process has exited (the pane is dead)" }},
	{fault.RefusedWatched, ports.FactWatched, []Use{Type, Press, End},
		func(info ports.PaneInfo, _ bool) bool { return len(info.Watchers) > 0 },
		func(info ports.PaneInfo) string {
			return fmt.Sprintf("a person is watching it (%s)", strings.Join(info.Watchers, ", "))
		}},
	{fault.RefusedSelf, ports.FactSelf, []Use{Type, Press, End},
		func(info ports.PaneInfo, force bool) bool { return info.Self && !force },
		func(ports.PaneInfo) string {
			return "it is the pane this server itself runs in: a write or an end there would act on the server's own session"
		}},
	{fault.RefusedSynchronized, ports.FactAlsoReaches, []Use{Type, Press},
		func(info ports.PaneInfo, _ bool) bool { return len(info.AlsoReaches) > 0 },
		func(info ports.PaneInfo) string {
			return fmt.Sprintf("its input is synchronized, so it would also reach %s", joinPanes(info.AlsoReaches))
		}},
	{fault.RefusedInMode, ports.FactMode, []Use{Type},
		func(info ports.PaneInfo, _ bool) bool { return info.Mode != "" },
		func(info ports.PaneInfo) string {
			return fmt.Sprintf("it is in %s, so input would go to the mode and not to its program", info.Mode)
		}},
}

// unknownFacts are the facts each use needs known, in the order they are
// reported: a pane is refused when the backend cannot tell one of them.
var unknownFacts = map[Use][]ports.Fact{
	Type:  {ports.FactWatched, ports.FactAlsoReaches, ports.FactSelf, ports.FactMode},
	Press: {ports.FactWatched, ports.FactAlsoReaches, ports.FactSelf, ports.FactMode},
	End:   {ports.FactWatched, ports.FactSelf},
}

// Check returns a *fault.RefusalError when the pane described by info must
// not be put to use. force allows the server's own pane and nothing else:
// a pane a person is watching is refused with or without it.
//
// For End, action says what the call would do to the pane ("kill_window
// @1 would end it"), which the refusal says first.
func Check(info ports.PaneInfo, use Use, force bool, action string) error {
	refuse := func(why fault.Refusal, reason string) error {
		e := &fault.RefusalError{Pane: info.ID, Why: why, Reason: reason, Ending: use == End}
		if use == End {
			e.Reason = action + ", and " + reason
		}
		return e
	}
	for _, f := range unknownFacts[use] {
		if slices.Contains(info.Unknown, f) {
			return refuse(fault.RefusedUnknown, fmt.Sprintf("the terminal backend cannot tell %s, so it might not be safe", describeFact(f)))
		}
	}
	for _, r := range rules {
		if slices.Contains(r.uses, use) && r.applies(info, force) {
			return refuse(r.why, r.reason(info))
		}
	}
	return nil
}

// CheckRun is Check for a framed command, plus the rule of
// run_shell_command: the pane's foreground program must be a shell that
// the framing supports, by what runs and not only by its name (ShellOf).
// It returns that shell.
func CheckRun(info ports.PaneInfo, force bool) (frame.Shell, error) {
	if err := Check(info, Type, force, ""); err != nil {
		return "", err
	}
	if slices.Contains(info.Unknown, ports.FactCommand) {
		return "", &fault.RefusalError{Pane: info.ID, Why: fault.RefusedNoCommand,
			Reason: "the terminal backend cannot tell which program runs in the pane, so a framed command might not be understood"}
	}
	sh, ok := ShellOf(info.Program, info.Command)
	if !ok && Connector(info.Program, info.Command) {
		return "", &fault.RefusalError{Pane: info.ID, Why: fault.RefusedNotAShell,
			Reason: fmt.Sprintf("its foreground program is %s, which connects to a shell elsewhere; give farShell (the family of the shell that answers there: %s) to run the command in that shell",
				describeProgram(info.Program, info.Command), farShellNames())}
	}
	if !ok {
		return "", &fault.RefusalError{Pane: info.ID, Why: fault.RefusedNotAShell,
			Reason: fmt.Sprintf("its foreground program is %s, not a shell run_shell_command supports (bash, zsh, sh/dash, ksh, fish)",
				describeProgram(info.Program, info.Command))}
	}
	return sh, nil
}

func describeFact(f ports.Fact) string {
	switch f {
	case ports.FactWatched:
		return "whether a person is watching the pane"
	case ports.FactAlsoReaches:
		return "whether input to the pane also reaches other panes"
	case ports.FactSelf:
		return "whether the pane is the one this server runs in"
	case ports.FactMode:
		return "whether the pane is in a mode"
	default:
		return string(f)
	}
}

func joinPanes(ids []ports.PaneID) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = string(id)
	}
	return strings.Join(s, ", ")
}
