package tmux

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// A CommandError is a tmux command that tmux refused or could not run. It
// wraps ports.ErrPaneNotFound when tmux could not find the target pane and
// ports.ErrUnavailable when no server answered.
type CommandError struct {
	Command string // the first tmux command of the invocation, e.g. "send-keys"
	Message string // what tmux printed on standard error
	kind    error
}

func (e *CommandError) Error() string {
	return fmt.Sprintf("tmux %s: %s", e.Command, e.Message)
}

func (e *CommandError) Unwrap() error { return e.kind }

// classify picks the sentinel that tmux's error message stands for.
func classify(msg string) error {
	switch {
	case strings.Contains(msg, "no server running on"),
		strings.Contains(msg, "error connecting to"),
		strings.Contains(msg, "server exited unexpectedly"),
		strings.Contains(msg, "lost server"):
		return ports.ErrUnavailable
	case strings.Contains(msg, "can't find pane"):
		return ports.ErrPaneNotFound
	}
	return nil
}

// run runs one tmux client with args (which may hold several commands
// separated by ";" arguments) and returns its standard output.
func (t *terminal) run(ctx context.Context, stdin io.Reader, args ...string) (string, error) {
	if notifies(splitCommands(args)) {
		t.attachGate.RLock()
		defer t.attachGate.RUnlock()
	}
	return t.runGated(ctx, stdin, args...)
}

// slowestInput is the slowest rate at which a process's standard input is
// counted on to be read: a paste's text through ssh on a slow link.
const slowestInput = 64 << 10 // bytes a second

// commandTimeout is how long a process with standard input stdin is given:
// base, and the time to read its input at slowestInput, so that a paste of
// many megabytes over ssh is not cut off.
func commandTimeout(base time.Duration, stdin io.Reader) time.Duration {
	if l, ok := stdin.(interface{ Len() int }); ok {
		base += time.Duration(l.Len()) * time.Second / slowestInput
	}
	return base
}

// runGated is run for a caller that already holds attachGate, shared,
// across several invocations.
func (t *terminal) runGated(ctx context.Context, stdin io.Reader, args ...string) (string, error) {
	t.mu.Lock()
	closed := t.closed
	t.mu.Unlock()
	if closed {
		return "", fmt.Errorf("%w: %w", ErrTerminalClosed, ports.ErrUnavailable)
	}
	t.processes.Add(1)
	callCtx := ctx
	timeout := commandTimeout(t.opts.CommandTimeout, stdin)
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, errNoAnswer)
	defer cancel()
	cmd, err := t.launch.command(ctx, append(append([]string(nil), t.sockArg...), args...)...)
	if err != nil {
		return "", fmt.Errorf("run tmux %s: %w", args[0], err)
	}
	cmd.Stdin = stdin
	cmd.WaitDelay = time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	if err == nil {
		return stdout.String(), nil
	}
	if callCtx.Err() != nil {
		return "", fmt.Errorf("tmux %s: %w", args[0], callCtx.Err())
	}
	if ctx.Err() != nil {
		return "", fmt.Errorf("tmux %s: no answer within %v, so tmux may still run it when it answers again: %w", args[0], timeout, errNoAnswer)
	}
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) {
		return "", fmt.Errorf("run tmux %s: %w: %w", args[0], err, ports.ErrUnavailable)
	}
	if lerr := t.launch.failed(args[0], exitErr.ExitCode(), stderr.String()); lerr != nil {
		return "", fmt.Errorf("tmux %s: %w", args[0], lerr)
	}
	msg := strings.TrimSpace(stderr.String())
	if msg == "" {
		msg = err.Error()
	}
	return "", t.launch.explain(&CommandError{Command: args[0], Message: msg, kind: classify(msg)})
}
