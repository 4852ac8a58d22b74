package ports

import "context"

// An InputWatcher is a Terminal that can tell whether the job in front of
// a pane's terminal is blocked reading that terminal: a command that asks
// a question (a password, "Continue? [y/N]", a pager's or an editor's
// keys) and waits for someone to answer. A Terminal that can tell should
// offer it; the domain otherwise waits for such a command until its
// deadline, as for any other.
type InputWatcher interface {
	// Reading reports whether a process of the foreground process group
	// of the pane's terminal is blocked reading that terminal, and what
	// the terminal's mode is. A process that reads something else — a
	// pipe, a file, a heredoc — is not reading the terminal, even with the
	// terminal open. Errors wrap ErrUnsupported when the backend cannot
	// tell (another host, another system, or the kernel refuses to say);
	// they wrap ErrPaneNotFound and ErrUnavailable as Terminal's do.
	Reading(ctx context.Context, id PaneID) (Reading, error)
}

// Reading is what an InputWatcher found on a pane's terminal.
type Reading struct {
	// Blocked: a process of the foreground group sleeps reading the
	// terminal (or, its terminal in raw mode, waiting on it with poll or
	// select). The other fields describe that process and the terminal
	// only when Blocked is set.
	Blocked bool

	// Echo and Canonical are the terminal's ECHO and ICANON flags: a
	// password prompt turns echo off and keeps canonical input; a pager,
	// an editor or a line editor (readline) turns canonical input off.
	Echo, Canonical bool

	// PID is the reading process's id.
	PID int

	// Program is the executable the reading process runs, without its
	// path, as PaneInfo.Program tells one ("less", "vim.basic",
	// "python3.11"); "" when it cannot be told.
	Program string

	// Command is the name the reading process was started under, without
	// its path (its argv[0]: "irb" for a Ruby REPL whose Program is
	// "ruby3.1"); "" when it cannot be told.
	Command string

	// Weak: the backend could not see which system call the process sleeps
	// in, and told from what else it could see (the kernel's wait channel,
	// the process's open files, the terminal's mode), which a process that
	// waits on something else with the terminal open may also show.
	Weak bool
}
