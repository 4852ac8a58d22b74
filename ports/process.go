package ports

import "context"

// A ProcessWatcher tells which processes started on a pane's terminal
// since a mark and still run there: what a command left running when it
// ended (a server started with "&"). A backend that cannot see the
// pane's processes returns errors wrapping ErrUnsupported, and the
// domain then says nothing of what was left.
type ProcessWatcher interface {
	// ProcessMark marks the processes that have started so far, on the
	// pane's host.
	ProcessMark(ctx context.Context, id PaneID) (ProcessMark, error)

	// ProcessesSince lists the processes that started after mark, have
	// the pane's terminal as their controlling terminal and still run
	// (a zombie does not), in no particular order. Errors: ErrPaneNotFound
	// for no such pane; ErrUnsupported as above.
	ProcessesSince(ctx context.Context, id PaneID, mark ProcessMark) ([]Process, error)
}

// A ProcessMark is where ProcessWatcher.ProcessMark found the host's
// processes; only the backend that made it knows what it holds.
type ProcessMark struct {
	// Seq is the backend's own count (the newest process id, on Linux).
	Seq int64
}

// Process is one process on a pane's terminal.
type Process struct {
	PID    int
	Parent int // its parent process's id
	Group  int // its process group's id
	// Command is its command line, arguments joined by spaces; its
	// program's name when the command line cannot be read.
	Command string
	// Foreground: its group is the foreground group of the pane's
	// terminal.
	Foreground bool
	// Young: it started so recently (or when it started cannot be told)
	// that it may not have run its program yet: a process just forked
	// still has its parent's command line, until it execs its own.
	Young bool
}
