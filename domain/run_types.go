package domain

import (
	"github.com/tmux-mcp/tmux-mcp/domain/input"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// Outcome says why run_shell_command returned.
type Outcome string

// Outcomes of run_shell_command.
const (
	OutcomeCompleted Outcome = "completed" // the command ended; ExitStatus is set
	OutcomeTimedOut  Outcome = "timed_out" // the deadline passed; the command may still run
	OutcomePaneDied  Outcome = "pane_died" // the pane or its process went away
	OutcomeCancelled Outcome = "cancelled" // the caller cancelled the call
	// OutcomeAwaitingInput: the command is blocked reading its terminal,
	// and the pane has been quiet for Config.InputQuiet: it waits for an
	// answer (RunResult.Input says what it asks). It still runs.
	OutcomeAwaitingInput Outcome = "awaiting_input"
)

// RunRequest is a run_shell_command call.
type RunRequest struct {
	PaneID  ports.PaneID
	Command string
	// TimeoutMs is the wait the caller asked for; 0 means none given.
	// Negative values are refused.
	TimeoutMs int64
	// MaxLines keeps at most this many lines from the end; 0 means the
	// server default. Negative values are refused.
	MaxLines int64
	// Force allows writing to the server's own pane.
	Force bool
	// Persist runs the command in the pane's shell itself, not a child
	// shell (see persist.go).
	Persist bool
	// Progress, if set, hears how the wait goes.
	Progress ProgressFunc
	// AwaitInput ends the call as awaiting_input when the command waits
	// for input on its terminal (see Service.RunShellCommand); false waits
	// for the end or the deadline as for any command.
	AwaitInput bool
	// Caller names the client session that makes the call ("" for one
	// that has none, such as stdio's one session): only its own
	// paste_text and send_keys may answer the command (PasteRequest.Caller).
	Caller string
	// FarShell, when set, runs the command in a far shell of that family
	// (bash, zsh, sh, ksh, fish), reached through the program in front of
	// the pane (ssh, docker exec, su: policy.Connectors); see run_far.go.
	FarShell string
	// FarPrompt, for a far shell without prompt marks, is its prompt: the
	// whole cursor line, the cursor at its end, on a quiet pane, tells it
	// is at its prompt. A literal, or with FarPromptRegex an RE2 pattern
	// that must match the whole line.
	FarPrompt      string
	FarPromptRegex bool
}

// InputAsk is what a command waiting for input asks for.
type InputAsk struct {
	Kind   input.Kind
	Prompt string // the last line on the screen that is not blank
}

// RunResult is what run_shell_command reports; the fields are those of the
// tool's output schema.
type RunResult struct {
	PaneID                 ports.PaneID
	Outcome                Outcome
	ExitStatus             *int // nil unless Outcome is completed, and for an abandoned or unverified frame
	Output                 string
	DroppedLines           int64
	OmittedBytes           int64
	MissedBytes            int64
	ReturnedBytes          int64
	ReplacedBytes          int64 // output bytes the text cannot carry (termtext.Loss)
	UnterminatedBytes      int64 // output bytes at the end in an unfinished escape sequence (termtext.Loss)
	OutputComplete         bool
	ForeignOutputSuspected bool
	StillRunning           bool
	EffectiveTimeoutMs     int64
	// LeftRunning is, for a command that completed, what it left running
	// on the pane's terminal; nil when not known (the terminal cannot
	// tell, or the command did not complete).
	LeftRunning *LeftRunning
	// RunID names the run's whole output, kept for read_output.
	RunID string
	// Input is set when Outcome is awaiting_input.
	Input *InputAsk

	// Not in the tool's output schema; the transport's text says them.

	// NotStarted: the command never started — the shell was not ready,
	// or the typed line was withdrawn — and never will.
	NotStarted bool
	// Raced: the shell took the command as it was being withdrawn, so it
	// started late (StillRunning is true).
	Raced bool
	// UnattributedBytes counts output dropped because the pane's process
	// was replaced before it could be told whose it was.
	UnattributedBytes int64
	// Abandoned: the command ended (Outcome completed), but the shell gave
	// up the rest of the frame, so its exit status is not known
	// (ExitStatus nil) and the output may end with the shell's own echo
	// and prompt (OutputComplete false).
	Abandoned bool
	// Unverified: something besides the frame's shell knew the frame's
	// secret — another process read the command's script before the
	// shell emptied it, or an end marker with the secret was found false
	// or followed by another — so the end marker could have been
	// forged: ExitStatus is nil, OutputComplete false and
	// ForeignOutputSuspected true.
	Unverified bool
	// Far: the command ran in a far shell (RunRequest.FarShell), whose
	// processes the server cannot see: its end is its end marker's word,
	// unconfirmed by the terminal's foreground, and what it left running
	// and whether it waits for input are not known.
	Far bool
}

// PasteRequest is a paste_text call.
type PasteRequest struct {
	PaneID ports.PaneID
	Text   string
	Enter  bool // press Enter after the text
	Force  bool // allow the server's own pane
	// Caller names the client session that makes the call (see
	// RunRequest.Caller).
	Caller string
}

// PasteResult is what paste_text reports.
type PasteResult struct {
	PaneID ports.PaneID
	Bytes  int64 // UTF-8 length of Text, Enter not counted
}

// CaptureRequest is a capture_pane call.
type CaptureRequest struct {
	PaneID ports.PaneID
	// Start and End are rows (0 = top of the visible screen, negative =
	// history); nil means the default (the visible screen).
	Start, End  *int64
	JoinWrapped bool
	// MaxLines keeps at most this many lines from the end; 0 means the
	// server default.
	MaxLines int64
}

// CaptureResult is what capture_pane reports.
type CaptureResult struct {
	PaneID         ports.PaneID
	Text           string
	TotalLines     int64
	DroppedLines   int64
	OmittedBytes   int64
	ReturnedBytes  int64
	EffectiveStart *int64 // nil when no row fits
	EffectiveEnd   *int64
	RangeClamped   bool
	ByteClamped    bool
}
