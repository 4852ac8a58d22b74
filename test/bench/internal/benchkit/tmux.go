package benchkit

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/tmux-mcp/tmux-mcp/test/tmuxtest"
)

// tmuxServer is a private tmux server on its own socket (tmux -L, see
// tmuxtest), started for one benchmark run and killed at its end. Its
// panes run a shell with no startup files, so that what the benchmark
// measures does not depend on the user's shell configuration. The
// measured panes are in one session, the floor's pane in another
// (control.go).
type tmuxServer struct {
	*tmuxtest.Server
}

// benchSession is the name of the session that holds every bench pane.
const benchSession = "bench"

// startTmux starts a private tmux server whose panes run shell (a command
// line such as "bash --norc --noprofile") with history-limit rows of
// history. The caller must call kill.
func startTmux(ctx context.Context, bin, shell string, historyLimit int) (*tmuxServer, error) {
	srv, err := tmuxtest.Named(bin, tmuxtest.Options{Prefix: "tmcp-bench", Env: tmuxEnv()})
	if err != nil {
		return nil, err
	}
	t := &tmuxServer{srv}
	// Options are set before the first session so that its panes get them;
	// history-limit applies only to panes created after it is set.
	_, err = t.run(ctx,
		"start-server", ";",
		"set-option", "-g", "history-limit", strconv.Itoa(historyLimit), ";",
		"set-option", "-g", "default-command", shell, ";",
		"set-environment", "-g", "PS1", "$ ", ";",
		"new-session", "-d", "-s", benchSession, "-x", "200", "-y", "50", ";",
		"new-session", "-d", "-s", floorSession, "-x", "200", "-y", "50", ";",
		"new-window", "-d", "-t", floorSession+":1", "stty raw -echo; exec cat >/dev/null")
	if err != nil {
		t.kill()
		return nil, fmt.Errorf("start tmux on socket %s: %w", t.Socket, err)
	}
	return t, nil
}

// tmuxEnv is a small, predictable environment for the tmux server: its
// panes inherit it, so nothing from the user's session (TMUX,
// PROMPT_COMMAND, aliases exported by a login shell) reaches them.
func tmuxEnv() []string {
	env := []string{"LANG=C.UTF-8", "TERM=xterm-256color"}
	for _, k := range []string{"PATH", "HOME", "USER", "TMUX_TMPDIR"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// run runs one tmux client on the private socket (with no configuration
// file) and returns its standard output.
func (t *tmuxServer) run(ctx context.Context, args ...string) (string, error) {
	return t.RunContext(ctx, args...)
}

// floor runs the reference round trip, `tmux -L socket display -p x`, and
// returns how long it took, from starting the process to its exit. It
// runs that command exactly, not through run (which adds -f /dev/null),
// so that the floor is the bare round trip.
func (t *tmuxServer) floor(ctx context.Context) (time.Duration, error) {
	cmd := exec.CommandContext(ctx, t.Bin, "-L", t.Socket, "display-message", "-p", "x")
	cmd.Env = t.Env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	b, err := cmd.Output()
	d := time.Since(start)
	out := string(b)
	if err != nil {
		return 0, fmt.Errorf("tmux display-message -p x: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	if out != "x\n" {
		return 0, fmt.Errorf("tmux display -p x printed %q", out)
	}
	return d, nil
}

// newPane opens a new window in the bench session and returns the id of
// its pane, such as "%3".
func (t *tmuxServer) newPane(ctx context.Context) (string, error) {
	out, err := t.run(ctx, "new-window", "-d", "-t", benchSession+":", "-P", "-F", "#{pane_id}")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(out), nil
}

// firstPane returns the pane of the first window of session.
func (t *tmuxServer) firstPane(ctx context.Context, session string) (string, error) {
	out, err := t.run(ctx, "display-message", "-p", "-t", session+":0.0", "#{pane_id}")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(out), nil
}

// typeLine types line into the pane, as text, and presses Enter.
func (t *tmuxServer) typeLine(ctx context.Context, pane, line string) error {
	_, err := t.run(ctx, "send-keys", "-t", pane, "-l", line, ";", "send-keys", "-t", pane, "Enter")
	return err
}

// display returns the value of a tmux format for the pane.
func (t *tmuxServer) display(ctx context.Context, pane, format string) (string, error) {
	out, err := t.run(ctx, "display-message", "-p", "-t", pane, format)
	return strings.TrimSpace(out), err
}

// serverPID returns the process id of the tmux server.
func (t *tmuxServer) serverPID(ctx context.Context) (int, error) {
	out, err := t.run(ctx, "display-message", "-p", "#{pid}")
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(out))
}

// waitFor polls the pane's format until ok accepts its value or timeout
// passes. Polling is acceptable here: it prepares a benchmark and is not
// itself measured.
func (t *tmuxServer) waitFor(ctx context.Context, pane, format string, ok func(string) bool, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		v, err := t.display(ctx, pane, format)
		if err != nil {
			return err
		}
		if ok(v) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("pane %s: %s is %q after %v", pane, format, v, timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// kill stops the tmux server and removes its socket file, which tmux 3.3a
// leaves behind. It is safe to call more than once.
func (t *tmuxServer) kill() {
	if err := t.Kill(); err != nil {
		fmt.Fprintf(os.Stderr, "bench: %v\n", err)
	}
}
