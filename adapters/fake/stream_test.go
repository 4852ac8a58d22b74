package fake_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

var _ ports.Terminal = (*fake.Terminal)(nil)

// A pane that is not a shell prints nothing of its own, so a test's
// injected bytes are all its output.
func quietPane(term *fake.Terminal) ports.PaneID {
	return term.AddPane(fake.PaneSpec{Command: "python3"})
}

func TestStreamReadsAtAbsoluteOffsets(t *testing.T) {
	term := fake.New()
	id := quietPane(term)
	term.Inject(id, []byte("before"))
	s := openStream(t, term, id)
	if got := s.End(); got != 6 {
		t.Fatalf("End() = %d after 6 bytes, want 6", got)
	}
	term.Inject(id, []byte("hello "))
	term.Inject(id, []byte("world"))
	for _, tc := range []struct {
		from   int64
		want   ports.OutputChunk
		reason string
	}{
		{6, ports.OutputChunk{Offset: 6, Data: []byte("hello world")}, "from where the stream opened"},
		{12, ports.OutputChunk{Offset: 12, Data: []byte("world")}, "from the middle"},
		{17, ports.OutputChunk{Offset: 17}, "from the end"},
		{99, ports.OutputChunk{Offset: 99}, "from beyond the end"},
		{0, ports.OutputChunk{Offset: 6, Data: []byte("hello world"), Missed: 6}, "from before the stream opened: a real backend need not have seen those bytes"},
	} {
		got := s.ReadFrom(tc.from)
		if got.Offset != tc.want.Offset || string(got.Data) != string(tc.want.Data) || got.Missed != tc.want.Missed || got.Ended != nil {
			t.Errorf("ReadFrom(%d) %s = %+v, want %+v", tc.from, tc.reason, got, tc.want)
		}
	}
}

func TestStreamDataBelongsToTheCaller(t *testing.T) {
	term := fake.New()
	id := quietPane(term)
	s := openStream(t, term, id)
	term.Inject(id, []byte("abc"))
	c := s.ReadFrom(0)
	c.Data[0] = 'X'
	_ = append(c.Data[:1], "YZ"...)
	if got := string(s.ReadFrom(0).Data); got != "abc" {
		t.Errorf("after the caller changed its chunk, ReadFrom(0) = %q, want %q", got, "abc")
	}
}

func TestStreamReportsBytesPastTheWindowAsMissed(t *testing.T) {
	term := fake.New(fake.WithOutputWindow(10))
	id := quietPane(term)
	s := openStream(t, term, id)
	term.Inject(id, []byte("0123456789abcdef"))
	c := s.ReadFrom(0)
	if c.Offset != 6 || string(c.Data) != "6789abcdef" || c.Missed != 6 {
		t.Errorf("ReadFrom(0) = %+v, want offset 6, the 10 newest bytes, 6 missed", c)
	}
	if c := s.ReadFrom(8); c.Offset != 8 || string(c.Data) != "89abcdef" || c.Missed != 0 {
		t.Errorf("ReadFrom(8) = %+v, want offset 8, no miss", c)
	}
}

func TestPaneSpecOverridesTheOutputWindow(t *testing.T) {
	term := fake.New(fake.WithOutputWindow(100))
	id := term.AddPane(fake.PaneSpec{Command: "python3", OutputWindow: 4})
	s := openStream(t, term, id)
	term.Inject(id, []byte("abcdefgh"))
	if c := s.ReadFrom(0); string(c.Data) != "efgh" || c.Missed != 4 {
		t.Errorf("ReadFrom(0) = %+v, want the 4 newest bytes and 4 missed", c)
	}
}

func TestLostOutputIsCountedAsMissed(t *testing.T) {
	term := fake.New()
	id := quietPane(term)
	s := openStream(t, term, id)
	term.Inject(id, []byte("seen"))
	caughtUp := s.End()
	term.LoseOutput(id, 100)
	term.Inject(id, []byte("after"))

	if got := s.End(); got != 109 {
		t.Errorf("End() = %d, want 4 seen + 100 lost + 5 = 109", got)
	}
	// A reader that had caught up misses exactly the lost bytes.
	if c := s.ReadFrom(caughtUp); c.Offset != 104 || c.Missed != 100 || string(c.Data) != "after" {
		t.Errorf("ReadFrom(%d) = %+v, want offset 104, 100 missed, %q", caughtUp, c, "after")
	}
	// A reader behind the gap misses what it had not read as well: a
	// chunk is one run of bytes.
	if c := s.ReadFrom(0); c.Offset != 104 || c.Missed != 104 || string(c.Data) != "after" {
		t.Errorf("ReadFrom(0) = %+v, want offset 104, 104 missed, %q", c, "after")
	}
}

func TestChangedCoalescesNotifications(t *testing.T) {
	term := fake.New()
	id := quietPane(term)
	s := openStream(t, term, id)
	select {
	case <-s.Changed():
		t.Fatal("Changed fired before anything changed")
	default:
	}
	for range 5 {
		term.Inject(id, []byte("x"))
	}
	term.LoseOutput(id, 3)
	got := 0
	for done := false; !done; {
		select {
		case <-s.Changed():
			got++
		default:
			done = true
		}
	}
	if got != 1 {
		t.Errorf("%d values waiting on Changed after six changes, want one standing for all", got)
	}
	term.Inject(id, []byte("y"))
	select {
	case <-s.Changed():
	default:
		t.Error("no value on Changed after a change that followed a receive")
	}
}

func TestChangedSignalsEveryOpenStream(t *testing.T) {
	term := fake.New()
	id := quietPane(term)
	a, b := openStream(t, term, id), openStream(t, term, id)
	term.Inject(id, []byte("x"))
	for name, s := range map[string]ports.OutputStream{"first": a, "second": b} {
		select {
		case <-s.Changed():
		default:
			t.Errorf("the %s stream got no value on Changed", name)
		}
	}
}

func TestStreamEnds(t *testing.T) {
	for _, tc := range []struct {
		name string
		end  func(term *fake.Terminal, id ports.PaneID, s ports.OutputStream)
		want error
	}{
		{"when the pane dies", func(term *fake.Terminal, id ports.PaneID, _ ports.OutputStream) { term.KillPane(id) }, ports.ErrPaneDead},
		{"when the pane is removed", func(term *fake.Terminal, id ports.PaneID, _ ports.OutputStream) { term.RemovePane(id) }, ports.ErrPaneNotFound},
		{"when the shell exits", func(term *fake.Terminal, id ports.PaneID, _ ports.OutputStream) {
			term.SendKeys(ctx, id, []string{"C-c"}) // abandon the "ab" typed before
			term.SendText(ctx, id, "exit")
			term.SendKeys(ctx, id, []string{"Enter"})
		}, ports.ErrPaneDead},
		{"when closed", func(_ *fake.Terminal, _ ports.PaneID, s ports.OutputStream) { s.Close() }, fake.ErrStreamClosed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			term := fake.New()
			id := term.AddPane(fake.PaneSpec{})
			s := openStream(t, term, id)
			term.SendText(ctx, id, "ab")
			drainChanged(s)
			tc.end(term, id, s)
			end := s.End()
			c := s.ReadFrom(0)
			if !errors.Is(c.Ended, tc.want) {
				t.Errorf("Ended = %v, want it to wrap %v", c.Ended, tc.want)
			}
			if !strings.HasPrefix(string(c.Data), "ab") {
				t.Errorf("Data = %q: the bytes received before the end should stay readable", c.Data)
			}
			if tc.want != fake.ErrStreamClosed {
				select {
				case <-s.Changed():
				default:
					t.Error("no value on Changed when the stream ended")
				}
			}
			if s.End() != end {
				t.Errorf("End() moved after the stream ended")
			}
		})
	}
}

func drainChanged(s ports.OutputStream) {
	for {
		select {
		case <-s.Changed():
		default:
			return
		}
	}
}

// A stream that ended with its pane's process stays ended: a respawned
// process's output belongs to a new generation and new streams.
func TestEndedStreamGetsNothingAfterRespawn(t *testing.T) {
	term := fake.New()
	id := term.AddPane(fake.PaneSpec{})
	old := openStream(t, term, id)
	gen := describe(t, term, id).Generation
	term.KillPane(id)
	end := old.End()
	term.Respawn(id)
	if g := describe(t, term, id).Generation; g == gen {
		t.Errorf("Generation stayed %q across a respawn", g)
	}
	fresh := openStream(t, term, id)
	typeLine(t, term, id, "echo reborn")
	if got := old.End(); got != end {
		t.Errorf("the ended stream's End() moved from %d to %d", end, got)
	}
	if c := old.ReadFrom(end); len(c.Data) != 0 || c.Ended == nil {
		t.Errorf("the ended stream's ReadFrom(%d) = %+v, want no data and Ended", end, c)
	}
	if got := normalize(fresh.ReadFrom(0).Data); !strings.Contains(got, "reborn\n") {
		t.Errorf("a stream opened after the respawn read %q, want the new output", got)
	}
	if fresh.ReadFrom(0).Offset < end {
		t.Errorf("offsets restarted after the respawn: the new stream starts at %d, before %d", fresh.ReadFrom(0).Offset, end)
	}
}

func TestOutputOfADeadPaneIsAnEndedStream(t *testing.T) {
	term := fake.New()
	id := term.AddPane(fake.PaneSpec{})
	term.KillPane(id)
	s := openStream(t, term, id)
	if c := s.ReadFrom(s.End()); !errors.Is(c.Ended, ports.ErrPaneDead) {
		t.Errorf("Ended = %v, want ErrPaneDead", c.Ended)
	}
}
