package mcp

import (
	"context"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// signal_command stops the command, not the pane: the process group of
// the command a run_shell_command call of this server started in the
// pane gets the signal, never the pane's shell. It is of the mutating
// tier, as send_keys C-c is; KILL, which a program cannot catch or clean
// up after, only from the destructive tier on (-safety destructive).

func (s *Server) signalCommand() declaration {
	return tool[signalArgs, signalOutput]{
		name:        "signal_command",
		description: signalCommandDescription,
		annotations: signalAnnotations(),
		call: func(ctx context.Context, _ *sdk.CallToolRequest, a signalArgs) (signalOutput, string, error) {
			if ports.Signal(a.Signal) == ports.SignalKILL && !s.tier.Offers(TierDestructive) {
				return signalOutput{}, "", &fault.ArgumentError{Field: "signal",
					Reason: fmt.Sprintf("KILL is offered from the destructive safety tier on (-safety destructive), and this server's is %s: send TERM, which a command can clean up after, or INT", s.tier)}
			}
			r, err := s.tools.SignalCommand(ctx, domain.SignalRequest{PaneID: a.PaneID, Signal: a.Signal})
			if err != nil {
				return signalOutput{}, "", err
			}
			return fromSignalResult(r), fmt.Sprintf("Call wait_for_command with paneId %s for the command's end: a command "+
				"the signal ended reports exit status 128+%d (%d), unless it caught the signal.", a.PaneID, r.Signal.Number(), 128+r.Signal.Number()), nil
		},
	}
}

const signalCommandDescription = "Send a signal to a command this server runs; it ends or interrupts that command with your user's permissions. " +
	"Signal the command that run_shell_command started in a pane and that still runs, whether its call returned " +
	"(timed_out, cancelled) or is still waiting: its process group gets the signal, never the pane's shell. For a " +
	"command that ignores C-c (trap '' INT; a program that catches it), use TERM. signal is INT (as C-c), TERM " +
	"(ask it to end), HUP (its terminal hung up) or KILL (end it at once; only in the destructive safety tier). " +
	"The result names the process group and its processes. The command's end comes as usual: wait_for_command " +
	"reports it, with exit status 128+n for a command the signal killed (143 for TERM, 130 for INT, 137 for KILL). " +
	"Refused, and nothing is sent, when no command of this server runs in the pane, when the command has no " +
	"process group of its own in front of the pane's terminal (shell code run in the shell itself with persist, " +
	"or zsh's subshell before it starts a program: then use send_keys C-c), and when the backend cannot tell " +
	"the pane's process groups."

type signalArgs struct {
	PaneID ports.PaneID `json:"paneId" jsonschema:"The pane whose command to signal, e.g. %1."`
	Signal string       `json:"signal" jsonschema:"INT, TERM, HUP or KILL (KILL only in the destructive safety tier)." schema:"enum=INT|TERM|HUP|KILL"`
}

type signalOutput struct {
	PaneID       ports.PaneID    `json:"paneId"`
	Processes    []processOutput `json:"processes" jsonschema:"The processes of the group as they were just before the signal: all of them, or over ssh the group's leader only."`
	ProcessGroup int64           `json:"processGroup" jsonschema:"The process group that got the signal: the command's, never the shell's."`
	Signal       string          `json:"signal" jsonschema:"The signal sent." schema:"enum=INT|TERM|HUP|KILL"`
}

type processOutput struct {
	Command string `json:"command" jsonschema:"Its command line, or its name; empty when neither could be read."`
	PID     int64  `json:"pid" jsonschema:"Its process id."`
}

func fromSignalResult(r domain.SignalResult) signalOutput {
	out := signalOutput{PaneID: r.PaneID, ProcessGroup: int64(r.Group), Signal: string(r.Signal), Processes: make([]processOutput, 0, len(r.Processes))}
	for _, p := range r.Processes {
		out.Processes = append(out.Processes, processOutput{Command: p.Command, PID: int64(p.PID)})
	}
	return out
}

// signalAnnotations are a writing tool's, but for the open world: a
// signal reaches the process group of this server's own command and no
// further, which is not what the pane's program might reach.
func signalAnnotations() *sdk.ToolAnnotations {
	a := writingAnnotations("Signal command")
	a.OpenWorldHint = new(false)
	return a
}
