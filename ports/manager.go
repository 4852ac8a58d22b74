package ports

import (
	"context"
	"errors"
	"time"
)

// Errors a Manager returns besides those of errors.go, possibly wrapped.
var (
	// ErrNotFound: no session or window has the given id or name. (A pane
	// that does not exist is ErrPaneNotFound.)
	ErrNotFound = errors.New("no such session or window")

	// ErrNameInUse: another session already has the name asked for.
	ErrNameInUse = errors.New("name already in use")

	// ErrInvalidName: the backend would not store the name as given (it
	// would store it changed, so that a lookup by the name would fail).
	ErrInvalidName = errors.New("name not stored as given")
)

// Identifiers a Manager accepts and returns are opaque strings of the
// backend's (tmux writes "$2" for a session, "@5" for a window, "%3" for a
// pane); each backend checks the ones it is given. Where a method takes a
// session, a session's name stands for it too, matched exactly (never by
// prefix or pattern); an id that is also another session's name means the
// session with that id.

// SessionRef names a session.
type SessionRef struct {
	ID   string
	Name string
}

// WindowRef names a window.
type WindowRef struct {
	ID    string
	Index int // the window's number in its session
	Name  string
}

// SessionInfo describes a session at one moment.
type SessionInfo struct {
	SessionRef

	// Windows counts the session's windows.
	Windows int

	// Clients counts the people attached to the session: attached clients
	// that show it on a terminal. Programs attached only to read output,
	// such as the backend's own stream readers, are not counted.
	Clients int

	// Created is when the session was made; zero when unknown.
	Created time.Time
}

// WindowInfo describes a window at one moment.
type WindowInfo struct {
	WindowRef

	// Session is the session the window was listed in. A window linked
	// into several sessions is listed once for each of them.
	Session SessionRef

	// Active reports that the window is its session's current window.
	Active bool

	// Panes counts the window's panes.
	Panes int

	// Width and Height are the window's size in cells.
	Width, Height int

	// Zoomed reports that one pane fills the window, hiding the others.
	Zoomed bool
}

// PaneSummary describes a pane as a listing shows it: where it is and
// what it runs. (Terminal.Pane tells the facts a write needs.)
type PaneSummary struct {
	ID PaneID

	// Session and Window hold the pane. A pane whose window is linked into
	// several sessions is reported once, in the first session that holds
	// it.
	Session SessionRef
	Window  WindowRef

	// Index is the pane's number in its window.
	Index int

	// Active reports that the pane is its window's active pane.
	Active bool

	// Dead reports that the pane's process has exited.
	Dead bool

	// Command is the name of the pane's foreground program, without a
	// path, and Program the executable it runs, as in PaneInfo; Path its
	// working directory ("" when unknown).
	Command string
	Program string
	Path    string

	// Width and Height are the size of the visible screen in cells.
	Width, Height int

	// PID is the process id of the pane's program, the process the pane
	// started (such as its shell, not the command running in front of
	// it), on the host the multiplexer runs on; for a dead pane, that of
	// the program that exited.
	PID int

	// CursorX and CursorY are where the cursor of the pane's screen is:
	// the column, 0 at the left (it equals Width while a character written
	// in the last column waits to wrap), and the row, 0 at the top of the
	// visible screen. A mode such as copy mode moves a cursor of its own,
	// which this is not.
	CursorX, CursorY int

	// Title is the title the pane's program set, or the backend's default.
	Title string

	// Watchers and Self are as in PaneInfo: who sees the pane on screen,
	// and whether this server process runs in it.
	Watchers []string
	Self     bool

	// Unknown lists the facts above that the backend could not determine
	// (FactWatched, FactSelf, FactCommand, FactPID, FactCursor); their
	// fields then hold zero values that must not be trusted.
	Unknown []Fact
}

// PaneFilter selects the panes ListPanes reports. At most one field is
// set; with none, every pane of every session is listed.
type PaneFilter struct {
	Session string // a session's id or name: the panes of its windows
	Window  string // a window's id: its panes
	Pane    PaneID // that pane alone
}

// ServerInfo describes the multiplexer server a Manager talks to.
type ServerInfo struct {
	// Address tells how the server is reached, such as its socket path.
	Address string

	// Version is the server software's version, as it reports it.
	Version string

	// PID is the server's process id; 0 when unknown.
	PID int

	// Started is when the server started; zero when unknown.
	Started time.Time

	// Sessions, Windows and Panes count what the server holds (a window
	// linked into several sessions counts once); Clients counts the
	// attached clients that people use, as in SessionInfo.
	Sessions, Windows, Panes, Clients int
}

// SessionSpec describes a session to create.
type SessionSpec struct {
	// Name is the new session's name; "" lets the backend choose one.
	Name string

	// Command is a command line the session's first pane runs instead of
	// the user's shell, read by the user's shell as "sh -c" would read it;
	// "" runs the shell. The pane ends when the command does.
	Command string

	// Width and Height are the size of the session's first window in
	// cells; 0 means the backend's default.
	Width, Height int
}

// Created tells what a create or split made: the pane, and the window and
// session that hold it.
type Created struct {
	Session SessionRef
	Window  WindowRef
	Pane    PaneID
}

// The lifecycle half of a backend, beside the Terminal that writes to and
// reads from panes, is split by capability, so that a backend offers what
// it can: a Lister tells what there is, a Creator makes sessions, windows
// and panes, an Arranger selects and resizes, a Renamer renames, a
// Remover clears and kills, and a Respawner restarts a pane's program. A
// Manager is all six.
//
// Names are taken literally: a backend that would store a name other than
// as given, or read some of its characters specially (as a format, an
// option, a target separator), refuses it with an error wrapping
// ErrInvalidName and never runs anything a name holds.
//
// Implementations must be safe for concurrent use. Every method returns an
// error wrapping ErrUnavailable when the backend cannot be reached at all,
// ErrPaneNotFound for an unknown pane, ErrNotFound for an unknown session
// or window, and ErrUnsupported for what the backend cannot do.

// A Lister describes a multiplexer's sessions, windows and panes.
type Lister interface {
	// ListSessions describes every session, in the backend's order.
	ListSessions(ctx context.Context) ([]SessionInfo, error)

	// ListWindows describes the windows of the session (an id or a name),
	// or of every session when session is "", in each session's window
	// order.
	ListWindows(ctx context.Context, session string) ([]WindowInfo, error)

	// ListPanes describes the panes that f selects, each once, in session,
	// window and pane order.
	ListPanes(ctx context.Context, f PaneFilter) ([]PaneSummary, error)

	// ServerInfo describes the server.
	ServerInfo(ctx context.Context) (ServerInfo, error)
}

// A Creator makes sessions, windows and panes.
type Creator interface {
	// CreateSession starts a detached session (no person's screen switches
	// to it) with one window and one pane. It returns an error wrapping
	// ErrNameInUse when a session already has spec.Name.
	CreateSession(ctx context.Context, spec SessionSpec) (Created, error)

	// CreateWindow adds a window with one pane running the user's shell to
	// the session (an id or a name), named name ("" lets the backend
	// choose). The session's current window does not change.
	CreateWindow(ctx context.Context, session, name string) (Created, error)

	// SplitWindow divides the pane's area in two and starts the user's
	// shell in the new pane: below the pane when vertical (the panes stack
	// up), else to its right. size is the new pane's height (vertical) or
	// width in cells; 0 halves the area. The window's active pane does
	// not change.
	SplitWindow(ctx context.Context, pane PaneID, vertical bool, size int) (Created, error)
}

// An Arranger selects and resizes.
type Arranger interface {
	// SelectPane makes the pane the active pane of its window. It does not
	// make the window its session's current window (see SelectWindow).
	SelectPane(ctx context.Context, pane PaneID) error

	// SelectWindow makes the window (an id) its session's current window.
	SelectWindow(ctx context.Context, window string) error

	// ResizePane asks for the pane to be width by height cells; a 0 leaves
	// that dimension as it is. The backend may give less than asked, for
	// example when the pane cannot outgrow its window; a Lister tells the
	// size it got.
	ResizePane(ctx context.Context, pane PaneID, width, height int) error

	// ResizeWindow asks for the window (an id) to be width by height
	// cells; a 0 leaves that dimension as it is. Its panes share the new
	// size as the backend lays them out. This is how a detached session,
	// whose windows otherwise keep the backend's default size (often 80
	// columns, at which programs wrap or cut their output), gets room; the
	// backend may keep the size from then on instead of following the
	// terminals of clients that attach later (tmux does). A Lister tells
	// the size it got.
	ResizeWindow(ctx context.Context, window string, width, height int) error
}

// A Renamer renames sessions and windows.
type Renamer interface {
	// RenameSession gives the session (an id or a name) a new name. It
	// returns an error wrapping ErrNameInUse when another session has it.
	RenameSession(ctx context.Context, session, name string) error

	// RenameWindow gives the window (an id) a new name. The name stays: the
	// backend no longer names the window after its program.
	RenameWindow(ctx context.Context, window, name string) error
}

// A Remover clears and kills.
type Remover interface {
	// ClearHistory discards the rows held above the pane's visible screen.
	// The screen itself is left as it is.
	ClearHistory(ctx context.Context, pane PaneID) error

	// KillPane ends the pane's process and removes the pane. A window left
	// without panes is removed, and so is a session left without windows.
	KillPane(ctx context.Context, pane PaneID) error

	// KillWindow removes the window (an id) and ends its panes' processes.
	// A session left without windows is removed.
	KillWindow(ctx context.Context, window string) error

	// KillSession removes the session (an id or a name) and ends the
	// processes of the panes only it holds. Removing the last session may
	// stop the server itself, after which calls fail with ErrUnavailable.
	KillSession(ctx context.Context, session string) error
}

// A Respawner restarts a pane's program in place.
type Respawner interface {
	// RespawnPane ends the pane's process, if it still runs, and starts
	// the pane's program afresh in the same pane: the id stays, the
	// process (and with it PaneInfo.Generation) is new, any mode is left,
	// and the visible screen starts blank (the rows above it may be kept).
	// A dead pane is brought back to life. Streams open on the pane may
	// go on with the new process's output or end; either way their
	// offsets keep counting.
	RespawnPane(ctx context.Context, pane PaneID) error
}

// A Manager is the whole lifecycle half of a backend.
type Manager interface {
	Lister
	Creator
	Arranger
	Renamer
	Remover
	Respawner
}
