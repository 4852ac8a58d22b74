package tmuxtest

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// Poll asks until the condition holds, and gives up at the deadline, not
// before: in a bubble, time moves only when the poller waits.
func TestPollAsksUntilTheConditionHoldsOrTheDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		n := 0
		if !Poll(time.Second, func() bool { n++; return n == 3 }) {
			t.Fatal("Poll gave up on a condition that held at the third ask")
		}
		if n != 3 || time.Since(start) != 2*Interval {
			t.Errorf("asked %d times over %v, want 3 over %v", n, time.Since(start), 2*Interval)
		}
		start = time.Now()
		if Poll(time.Second, func() bool { return false }) {
			t.Fatal("Poll reported a condition that never held")
		}
		if time.Since(start) != time.Second {
			t.Errorf("gave up after %v, want the deadline, %v", time.Since(start), time.Second)
		}
	})
}

// A private server is on a socket of its own, runs commands, and leaves
// no socket file once killed; killing it again is no error.
func TestServerRunsPrivatelyAndLeavesNothingOnceKilled(t *testing.T) {
	s := New(t, Options{Prefix: "tmcp-tmuxtest"})
	if !strings.HasPrefix(s.Socket, "tmcp-tmuxtest-") {
		t.Errorf("socket %q, want the prefix asked for", s.Socket)
	}
	pane := strings.TrimSpace(s.Tmux(t, "new-session", "-d", "-x", "80", "-y", "24", "-P", "-F", "#{pane_id}", "cat"))
	s.Tmux(t, "send-keys", "-t", pane, "-l", "hello")
	Eventually(t, 10*time.Second, "the typed text on the screen", func() bool {
		return strings.Contains(s.Screen(t, pane), "hello")
	})
	if _, err := s.Run("no-such-command"); err == nil || !strings.Contains(err.Error(), "no-such-command") {
		t.Errorf("a refused command: err = %v, want one naming it", err)
	}
	if _, err := os.Stat(SocketFile(s.Socket)); err != nil {
		t.Fatalf("socket file of a running server: %v", err)
	}
	if err := s.Kill(); err != nil {
		t.Fatalf("Kill: %v", err)
	}
	if _, err := os.Stat(SocketFile(s.Socket)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("socket file after Kill: %v, want it removed", err)
	}
	if err := s.Kill(); err != nil {
		t.Errorf("a second Kill: %v", err)
	}
}

// A pseudo-terminal's two sides talk: what the program side writes, the
// terminal side reads.
func TestOpenPTYConnectsItsSides(t *testing.T) {
	master, slave := OpenPTY(t)
	defer master.Close()
	defer slave.Close()
	if _, err := slave.Write([]byte("ping\n")); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 64)
	n, err := master.Read(b)
	if err != nil || !strings.Contains(string(b[:n]), "ping") {
		t.Errorf("read %q, %v; want the written line", b[:n], err)
	}
}
