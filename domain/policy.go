package domain

import (
	"fmt"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/domain/frame"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// The refusal policy: every write is checked against a fresh description
// of the pane before a single byte is sent, and refused with a
// *RefusalError that says what to do instead.

// safetyFacts are the facts a write cannot go ahead without.
var safetyFacts = []ports.Fact{ports.FactWatched, ports.FactAlsoReaches, ports.FactSelf, ports.FactMode}

// CheckWrite returns a *RefusalError when input must not be sent to the
// pane described by info. force allows the server's own pane and nothing
// else: a pane a person is watching is refused with or without it.
func CheckWrite(info ports.PaneInfo, force bool) error {
	if err := CheckKeys(info, force); err != nil {
		return err
	}
	if info.Mode != "" {
		return &RefusalError{Pane: info.ID, Reason: fmt.Sprintf("it is in %s, so input would go to the mode and not to its program", info.Mode),
			Hint: "leave the mode first: send_keys reaches the mode (for copy mode, press q or Escape)"}
	}
	return nil
}

// CheckKeys is CheckWrite for keys pressed on purpose, which may go to a
// pane's mode: the one way out of a mode with the server's own tools is
// to press its keys (q or Escape leave copy mode). The mode must be known
// all the same, so that the caller is never told a key reached a program
// that a mode stood in front of.
func CheckKeys(info ports.PaneInfo, force bool) error {
	refuse := func(reason, hint string) error {
		return &RefusalError{Pane: info.ID, Reason: reason, Hint: hint}
	}
	for _, f := range safetyFacts {
		if hasFact(info.Unknown, f) {
			return refuse(fmt.Sprintf("the terminal backend cannot tell %s, so writing might not be safe", describeFact(f)),
				"use a backend that can tell it, or a pane you have checked by hand with capture_pane")
		}
	}
	switch {
	case info.Dead:
		return refuse("its process has exited (the pane is dead)", "choose a live pane")
	case len(info.Watchers) > 0:
		return refuse(fmt.Sprintf("a person is watching it (%s)", strings.Join(info.Watchers, ", ")),
			"choose a pane no attached client has on screen; force does not override this")
	case info.Self && !force:
		return refuse("it is the pane this server itself runs in, so the input would reach the server's own session",
			"pass force: true if you mean to write there")
	case len(info.AlsoReaches) > 0:
		return refuse(fmt.Sprintf("its input is synchronized, so it would also reach %s", joinPanes(info.AlsoReaches)),
			"turn off synchronized input for its window or choose a pane in another window")
	}
	return nil
}

// CheckRun is CheckWrite plus the rule of run_shell_command: the pane's
// foreground program must be a shell that the framing supports. It returns
// that shell.
func CheckRun(info ports.PaneInfo, force bool) (frame.Shell, error) {
	if err := CheckWrite(info, force); err != nil {
		return "", err
	}
	if hasFact(info.Unknown, ports.FactCommand) {
		return "", &RefusalError{Pane: info.ID,
			Reason: "the terminal backend cannot tell which program runs in the pane, so a framed command might not be understood",
			Hint:   "use paste_text or send_keys instead"}
	}
	sh, ok := frame.ShellFor(info.Command)
	if !ok {
		return "", &RefusalError{Pane: info.ID,
			Reason: fmt.Sprintf("its foreground program is %q, not a shell run_shell_command supports (bash, zsh, sh/dash, ksh, fish)", info.Command),
			Hint:   "let that program finish or quit it, or use send_keys / paste_text to talk to it"}
	}
	return sh, nil
}

func hasFact(facts []ports.Fact, f ports.Fact) bool {
	for _, g := range facts {
		if g == f {
			return true
		}
	}
	return false
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
