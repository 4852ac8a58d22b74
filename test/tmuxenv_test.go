package test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/adapters/clock"
	"github.com/tmux-mcp/tmux-mcp/adapters/random"
	"github.com/tmux-mcp/tmux-mcp/adapters/tmux"
	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/ports"
	"github.com/tmux-mcp/tmux-mcp/test/gate"
	"github.com/tmux-mcp/tmux-mcp/test/tmuxtest"
)

// The real-tmux environment of tmux_test.go and e2e_binary_test.go: every
// test runs its own tmux server on a private socket (tmux -L
// tmcp-it-<random>, no configuration file), which is killed and whose
// socket file is removed when the test ends. Shells start with a plain
// prompt and no rc files. Tests wait for conditions with deadlines, never
// for fixed times.

// A shellSpec is a shell a pane can run, started without rc files and
// with a plain "$ " prompt (mksh, run as root, shows "# " whatever PS1
// says). The pane runs the shell itself, as a person's pane does, not a
// wrapper that execs it: tmux names the pane's argv[0] when it cannot
// name the foreground program.
type shellSpec struct {
	name string   // the program, as the pane's foreground command shows it
	argv []string // what the pane runs
	env  []string // its environment, besides the server's
}

// shells are the shells run_shell_command is tested under, in the order
// the tests report them.
var shells = []shellSpec{
	{"bash", []string{"bash", "--norc", "--noprofile"}, []string{"PS1=$ "}},
	{"dash", []string{"dash"}, []string{"PS1=$ "}},
	{"zsh", []string{"zsh", "-f"}, []string{"PS1=$ "}},
	{"fish", []string{"fish", "--no-config", "-C", "set -g fish_greeting; function fish_prompt; echo -n '$ '; end"}, nil},
	{"mksh", []string{"mksh"}, []string{"PS1=$ "}},
}

// paneArgs are the arguments of new-session, new-window or split-window
// that make the pane run sh.
func (sh shellSpec) paneArgs() []string {
	var args []string
	for _, kv := range sh.env {
		args = append(args, "-e", kv)
	}
	return append(append(args, "--"), sh.argv...)
}

var bash = shells[0]

// needTmux skips the test under -short or when tmux is not installed, and
// returns the tmux binary.
func needTmux(t testing.TB) string {
	t.Helper()
	gate.Real(t, "tmux")
	return gate.Need(t, "tmux")
}

// needShell skips the test when the shell is not installed, naming it
// (or fails it, where the gate requires the shell).
func needShell(t testing.TB, sh shellSpec) {
	t.Helper()
	gate.Need(t, sh.name)
}

// tmuxServer is a private tmux server (tmuxtest) whose shells share a home
// of their own.
//
// Its methods take the calling test, which may be a subtest of the one
// that started the server.
type tmuxServer struct {
	bin  string
	sock string
	home string // the shells' home and working directory
	env  []string
	srv  *tmuxtest.Server
	seq  atomic.Int64 // numbers the sessions newSession names
}

// newTmuxServer starts a private tmux server with one session, "s", of
// 120x40 running sh, and returns the server and that session's pane. The
// server is killed and its socket file removed when t ends.
func newTmuxServer(t testing.TB, sh shellSpec) (*tmuxServer, ports.PaneID) {
	t.Helper()
	needTmux(t)
	needShell(t, sh)
	home, err := os.MkdirTemp("", "tmcp-it-home-")
	if err != nil {
		t.Fatal(err)
	}
	if home, err = filepath.EvalSymlinks(home); err != nil {
		t.Fatal(err)
	}
	// Shells may still be writing their state as they exit, so a failure
	// to remove everything is not the test's concern. Registered before
	// the server, this runs once the server is killed.
	t.Cleanup(func() { os.RemoveAll(home) })
	env := append(cleanEnv(os.Environ()),
		"HOME="+home, "XDG_CONFIG_HOME="+home, "XDG_DATA_HOME="+home, "XDG_CACHE_HOME="+home,
		"HISTFILE=/dev/null", "LC_ALL=C.UTF-8")
	srv := tmuxtest.New(t, tmuxtest.Options{Prefix: "tmcp-it", Env: env})
	s := &tmuxServer{bin: srv.Bin, sock: srv.Socket, home: home, env: env, srv: srv}
	p := s.newSession(t, "s", sh)
	return s, p
}

// socketFile is where tmux puts the socket of a server started with -L.
var socketFile = tmuxtest.SocketFile

// cleanEnv is env without what would make tmux or the server under test
// think they run inside another tmux, or pick up settings of the machine.
func cleanEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if name == "TMUX" || name == "TMUX_PANE" || strings.HasPrefix(name, "LIBTMUX_") || name == "SHELL" {
			continue
		}
		out = append(out, kv)
	}
	// A private tmux server runs $SHELL; a user's login shell may run
	// start-up files that wait on locks a killed test shell left behind,
	// so the tests give tmux a plain one.
	return append(out, "SHELL=/bin/sh")
}

// tmuxErr runs a tmux command on the server.
func (s *tmuxServer) tmuxErr(args ...string) (string, error) { return s.srv.Run(args...) }

// tmux runs a tmux command on the server and fails the test if it fails.
func (s *tmuxServer) tmux(t testing.TB, args ...string) string {
	t.Helper()
	return strings.TrimSpace(s.srv.Tmux(t, args...))
}

// newSession starts a detached 120x40 session running sh and waits for its
// prompt. An empty name picks a fresh one.
func (s *tmuxServer) newSession(t testing.TB, name string, sh shellSpec) ports.PaneID {
	t.Helper()
	if name == "" {
		name = fmt.Sprintf("s%d", s.seq.Add(1))
	}
	args := append([]string{"new-session", "-d", "-s", name, "-x", "120", "-y", "40", "-c", s.home,
		"-P", "-F", "#{pane_id}"}, sh.paneArgs()...)
	p := ports.PaneID(s.tmux(t, args...))
	s.waitPrompt(t, p)
	return p
}

// split splits the window of p, without selecting the new pane, and
// returns the new pane, which runs sh.
func (s *tmuxServer) split(t testing.TB, p ports.PaneID, sh shellSpec) ports.PaneID {
	t.Helper()
	args := append([]string{"split-window", "-d", "-t", string(p), "-c", s.home, "-P", "-F", "#{pane_id}"}, sh.paneArgs()...)
	q := ports.PaneID(s.tmux(t, args...))
	s.waitPrompt(t, q)
	return q
}

// screen returns p's visible screen as tmux itself captures it.
func (s *tmuxServer) screen(t testing.TB, p ports.PaneID) string {
	t.Helper()
	return s.tmux(t, "capture-pane", "-p", "-t", string(p))
}

// waitPrompt waits until p shows a shell prompt on its last non-empty row.
func (s *tmuxServer) waitPrompt(t testing.TB, p ports.PaneID) {
	t.Helper()
	eventually(t, 10*time.Second, "a shell prompt in "+string(p), func() bool {
		screen := s.screen(t, p)
		return strings.HasSuffix(screen, "$") || strings.HasSuffix(screen, "#")
	})
}

// waitProcess waits until a process named program runs in p's session
// (the session of the terminal, whose leader is the pane's process):
// tmux's pane_current_command names only the leader of the foreground
// process group, which is the subshell of a framed command, not what the
// subshell runs. It reads /proc, so the test is skipped where there is
// none.
func (s *tmuxServer) waitProcess(t testing.TB, p ports.PaneID, program string) {
	t.Helper()
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc to find the pane's processes in")
	}
	sid := s.tmux(t, "display-message", "-p", "-t", string(p), "#{pane_pid}")
	eventually(t, 10*time.Second, program+" running in "+string(p), func() bool {
		stats, _ := filepath.Glob("/proc/[0-9]*/stat")
		for _, f := range stats {
			b, err := os.ReadFile(f)
			if err != nil {
				continue // the process has gone
			}
			// pid (comm) state ppid pgrp session ...; comm may hold
			// anything, so fields are counted from its last ")".
			open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
			if open < 0 || end < open {
				continue
			}
			fields := strings.Fields(string(b[end+1:]))
			if string(b[open+1:end]) == program && len(fields) > 3 && fields[3] == sid {
				return true
			}
		}
		return false
	})
}

// waitCommand waits until p's foreground program, as tmux names it, is
// program.
func (s *tmuxServer) waitCommand(t testing.TB, p ports.PaneID, program string) {
	t.Helper()
	eventually(t, 10*time.Second, program+" in the foreground of "+string(p), func() bool {
		return s.tmux(t, "display-message", "-p", "-t", string(p), "#{pane_current_command}") == program
	})
}

// terminal returns a tmux Terminal on the server with opts, closed when
// the test ends. Unless opts says otherwise, the Terminal runs outside
// tmux: its TMUX and TMUX_PANE are empty.
func (s *tmuxServer) terminal(t testing.TB, opts tmux.Options) *tmux.Terminal {
	t.Helper()
	opts.SocketName = s.sock
	if opts.Env == nil {
		opts.Env = func(string) string { return "" }
	}
	term, err := tmux.New(opts)
	if err != nil {
		t.Fatalf("tmux.New: %v", err)
	}
	t.Cleanup(func() { term.Close() })
	return term
}

// service returns a domain Service on term and the system clock, closed
// when the test ends.
func service(t testing.TB, term ports.Terminal) *domain.Service {
	svc := domain.NewService(term, clock.New(), random.New(), domain.Config{WaitMax: 60 * time.Second, MaxResultLines: 200})
	t.Cleanup(func() { svc.Close() })
	return svc
}

// attach attaches a real client, in a pseudo-terminal that script(1)
// makes, to session and returns its tty once tmux lists it. The client is
// detached when the test ends.
func (s *tmuxServer) attach(t testing.TB, session string) string {
	t.Helper()
	tty, _ := s.srv.Attach(t, session)
	return tty
}

// eventually waits until ok returns true, failing the test after timeout.
var eventually = tmuxtest.Eventually

// itContext is a context for one real-tmux test, ended with it.
func itContext(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}
