package tmux

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/ports"
	"github.com/tmux-mcp/tmux-mcp/test/tmuxtest"
)

// The real-tmux tests each run their own tmux server on a private socket
// (tmuxtest: tmux -L tmcp-test-<random>, no configuration file), killed
// when they end. They wait for conditions with deadlines, never for fixed
// times.

// A shell with a plain prompt, no rc files and no history file.
var (
	bashCmd = []string{"env", "PS1=$ ", "HISTFILE=/dev/null", "bash", "--norc", "--noprofile"}
	dashCmd = []string{"env", "PS1=$ ", "dash"}
	// rawCat echoes what it reads in raw mode, control characters made
	// visible (^M for CR, ^[ for ESC), as soon as each byte arrives.
	rawCat = []string{"sh", "-c", "stty raw -echo; exec cat -v"}
)

// testServer is a private tmux server, bound to the test that made it.
type testServer struct {
	t    testing.TB
	bin  string
	sock string
}

func newTestServer(t testing.TB) *testServer {
	t.Helper()
	srv := tmuxtest.New(t, tmuxtest.Options{Prefix: "tmcp-test", Env: childEnv(os.Environ())})
	return &testServer{t: t, bin: srv.Bin, sock: srv.Socket}
}

// srv is the server as tmuxtest runs its commands: its tests also make
// a testServer for a socket that StartPrivate named.
func (s *testServer) srv() *tmuxtest.Server {
	return &tmuxtest.Server{Bin: s.bin, Socket: s.sock, Env: childEnv(os.Environ())}
}

// tmuxErr runs a tmux command on the server.
func (s *testServer) tmuxErr(args ...string) (string, error) { return s.srv().Run(args...) }

// tmux runs a tmux command on the server and fails the test if it fails.
func (s *testServer) tmux(args ...string) string {
	s.t.Helper()
	return s.srv().Tmux(s.t, args...)
}

// session starts a detached 80x24 session running cmd and returns its pane.
func (s *testServer) session(name string, cmd []string) ports.PaneID {
	s.t.Helper()
	args := append([]string{"new-session", "-d", "-s", name, "-x", "80", "-y", "24", "-P", "-F", "#{pane_id}"}, cmd...)
	return ports.PaneID(strings.TrimSpace(s.tmux(args...)))
}

// split splits the window of pane p and returns the new pane, which runs
// cmd.
func (s *testServer) split(p ports.PaneID, cmd []string) ports.PaneID {
	s.t.Helper()
	args := append([]string{"split-window", "-d", "-t", string(p), "-P", "-F", "#{pane_id}"}, cmd...)
	return ports.PaneID(strings.TrimSpace(s.tmux(args...)))
}

// window opens a new window in session, without selecting it, and returns
// its pane.
func (s *testServer) window(session string, cmd []string) ports.PaneID {
	s.t.Helper()
	args := append([]string{"new-window", "-d", "-t", session + ":", "-P", "-F", "#{pane_id}"}, cmd...)
	return ports.PaneID(strings.TrimSpace(s.tmux(args...)))
}

// screen returns the visible screen of p, rows joined by newlines, as tmux
// itself captures it.
func (s *testServer) screen(p ports.PaneID) string {
	s.t.Helper()
	return s.srv().Screen(s.t, string(p))
}

// waitScreen waits until p's screen satisfies ok.
func (s *testServer) waitScreen(p ports.PaneID, what string, ok func(screen string) bool) string {
	s.t.Helper()
	var screen string
	eventually(s.t, 5*time.Second, what, func() bool {
		screen = s.screen(p)
		return ok(screen)
	})
	return screen
}

// waitPrompt waits until p shows the shell prompt on its last non-empty
// row.
func (s *testServer) waitPrompt(p ports.PaneID) {
	s.t.Helper()
	s.waitScreen(p, "the shell prompt in "+string(p), func(screen string) bool {
		return strings.HasSuffix(strings.TrimRight(screen, "\n"), "$")
	})
}

// terminal returns a Terminal on the server, closed when the test ends.
func (s *testServer) terminal(opts Options) *Terminal {
	s.t.Helper()
	opts.SocketName = s.sock
	if opts.Env == nil {
		opts.Env = func(string) string { return "" }
	}
	term, err := New(opts)
	if err != nil {
		s.t.Fatalf("New: %v", err)
	}
	s.t.Cleanup(func() { term.Close() })
	return term
}

// attach attaches a real client (in a pseudo-terminal made by script(1))
// to target, waits until tmux lists it and returns its tty. The client is
// detached when the test ends.
func (s *testServer) attach(target string) string {
	s.t.Helper()
	tty, _ := s.srv().Attach(s.t, target)
	return tty
}

// attachClient attaches a client like attach, and returns a function that
// detaches it.
func (s *testServer) attachClient(target string) (tty string, detach func()) {
	s.t.Helper()
	return s.srv().Attach(s.t, target)
}

// controlClients counts the control-mode clients attached to the server.
func (s *testServer) controlClients() int { return s.srv().ControlClients() }

// eventually waits until ok returns true, failing the test after timeout.
var eventually = tmuxtest.Eventually

// readUntil reads the stream from offset on, waiting on Changed, until the
// bytes read satisfy ok or the stream ends; it fails the test on timeout.
// It returns the chunks' data concatenated, and the missed count.
func readUntil(t testing.TB, s ports.OutputStream, offset int64, what string, ok func(data []byte) bool) (data []byte, missed int64, ended error) {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		c := s.ReadFrom(offset)
		missed += c.Missed
		data = append(data, c.Data...)
		offset = c.Offset + int64(len(c.Data))
		if ok(data) || c.Ended != nil {
			return data, missed, c.Ended
		}
		select {
		case <-s.Changed():
		case <-deadline:
			t.Fatalf("gave up waiting for %s; read %q", what, data)
		}
	}
}

func contains(sub string) func([]byte) bool {
	return func(data []byte) bool { return bytes.Contains(data, []byte(sub)) }
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}
