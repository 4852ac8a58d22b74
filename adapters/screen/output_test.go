package screen

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// waitStream waits until the stream holds want from offset from on.
func waitStream(t *testing.T, st ports.OutputStream, from int64, want string) []byte {
	t.Helper()
	var data []byte
	eventually(t, 10*time.Second, fmt.Sprintf("%q in the stream", want), func() bool {
		data = st.ReadFrom(from).Data
		return bytes.Contains(data, []byte(want))
	})
	return data
}

// trackerOf returns the tracker of the pane's window.
func trackerOf(t *testing.T, s *testSession, id ports.PaneID) *tracker {
	n, _ := parsePaneID(id)
	s.term.mu.Lock()
	defer s.term.mu.Unlock()
	tr := s.term.trackers[n]
	if tr == nil {
		t.Fatalf("no tracker for %s", id)
	}
	return tr
}

func TestStreamHoldsTheBytesAsTheProgramWroteThem(t *testing.T) {
	s := newSession(t, Options{})
	id := s.window()
	st, err := s.term.OpenOutput(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// OSC strings (ESC ] ... BEL), as the domain frames commands with,
	// and SGR sequences reach the stream untouched.
	s.typeLine(id, `printf '\033]7717;tmcp;S;abc\007out\n\033[31mred\033[0m\033]7717;tmcp;E;abc;0\007'`)
	waitStream(t, st, 0, "\x1b]7717;tmcp;S;abc\x07out\r\n\x1b[31mred\x1b[0m\x1b]7717;tmcp;E;abc;0\x07")
}

func TestStreamCountsATruncatedLogAsMissed(t *testing.T) {
	// The reader is driven by hand, so that the truncation surely falls
	// between two of its reads.
	s := newSession(t, Options{PollInterval: time.Hour})
	id := s.window()
	st, err := s.term.OpenOutput(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	tr := trackerOf(t, s, id)
	readNow := func() { tr.mu.Lock(); tr.poll(); tr.mu.Unlock() }
	logHolds := func(want string) {
		eventually(t, 10*time.Second, fmt.Sprintf("%q in the log", want), func() bool {
			b, _ := os.ReadFile(tr.path)
			return bytes.Contains(b, []byte(want))
		})
	}
	s.typeLine(id, "echo one-$((0+1))")
	logHolds("one-1\r\n")
	readNow()
	seen := st.End()

	s.typeLine(id, "echo two-$((1+1))")
	logHolds("two-2\r\n")
	if err := os.Truncate(tr.path, 0); err != nil {
		t.Fatal(err)
	}
	s.typeLine(id, "echo three-$((1+2))")
	logHolds("three-3\r\n")
	readNow()

	c := st.ReadFrom(seen)
	if c.Missed < 1 || bytes.Contains(c.Data, []byte("two-2")) || !bytes.Contains(c.Data, []byte("three-3")) {
		t.Errorf("after the truncation: ReadFrom(%d) = offset %d, missed %d, %q; want bytes missed, then three-3",
			seen, c.Offset, c.Missed, c.Data)
	}
}

func TestStreamReadsOnAcrossARotatedLog(t *testing.T) {
	s := newSession(t, Options{RotateSize: 4096})
	id := s.window()
	st, err := s.term.OpenOutput(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	from := st.End()
	s.typeLine(id, "seq 1 20000")
	data := waitStream(t, st, from, "\r\n20000\r\n")
	if c := st.ReadFrom(from); c.Missed != 0 {
		t.Errorf("missed %d bytes", c.Missed)
	}
	text := string(data[bytes.Index(data, []byte("\r\n1\r\n"))+2:])
	for i, line := range strings.Split(strings.TrimSuffix(text[:strings.Index(text, "\r\n20000\r\n")+7], "\r\n"), "\r\n") {
		if line != strconv.Itoa(i+1) {
			t.Fatalf("line %d of seq's output is %q: output was lost or repeated across the log's rotation", i+1, line)
		}
	}
	ents, _ := os.ReadDir(s.term.logDir)
	if len(ents) > 2 {
		t.Errorf("the log directory holds %d files, want the log and at most one rotated file", len(ents))
	}
}

func TestStreamEndsWhenTheWindowIsKilled(t *testing.T) {
	s := newSession(t, Options{})
	id := s.window()
	st, err := s.term.OpenOutput(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	n, _ := parsePaneID(id)
	s.screen("-p", strconv.Itoa(n), "-X", "kill")
	eventually(t, 10*time.Second, "the stream to end", func() bool {
		select {
		case <-st.Changed():
		default:
		}
		return st.ReadFrom(st.End()).Ended != nil
	})
	if end := st.ReadFrom(0).Ended; !errors.Is(end, ports.ErrPaneDead) && !errors.Is(end, ports.ErrPaneNotFound) {
		t.Errorf("Ended = %v, want it to wrap ErrPaneDead or ErrPaneNotFound", end)
	}
	if _, err := s.term.OpenOutput(t.Context(), id); !errors.Is(err, ports.ErrPaneNotFound) {
		t.Errorf("OpenOutput of the killed window = %v, want ErrPaneNotFound", err)
	}
}

func TestStreamOfAZombieWindowHasEnded(t *testing.T) {
	s := newSession(t, Options{})
	s.screen("-X", "zombie", "kr")
	id := s.window()
	s.typeLine(id, "exit")
	eventually(t, 10*time.Second, "the window to be a zombie", func() bool {
		info, err := s.term.Pane(t.Context(), id)
		return err == nil && info.Dead
	})
	st, err := s.term.OpenOutput(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if end := st.ReadFrom(0).Ended; !errors.Is(end, ports.ErrPaneDead) {
		t.Errorf("Ended = %v, want it to wrap ErrPaneDead", end)
	}
}

func TestIdleLogIsTurnedOffAndOffsetsGoOn(t *testing.T) {
	s := newSession(t, Options{IdleTimeout: 100 * time.Millisecond})
	id := s.window()
	st, err := s.term.OpenOutput(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	s.typeLine(id, "echo first-$((0+1))")
	waitStream(t, st, 0, "first-1\r\n")
	seen := st.End()
	st.Close()
	tr := trackerOf(t, s, id)
	eventually(t, 10*time.Second, "the log to be turned off and removed", func() bool {
		_, err := os.Stat(tr.path)
		return errors.Is(err, os.ErrNotExist) && !serverHasOpen(s.term.serverPID, tr.path)
	})

	// Written while nobody listened: not in any stream, and counted.
	s.typeLine(id, "echo unseen-$((1+1))")
	s.waitRow(id, "unseen-2")
	st2, err := s.term.OpenOutput(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	if c := st2.ReadFrom(seen); c.Missed < 1 || c.Offset <= seen {
		t.Errorf("ReadFrom(%d) of a stream opened after the log was off = offset %d, missed %d; want the gap counted", seen, c.Offset, c.Missed)
	}
	s.typeLine(id, "echo again-$((1+2))")
	waitStream(t, st2, seen, "again-3\r\n")
}

func TestCloseEndsStreamsAndTurnsLogsOff(t *testing.T) {
	needScreen(t)
	name, stop, err := StartPrivate(Options{Dir: socketDir})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	term, err := New(Options{Session: name, Dir: socketDir})
	if err != nil {
		t.Fatal(err)
	}
	st, err := term.OpenOutput(t.Context(), "%0")
	if err != nil {
		term.Close()
		t.Fatal(err)
	}
	logDir := term.logDir
	if err := term.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if end := st.ReadFrom(0).Ended; !errors.Is(end, ErrTerminalClosed) {
		t.Errorf("Ended after Close = %v, want ErrTerminalClosed", end)
	}
	if serverHasOpen(term.serverPID, logDir+"/0.log") {
		t.Error("screen still writes the log after Close")
	}
	if _, err := os.Stat(term.workDir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the private directory is still there (%v)", err)
	}
	if _, err := term.Pane(t.Context(), "%0"); !errors.Is(err, ports.ErrUnavailable) {
		t.Errorf("Pane after Close = %v, want ErrUnavailable", err)
	}
}

func TestStreamGoesOnWhenTheLogIsRemoved(t *testing.T) {
	s := newSession(t, Options{})
	id := s.window()
	st, err := s.term.OpenOutput(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	from := st.End()
	s.typeLine(id, "echo before-$((0+1))")
	waitStream(t, st, from, "before-1\r\n")
	if err := os.Remove(trackerOf(t, s, id).path); err != nil {
		t.Fatal(err)
	}
	s.typeLine(id, "echo after-$((1+1))")
	waitStream(t, st, from, "after-2\r\n")
	if c := st.ReadFrom(from); c.Missed != 0 || !bytes.Contains(c.Data, []byte("before-1\r\n")) {
		t.Errorf("ReadFrom(%d) = missed %d, %q; want everything, before and after the removal", from, c.Missed, c.Data)
	}
}
