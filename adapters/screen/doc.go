// Package screen is the GNU screen implementation of ports.Terminal, for
// screen 4.06 to 4.x (tested with 4.09 on Linux). It is the second real
// backend beside tmux, and the worked example of adding one: README.md in
// this directory walks through the mapping.
//
// A Terminal serves one screen session. Its panes are the session's
// windows: pane "%N" is window number N. screen gives a closed window's
// number to the next window it opens, so an id can come back for another
// window; PaneInfo.Generation (the pid and start time of the window's
// program) tells them apart, and the streams of the old window end.
//
// # Calls
//
// The adapter runs the screen client with argv only, never through a
// shell, one short-lived process at a time: "screen -S <pid.name> [-p N]
// -X <command>" to act and "-Q <query>" to ask. screen answers every query
// of a session through one socket name and mixes up answers when clients
// meet, so the Terminal runs its clients one after another. A -X command
// reports nothing, not even a window it could not find, so each call looks
// the window up first ("-Q windows %n;"), and a query after a command
// serves as the barrier after which screen has carried it out.
//
// Facts about a window's program come from /proc, not from screen: screen
// starts each window's program as its own child with WINDOW=<N> in the
// environment, which finds its pid; its terminal gives the foreground
// program (Command) and the size. HistorySize is counted in a hardcopy of
// the scrollback.
//
// # What screen cannot tell
//
// What screen cannot tell is listed in PaneInfo.Unknown, so that the domain
// refuses to write rather than guess:
//
//   - Copy mode (ports.FactMode), always: screen 4.9 cannot be asked
//     whether a window is in copy mode, and a window stays in copy mode
//     after its display detached. Input sent to it then goes to copy mode.
//     Options.AssumeNoCopyMode lets an operator vouch for a session no
//     person attaches to.
//   - Who watches (ports.FactWatched), while a display is attached:
//     screen marks its socket while one is (PaneInfo.Attended), but cannot
//     say which windows a display shows.
//
// AlsoReaches is always empty: screen has no synchronized input.
// HistoryLimit is Options.HistoryLimit, since screen's only report of a
// window's scrollback ("info") crashes a detached session when the window
// has activity monitoring on. Capture with JoinWrapped fails with
// ports.ErrUnsupported: screen keeps no record of wrapped rows.
//
// # Hazards of screen 4.9 this adapter steers around
//
// Some queries crash a detached session, reading the display that a query
// from outside lacks (the %e escape of "windows", "info" on a window with
// monitoring on): the adapter asks only "windows %n;" and "echo". Input screen cannot write to a window at once is lost
// or hangs the session (see "How input reaches a window" in input.go), so
// input is metered against what the window's programs read. Emptying the
// register of a paste in progress crashes screen, so pastes use two
// registers, which makes screen copy them. While a display is attached,
// queries and screen's reports of commands flash on its message line.
//
// # Errors
//
// A window the session does not have yields an error wrapping
// ports.ErrPaneNotFound, a window whose program has exited one wrapping
// ports.ErrPaneDead, and a missing or unsupported screen or a session that
// does not answer one wrapping ports.ErrUnavailable. Failures of screen
// commands are *CommandError values.
package screen
