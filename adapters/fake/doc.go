// Package fake is an in-memory terminal and clock for tests: a
// ports.Terminal whose panes have a screen, an output stream and a
// scripted shell, and a ports.Clock that moves only when a test moves it.
// Nothing runs in the background and no process is started, so tests on
// them are fast and deterministic.
//
// A typical test of code that waits:
//
//	term := fake.New()
//	id := term.AddPane(fake.PaneSpec{}) // %0, bash, 80x24
//	term.Expect(id, fake.Run{Output: "ok\n", Delay: 2 * time.Second, Status: 1})
//	go func() { done <- run(svc, id) }()  // types a framed command and waits
//	term.Clock().WaitForTimers(ctx, 1)    // the code under test now waits
//	term.Clock().Advance(2 * time.Second) // the command ends: "ok", status 1
//
// The package's examples run such a test in full: a run_shell_command
// call on the domain's Service, at once and on the moved clock.
//
// The fake passes the contract suite of test/contract, which every
// Terminal adapter passes, so code tested on it meets real backends on the
// same terms. Where the fake is stricter than a real backend it is so on
// purpose, to catch callers that rely on what the port does not promise: a
// capture range outside the pane is an error rather than clamped, and
// bytes written before a stream was opened are reported as missed.
//
// # Screens
//
// What a pane's program writes goes through a small terminal emulation:
//
//   - Printable text, one cell per rune (wide and combining characters are
//     not modelled), wraps at the right margin as in xterm and tmux: the
//     cursor waits on the last column and the next printable rune wraps,
//     so a line of exactly the width followed by "\r\n" is not a wrapped
//     line. Wrapped rows are remembered for CaptureRange.JoinWrapped.
//   - "\r" returns to column 0; "\n" (and VT, FF) moves down a row in the
//     same column, scrolling at the bottom; "\b" moves left; "\t" moves to
//     the next multiple of 8. Other control characters are ignored.
//   - Escape sequences (CSI, OSC, DCS and the short ESC forms) are parsed
//     and not displayed, also when split across writes. The one acted on
//     is bracketed paste on and off (CSI ? 2004 h and l).
//   - History is trimmed as tmux trims it: when a row scrolls off the top
//     while the history already holds HistoryLimit rows, the oldest
//     max(1, HistoryLimit/10) rows are dropped first, in one batch. Once
//     full, the history size therefore moves between limit-limit/10+1 and limit,
//     and a capture just after a trim reaches less far back than the limit
//     suggests. A limit of 0 keeps no history.
//
// Capture follows the port's rows (0 is the top of the screen, -1 the
// newest history row) and trims trailing blanks.
//
// # Output streams
//
// Every byte a pane's program writes (the shell's echo and prompts,
// command output, Inject) is appended to the pane's output at absolute
// offsets, which keep counting for as long as the Terminal lives, across
// streams and respawns. The newest DefaultOutputWindow bytes (or
// WithOutputWindow, PaneSpec.OutputWindow) are retained; ReadFrom counts
// older ones, and those LoseOutput declares lost, in Missed. Changed
// receives one coalesced value per burst of changes, never blocking. A
// stream ends (Ended) with ErrPaneDead when the pane's process exits, with
// ErrPaneNotFound when the pane is removed, and with ErrStreamClosed when
// closed; an ended stream receives nothing more.
//
// # The scripted shell
//
// A pane whose command is a shell (a name frame.ShellFor knows) behaves
// like an interactive shell on a tty, closely enough for tests:
//
//   - At its prompt it edits a line: printable text is echoed, BSpace (or
//     C-h) erases a character, C-u discards the line so far, C-c abandons
//     the line ("^C" and a new prompt), C-d on an empty line exits the
//     shell (the pane dies), and other keys such as arrows and function
//     keys are ignored. Inside a bracketed paste, newlines are inserted
//     rather than entered.
//   - Enter ("\r" or "\n", also inside typed text) runs the line, unless it
//     ends with a backslash or inside a single-quoted string: then the
//     shell prints "> " and reads on.
//   - A line that frame.ParseLine recognizes as a framed command's line
//     reads the script it names from the ScriptStore (PutScript), as a
//     real shell would: the script empties its file, the shell prints
//     frame.StartMarker with the pane's pid, runs the command, writes its
//     status into the script's file and prints frame.EndMarker with it.
//     A missing script prints the shell's error and the unread marker; a
//     script that is not exactly what package frame writes is not run.
//     What the command does is the next Run queued with Expect, else what
//     the Script function returns, else what the interpreter below makes
//     of it. A line framed for a shell family other than the pane's is
//     not run: the shell prints an error and no marker.
//   - A shell can be made to start slowly (SetStarting): until it has
//     started it prints no prompt, the tty echoes what is typed and keeps
//     it (C-c throws it away), LineEditing is false; then the shell reads
//     what was kept.
//   - Other text is run by the interpreter as the shell itself would run
//     it: exit there ends the shell and kills the pane.
//   - The shell can be made to read a line itself at its prompt, as a
//     `read -p` typed there does (Ask): the terminal is canonical
//     (LineEditing is false), nothing else is in front, and the next
//     line typed is the read's answer (Answers), not a command.
//   - While a command runs, typed bytes are echoed as a tty in canonical
//     mode echoes them ("^C" for C-c, "^[" for Escape, "\r\n" for a line
//     end) and kept as type-ahead that the shell reads when the command
//     ends (cat reads them instead). C-c ends the command with status 130,
//     and a framed command then prints its end marker with 130, as the
//     real frame's trap does, unless the Run ignores interrupts; either
//     way the type-ahead is thrown away, as the tty does.
//   - Program output reaches the screen and the stream with each "\n"
//     turned into "\r\n", as a tty's output processing does. Inject writes
//     bytes exactly as given.
//   - Input to a pane in a mode, or whose program is not a shell (see
//     SetCommand, SetProgram), reaches no program: only Sent records it.
//
// # The interpreter
//
// A deliberately tiny subset of sh, enough for the contract suite and for
// readable tests:
//
//   - Commands are separated by ";" or newlines, and "||" runs the next
//     one only if the one before failed; "#" starts a comment.
//   - Words may be quoted with '...' or "..." (in which \ escapes $ ` " \
//     and newline) or escaped with \; backslash-newline joins lines.
//   - $((...)) expands integer arithmetic: + - * / % and parentheses; $$
//     is the shell's pid. There are no variables; a lone $ is literal.
//   - Redirections: >/dev/null and 2>/dev/null (also 1>, and with a space
//     before the file) discard a stream; 2>&1 and >&2 change nothing,
//     since both streams reach the terminal.
//   - Commands: echo [-n] ARGS (no escapes, as in bash); stty echo and stty
//     -echo (the tty's echo while a command reads); printf FORMAT
//     [ARGS] (escapes; %s %d %i %c %b %% with flags, width and precision;
//     the format is reused while arguments remain); true; :; false;
//     exit [N]; sleep SECONDS, on the fake clock; . FILE (also "command ."
//     and "source"), which runs a script of the ScriptStore; and cat without
//     arguments, which reads the terminal until C-d and prints what it
//     reads unless its output goes to /dev/null.
//   - Any other command prints "<shell>: <name>: command not found" and
//     has status 127.
//   - Pipes, &&, <, subshells, background jobs, variables and command
//     substitution are not supported: such a line prints a syntax error
//     and has status 2, so a test that relies on them fails visibly
//     instead of passing by accident.
//
// # Test controls
//
// SignalGroup (ports.Signaler) signals the running command's job, the one
// group besides the shell's: INT ends it as C-c does, TERM, HUP and KILL
// with status 128+n; Signals lists what was sent. FrameOptions lists the
// frame.Options each framed command ran with (persist, the agent's
// environment), which the scripted shell cannot show otherwise: a command
// run in the shell itself (persist) ends the shell with exit.
// ProcessExists (ports.ProcessChecker) knows the shell, its command and
// its prompt's program; NestedShellExits has the shell that runs a framed
// command exit under it, the pane's own shell, another process, back.
//
// Besides the port's methods, a Terminal has controls for tests (AddPane,
// KillPane, SetMode, Attach, Synchronize, Inject, LoseOutput, Blind,
// Respawn, Replace, SetStarting, SetNoJobControl, Expect, Sent, Scripts,
// ...). Its JobControl tells the foreground from its scripted jobs: the
// shell is in the foreground while it runs no command, and its line
// editor is active at the prompt for every family but sh. They panic when the pane does not exist, since that
// is a mistake in the test, not a situation under test.
package fake
