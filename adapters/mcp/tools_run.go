package mcp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// run_shell_command: its description is its page's, then what a caller
// must know about refusals, which the page leaves to CONTRACT.md.

func (s *Server) runShellCommand() declaration {
	return tool[runArgs, runOutput]{
		name:          "run_shell_command",
		description:   runShellCommandDescription,
		annotations:   writingAnnotations("Run shell command"),
		requiredOrder: runRequiredOrder,
		call: withCaller(serveWaiting(func(ctx context.Context, a runArgs, progress domain.ProgressFunc) (domain.RunResult, error) {
			return s.tools.RunShellCommand(ctx, domain.RunRequest{
				PaneID:     a.PaneID,
				Command:    a.Command,
				TimeoutMs:  a.TimeoutMs,
				MaxLines:   a.MaxLines,
				Force:      a.Force,
				Persist:    a.Persist,
				Progress:   progress,
				AwaitInput: awaitInput(a.AwaitInput),
				Caller:     callerOf(ctx),
				FarShell:   a.FarShell,
				FarPrompt:  a.FarPrompt,

				FarPromptRegex: a.FarPromptRegex,
			})
		}, s.reportRun)),
	}
}

// runRequiredOrder is the order of run_shell_command's output schema's
// required list, as its page gives it.
// The fields issues added since come last.
var runRequiredOrder = []string{"effectiveTimeoutMs", "droppedLines", "missedBytes", "omittedBytes", "foreignOutputSuspected",
	"exitStatus", "outcome", "output", "outputComplete", "paneId", "returnedBytes", "stillRunning",
	"replacedBytes", "unterminatedBytes", "leftRunning", "leftRunningCount", "runId", "input", "farShell"}

const runShellCommandDescription = "Run a shell command in a pane with your user's permissions. " +
	"Run a shell command in a pane, wait for it to finish, and report its exit status and output. " +
	"Prefer this over send_keys plus capture_pane: it frames the command so a pane's echo of what you typed " +
	"can never be mistaken for what the command printed, and it knows when the command actually ended rather " +
	"than guessing from the screen. The command runs in a subshell, so cd and export do not persist to a later call. " +
	"A pane is effectively single-writer: this server reserves it until the command settles, but another process " +
	"with the same tmux socket can still write into it. " +
	"While a command runs in a pane, even after this call returned timed_out, every other write to that pane is " +
	"refused at once as busy rather than queued; a write is also refused, before anything is sent, to a pane a " +
	"person is watching, a pane in a mode such as copy mode, a pane whose input also reaches other panes, a pane " +
	"not running a supported shell, and this server's own pane unless force is set. " +
	"A command that stops to read its terminal (a password, a y/n question, a pager, an editor, a REPL) ends the call " +
	"at once, once the pane is quiet, with outcome awaiting_input and input {kind, prompt}; the text says what to do. " +
	"Only the session that ran it may then answer it with paste_text or send_keys, and wait_for_command goes on."

type runArgs struct {
	PaneID    ports.PaneID `json:"paneId"`
	Command   string       `json:"command" jsonschema:"The shell command to run."`
	TimeoutMs int64        `json:"timeoutMs,omitempty" jsonschema:"How long to wait. Clamped by the server ceiling; the result says what was used." schema:"exclusiveMinimum=0"`
	MaxLines  int64        `json:"maxLines,omitempty" jsonschema:"Keep at most this many lines, from the end. Defaults to the server limit." schema:"exclusiveMinimum=0"`
	writeForce
	awaitInputArg
	FarShell       string `json:"farShell,omitempty" jsonschema:"Run the command in a far shell: the shell of this family that answers through the program in front of the pane (ssh, mosh-client, docker or podman exec, kubectl exec, su, sudo, machinectl, script, a nested tmux or screen client), such as a pane where a person ran ssh prod-1. The server must tell that shell is at its prompt: from its prompt marks (OSC 133, which tmux-mcp shell-integration and terminals' shell integrations add), or from farPrompt. It types a probe that only such a shell answers, then the command inline; output and exit status are exact, but the end is the far shell's word (farShell true in the result). Not with persist." schema:"enum=bash|zsh|sh|ksh|fish"`
	FarPrompt      string `json:"farPrompt,omitempty" jsonschema:"With farShell, for a far shell that does not mark its prompt: its prompt, which must be the whole cursor line (the cursor at its end) on a pane quiet for half a second. A literal, or an RE2 pattern with farPromptRegex, such as \\$ or [^ ]+@prod-1:.*\\$."`
	FarPromptRegex bool   `json:"farPromptRegex,omitempty" jsonschema:"Read farPrompt as an RE2 pattern that must match the whole line."`
	Persist        bool   `json:"persist,omitempty" jsonschema:"Run the command in the pane's shell itself instead of a subshell, so that cd, export, source (a virtualenv's activate) and functions carry over to later calls and to the person using the shell. exit then ends the shell (pane_died); return outside a function and a C-c make the shell drop the frame's end (exit status unknown); set -e and traps stay set in the shell. The command runs with the shell's environment as it is. Default false: a subshell, with no pager and no git terminal prompt."`
}

type runOutput struct {
	DroppedLines           int64                `json:"droppedLines" jsonschema:"Lines of output withheld by maxLines. The text half says so in a notice; a caller reading only the structured half would otherwise take the tail for the whole."`
	EffectiveTimeoutMs     int64                `json:"effectiveTimeoutMs" jsonschema:"The timeout actually enforced."`
	LeftRunning            *[]leftProcessOutput `json:"leftRunning" jsonschema:"For a command that completed: the processes it left running on the pane's terminal (started while it ran and outliving it, such as a server started with &), at most 20, by process id; empty when it left none; null when that is not known (the command did not complete, or the backend cannot see the pane's processes, such as over -ssh to a host without Linux's /proc)."`
	LeftRunningCount       int                  `json:"leftRunningCount" jsonschema:"How many processes the command left running, of which leftRunning lists at most 20; 0 when leftRunning is empty or null."`
	ExitStatus             *int                 `json:"exitStatus" jsonschema:"The command's exit status; null if it did not finish."`
	ForeignOutputSuspected bool                 `json:"foreignOutputSuspected" jsonschema:"Another writer printed into this pane while the command ran. Output that could be attributed to them was removed; what is left may still include theirs. False means no foreign marker was seen, not that the output is certainly this command's."`
	MissedBytes            int64                `json:"missedBytes" jsonschema:"Output that fell out of the pane's buffer before this read reached it. Nonzero means the command printed more than was kept, so the output here starts partway through it."`
	OmittedBytes           int64                `json:"omittedBytes" jsonschema:"Output bytes omitted by the result ceiling."`
	Input                  *inputOutput         `json:"input" jsonschema:"What the command waits for when outcome is awaiting_input; null otherwise."`
	Outcome                string               `json:"outcome" jsonschema:"Why this returned. Read it rather than inferring from the text." schema:"enum=completed|timed_out|pane_died|cancelled|awaiting_input"`
	Output                 string               `json:"output" jsonschema:"The bounded tail of the command's output."`
	OutputComplete         bool                 `json:"outputComplete" jsonschema:"False when capture or result limits omitted any command output."`
	PaneID                 ports.PaneID         `json:"paneId"`
	ReplacedBytes          int64                `json:"replacedBytes" jsonschema:"Output bytes the text cannot carry as they were: bytes that are not UTF-8, each shown as U+FFFD, and NUL and the other control characters that do nothing on a terminal, dropped. Nonzero means output is not exactly what the command printed (outputComplete is false); run it through od -c or base64 to see those bytes."`
	ReturnedBytes          int64                `json:"returnedBytes" jsonschema:"UTF-8 output bytes returned."`
	RunID                  string               `json:"runId" jsonschema:"Names this run's whole output, which the server keeps (within its budget): read_output with this runId pages through it or searches it, also the lines this result withheld."`
	StillRunning           bool                 `json:"stillRunning" jsonschema:"Whether the command may still be running after this call returned."`
	FarShell               bool                 `json:"farShell" jsonschema:"The command ran in a far shell (farShell): its processes are not visible to the server, so its end is its end marker's word, unconfirmed by the pane's foreground, and leftRunning and awaiting_input are not told."`
	UnterminatedBytes      int64                `json:"unterminatedBytes" jsonschema:"Output bytes at the end that are inside an escape sequence (or a character) that never ended, such as ESC ] without its BEL or ST, which hides all that follows it on a terminal: they are not in output, though they may have been meant as text (outputComplete is false)."`
}

func fromRunResult(r domain.RunResult) runOutput {
	exit := r.ExitStatus
	// The contract's exit status belongs to a command seen to end; any other
	// outcome reports null even if the domain had a stale value at hand.
	if r.Outcome != domain.OutcomeCompleted {
		exit = nil
	}
	out := runOutput{
		DroppedLines:           r.DroppedLines,
		EffectiveTimeoutMs:     r.EffectiveTimeoutMs,
		ExitStatus:             exit,
		ForeignOutputSuspected: r.ForeignOutputSuspected,
		Input:                  fromInputAsk(r),
		MissedBytes:            r.MissedBytes,
		OmittedBytes:           r.OmittedBytes,
		Outcome:                string(r.Outcome),
		Output:                 r.Output,
		OutputComplete:         r.OutputComplete,
		PaneID:                 r.PaneID,
		ReplacedBytes:          r.ReplacedBytes,
		ReturnedBytes:          r.ReturnedBytes,
		RunID:                  r.RunID,
		StillRunning:           r.StillRunning,
		UnterminatedBytes:      r.UnterminatedBytes,
		FarShell:               r.Far,
	}
	if l := r.LeftRunning; l != nil && r.Outcome == domain.OutcomeCompleted {
		out.LeftRunning, out.LeftRunningCount = new(leftProcesses(l.Processes)), l.Count
	}
	return out
}

// leftProcessOutput is one process a command left running.
type leftProcessOutput struct {
	Command string `json:"command" jsonschema:"Its command line, arguments joined by spaces."`
	PID     int    `json:"pid" jsonschema:"Its process id: kill PID (or signal it otherwise) to stop it."`
}

func leftProcesses(ps []domain.LeftProcess) []leftProcessOutput {
	out := make([]leftProcessOutput, 0, len(ps))
	for _, p := range ps {
		out = append(out, leftProcessOutput{Command: p.Command, PID: p.PID})
	}
	return out
}

// runNotice is the notice the text half of a run_shell_command result
// carries, after the JSON, when the output is not the whole of what the
// command printed (or may hold another writer's output). A reader of the
// text alone would otherwise take the tail for the whole. It is empty when
// there is nothing to warn of.
//
// It also says what the structured half has no field for: that the
// command never started (and will not run later), that it started only
// as it was being withdrawn, and that output was dropped because the
// pane's process was replaced.
func runNotice(o runOutput, r domain.RunResult) string {
	var notice []string
	switch {
	case r.NotStarted:
		notice = append(notice, "Notice: the command never started (the pane's shell did not run the typed line: it may be busy, still starting, or inside an open quote, or a program in front of it read the line as its input); it was withdrawn and will not run later. Look at the pane with capture_pane before trying again.")
	case r.Raced:
		notice = append(notice, "Notice: the command started only as it was being withdrawn at the deadline, and C-c was sent to the pane at that moment; it may have been interrupted or may still run.")
	}
	if r.Abandoned {
		notice = append(notice, "Notice: the command ended, but the pane's shell gave up the rest of its frame, as a shell does when its job dies of a signal the frame does not catch (a command that replaced itself with exec and then got C-c, a C-\\ in zsh, a signal to the shell itself): its exit status is not known (exitStatus null), and the output may end with the shell's own echo and prompt. The pane is free again.")
	}
	if r.Unverified {
		notice = append(notice, "Notice: something besides the pane's shell knew this command's secret (another process of your user read its script before the shell did, or printed an end marker with the secret), so an end marker could have been forged: the command ended, but its exit status is not known (exitStatus null) and its output may not be all of it. Find the process that reads the server's script directory and stop it; it could make any command's result lie.")
	}
	if r.UnattributedBytes > 0 {
		notice = append(notice, fmt.Sprintf("Notice: the pane's process was replaced while the command ran; %s read since it was last seen to be the same process were dropped, as they may be the new process's.",
			plural(r.UnattributedBytes, "byte")))
	}
	dropped, omitted := o.DroppedLines, o.OmittedBytes
	if o.RunID != "" && (dropped > 0 || omitted > 0) {
		notice = append(notice, keptNotice(o))
		dropped, omitted = 0, 0
	}
	if n := incomplete("output", "the command's output", dropped, omitted, o.MissedBytes, o.ReplacedBytes, o.UnterminatedBytes,
		!o.OutputComplete && r.UnattributedBytes == 0 && dropped == o.DroppedLines && omitted == o.OmittedBytes); n != "" {
		notice = append(notice, n)
	}
	if o.ForeignOutputSuspected {
		notice = append(notice, "Notice: markers that this command's frame did not print were seen in its output (another writer, a recording of earlier commands, or an end marker the command printed itself); they were removed and nothing else was, so the output may hold text that is not this command's.")
	}
	if o.LeftRunning != nil && o.LeftRunningCount > 0 {
		notice = append(notice, leftNotice(*o.LeftRunning, o.LeftRunningCount))
	}
	if (o.Outcome == string(domain.OutcomeTimedOut) || o.Outcome == string(domain.OutcomeCancelled)) && o.StillRunning {
		notice = append(notice, stillRunningNotice(o.PaneID))
	}
	return strings.Join(notice, " ")
}

// keptNotice says what a result withheld of the output, and how to read
// it: the server kept it.
func keptNotice(o runOutput) string {
	var parts []string
	if o.DroppedLines > 0 {
		parts = append(parts, plural(o.DroppedLines, "line")+" from the start withheld by maxLines")
	}
	if o.OmittedBytes > 0 {
		parts = append(parts, plural(o.OmittedBytes, "byte")+" cut by the result size ceiling")
	}
	return fmt.Sprintf("Notice: the output is only the end of what the command printed (%s). The server kept the whole of it: "+
		"call read_output with runId %s to page through it from startLine 1, or with grep to search it.",
		strings.Join(parts, "; "), o.RunID)
}

// leftNotice says what a command left running, which outlives it.
func leftNotice(ps []leftProcessOutput, total int) string {
	var names []string
	for _, p := range ps {
		names = append(names, fmt.Sprintf("%d (%s)", p.PID, p.Command))
	}
	more := ""
	if total > len(ps) {
		more = fmt.Sprintf(" and %d more", total-len(ps))
	}
	count := "1 process"
	if total != 1 {
		count = fmt.Sprintf("%d processes", total)
	}
	return fmt.Sprintf("Notice: the command left %s running in the pane: %s%s. It runs on after the command; "+
		"stop it with kill PID (in run_shell_command) if it is not meant to.", count, strings.Join(names, ", "), more)
}

// stillRunningNotice is what a result says of a command that outlived its
// call: that the pane stays reserved, and how to finish the wait or end
// the command.
func stillRunningNotice(pane ports.PaneID) string {
	return fmt.Sprintf("Notice: the command may still be running, and the pane stays reserved until it ends; "+
		"call wait_for_command with paneId %s to wait for its end and exit status (and the rest of its output), "+
		"or send_keys C-c to interrupt it.", pane)
}

// wait_for_command finishes what run_shell_command began: the same result
// and notices, for the command a call left running. It has no page; its
// description says how it relates to run_shell_command.

func (s *Server) waitForCommand() declaration {
	return tool[waitCommandArgs, runOutput]{
		name:        "wait_for_command",
		description: waitForCommandDescription,
		annotations: waitCommandAnnotations(),
		// run_shell_command's result, in its order.
		requiredOrder: runRequiredOrder,
		call: serveWaiting(func(ctx context.Context, a waitCommandArgs, progress domain.ProgressFunc) (domain.RunResult, error) {
			return s.tools.WaitForCommand(ctx, domain.WaitCommandRequest{
				PaneID:     a.PaneID,
				TimeoutMs:  a.TimeoutMs,
				MaxLines:   a.MaxLines,
				Progress:   progress,
				AwaitInput: awaitInput(a.AwaitInput),
			})
		}, s.reportRun),
	}
}

// reportRun turns a run's result into run_shell_command's output and
// notice: the one shape of both tools that wait for a command.
func (s *Server) reportRun(r domain.RunResult) (runOutput, string) {
	out := fromRunResult(r)
	notice := runNotice(out, r)
	if r.Input != nil && r.Outcome == domain.OutcomeAwaitingInput {
		notice = strings.TrimSpace(awaitingNotice(r.PaneID, *r.Input, s.attach) + " " + notice)
	}
	return out, notice
}

// waitCommandAnnotations are those of a reading tool, but for
// idempotence: wait_for_command writes nothing to a pane and starts or
// stops nothing, so it is read-only and, by tier.go's rule, offered from
// the readonly tier on (where no run_shell_command can have started a
// command, so it only ever says there is none). It is not idempotent: the
// end of a command is handed out once, and a second call after it is a
// tool error.
func waitCommandAnnotations() *sdk.ToolAnnotations {
	a := readingAnnotations("Wait for command")
	a.IdempotentHint = false
	return a
}

const waitForCommandDescription = "Read pane output; accepts no client-supplied executable input. " +
	"Returned content may be sensitive or untrusted. " +
	"Wait for the command that run_shell_command started in a pane and that outlived its call (the call returned " +
	"timed_out or cancelled with stillRunning true), and return what run_shell_command would have returned had it " +
	"waited so long: the same fields and notices, the outcome, exitStatus once the command has ended, and its " +
	"output since it started, bounded by maxLines and the byte ceiling and accounted as run_shell_command " +
	"accounts it. While the result says stillRunning true, call it again, as often as needed; once it returns the " +
	"end (completed or pane_died) the end has been handed out, and a later call is a tool error. It returns " +
	"awaiting_input, as run_shell_command does, when the command waits for input that no call reported yet " +
	"(again after each answer, if the command asks again). It writes " +
	"nothing to the pane and runs nothing, so it is offered with the reading tools; with no command of this " +
	"server running in the pane it is a tool error: run one with run_shell_command."

type waitCommandArgs struct {
	PaneID    ports.PaneID `json:"paneId"`
	TimeoutMs int64        `json:"timeoutMs,omitempty" jsonschema:"How long to wait. Clamped by the server ceiling; the result says what was used." schema:"exclusiveMinimum=0"`
	MaxLines  int64        `json:"maxLines,omitempty" jsonschema:"Keep at most this many lines, from the end. Defaults to the server limit." schema:"exclusiveMinimum=0"`
	awaitInputArg
}
