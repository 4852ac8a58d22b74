package tmux

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// A launcher makes the one kind of process the adapter starts: a tmux
// client run with given arguments. Locally that is the tmux binary with
// the arguments as its argv; with a remote host (Options.SSH) it is the
// system ssh, multiplexed over one connection, running tmux on that host
// with the arguments quoted for its login shell (see ssh.go). Every tmux
// process the adapter runs, control-mode clients and one-off commands
// alike, is made here, so that no code path can reach a local tmux by
// mistake when the panes live elsewhere.
type launcher struct {
	bin string   // the tmux binary: a path here, or a name or path on the remote host
	env []string // the environment of the processes started here (tmux, or ssh)
	ssh *sshLink // the connection to the remote host; nil when tmux runs here
}

// newLauncher returns the launcher opts ask for: the local tmux binary,
// found on PATH, or a connection to opts.SSH whose login shell passed its
// probe (see ssh.go).
func newLauncher(opts Options, env []string) (launcher, error) {
	if opts.SSH == "" {
		bin, err := exec.LookPath(opts.Bin)
		if err != nil {
			return launcher{}, fmt.Errorf("tmux binary %q: %w: %w", opts.Bin, err, ports.ErrUnavailable)
		}
		return launcher{bin: bin, env: env}, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*sshConnectTimeout)
	defer cancel()
	link, err := dialSSH(ctx, opts, env)
	if err != nil {
		return launcher{}, err
	}
	if err := link.probeShell(ctx); err != nil {
		link.close()
		return launcher{}, err
	}
	return launcher{bin: opts.Bin, env: env, ssh: link}, nil
}

// close closes the connection to the remote host, if any.
func (l launcher) close() error {
	if l.ssh == nil {
		return nil
	}
	return l.ssh.close()
}

// command returns the process that runs a tmux client with args, not yet
// started. ctx ends the process as exec.CommandContext does; a process
// that is to outlive its caller gets context.Background(). With a remote
// host it first makes sure the shared connection is up, reconnecting if
// it was lost, and fails with an *SSHError when that cannot be done.
func (l launcher) command(ctx context.Context, args ...string) (*exec.Cmd, error) {
	if l.ssh == nil {
		cmd := exec.CommandContext(ctx, l.bin, args...)
		cmd.Env = l.env
		return cmd, nil
	}
	return l.ssh.command(ctx, append([]string{l.bin}, args...))
}

// remote reports whether tmux runs on another host.
func (l launcher) remote() bool { return l.ssh != nil }

// failed turns the failure of a process that command made, which exited
// with status code, into the error the caller reports, or returns nil when
// it is tmux's own failure (which the caller turns into a *CommandError).
// what names the tmux command.
// Locally every failure is tmux's; over ssh, exit status 255 is ssh's own
// (the connection), and 126 or 127 the remote shell's (no tmux there).
func (l launcher) failed(what string, code int, stderr string) error {
	if l.ssh == nil {
		return nil
	}
	switch code {
	case 255:
		return l.ssh.failure(stderr)
	case 126, 127:
		return fmt.Errorf("tmux %s on %s: the remote shell cannot run %q (%s): install tmux %d.%d or newer there, or name its path with -tmux-bin: %w",
			what, l.ssh.dest, l.bin, firstLine(stderr), minMajor, minMinor, ports.ErrUnavailable)
	}
	return nil
}

// explain adds to a *CommandError what a person needs to know to act on
// it when tmux runs on another host: that no tmux server running there is
// something to start there. Other errors are returned as they are.
func (l launcher) explain(err *CommandError) error {
	if l.ssh == nil || !noServer(err.Message) {
		return err
	}
	return fmt.Errorf("%w (on %s: no tmux server answers on that socket; start one there, for example with \"ssh %s tmux new-session -d\", or call create_session, which starts it)",
		err, l.ssh.dest, l.ssh.dest)
}

// noServer reports whether tmux's message says that no server listens on
// its socket.
func noServer(msg string) bool {
	return strings.Contains(msg, "no server running on") || strings.Contains(msg, "error connecting to")
}

// firstLine is the first non-empty line of s, for messages.
func firstLine(s string) string {
	for _, line := range strings.Split(s, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			return line
		}
	}
	return "no message"
}

// isLinkError reports whether err is the loss of the connection to a
// remote host, which says nothing about the panes there.
func isLinkError(err error) bool {
	var se *SSHError
	return errors.As(err, &se)
}
