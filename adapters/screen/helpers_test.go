package screen

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/tmux-mcp/tmux-mcp/ports"
	"github.com/tmux-mcp/tmux-mcp/test/gate"
	"github.com/tmux-mcp/tmux-mcp/test/tmuxtest"
)

// Tests with a real screen run private sessions in a socket directory of
// their own, so that they never meet a person's sessions.
var socketDir string

func TestMain(m *testing.M) {
	if spec := os.Getenv(birthHelperEnv); spec != "" {
		actBirth(spec)
	}
	if _, err := exec.LookPath("screen"); err == nil {
		// Short: a socket path must fit in 108 bytes.
		dir, err := os.MkdirTemp("", "scrt-")
		if err == nil && os.Chmod(dir, 0o700) == nil {
			socketDir = dir
		}
	}
	code := m.Run()
	if socketDir != "" {
		os.RemoveAll(socketDir)
	}
	os.Exit(code)
}

// needScreen skips a test that needs a real screen when there is none.
func needScreen(t *testing.T) {
	t.Helper()
	gate.Real(t, "GNU screen")
	gate.Need(t, "screen")
	if socketDir == "" {
		t.Fatal("no private socket directory for screen (see TestMain)")
	}
}

// testSession is a private session and a Terminal on it.
type testSession struct {
	t    *testing.T
	name string
	term *Terminal

	windows *windowCounter
}

// windowCounter hands out window numbers; window 0 is StartPrivate's.
type windowCounter struct {
	mu   sync.Mutex
	next int
}

func (c *windowCounter) take() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.next++
	return c.next
}

// newSession starts a private session, with a Terminal whose options are
// opts (Session and Dir filled in), both stopped by t.Cleanup.
func newSession(t *testing.T, opts Options) *testSession {
	t.Helper()
	needScreen(t)
	name, stop, err := StartPrivate(Options{Dir: socketDir})
	if err != nil {
		t.Fatalf("StartPrivate: %v", err)
	}
	t.Cleanup(func() {
		if err := stop(); err != nil {
			t.Errorf("stop private session: %v", err)
		}
	})
	opts.Session, opts.Dir = name, socketDir
	if opts.HistoryLimit == 0 {
		opts.HistoryLimit = PrivateHistoryLimit
	}
	term, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() {
		if err := term.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return &testSession{t: t, name: name, term: term, windows: &windowCounter{}}
}

// on returns the session with t as the test to fail.
func (s *testSession) on(t *testing.T) *testSession {
	return &testSession{t: t, name: s.name, term: s.term, windows: s.windows}
}

// screen runs screen on the session and fails the test if it fails.
func (s *testSession) screen(args ...string) string {
	s.t.Helper()
	cmd := exec.Command("screen", append([]string{"-S", s.term.session}, args...)...)
	cmd.Env = s.term.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		s.t.Fatalf("screen %q: %v: %s", args, err, out)
	}
	return string(out)
}

// window opens a new window running sh and returns its pane id once the
// shell shows its prompt. The window is killed by t.Cleanup.
func (s *testSession) window() ports.PaneID {
	s.t.Helper()
	return s.windowNumbered(s.windows.take())
}

// windowNumbered opens window n running sh.
func (s *testSession) windowNumbered(n int) ports.PaneID {
	s.t.Helper()
	id := paneID(n)
	s.screen("-X", "screen", strconv.Itoa(n), "sh")
	s.t.Cleanup(func() {
		cmd := exec.Command("screen", "-S", s.term.session, "-p", strconv.Itoa(n), "-X", "kill")
		cmd.Env = s.term.env
		cmd.Run()
	})
	s.waitRow(id, "$")
	return id
}

// waitRow waits until a row of the pane's screen reads exactly want.
func (s *testSession) waitRow(id ports.PaneID, want string) {
	s.t.Helper()
	var rows []string
	ok := poll(10*time.Second, func() bool {
		ctx := context.Background()
		info, err := s.term.Pane(ctx, id)
		if err != nil {
			return false
		}
		rows, err = s.term.Capture(ctx, id, ports.CaptureRange{Start: 0, End: info.Height - 1})
		return err == nil && slices.Contains(rows, want)
	})
	if !ok {
		s.t.Fatalf("no row of %s reads %q; rows %q", id, want, rows)
	}
}

// rawCat makes the pane's shell run "cat" with the terminal in raw mode,
// writing every byte it reads to a file, and returns the file's path
// once cat reads.
func (s *testSession) rawCat(id ports.PaneID) string {
	s.t.Helper()
	out := filepath.Join(s.t.TempDir(), "typed")
	s.typeLine(id, "stty raw -echo; exec cat >"+out)
	eventually(s.t, 10*time.Second, "cat to run in "+string(id), func() bool {
		info, err := s.term.Pane(context.Background(), id)
		_, statErr := os.Stat(out)
		return err == nil && info.Command == "cat" && statErr == nil
	})
	return out
}

// typeLine types a command line with screen itself, escaped as the
// adapter escapes, and presses Enter.
func (s *testSession) typeLine(id ports.PaneID, line string) {
	s.t.Helper()
	n, _ := parsePaneID(id)
	s.screen("-p", strconv.Itoa(n), "-X", "stuff", stuffEscape([]byte(line+"\r")))
}

// fileHolds waits until the file's content is want, and fails with the
// difference when it never is.
func fileHolds(t *testing.T, path string, want []byte) {
	t.Helper()
	var got []byte
	ok := poll(10*time.Second, func() bool {
		got, _ = os.ReadFile(path)
		return len(got) >= len(want)
	})
	if !ok || !bytes.Equal(got, want) {
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		t.Fatalf("the program read %d bytes, want %d; first difference at byte %d: got %q, want %q",
			len(got), len(want), i, clip(got[i:]), clip(want[i:]))
	}
}

func clip(b []byte) []byte { return b[:min(len(b), 40)] }

// eventually waits until cond holds, failing the test after d.
var eventually = tmuxtest.Eventually

// poll reports whether cond holds within d.
var poll = tmuxtest.Poll

// attachDisplay attaches a person-like screen client showing window n, on
// a pseudo-terminal of its own, and returns what detaches it.
func (s *testSession) attachDisplay(n int) (detach func()) {
	s.t.Helper()
	master, slave := tmuxtest.OpenPTY(s.t)
	ws := struct{ row, col, x, y uint16 }{24, 80, 0, 0}
	ioctl(slave, syscall.TIOCSWINSZ, uintptr(unsafe.Pointer(&ws)))
	cmd := exec.Command("screen", "-x", s.term.session, "-p", strconv.Itoa(n))
	cmd.Env = append(append([]string(nil), s.term.env...), "TERM=xterm")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		s.t.Fatalf("attach: %v", err)
	}
	slave.Close()
	go io.Copy(io.Discard, master)
	var once sync.Once
	detach = func() {
		once.Do(func() {
			cmd.Process.Signal(syscall.SIGHUP)
			cmd.Wait()
			master.Close()
		})
	}
	s.t.Cleanup(detach)
	eventually(s.t, 10*time.Second, "the display to attach", func() bool {
		a, err := attached(s.term.sockPath)
		return err == nil && a
	})
	return detach
}

// alive reports whether the session still answers.
func (s *testSession) alive() bool {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	_, err := s.term.query(ctx, "echo", "-n", "alive")
	return err == nil
}

// paneID is the id of window n.
func paneID(n int) ports.PaneID { return ports.PaneID("%" + strconv.Itoa(n)) }
