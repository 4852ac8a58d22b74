// Package tmuxtest runs private tmux servers for tests and benchmarks, and
// holds the small helpers every test of a real multiplexer needs: waiting
// for a condition with a deadline (Eventually, Poll) and a
// pseudo-terminal of its own (OpenPTY).
//
// A Server is a tmux server on a socket of its own (tmux -L with a random
// name), run with no configuration file (-f /dev/null), so that it never
// meets a person's sessions and its panes never read a person's
// settings. tmux starts it with the first command that makes a session;
// New kills it, and removes the socket file tmux leaves behind, when the
// test ends. New asks the gate first (gate.Real, gate.Need): under -short
// it skips, and where tmux is required (in CI) a missing tmux fails the
// test instead of skipping it.
//
// Tests wait for conditions with deadlines, never for fixed times: a
// deadline only says how long a failing test takes to fail.
package tmuxtest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/test/gate"
)

// Options adjust a Server.
type Options struct {
	// Prefix starts the socket's name, which a random suffix completes:
	// it tells whose server a stray socket was. Empty means "tmcp-test".
	Prefix string
	// Env is the environment of every tmux client run on the server, and
	// so of the server and its panes. Nil means this process's, without
	// TMUX and TMUX_PANE (which would make tmux take its clients for
	// nested ones).
	Env []string
}

// Server is a private tmux server. Its methods that fail a test take the
// calling test, which may be a subtest of the one that made the server.
type Server struct {
	Bin    string   // the tmux binary
	Socket string   // the socket's name, for tmux -L
	Env    []string // the environment of every tmux client run on it
}

// New returns a private server for the test, killed and its socket file
// removed when the test ends. It skips the test under -short, and when
// tmux is not installed (or fails it, where the gate requires tmux).
func New(t testing.TB, opts Options) *Server {
	t.Helper()
	gate.Real(t, "tmux")
	bin := gate.Need(t, "tmux")
	s, err := Named(bin, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Kill() })
	return s
}

// Named returns a private server of the tmux binary bin, not started yet,
// for a caller that is not a test (a benchmark run): it must call Kill.
func Named(bin string, opts Options) (*Server, error) {
	prefix := opts.Prefix
	if prefix == "" {
		prefix = "tmcp-test"
	}
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		return nil, fmt.Errorf("name the tmux socket: %w", err)
	}
	env := opts.Env
	if env == nil {
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "TMUX=") && !strings.HasPrefix(kv, "TMUX_PANE=") {
				env = append(env, kv)
			}
		}
	}
	return &Server{Bin: bin, Socket: prefix + "-" + hex.EncodeToString(b), Env: env}, nil
}

// Kill stops the server and removes its socket file, which tmux leaves
// behind. A server that is not running is no error; Kill may be called
// more than once.
func (s *Server) Kill() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := s.RunContext(ctx, "kill-server")
	if err != nil && (strings.Contains(err.Error(), "no server running") || strings.Contains(err.Error(), "error connecting")) {
		err = nil
	}
	if rerr := os.Remove(SocketFile(s.Socket)); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
		err = errors.Join(err, fmt.Errorf("remove the tmux socket: %w", rerr))
	}
	return err
}

// SocketFile is where tmux puts the socket of a server started with -L
// name: in TMUX_TMPDIR, or /tmp (tmux does not read TMPDIR).
func SocketFile(name string) string {
	dir := os.Getenv("TMUX_TMPDIR")
	if dir == "" {
		dir = "/tmp"
	}
	return filepath.Join(dir, fmt.Sprintf("tmux-%d", os.Getuid()), name)
}

// Command returns the tmux client `tmux -L socket -f /dev/null args...`,
// with the server's environment.
func (s *Server) Command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, s.Bin, append([]string{"-L", s.Socket, "-f", os.DevNull}, args...)...)
	cmd.Env = s.Env
	return cmd
}

// Run runs one tmux client on the server and returns its standard output.
// Its error names the arguments and says what tmux printed on standard
// error.
func (s *Server) Run(args ...string) (string, error) {
	return s.RunContext(context.Background(), args...)
}

// RunContext is Run, ended with ctx.
func (s *Server) RunContext(ctx context.Context, args ...string) (string, error) {
	cmd := s.Command(ctx, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out), fmt.Errorf("tmux %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

// Tmux runs one tmux client like Run and fails the test if it fails.
func (s *Server) Tmux(t testing.TB, args ...string) string {
	t.Helper()
	out, err := s.Run(args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Screen returns the visible screen of pane, rows joined by newlines, as
// tmux itself captures it.
func (s *Server) Screen(t testing.TB, pane string) string {
	t.Helper()
	return s.Tmux(t, "capture-pane", "-p", "-t", pane)
}

// ClientTTYs lists the ttys of the attached clients that are not
// control-mode clients.
func (s *Server) ClientTTYs() []string {
	out, _ := s.Run("list-clients", "-F", "#{client_control_mode} #{client_tty}")
	var ttys []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if tty, ok := strings.CutPrefix(line, "0 "); ok {
			ttys = append(ttys, tty)
		}
	}
	return ttys
}

// ControlClients counts the control-mode clients attached to the server.
func (s *Server) ControlClients() int {
	out, _ := s.Run("list-clients", "-F", "#{client_control_mode}")
	return strings.Count(out, "1")
}

// Attach attaches a real client, in a pseudo-terminal that script(1)
// makes, to target, and returns its tty once tmux lists it, and a
// function that detaches it (safe to call more than once). The client is
// detached when the test ends, if not before. It skips the test when
// script is missing (or fails it, where the gate requires script).
func (s *Server) Attach(t testing.TB, target string) (tty string, detach func()) {
	t.Helper()
	script := gate.Need(t, "script") // makes the client's terminal
	before := s.ClientTTYs()
	cmd := exec.Command(script, "-qfc", s.Bin+" -L "+s.Socket+" attach-session -t '"+target+"'", os.DevNull)
	cmd.Env = append(slices.Clone(s.Env), "TERM=xterm")
	// script ends, and the client with it, when its input ends: the input
	// stays open until detach.
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatalf("start script: %v", err)
	}
	var once sync.Once
	detach = func() {
		once.Do(func() {
			if tty != "" {
				s.Run("detach-client", "-t", tty)
			}
			cmd.Process.Kill()
			stdin.Close()
			cmd.Wait()
		})
	}
	t.Cleanup(detach)
	Eventually(t, 10*time.Second, "an attached client", func() bool {
		for _, c := range s.ClientTTYs() {
			if !slices.Contains(before, c) {
				tty = c
				return true
			}
		}
		return false
	})
	return tty, detach
}
