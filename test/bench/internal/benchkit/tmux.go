package benchkit

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// tmuxServer is a private tmux server on its own socket (tmux -L), started
// for one benchmark run and killed at its end. Its panes run a shell with
// no startup files, so that what the benchmark measures does not depend on
// the user's shell configuration. The measured panes are in one session,
// the floor's pane in another (control.go).
type tmuxServer struct {
	bin    string
	socket string
	env    []string // environment of every tmux client the harness runs
}

// benchSession is the name of the session that holds every bench pane.
const benchSession = "bench"

// startTmux starts a private tmux server whose panes run shell (a command
// line such as "bash --norc --noprofile") with history-limit rows of
// history. The caller must call kill.
func startTmux(ctx context.Context, bin, shell string, historyLimit int) (*tmuxServer, error) {
	var suffix [4]byte
	if _, err := rand.Read(suffix[:]); err != nil {
		return nil, fmt.Errorf("name the tmux socket: %w", err)
	}
	t := &tmuxServer{bin: bin, socket: "tmcp-bench-" + hex.EncodeToString(suffix[:]), env: tmuxEnv()}
	// Options are set before the first session so that its panes get them;
	// history-limit applies only to panes created after it is set.
	_, err := t.run(ctx, "-f", "/dev/null",
		"start-server", ";",
		"set-option", "-g", "history-limit", strconv.Itoa(historyLimit), ";",
		"set-option", "-g", "default-command", shell, ";",
		"set-environment", "-g", "PS1", "$ ", ";",
		"new-session", "-d", "-s", benchSession, "-x", "200", "-y", "50", ";",
		"new-session", "-d", "-s", floorSession, "-x", "200", "-y", "50", ";",
		"new-window", "-d", "-t", floorSession+":1", "stty raw -echo; exec cat >/dev/null")
	if err != nil {
		t.kill()
		return nil, fmt.Errorf("start tmux on socket %s: %w", t.socket, err)
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

// run runs one tmux client on the private socket and returns its standard
// output.
func (t *tmuxServer) run(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, t.bin, append([]string{"-L", t.socket}, args...)...)
	cmd.Env = t.env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("tmux %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

// floor runs the reference round trip, `tmux -L socket display -p x`, and
// returns how long it took, from starting the process to its exit.
func (t *tmuxServer) floor(ctx context.Context) (time.Duration, error) {
	start := time.Now()
	out, err := t.run(ctx, "display-message", "-p", "x")
	d := time.Since(start)
	if err != nil {
		return 0, err
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
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := t.run(ctx, "kill-server")
	if err != nil && !strings.Contains(err.Error(), "no server running") && !strings.Contains(err.Error(), "error connecting") {
		fmt.Fprintf(os.Stderr, "bench: %v\n", err)
	}
	dir := os.Getenv("TMUX_TMPDIR")
	if dir == "" {
		dir = "/tmp"
	}
	sock := filepath.Join(dir, fmt.Sprintf("tmux-%d", os.Getuid()), t.socket)
	if err := os.Remove(sock); err != nil && !errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(os.Stderr, "bench: remove tmux socket: %v\n", err)
	}
}
