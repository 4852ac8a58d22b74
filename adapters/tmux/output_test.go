package tmux

import (
	"bytes"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// listener returns the control client recording pane p, nil while none
// does.
func listener(term *Terminal, p ports.PaneID) *controlClient {
	term.mu.Lock()
	defer term.mu.Unlock()
	if rec := term.panes[p]; rec != nil && !rec.claiming {
		return rec.owner
	}
	return nil
}

func TestStreamsShareAbsoluteOffsets(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	p := s.session("main", bashCmd)
	s.waitPrompt(p)
	term := s.terminal(Options{})
	ctx := testContext(t)

	first, err := term.OpenOutput(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	start := first.End()
	if err := term.SendText(ctx, p, "echo one-$((1+1))\n"); err != nil {
		t.Fatal(err)
	}
	data, missed, ended := readUntil(t, first, start, "the first output", contains("one-2\r\n"))
	if missed != 0 || ended != nil {
		t.Fatalf("first stream: missed %d, ended %v", missed, ended)
	}
	if c := first.ReadFrom(start); c.Offset != start || !bytes.Equal(c.Data, data) && !bytes.HasPrefix(c.Data, data) {
		t.Errorf("ReadFrom(%d) = offset %d, data %q; want the bytes read so far at the same offset", start, c.Offset, c.Data)
	}

	// A second stream continues the offsets and reports what came before
	// it opened as missed.
	second, err := term.OpenOutput(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	mid := second.End()
	if mid < start+int64(len(data)) {
		t.Fatalf("second stream starts at %d, before bytes the first already read (up to %d)", mid, start+int64(len(data)))
	}
	if c := second.ReadFrom(start); c.Missed != mid-start || c.Offset != mid {
		t.Errorf("second.ReadFrom(%d) = offset %d, missed %d; want offset %d, missed %d", start, c.Offset, c.Missed, mid, mid-start)
	}
	if err := term.SendText(ctx, p, "echo two-$((2+2))\n"); err != nil {
		t.Fatal(err)
	}
	readUntil(t, second, mid, "the second output", contains("two-4\r\n"))
	readUntil(t, first, mid, "the second output in the first stream", contains("two-4\r\n"))
	a, b := first.ReadFrom(mid), second.ReadFrom(mid)
	if a.Offset != b.Offset || !bytes.Equal(a.Data[:min(len(a.Data), len(b.Data))], b.Data[:min(len(a.Data), len(b.Data))]) {
		t.Errorf("the streams differ from offset %d: %q at %d and %q at %d", mid, a.Data, a.Offset, b.Data, b.Offset)
	}

	// Closing one leaves the other alive.
	first.Close()
	if c := first.ReadFrom(first.End()); !errors.Is(c.Ended, ErrStreamClosed) {
		t.Errorf("closed stream: Ended = %v, want ErrStreamClosed", c.Ended)
	}
	if c := second.ReadFrom(second.End()); c.Ended != nil {
		t.Errorf("the other stream ended too: %v", c.Ended)
	}
	if c := second.ReadFrom(second.End() + 10); c.Offset != second.End()+10 || len(c.Data) != 0 || c.Missed != 0 {
		t.Errorf("ReadFrom past the end = %+v, want nothing", c)
	}
}

func TestStreamCountsBytesBeyondTheRingAsMissed(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	p := s.session("main", []string{"sh", "-c", "read x; head -c 5000 /dev/zero | tr '\\0' x; echo; echo DONE; exec sleep 600"})
	term := s.terminal(Options{RingSize: 1024})
	ctx := testContext(t)
	stream, err := term.OpenOutput(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	start := stream.End()
	if err := term.SendKeys(ctx, p, []string{"Enter"}); err != nil {
		t.Fatal(err)
	}
	eventually(t, 5*time.Second, "5000 bytes of output and DONE", func() bool {
		return stream.End() >= start+5000 && bytes.Contains(stream.ReadFrom(0).Data, []byte("DONE"))
	})
	c := stream.ReadFrom(start)
	end := stream.End()
	if c.Offset+int64(len(c.Data)) != end || len(c.Data) > 1024 || c.Missed != c.Offset-start || c.Missed < end-start-1024 {
		t.Errorf("ReadFrom(%d) with a 1024-byte ring at end %d: offset %d, %d bytes, missed %d", start, end, c.Offset, len(c.Data), c.Missed)
	}
}

func TestOpenOutputMissesNothingWrittenAfterItReturns(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	term := s.terminal(Options{})
	ctx := testContext(t)
	// Each pane prints as soon as it reads a line, which is only sent
	// after OpenOutput returned: through a new control client (a new
	// session), an attached one (a pane of the same session) and for a
	// pane in a window that is not the current one.
	echoBack := []string{"sh", "-c", "read x; echo got-$x; exec sleep 600"}
	p1 := s.session("one", echoBack)
	p2 := s.split(p1, echoBack)
	p3 := s.window("one", echoBack)
	p4 := s.session("two", echoBack)
	for _, p := range []ports.PaneID{p1, p2, p3, p4} {
		stream, err := term.OpenOutput(ctx, p)
		if err != nil {
			t.Fatalf("OpenOutput(%s): %v", p, err)
		}
		from := stream.End()
		if err := term.SendText(ctx, p, "it\n"); err != nil {
			t.Fatal(err)
		}
		data, missed, _ := readUntil(t, stream, from, "the reply of "+string(p), contains("got-it"))
		if missed != 0 || !bytes.Contains(data, []byte("it\r\ngot-it\r\n")) {
			t.Errorf("%s: read %q with %d missed, want the echo and the reply", p, data, missed)
		}
		stream.Close()
	}
	if n := s.controlClients(); n != 2 {
		t.Errorf("%d control clients for two sessions, want 2", n)
	}
}

func TestControlClientsNeitherResizeNorWatch(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	p := ports.PaneID(strings.TrimSpace(s.tmux("new-session", "-d", "-s", "main", "-x", "100", "-y", "30", "-P", "-F", "#{pane_id}", "sh")))
	term := s.terminal(Options{})
	ctx := testContext(t)
	stream, err := term.OpenOutput(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	if n := s.controlClients(); n != 1 {
		t.Fatalf("%d control clients, want 1", n)
	}
	info, err := term.Pane(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if info.Width != 100 || info.Height != 30 {
		t.Errorf("pane is %dx%d with a control client attached, want 100x30", info.Width, info.Height)
	}
	if len(info.Watchers) != 0 {
		t.Errorf("watchers = %q, want none: a control client is not a person", info.Watchers)
	}
	if err := term.SendText(ctx, p, "echo typed\n"); err != nil {
		t.Fatal(err)
	}
	flags := s.tmux("list-clients", "-F", "#{client_flags}")
	if !strings.Contains(flags, "ignore-size") || !strings.Contains(flags, "control-mode") {
		t.Errorf("control client flags = %q, want a control-mode client with ignore-size", flags)
	}
}

func TestStreamEndsWhenThePaneGoesAway(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		kill func(s *testServer, p ports.PaneID)
		// want wraps both errors
		want []error
	}{
		{"kill-pane", func(s *testServer, p ports.PaneID) {
			s.tmux("kill-pane", "-t", string(p))
		}, []error{ports.ErrPaneDead}},
		{"exit kept by remain-on-exit", func(s *testServer, p ports.PaneID) {
			s.tmux("set-option", "-w", "-t", string(p), "remain-on-exit", "on")
			s.tmux("send-keys", "-t", string(p), "exit", "Enter")
		}, []error{ports.ErrPaneDead}},
		{"kill-window", func(s *testServer, p ports.PaneID) {
			s.tmux("kill-window", "-t", string(p))
		}, []error{ports.ErrPaneDead}},
		{"end of its session", func(s *testServer, p ports.PaneID) {
			s.tmux("kill-session", "-t", "main")
		}, []error{ports.ErrPaneDead}},
		{"end of the server", func(s *testServer, p ports.PaneID) {
			s.tmux("kill-server")
		}, []error{ports.ErrPaneDead, ports.ErrUnavailable}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := newTestServer(t)
			keep := s.session("main", bashCmd)
			p := s.split(keep, bashCmd)
			s.session("other", bashCmd) // keeps the server up when main ends
			s.waitPrompt(p)
			term := s.terminal(Options{})
			stream, err := term.OpenOutput(testContext(t), p)
			if err != nil {
				t.Fatal(err)
			}
			defer stream.Close()
			from := stream.End()
			killed := time.Now()
			c.kill(s, p)
			_, _, ended := readUntil(t, stream, from, "the end of the stream", func([]byte) bool { return false })
			t.Logf("the stream ended %v after the pane was made to go away", time.Since(killed).Round(time.Millisecond))
			for _, want := range c.want {
				if !errors.Is(ended, want) {
					t.Errorf("Ended = %v, want it to wrap %v", ended, want)
				}
			}
		})
	}
}

func TestStreamSurvivesItsControlClientBeingDetached(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	p := s.session("main", bashCmd)
	s.waitPrompt(p)
	term := s.terminal(Options{})
	ctx := testContext(t)
	stream, err := term.OpenOutput(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	old := listener(term, p)
	s.tmux("detach-client", "-s", "main")
	eventually(t, 5*time.Second, "a new control client", func() bool {
		c := listener(term, p)
		return c != nil && c != old
	})
	from := stream.End()
	if err := term.SendText(ctx, p, "echo again-$((3*3))\n"); err != nil {
		t.Fatal(err)
	}
	_, _, ended := readUntil(t, stream, from, "output after the reconnect", contains("again-9\r\n"))
	if ended != nil {
		t.Errorf("stream ended: %v", ended)
	}
}

func TestStreamCountsOutputMissedWhileNotListening(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	p := s.session("main", []string{"sh", "-c", "while :; do echo tick; sleep 0.01; done"})
	term := s.terminal(Options{})
	ctx := testContext(t)
	stream, err := term.OpenOutput(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	start := stream.End()
	readUntil(t, stream, start, "ticks", contains("tick"))
	old := listener(term, p)
	s.tmux("detach-client", "-s", "main")
	eventually(t, 5*time.Second, "a new control client", func() bool {
		c := listener(term, p)
		return c != nil && c != old
	})
	// The pane wrote while no client listened; how much is unknown, so
	// at least one byte must be reported missed to a reader behind it.
	eventually(t, 5*time.Second, "a missed count", func() bool {
		return stream.ReadFrom(start).Missed > 0
	})
	after := stream.End()
	data, _, ended := readUntil(t, stream, after, "ticks after the reconnect", contains("tick"))
	if ended != nil || len(data) == 0 {
		t.Errorf("after the reconnect: read %q, ended %v", data, ended)
	}
}

// movablePane starts sessions "one" and "two" of bash panes and returns
// the second pane of "one", at its prompt, ready to be moved to "two".
func movablePane(t *testing.T) (*testServer, *Terminal, ports.PaneID) {
	t.Helper()
	s := newTestServer(t)
	keep := s.session("one", bashCmd)
	p := s.split(keep, bashCmd)
	s.session("two", bashCmd)
	s.waitPrompt(p)
	return s, s.terminal(Options{}), p
}

func TestStreamFollowsAPaneMovedToAnotherSession(t *testing.T) {
	t.Parallel()
	s, term, p := movablePane(t)
	ctx := testContext(t)
	stream, err := term.OpenOutput(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	old := listener(term, p)
	s.tmux("break-pane", "-d", "-s", string(p), "-t", "two:")
	eventually(t, 5*time.Second, "a control client for session two", func() bool {
		c := listener(term, p)
		return c != nil && c != old
	})
	from := stream.End()
	if err := term.SendText(ctx, p, "echo moved-$((4*4))\n"); err != nil {
		t.Fatal(err)
	}
	_, _, ended := readUntil(t, stream, from, "output after the move", contains("moved-16\r\n"))
	if ended != nil {
		t.Errorf("stream ended: %v", ended)
	}
}

func TestIdleControlClientsAreStopped(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	p := s.session("main", bashCmd)
	s.waitPrompt(p)
	term := s.terminal(Options{IdleTimeout: 50 * time.Millisecond})
	ctx := testContext(t)
	stream, err := term.OpenOutput(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if n := s.controlClients(); n != 1 {
		t.Fatalf("%d control clients while a stream is open, want 1", n)
	}
	stream.Close()
	eventually(t, 5*time.Second, "the idle control client to stop", func() bool { return s.controlClients() == 0 })

	// Listening again starts a new client and continues the offsets.
	end := stream.End()
	again, err := term.OpenOutput(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if again.End() < end {
		t.Errorf("offsets went back from %d to %d", end, again.End())
	}
	from := again.End()
	if err := term.SendText(ctx, p, "echo back\n"); err != nil {
		t.Fatal(err)
	}
	readUntil(t, again, from, "output through the new client", contains("back\r\n"))
}

// Close returns once every goroutine of the Terminal's has ended: here a
// pane being listened to again after its client went, held up on the
// pane's listenMu, and the clients' readers and watchers. Not parallel,
// so that no other test's Terminal runs such goroutines meanwhile.
func TestCloseWaitsForEveryGoroutine(t *testing.T) {
	s := newTestServer(t)
	p := s.session("main", []string{"sleep", "600"})
	term := s.terminal(Options{})
	ctx := testContext(t)
	stream, err := term.OpenOutput(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	running := func(f string) bool {
		buf := make([]byte, 1<<20)
		return strings.Contains(string(buf[:runtime.Stack(buf, true)]), "adapters/tmux."+f)
	}
	term.mu.Lock()
	rec := term.panes[p]
	term.mu.Unlock()
	rec.listenMu.Lock()
	s.tmux("detach-client", "-s", "main") // its pane is to be listened to again
	eventually(t, 5*time.Second, "the pane listened to again", func() bool { return running("(*terminal).relisten") })
	closed := make(chan struct{})
	go func() {
		term.Close()
		close(closed)
	}()
	select {
	case <-closed:
		t.Errorf("Close returned while the pane was being listened to again")
	case <-time.After(300 * time.Millisecond):
	}
	rec.listenMu.Unlock()
	<-closed
	for _, f := range []string{"(*controlClient).read", "(*controlClient).watch", "(*terminal).relisten"} {
		if running(f) {
			t.Errorf("%s still runs after Close", f)
		}
	}
}
