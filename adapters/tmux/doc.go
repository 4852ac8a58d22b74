// Package tmux is the tmux implementation of ports.Terminal, for tmux 3.2
// or newer. It runs the tmux client with argv only, never through a shell,
// and imports nothing but the standard library and ports.
//
// # Calls
//
// Every method runs one short-lived tmux client, whose commands may be
// chained with ";" arguments so that a check and an action run together in
// one pass of tmux's command queue:
//
//   - Pane: list-panes of the pane's window, list-clients and list-windows,
//     all in one invocation (see Pane for how watchers are told).
//   - SendText: send-keys -l in chunks of at most 8 KiB (tmux refuses
//     commands over about 16 KiB), cut at UTF-8 boundaries. A line feed is
//     typed as C-j, which readline shells and shells reading a canonical
//     tty both take as the end of a line.
//   - SendKeys: send-keys with names checked beforehand against tmux's key
//     vocabulary, because tmux types an unknown name as text.
//   - Paste: load-buffer from standard input into a buffer private to the
//     call, then paste-buffer -d -p, guarded by if-shell so that it never
//     targets a dead pane (which crashes tmux 3.3a). Line feeds become
//     carriage returns, as when text is pasted into a terminal emulator.
//   - Capture: capture-pane -p with the port's row numbers, which are
//     tmux's.
//
// tmux takes any argument ending in ";" as the end of a command, so such
// arguments are passed as "...\;", which tmux turns back into "...;".
//
// # Output streams
//
// OpenOutput attaches a control-mode client ("tmux -C attach-session -f
// ignore-size,read-only") to a session holding the pane, one client per
// session, started on demand and stopped after Options.IdleTimeout without
// open streams. See output.go for how offsets, loss and pane death are
// handled. Attaching a client is visible to tmux: the session counts as
// attached while it is there, client-attached hooks run, and a session
// with destroy-unattached on is destroyed when the client leaves.
// Clients attach one at a time, and while one attaches the Terminal does
// nothing that tmux reports to every control client (detaching another,
// creating, renaming or killing a session, pane or window): tmux 3.3a
// crashes when such a report reaches a client still attaching (see
// control.go).
//
// # Errors
//
// A pane tmux cannot find yields an error wrapping ports.ErrPaneNotFound, a
// dead pane one wrapping ports.ErrPaneDead, and an unreachable server or a
// missing or too old tmux one wrapping ports.ErrUnavailable. Failures of
// tmux commands are *CommandError values.
package tmux
