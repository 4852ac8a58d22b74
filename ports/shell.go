package ports

import "context"

// ScriptState tells what became of a script that a pane's shell was given
// to read (see ScriptStore).
type ScriptState int

const (
	// ScriptUnknown: the backend cannot tell whether the shell read it.
	ScriptUnknown ScriptState = iota
	// ScriptUntouched: the file still held what was put there, so the
	// shell has not begun to run it (and, the file being gone now, never
	// will).
	ScriptUntouched
	// ScriptTaken: the file no longer held what was put there: a framed
	// script empties its file first thing, so the shell has read it.
	ScriptTaken
)

// A ScriptStore keeps short-lived script files where the shell of a pane
// can read them with its "." builtin, so that a long command needs no long
// typed line. A file is readable by the user that runs the pane's shell and
// nobody else.
type ScriptStore interface {
	// PutScript stores a new script for the pane's shell and returns the
	// path by which that shell reads it. build is called once, with that
	// path, and returns the script's contents (which may name the script
	// itself); it must not call the ScriptStore.
	PutScript(ctx context.Context, id PaneID, build func(path string) []byte) (path string, err error)

	// ReadScript returns what the file of a script that PutScript stored
	// holds now: the script, until the shell has read it; then what the
	// shell wrote there. ok is false when there is no such script. It
	// returns an error wrapping ErrUnsupported when the backend cannot
	// read the file back.
	ReadScript(ctx context.Context, id PaneID, path string) (content []byte, ok bool, err error)

	// RemoveScript deletes a script that PutScript stored for the pane,
	// so that the shell can no longer read it, and tells what it found:
	// ScriptTaken when the file no longer held what was put there,
	// ScriptUntouched when it still did, ScriptUnknown when the backend
	// cannot tell. Removing a script that is already gone is not an error.
	RemoveScript(ctx context.Context, id PaneID, path string) (ScriptState, error)
}

// A ScriptWitness is a ScriptStore that can tell whether a script was
// read by something other than the pane's shell that it was put there
// for. A framed command's script holds the secret that authenticates its
// end, so a script read by another process is a frame whose end that
// process can forge. A ScriptStore that offers it should; the domain
// otherwise trusts the secret alone (and documents so).
type ScriptWitness interface {
	// ScriptExposed reports whether a process other than the pane's shell
	// may have read the script that PutScript stored at path while it
	// still held what was put there, or learned its name where only that
	// shell should. It returns an error wrapping ErrUnsupported when the
	// backend cannot tell, for that script or at all.
	ScriptExposed(ctx context.Context, id PaneID, path string) (bool, error)
}

// JobControl tells what a pane's terminal device says about the programs
// using it. A backend that cannot see the pane's terminal (it runs on
// another host) returns errors wrapping ErrUnsupported, and the domain
// then does without: it documents what guarantee it gives then.
type JobControl interface {
	// Foreground describes the foreground process group of the pane's
	// terminal: while a shell sits between commands, the shell's own.
	Foreground(ctx context.Context, id PaneID) (Foreground, error)

	// LineEditing reports whether the pane's terminal is set as a line
	// editor sets it while it reads a line: canonical input and echo both
	// off. A shell with line editing (bash, zsh, fish, mksh) at its
	// prompt sets it so; a shell still starting up, or one without line
	// editing (dash), does not. Errors wrap ErrUnsupported when the
	// backend cannot tell.
	LineEditing(ctx context.Context, id PaneID) (bool, error)
}

// Foreground is the foreground process group of a pane's terminal.
type Foreground struct {
	// Group is the group's id, which is its leader's process id: a shell
	// between commands leads the foreground group; while it runs a
	// command, the command's group (or a subshell's) is in front.
	Group int

	// Children are the processes that the group's leader started and
	// that still run, in no particular order; nil when the leader has
	// exited and the group lives on without it.
	Children []int

	// Args is the leader's command line as it was started, its program
	// first ("bash", "./build.sh"): what tells a shell that reads its
	// commands from the terminal from one that runs a script or a -c
	// command. Empty but not nil when the leader has exited (the rest of
	// its group runs on, as the later commands of a pipeline do); nil when
	// the backend could not read it. Its first word is only a name, which
	// whoever started the leader chose (`exec -a bash python3`): Program
	// says what runs.
	Args []string

	// Program is the executable the leader runs, without its path, as
	// the process itself tells (see PaneInfo.Program): "python3.11" for a
	// Python REPL started as "bash", the interpreter of a script. "" when
	// it cannot be told: the leader has exited, or the backend could not
	// read it (a backend that reads a remote host's processes fills it
	// when it can read them there).
	Program string
}
