package lifecycle

import "github.com/tmux-mcp/tmux-mcp/ports"

// Requests and results of the inspect and lifecycle tools.
// Field names are those of the tools' JSON, which the transport writes in
// camelCase. A session is named by its id ("$3") or its name, a window by
// its id ("@2"), a pane by its id ("%1").

// SessionList is what list_sessions reports.
type SessionList struct {
	Sessions []ports.SessionInfo
}

// ListWindowsRequest is a list_windows call.
type ListWindowsRequest struct {
	// Session limits the listing to one session (an id or a name); ""
	// lists the windows of every session.
	Session string
}

// WindowList is what list_windows reports.
type WindowList struct {
	Windows []ports.WindowInfo
}

// ListPanesRequest is a list_panes call. At most one of Session and
// Window is set; with neither, every pane is listed.
type ListPanesRequest struct {
	Session string // an id or a name
	Window  string // an id
}

// Pane is one pane of a listing. Its Command is the executable that runs
// where the backend can tell (PaneSummary.Program), else the name the
// program was started under.
type Pane struct {
	ports.PaneSummary

	// Busy describes the writer of this server that holds the pane, such
	// as `run_shell_command "make test"`; "" when none does. Writes to a
	// busy pane are refused until it is free.
	Busy string
}

// PaneList is what list_panes reports.
type PaneList struct {
	Panes []Pane
}

// PaneRequest names a pane, for get_pane_info and select_pane.
type PaneRequest struct {
	PaneID ports.PaneID
}

// PaneDetails is what get_pane_info reports: the listing's facts and those
// a write is checked against.
type PaneDetails struct {
	Pane

	// Mode is the mode the pane is in (such as "copy-mode"), "" when none.
	Mode string

	// HistorySize and HistoryLimit are the rows held above the screen and
	// how many may be held.
	HistorySize, HistoryLimit int

	// AlsoReaches lists the other panes that input to this one would also
	// reach (synchronized input).
	AlsoReaches []ports.PaneID

	// Attended reports that a person is attached to a session holding the
	// pane, whether or not the pane is on their screen.
	Attended bool
}

// PaneFacts is what display reports: a fixed set of facts about one pane,
// read by the server itself (no caller's format reaches the multiplexer).
type PaneFacts struct {
	PaneID ports.PaneID

	// Path is the pane's working directory, "" when the backend cannot
	// tell.
	Path string

	// PID is the process id of the pane's program (the process the pane
	// started, such as its shell), on the multiplexer's host.
	PID int

	// Width and Height are the visible screen's size in cells.
	Width, Height int

	// CursorX and CursorY are the cursor's column and row on the visible
	// screen, from (0, 0) at its top left.
	CursorX, CursorY int

	// Command is the pane's foreground program, without a path: the
	// executable that runs where the backend can tell
	// (ports.PaneInfo.Program), else the name it was started under.
	Command string

	// Dead reports that the pane's program has exited.
	Dead bool

	// InMode reports that the pane is in a mode, Mode which (such as
	// "copy-mode"); "" when it is in none.
	InMode bool
	Mode   string

	// Unknown lists the facts above the backend could not tell
	// (ports.FactPID, FactCursor, FactCommand, FactMode); their fields
	// then hold zero values that must not be trusted.
	Unknown []ports.Fact
}

// SearchPanesRequest is a search_panes call.
type SearchPanesRequest struct {
	// Session limits the search to the panes of one session (an id or a
	// name); "" searches every pane.
	Session string

	// Patterns are what to look for: substrings, or RE2 regular
	// expressions when Regex is set. A row matches when any pattern
	// matches it. At least one is given, and none is empty.
	Patterns []string
	Regex    bool

	// History searches the rows held above each visible screen too (the
	// newest MaxSearchRows rows of a pane at most).
	History bool

	// MaxMatches bounds the rows returned: 0 means DefaultSearchMatches,
	// and more than MaxSearchMatches means MaxSearchMatches.
	MaxMatches int
}

// SearchPanesResult is what search_panes reports.
type SearchPanesResult struct {
	// Panes are the panes with a matching row, in listing order.
	Panes []PaneMatches

	// Matches counts the rows returned, in all Panes.
	Matches int

	// MaxMatches is the bound on Matches that was applied.
	MaxMatches int

	// Truncated reports that a matching row was found that the result
	// could not hold (MaxMatches or MaxSearchBytes reached): the search
	// stopped there, and more rows may match.
	Truncated bool

	// PanesSearched counts the panes whose rows were read (the last one
	// in part when Truncated); PanesGone the panes listed that were gone
	// before their rows could be read, which are skipped.
	PanesSearched, PanesGone int

	// RangeClamped reports that a pane held more history than
	// MaxSearchRows rows with its screen, so that only its newest rows
	// were searched.
	RangeClamped bool
}

// PaneMatches are the matching rows of one pane, top to bottom.
type PaneMatches struct {
	PaneID  ports.PaneID
	Session ports.SessionRef
	Window  ports.WindowRef
	Lines   []LineMatch
}

// LineMatch is one matching row.
type LineMatch struct {
	// Row is the row's number as capture_pane counts: 0 is the top of the
	// visible screen, negative rows are history (-1 the newest).
	Row int

	// Text is the row's text as the terminal shows it, without trailing
	// blanks; at most MaxSearchLineBytes of it.
	Text string

	// Cut reports that the row was longer, so that Text is the part of
	// it around the first match.
	Cut bool

	// Pattern is the first of the patterns, as given, that matched.
	Pattern string
}

// CreateSessionRequest is a create_session call.
type CreateSessionRequest struct {
	// Name is the session's name; "" lets the multiplexer choose one.
	Name string

	// Command is a shell command line the first pane runs instead of the
	// user's shell; "" runs the shell. The pane ends when it does.
	Command string

	// Width and Height are the size of the first window; 0 means the
	// multiplexer's default.
	Width, Height int
}

// CreateWindowRequest is a create_window call.
type CreateWindowRequest struct {
	Session string // an id or a name
	Name    string // "" lets the multiplexer choose
}

// SplitWindowRequest is a split_window call.
type SplitWindowRequest struct {
	PaneID ports.PaneID

	// Vertical puts the new pane below the pane; otherwise it goes to the
	// right.
	Vertical bool

	// Size is the new pane's height (Vertical) or width in cells; 0 halves
	// the pane.
	Size int
}

// SelectWindowRequest is a select_window call.
type SelectWindowRequest struct {
	WindowID string
}

// ResizePaneRequest is a resize_pane call. At least one of Width and
// Height is set; 0 leaves that dimension as it is.
type ResizePaneRequest struct {
	PaneID        ports.PaneID
	Width, Height int
}

// ResizeWindowRequest is a resize_window call. At least one of Width and
// Height is set; 0 leaves that dimension as it is.
type ResizeWindowRequest struct {
	WindowID      string
	Width, Height int
}

// RenameSessionRequest is a rename_session call.
type RenameSessionRequest struct {
	Session string // an id or a name
	Name    string
}

// RenameWindowRequest is a rename_window call.
type RenameWindowRequest struct {
	WindowID string
	Name     string
}

// ClearScrollbackRequest is a clear_pane_scrollback call.
type ClearScrollbackRequest struct {
	PaneID ports.PaneID
	Force  bool // allow the server's own pane
}

// ClearScrollbackResult is what clear_pane_scrollback reports.
type ClearScrollbackResult struct {
	PaneID ports.PaneID
	// ClearedLines is how many history rows were discarded.
	ClearedLines int
}

// KillPaneRequest is a kill_pane call.
type KillPaneRequest struct {
	PaneID ports.PaneID
	Force  bool // allow the server's own pane
}

// RespawnPaneRequest is a respawn_pane call.
type RespawnPaneRequest struct {
	PaneID ports.PaneID
	Force  bool // allow the server's own pane (when it is alive)
}

// KillWindowRequest is a kill_window call.
type KillWindowRequest struct {
	WindowID string
	Force    bool // allow a window holding the server's own pane
}

// KillSessionRequest is a kill_session call.
type KillSessionRequest struct {
	Session string // an id or a name
	Force   bool   // allow a session holding the server's own pane
}

// KillResult is what the kill tools report: what was removed.
type KillResult struct {
	// Killed lists the panes that were ended, in listing order.
	Killed []ports.PaneID
	// WindowID and Session name what kill_window and kill_session removed
	// ("" and a zero SessionRef for the others).
	WindowID string
	Session  ports.SessionRef
}
