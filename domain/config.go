package domain

import (
	"time"

	"github.com/tmux-mcp/tmux-mcp/domain/runlog"
)

// Defaults from CONTRACT.md.
const (
	DefaultWaitMax        = 300 * time.Second
	DefaultTimeout        = 30 * time.Second
	DefaultMaxResultLines = 200
	MaxResultBytes        = 1_000_000
	DefaultInputQuiet     = 500 * time.Millisecond
)

// Config holds the server settings the domain obeys.
type Config struct {
	// WaitMax is the ceiling on every wait (LIBTMUX_MCP_WAIT_MAX_SECONDS).
	WaitMax time.Duration
	// MaxResultLines is the maxLines used when a call gives none
	// (LIBTMUX_MCP_MAX_RESULT_LINES).
	MaxResultLines int
	// MaxResultBytes is the byte ceiling of one result.
	MaxResultBytes int
	// LivenessInterval is how often a waiting call asks the terminal
	// whether the pane is still alive, in case the output stream does not
	// say so itself.
	LivenessInterval time.Duration
	// OutputBudget is the bytes of output kept for all runs together
	// (see WithOutputStore); 0 means the default, runlog.DefaultBudget.
	// To keep nothing, give the Service no store.
	OutputBudget int64
	// NoAgentEnv runs a command's child shell with the shell's
	// environment as it is, without frame.AgentEnvironment (no pager, no
	// git prompt on the terminal), which it has by default.
	NoAgentEnv bool
	// InputQuiet is how long a command's pane must have printed nothing,
	// its command blocked reading the terminal, before a call says that
	// the command awaits input: a prompt is drawn at once, and a command
	// that reads between bursts of output is not asking.
	InputQuiet time.Duration
}

// DefaultConfig returns the contract's defaults.
func DefaultConfig() Config {
	return Config{
		WaitMax:          DefaultWaitMax,
		MaxResultLines:   DefaultMaxResultLines,
		MaxResultBytes:   MaxResultBytes,
		LivenessInterval: 250 * time.Millisecond,
		OutputBudget:     runlog.DefaultBudget,
		InputQuiet:       DefaultInputQuiet,
	}
}

// withDefaults fills zero fields with the defaults.
func (c Config) withDefaults() Config {
	d := DefaultConfig()
	if c.WaitMax <= 0 {
		c.WaitMax = d.WaitMax
	}
	if c.MaxResultLines <= 0 {
		c.MaxResultLines = d.MaxResultLines
	}
	if c.MaxResultBytes <= 0 {
		c.MaxResultBytes = d.MaxResultBytes
	}
	if c.LivenessInterval <= 0 {
		c.LivenessInterval = d.LivenessInterval
	}
	if c.OutputBudget <= 0 {
		c.OutputBudget = d.OutputBudget
	}
	if c.InputQuiet <= 0 {
		c.InputQuiet = d.InputQuiet
	}
	return c
}
