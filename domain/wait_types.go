package domain

import (
	"time"

	"github.com/tmux-mcp/tmux-mcp/domain/runlog"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// A ProgressFunc hears, while a call waits, how the wait goes. The MCP
// adapter turns it into progress notifications. It must not block.
type ProgressFunc func(Progress)

// Progress is one report of a waiting call: how long it has waited, how
// long it may wait in all, and, for a call that waits for a command
// (run_shell_command, wait_for_command), the command's newest line of
// output that is not blank, cut to ProgressLineMax characters ("" before
// it has printed one).
type Progress struct {
	Elapsed, Total time.Duration
	Line           string
}

// ProgressLineMax bounds Progress.Line, in characters (not bytes): a
// longer line is cut, its last character then "…".
const ProgressLineMax = runlog.NewestMax

// CaptureSinceRequest is a capture_since call.
type CaptureSinceRequest struct {
	PaneID ports.PaneID
	// Cursor is a position returned by an earlier call; empty means none,
	// and the call returns the current screen and a first cursor.
	Cursor string
	// MaxLines keeps at most this many lines from the end; 0 means the
	// server default.
	MaxLines int64
	// WaitMs waits this long (clamped to the ceiling) when nothing is new
	// yet; 0 returns at once.
	WaitMs   int64
	Progress ProgressFunc
}

// CaptureSinceResult is what capture_since reports.
type CaptureSinceResult struct {
	PaneID             ports.PaneID
	Text               string
	Cursor             *string // nil when the pane's output cannot be followed
	Seeded             bool    // Text is the current screen, not new output
	Streaming          bool    // the pane's output is being followed
	DroppedLines       int64
	OmittedBytes       int64
	MissedBytes        int64
	ReturnedBytes      int64
	ReplacedBytes      int64 // bytes of the output the text cannot carry (termtext.Loss)
	UnterminatedBytes  int64 // bytes at the end in an unfinished escape sequence (termtext.Loss)
	RangeClamped       bool
	ByteClamped        bool
	EffectiveTimeoutMs int64
}

// WaitOutcome says why wait_for_text returned.
type WaitOutcome string

// Outcomes of wait_for_text.
const (
	WaitMatched    WaitOutcome = "matched"
	WaitTimedOut   WaitOutcome = "timed_out"
	WaitPaneDied   WaitOutcome = "pane_died"
	WaitCancelled  WaitOutcome = "cancelled"
	WaitOutputLost WaitOutcome = "output_lost"
)

// WaitForTextRequest is a wait_for_text call.
type WaitForTextRequest struct {
	PaneID ports.PaneID
	// Patterns to wait for; none means any new output.
	Patterns []string
	Regex    bool   // patterns are RE2 regular expressions, not substrings
	Cursor   string // wait for output after this position; empty: after now
	// TimeoutMs is the wait asked for; 0 means none given.
	TimeoutMs int64
	MaxLines  int64
	Progress  ProgressFunc
}

// WaitForTextResult is what wait_for_text reports.
type WaitForTextResult struct {
	PaneID             ports.PaneID
	Outcome            WaitOutcome
	Matched            *string // the pattern that matched, as given; nil without patterns
	AlreadyOnScreen    bool    // a pattern matched the screen before the wait began
	Output             string  // the new output read while waiting
	Screen             string  // the visible screen when the call returned
	ScreenClamped      bool    // Screen was trimmed to maxLines or the byte ceiling
	Cursor             string  // position after what was read
	DroppedLines       int64
	OmittedBytes       int64
	MissedBytes        int64
	ReturnedBytes      int64
	ReplacedBytes      int64   // bytes of the output the text cannot carry (termtext.Loss)
	UnterminatedBytes  int64   // bytes at the end in an unfinished escape sequence (termtext.Loss)
	StreamFailure      *string // why the output stream failed, if it did
	EffectiveTimeoutMs int64
}

// SendKeysRequest is a send_keys call.
type SendKeysRequest struct {
	PaneID ports.PaneID
	// Keys holds key names separated by white space, or text when Literal.
	Keys    string
	Enter   bool // press Enter afterwards
	Literal bool
	Force   bool
	// Caller names the client session that makes the call (see
	// RunRequest.Caller).
	Caller string
}

// SendKeysResult is what send_keys reports.
type SendKeysResult struct {
	PaneID          ports.PaneID
	Sent            []string       // the keys pressed, in canonical names, or the literal text
	ResolvedPaneIDs []ports.PaneID // every pane the input reached
	Attended        bool           // a person is attached to the pane's session
}
