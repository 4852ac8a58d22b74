// Package frame is the wire format of a framed command: what the server
// types into a pane's shell, the script that line makes the shell read, the
// markers the shell prints while it runs the command, and the Scanner that
// finds those markers in the pane's output stream.
//
// # How a command is framed
//
// The server puts a short script in a file the pane's shell can read (see
// ports.ScriptStore) and types one short line that sources it:
//
//	: 'make test'; [ -r /run/tmux-mcp-1234/7 ] || builtin printf '\033]7717;tmcp;X;<unread>\007'; . /run/tmux-mcp-1234/7
//
// (The test comes first, and not "… || marker" after sourcing, because
// bash and zsh ignore set -e in everything the left side of || runs, the
// command's own set -e included.)
//
// The line says what runs (the command's first line, quoted, as the
// argument of the no-op ":") and nothing else: no command text in encoded
// form, no marker and no id that a marker needs. The script, all on one
// line so that every supported shell reads and parses the whole of it
// before it runs any of it, then
//
//  1. empties its own file, so that what it holds is gone from the disk
//     before the command runs (and the server can tell that the shell took
//     it: an emptied file);
//  2. (bash) deletes the typed line from the history, if it was recorded;
//  3. prints the start marker;
//  4. runs the command in a child shell — a ( ) subshell that traps SIGINT
//     to exit 130 and evals the command text, which the script holds
//     single-quoted; for fish a child fish under sh, which runs a second
//     file holding the command text — or, with Options.Persist, in the
//     shell itself (see "Persist and the agent's environment" below);
//  5. prints the end marker with the command's exit status.
//
// The script holds to this whatever the user set up in the shell: it
// writes its file with >|, which set -C (noclobber) allows; it prints
// with the shell's built-in printf (print in ksh) through "builtin" or
// "command", which no alias or function of that name intercepts; and it
// turns xtrace (set -x) off before the start marker and back on after the
// end marker, so that no trace of its own is taken for output (the
// command runs without it: a command that wants its trace sets -x).
//
// Nothing in it starts a program but the command itself (and, for fish,
// the child shell): the markers come from printf (print in ksh), the
// text is a quoted word, the history is read with builtins.
//
// # Markers
//
//	start:  ESC ] 7717 ; tmcp ; S ; <id> BEL
//	end:    ESC ] 7717 ; tmcp ; E ; <id> ; <secret> ; <status> BEL
//	unread: ESC ] 7717 ; tmcp ; X ; <unread> BEL
//
// Each is an OSC sequence with a private number, which terminals and tmux
// swallow without showing anything. The shell builds them at run time from
// printf escapes, so the typed line and its echo hold backslash-digits,
// never the ESC and BEL bytes: no echo or prompt can be mistaken for a
// marker. <status> is decimal as strconv.Itoa writes it.
//
// The three values are fresh for every command and tell different readers
// different things. <id> names the frame: anything that sees the start
// marker may learn it. <secret> is only in the script, which the shell has
// emptied before the command starts, and in the end marker, which the
// shell prints after the command has ended: so the command itself cannot
// print a valid end marker, whatever it reads on the screen, in the
// history, in the scrollback or in a recording of the pane's output made
// before it started. <unread> is the only value the typed line holds: the
// shell prints the unread marker when it cannot read the script, which
// tells the server that the command never ran.
//
// # Persist and the agent's environment
//
// By default a framed command runs in a child shell (a ( ) subshell; for
// fish a child fish), so that nothing it does to its shell — cd, export,
// set -e, exit — reaches the shell its user types into. Options.Persist
// runs it in that shell itself instead, for an agent that means to change
// it (cd into a project, source a virtualenv's activate, define a
// function):
//
//   - POSIX families (bash, zsh, sh, ksh): the script evals the command
//     text at its own top level, in the shell that sources it, where the
//     child shell's ( ) would have been; the status is taken right after
//     the eval, as before. No trap is set: the shell's own traps stay as
//     they are.
//   - fish: the typed line sources the command's text file in the shell
//     (source, where the child fish ran it), and then the end script, as
//     before.
//
// What that means, and what a caller must know:
//
//   - exit ends the shell (POSIX families): a pane whose shell it is dies,
//     and the call ends pane_died; a shell nested in the pane's ends
//     without the frame's end (the domain sees it gone: shellgone.go). In
//     fish, exit in a sourced file ends the file, not the shell: the
//     command ends with exit's status.
//   - return outside a function (POSIX families) returns from the script
//     the line sources, so the frame's end never comes: the call ends as
//     abandoned once the shell is seen back at its prompt (exit status
//     unknown), where the backend tells the foreground, and otherwise at
//     its timeout. In fish the end still comes.
//   - set -e stays set in the shell: a later failing command, of the
//     frame or typed by the person, exits the shell. exec replaces the
//     shell: nothing prints the end, and the pane runs what exec ran.
//   - An interrupt (C-c) that kills the command's job makes an interactive
//     shell give up the rest of the line, end marker included (the frame's
//     own trap is not there to catch it): the call ends as abandoned.
//   - Traps, DEBUG traps and hooks the command sets stay, and run in the
//     shell while it prints the frame's end: one that prints, prints into
//     the command's output, and a DEBUG trap sees the end's own commands,
//     secret included. A command that sets one can therefore forge its
//     status; without such a trap nothing it runs can.
//   - xtrace (set -x) the command turns on stays on after it; the
//     frame's end is traced to /dev/null, but for ksh, which traces to
//     its own stderr whatever the frame redirects: there the trace of the
//     end's first commands, up to its set +x, shows in the output (never
//     the secret, which comes after).
//   - AgentEnv is not applied: the command sees the shell's environment
//     as it is.
package frame
