package tmux

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/adapters/internal/proc"
	"github.com/tmux-mcp/tmux-mcp/adapters/internal/tty"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// SignalGroup sends a signal to a process group on the pane's terminal
// (ports.Signaler). On this host the group's processes are read from
// /proc and signalled with kill(2) (internal/tty); over ssh the group
// must be the foreground group of the pane's terminal, as the remote
// reader reads it, and `kill -s SIG -- -PGID` is run there through the
// connection the Terminal already has: only the group's leader is then
// reported. Never the group of the pane's own process.
func (t *shellSupport) SignalGroup(ctx context.Context, id ports.PaneID, pgid int, sig ports.Signal) ([]ports.Process, error) {
	procs, err := t.signalGroup(ctx, id, pgid, sig)
	if err != nil {
		return nil, fmt.Errorf("send %s to process group %d in pane %s: %w", sig, pgid, id, err)
	}
	return procs, nil
}

var _ ports.Signaler = (*Terminal)(nil)

func (t *shellSupport) signalGroup(ctx context.Context, id ports.PaneID, pgid int, sig ports.Signal) ([]ports.Process, error) {
	if sig.Number() == 0 {
		return nil, fmt.Errorf("no signal %q", sig)
	}
	if t.proc != nil {
		return t.remoteSignal(ctx, id, pgid, sig)
	}
	c, dev, err := t.localTTY(ctx, id)
	if err != nil {
		return nil, err
	}
	return tty.SignalGroup(c.pid, dev, pgid, sig)
}

// remoteSignal signals the pane's foreground group on the remote host.
// Between the reading of the foreground and the kill the group may end
// (kill then fails, and nothing is signalled) but its id cannot be
// another group's while any process of it lives.
func (t *shellSupport) remoteSignal(ctx context.Context, id ports.PaneID, pgid int, sig ports.Signal) ([]ports.Process, error) {
	fg, err := t.remoteForeground(ctx, id)
	if err != nil {
		return nil, err
	}
	c, _, err := t.paneTTY(ctx, id, false)
	if err != nil {
		return nil, err
	}
	switch {
	case pgid <= 1 || pgid > procMaxArg:
		return nil, fmt.Errorf("process group %d: %w", pgid, ports.ErrNoGroup)
	case pgid == c.pid:
		return nil, fmt.Errorf("process group %d is the pane's own process's: %w", pgid, ports.ErrNoGroup)
	case fg.Group != pgid:
		return nil, fmt.Errorf("process group %d is not in front of the pane's terminal (%d is): %w", pgid, fg.Group, ports.ErrNoGroup)
	}
	cmd, err := t.launch.ssh.command(ctx, []string{"kill", "-s", string(sig), "--", "-" + strconv.Itoa(pgid)})
	if err != nil {
		return nil, err
	}
	var stderr limitedBuffer
	cmd.Stderr = &stderr
	var ee *exec.ExitError
	switch err := cmd.Run(); {
	case errors.As(err, &ee) && ee.ExitCode() == 255:
		return nil, t.launch.ssh.failure(stderr.String())
	case errors.As(err, &ee):
		return nil, fmt.Errorf("kill on the remote host: %s: %w", strings.TrimSpace(stderr.String()), ports.ErrNoGroup)
	case err != nil:
		return nil, fmt.Errorf("kill on the remote host: %w: %w", err, ports.ErrUnavailable)
	}
	return []ports.Process{{PID: pgid, Command: strings.Join(fg.Args, " ")}}, nil
}

// ProcessExists tells whether a process exists (ports.ProcessChecker): on
// this host by kill(pid, 0), over ssh by the remote reader's stat of
// /proc/PID, which cannot tell where /proc hides other users' processes.
func (t *shellSupport) ProcessExists(ctx context.Context, id ports.PaneID, pid int) (bool, error) {
	if err := checkPaneID(id); err != nil {
		return false, err
	}
	if pid <= 0 || pid > procMaxArg {
		return false, nil
	}
	if t.proc == nil {
		return proc.Runs(pid), nil
	}
	hello, err := t.proc.hello(ctx)
	if err != nil {
		return false, err
	}
	if !hello.proc || hello.hides {
		return false, fmt.Errorf("tell whether process %d runs on the remote host: %w", pid, ports.ErrUnsupported)
	}
	out, err := t.proc.ask(ctx, procQuery{verb: "fg", args: []int{pid}})
	if err != nil {
		return false, err
	}
	switch lines := out[0]; {
	case len(lines) > 0 && lines[0] == "s -":
		return false, nil
	case len(lines) > 0 && strings.HasPrefix(lines[0], "s ") && lines[0] != "s ?":
		return true, nil
	}
	return false, fmt.Errorf("tell whether process %d runs on the remote host: %w", pid, ports.ErrUnsupported)
}

var _ ports.ProcessChecker = (*Terminal)(nil)
