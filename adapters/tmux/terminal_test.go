package tmux

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/ports"
	"github.com/tmux-mcp/tmux-mcp/test/gate"
	"github.com/tmux-mcp/tmux-mcp/test/tmuxtest"
)

func TestNewRefusesAMissingTmux(t *testing.T) {
	_, err := New(Options{Bin: filepath.Join(t.TempDir(), "no-tmux-here")})
	if !errors.Is(err, ports.ErrUnavailable) {
		t.Fatalf("New with a missing binary: err = %v, want ErrUnavailable", err)
	}
}

func TestNewRefusesATmuxOlderThan32(t *testing.T) {
	gate.Real(t, "a script that poses as tmux")
	bin := filepath.Join(t.TempDir(), "tmux")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\necho 'tmux 3.1c'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := New(Options{Bin: bin})
	if !errors.Is(err, ports.ErrUnavailable) || !strings.Contains(err.Error(), "3.1c") {
		t.Fatalf("New with tmux 3.1c: err = %v, want ErrUnavailable naming the version", err)
	}
}

func TestNewRefusesBothSocketNameAndPath(t *testing.T) {
	if _, err := New(Options{SocketName: "a", SocketPath: "/tmp/b"}); err == nil {
		t.Fatal("New with both a socket name and a socket path succeeded")
	}
}

func TestEveryCallIsUnavailableWithoutAServer(t *testing.T) {
	s := newTestServer(t) // never started
	term := s.terminal(Options{})
	ctx := testContext(t)
	if err := term.Ping(ctx); !errors.Is(err, ports.ErrUnavailable) {
		t.Errorf("Ping: err = %v, want ErrUnavailable", err)
	}
	if _, err := term.Pane(ctx, "%0"); !errors.Is(err, ports.ErrUnavailable) {
		t.Errorf("Pane: err = %v, want ErrUnavailable", err)
	}
	if err := term.SendText(ctx, "%0", "x"); !errors.Is(err, ports.ErrUnavailable) {
		t.Errorf("SendText: err = %v, want ErrUnavailable", err)
	}
	if _, err := term.OpenOutput(ctx, "%0"); !errors.Is(err, ports.ErrUnavailable) {
		t.Errorf("OpenOutput: err = %v, want ErrUnavailable", err)
	}
	if _, err := term.Pane(ctx, "%0"); err == nil || !strings.Contains(err.Error(), s.sock) {
		t.Errorf("Pane: err = %v, want it to name the socket", err)
	}
}

func TestStartPrivateRunsAServerUntilStopped(t *testing.T) {
	gate.Real(t, "a tmux server with the default shell")
	server := newTestServer(t) // skips without tmux
	// The private server runs $SHELL; a login shell's start-up files
	// may wait on a lock that a killed test shell left behind.
	t.Setenv("SHELL", "/bin/sh")
	sock, session, stop, err := StartPrivate(Options{})
	if err != nil {
		t.Fatalf("StartPrivate: %v", err)
	}
	t.Cleanup(func() { stop() })
	if sock == "" || session != PrivateSession {
		t.Fatalf("StartPrivate = %q, %q", sock, session)
	}
	term, err := New(Options{SocketName: sock, Env: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	defer term.Close()
	ctx := testContext(t)
	info, err := term.Pane(ctx, "%0")
	if err != nil {
		t.Fatalf("Pane of the private session: %v", err)
	}
	if info.Width != 200 || info.Height != 50 || info.Dead {
		t.Errorf("private pane = %+v, want a live 200x50 pane", info)
	}
	socket := strings.TrimSpace((&testServer{t: t, bin: server.bin, sock: sock}).tmux("display-message", "-p", "#{socket_path}"))
	if err := stop(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	if err := term.Ping(ctx); !errors.Is(err, ports.ErrUnavailable) {
		t.Errorf("Ping after stop: err = %v, want ErrUnavailable", err)
	}
	if _, err := os.Stat(socket); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("socket %s after stop: %v, want it removed", socket, err)
	}
	if err := stop(); err != nil {
		t.Errorf("second stop: %v", err)
	}
}

// The shell a private server runs is the one asked for, in its first pane
// and in every pane made later.
func TestStartPrivateRunsTheShellAskedFor(t *testing.T) {
	server := newTestServer(t) // skips without tmux
	gate.Need(t, "dash")
	t.Setenv("SHELL", "/bin/sh")
	sock, _, stop, err := StartPrivate(Options{Shell: "dash"})
	if err != nil {
		t.Fatalf("StartPrivate: %v", err)
	}
	t.Cleanup(func() { stop() })
	term, err := New(Options{SocketName: sock, Env: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	defer term.Close()
	ctx := testContext(t)
	created, err := term.CreateWindow(ctx, PrivateSession, "later")
	if err != nil {
		t.Fatal(err)
	}
	s := &testServer{t: t, bin: server.bin, sock: sock}
	// The pane's own process, not what is in front of it: a login
	// shell's .profile may be running mesg.
	// tmux forks the pane's process and then execs the shell: until it
	// has, the process is still tmux.
	for _, pane := range []ports.PaneID{"%0", created.Pane} {
		pid := strings.TrimSpace(s.tmux("display-message", "-p", "-t", string(pane), "#{pane_pid}"))
		var exe string
		var err error
		if !tmuxtest.Poll(5*time.Second, func() bool {
			exe, err = os.Readlink("/proc/" + pid + "/exe")
			return err == nil && filepath.Base(exe) != "tmux"
		}) || filepath.Base(exe) != "dash" {
			t.Errorf("pane %s runs %q (%v), want dash", pane, exe, err)
		}
	}

	if _, _, _, err := StartPrivate(Options{Shell: "no-such-shell-here"}); err == nil || !strings.Contains(err.Error(), "no-such-shell-here") {
		t.Errorf("StartPrivate with a shell that is not there: %v, want an error naming it", err)
	}
}

func TestCloseStopsControlClientsAndEndsStreams(t *testing.T) {
	s := newTestServer(t)
	p := s.session("main", bashCmd)
	term := s.terminal(Options{})
	ctx := testContext(t)
	stream, err := term.OpenOutput(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if n := s.controlClients(); n != 1 {
		t.Fatalf("%d control clients attached while a stream is open, want 1", n)
	}
	if err := term.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if n := s.controlClients(); n != 0 {
		t.Errorf("%d control clients attached after Close, want 0", n)
	}
	if c := stream.ReadFrom(stream.End()); !errors.Is(c.Ended, ErrTerminalClosed) {
		t.Errorf("stream after Close: Ended = %v, want ErrTerminalClosed", c.Ended)
	}
	if _, err := term.OpenOutput(ctx, p); !errors.Is(err, ports.ErrUnavailable) {
		t.Errorf("OpenOutput after Close: err = %v, want ErrUnavailable", err)
	}
	if err := term.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// recordingLogger keeps the warnings it is given.
type recordingLogger struct {
	mu    sync.Mutex
	warns []string
}

func (l *recordingLogger) Debug(string, ...any) {}
func (l *recordingLogger) Warn(msg string, kv ...any) {
	l.mu.Lock()
	l.warns = append(l.warns, fmt.Sprint(append([]any{msg}, kv...)...))
	l.mu.Unlock()
}

func (l *recordingLogger) warned() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.warns...)
}

// The operator is warned when the tmux server goes away under the
// adapter, and not when the adapter itself lets a client go.
func TestAServerThatGoesAwayIsWarnedOf(t *testing.T) {
	s := newTestServer(t)
	p := s.session("main", bashCmd)
	log := &recordingLogger{}
	term := s.terminal(Options{Logger: log})
	ctx := testContext(t)
	stream, err := term.OpenOutput(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	s.tmux("kill-server")
	deadline := time.Now().Add(10 * time.Second)
	for len(log.warned()) == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if w := log.warned(); len(w) != 1 || !strings.Contains(w[0], "tmux server is gone") {
		t.Errorf("warnings %q, want one saying the tmux server is gone", w)
	}

	// A Terminal closed by its owner warns of nothing.
	s2 := newTestServer(t)
	p2 := s2.session("main", bashCmd)
	log2 := &recordingLogger{}
	term2 := s2.terminal(Options{Logger: log2})
	if _, err := term2.OpenOutput(ctx, p2); err != nil {
		t.Fatal(err)
	}
	term2.Close()
	if w := log2.warned(); len(w) != 0 {
		t.Errorf("warnings %q after Close, want none", w)
	}
}
