package domain

import "github.com/tmux-mcp/tmux-mcp/ports"

// Outcome says why run_shell_command returned.
type Outcome string

// Outcomes of run_shell_command.
const (
	OutcomeCompleted Outcome = "completed" // the command ended; ExitStatus is set
	OutcomeTimedOut  Outcome = "timed_out" // the deadline passed; the command may still run
	OutcomePaneDied  Outcome = "pane_died" // the pane or its process went away
	OutcomeCancelled Outcome = "cancelled" // the caller cancelled the call
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
}

// RunResult is what run_shell_command reports; the fields are those of the
// tool's output schema.
type RunResult struct {
	PaneID                 ports.PaneID
	Outcome                Outcome
	ExitStatus             *int // nil unless Outcome is completed
	Output                 string
	DroppedLines           int64
	OmittedBytes           int64
	MissedBytes            int64
	ReturnedBytes          int64
	OutputComplete         bool
	ForeignOutputSuspected bool
	StillRunning           bool
	EffectiveTimeoutMs     int64
}
