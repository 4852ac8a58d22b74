package ports

import "context"

// PaneID names a pane. It is opaque to the domain, stable for the life of
// the pane, and checked by the backend that made it (tmux's are "%"
// followed by digits, "%3"; the transport's contract asks for that form,
// so a backend offered through it maps its own identities onto it and
// says how).
type PaneID string

// Fact names something about a pane that a backend may be unable to tell.
// The domain refuses a write when a fact it needs for safety is unknown.
type Fact string

// Facts a backend may report as unknown in PaneInfo.Unknown and
// PaneSummary.Unknown.
const (
	FactWatched     Fact = "watched"      // whether a person sees the pane
	FactAlsoReaches Fact = "also-reaches" // whether input reaches other panes
	FactSelf        Fact = "self"         // whether the server runs in the pane
	FactMode        Fact = "mode"         // whether the pane is in a mode
	FactCommand     Fact = "command"      // the foreground program
	FactPID         Fact = "pid"          // the process id of the pane's program
	FactCursor      Fact = "cursor"       // where the pane's cursor is
)

// PaneInfo describes a pane at one moment.
type PaneInfo struct {
	ID PaneID

	// Generation changes whenever the pane's process is replaced (for
	// example a respawn), so that positions in its output stream from an
	// earlier process are not mistaken for positions in the new one.
	Generation string

	// Dead reports that the pane's process has exited.
	Dead bool

	// Mode is empty when the pane shows its program, or names the mode it
	// is in (for example "copy-mode"); input would go to the mode then.
	Mode string

	// Command is the name of the pane's foreground program, such as "bash"
	// or "vim", without a path, as the multiplexer names it: tmux gives
	// the name the program was started under (its argv[0]), which its
	// starter chooses freely (`exec -a bash python3` is named "bash").
	Command string

	// Program is the executable the foreground program runs, without a
	// path, as the process itself tells where the backend can see it: on
	// Linux the file /proc/PID/exe links to, every symbolic link resolved
	// ("dash" for a /bin/sh that links to it, "python3.11" for that REPL
	// named "bash", a script's interpreter), or, where that cannot be read
	// or was deleted since, the name the kernel gave the process when it
	// executed its file. "" when the backend cannot tell: it cannot see
	// the process (tmux over ssh), or the program in front has exited
	// and the rest of its job runs on. A zero value that means unknown,
	// never a program to trust.
	Program string

	// Width and Height are the size of the visible screen in cells.
	Width, Height int

	// HistorySize is how many rows are held above the visible screen;
	// HistoryLimit is how many may be held before the oldest are dropped.
	HistorySize, HistoryLimit int

	// AlsoReaches lists the other panes that input sent to this one would
	// also reach (synchronized input). Empty when input reaches only this
	// pane.
	AlsoReaches []PaneID

	// Watchers describes each person watching the pane (for example an
	// attached client's terminal, "/dev/pts/3"). Programs attached only to
	// read output, such as the backend's own stream readers, are not
	// watchers. Empty when nobody watches.
	Watchers []string

	// Attended reports that a person is attached to the session that holds
	// the pane, whether or not the pane is on their screen: input sent now
	// may be noticed soon. Watchers implies Attended.
	Attended bool

	// Self reports that this server process itself runs in the pane.
	Self bool

	// Unknown lists the facts above that the backend could not determine;
	// their fields then hold zero values that must not be trusted.
	Unknown []Fact
}

// CaptureRange selects rows of a pane. Row 0 is the top of the visible
// screen, Height-1 its bottom; negative rows reach into history, -1 being
// the newest history row and -HistorySize the oldest.
type CaptureRange struct {
	// Start and End are the first and last rows, inclusive. The caller
	// keeps them within [-HistorySize, Height-1] and Start <= End.
	Start, End int

	// JoinWrapped rejoins rows that the terminal wrapped because they were
	// longer than the pane was wide, so one row of the result may stand
	// for several rows of the pane.
	JoinWrapped bool
}

// A ScreenCapturer is a Terminal that can describe a pane and capture its
// visible screen in one exchange with the multiplexer: what a reading of
// the screen starts with, in one round trip instead of two, and both read
// at one moment. A Terminal that offers it should; the domain otherwise
// asks Pane and then Capture.
type ScreenCapturer interface {
	// CaptureScreen returns what Pane returns and what Capture returns for
	// rows 0 to Height-1 of that description, with joinWrapped as
	// CaptureRange.JoinWrapped. Errors are those of Pane and Capture.
	CaptureScreen(ctx context.Context, id PaneID, joinWrapped bool) (PaneInfo, []string, error)
}

// A Terminal is a set of panes that can be described, written to, captured
// and listened to, with a place for the scripts their shells read and a
// view of their terminals' job control (see shell.go). It is the domain's
// only way to reach a terminal multiplexer.
//
// Implementations must be safe for concurrent use. Every method that takes
// a PaneID returns an error wrapping ErrPaneNotFound when no such pane
// exists, and ErrUnavailable when the backend cannot be reached at all.
// Errors name what was done and the pane ("describe pane %3: ..."), so
// that callers pass them on without naming either again.
type Terminal interface {
	ScriptStore
	JobControl

	// Pane describes the pane.
	Pane(ctx context.Context, id PaneID) (PaneInfo, error)

	// SendText types text into the pane exactly as given: no byte of it is
	// read as a key name. It does not press Enter. It returns an error
	// wrapping ErrPaneDead when the pane's process has exited.
	SendText(ctx context.Context, id PaneID, text string) error

	// SendKeys presses each named key in order. Names are those of the
	// contract's send_keys tool: "Enter", "Escape", "Tab", "Up", "C-c",
	// "M-x", "F1" and so on; a name with no meaning to the backend yields
	// an error wrapping ErrUnknownKey and nothing is sent. It returns an
	// error wrapping ErrPaneDead when the pane's process has exited.
	SendKeys(ctx context.Context, id PaneID, keys []string) error

	// Paste delivers text to the pane through a paste buffer, whole and
	// unread, as a paste: when the pane's program asked for bracketed
	// paste it gets one. The buffer is private to the call and is gone
	// when Paste returns. It does not press Enter. It returns an error
	// wrapping ErrPaneDead when the pane's process has exited.
	Paste(ctx context.Context, id PaneID, text string) error

	// Capture returns the text of the rows in r, one string per row (or per
	// joined row), without trailing blanks or terminal escape sequences.
	// A backend that cannot tell which rows were wrapped returns an error
	// wrapping ErrUnsupported when r.JoinWrapped is set, rather than
	// guessing.
	Capture(ctx context.Context, id PaneID, r CaptureRange) ([]string, error)

	// OpenOutput starts listening to the pane's output. Every byte the
	// pane's program writes after OpenOutput returns is in the stream.
	// The caller must Close the stream.
	OpenOutput(ctx context.Context, id PaneID) (OutputStream, error)
}

// An OutputStream is a live view of the bytes a pane's program writes, as
// the program wrote them (escape sequences included), at absolute offsets:
// the first byte the backend ever saw from the pane is offset 0, and
// offsets keep counting across every stream opened on the same pane for as
// long as the Terminal lives.
//
// A stream retains a bounded window of recent bytes. ReadFrom reports as
// Missed what falls outside it, and also what the backend knows was written
// but could not see.
//
// Implementations must allow every method to be called concurrently with
// every other, Close included.
type OutputStream interface {
	// Changed returns a channel that receives a value after new bytes
	// arrive, bytes are lost or the stream ends. Notifications coalesce:
	// one receive may stand for many changes, so after it the reader calls
	// ReadFrom until it has caught up.
	Changed() <-chan struct{}

	// ReadFrom returns, without waiting, the retained bytes from offset on.
	ReadFrom(offset int64) OutputChunk

	// End returns the offset just past the newest byte received.
	End() int64

	// Close stops the stream. Changed is not closed; ReadFrom after Close
	// reports the stream ended.
	Close() error
}

// OutputChunk is what ReadFrom returns.
type OutputChunk struct {
	// Offset is the absolute offset of Data[0]. It is greater than the
	// offset asked for when bytes in between were missed.
	Offset int64

	// Data holds the bytes from Offset up to the newest received.
	Data []byte

	// Missed counts the bytes between the offset asked for and Offset that
	// are no longer retained or that the backend never saw.
	Missed int64

	// Ended is non-nil once no more bytes will come: it wraps ErrPaneDead
	// or ErrPaneNotFound when the pane went away, and says why otherwise.
	Ended error
}
