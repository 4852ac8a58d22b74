package domain

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// stubTerminal answers Pane and OpenOutput; everything else is unused here.
type stubTerminal struct {
	ports.Terminal
	info   ports.PaneInfo
	stream ports.OutputStream
}

func (s stubTerminal) Pane(context.Context, ports.PaneID) (ports.PaneInfo, error) { return s.info, nil }
func (s stubTerminal) OpenOutput(context.Context, ports.PaneID) (ports.OutputStream, error) {
	return s.stream, nil
}

type stubStream struct{ end int64 }

func (s stubStream) Changed() <-chan struct{}           { return nil }
func (s stubStream) ReadFrom(o int64) ports.OutputChunk { return ports.OutputChunk{Offset: o} }
func (s stubStream) End() int64                         { return s.end }
func (s stubStream) Close() error                       { return nil }

func TestCursorPastTheEndIsRefused(t *testing.T) {
	info := ports.PaneInfo{ID: "%3", Generation: "g1", Height: 24}
	svc := NewService(stubTerminal{info: info, stream: stubStream{end: 100}}, nil, testIDs{}, Config{})
	future := cursor{Instance: svc.instance, Pane: "%3", Generation: "g1", Offset: 101}.String()
	_, err := svc.CaptureSince(context.Background(), CaptureSinceRequest{PaneID: "%3", Cursor: future})
	if !errors.Is(err, fault.ErrInvalidArgument) || !strings.Contains(err.Error(), "past the end") {
		t.Fatalf("err %v", err)
	}
	_, err = svc.WaitForText(context.Background(), WaitForTextRequest{PaneID: "%3", Patterns: []string{"x"}, Cursor: future})
	if !errors.Is(err, fault.ErrInvalidArgument) {
		t.Fatalf("wait_for_text: %v", err)
	}
}

func TestCursorRoundTrip(t *testing.T) {
	c := cursor{Instance: "abc", Pane: "%12", Generation: "77:1", Offset: 1 << 40}
	got, err := parseCursor(c.String())
	if err != nil || got != c {
		t.Fatalf("round trip: %+v, %v", got, err)
	}
	for _, bad := range []string{"", "%%%", "YWJj", cursor{Instance: "a", Pane: "%1", Generation: "g", Offset: -1}.String()} {
		if _, err := parseCursor(bad); !errors.Is(err, fault.ErrInvalidArgument) {
			t.Errorf("parseCursor(%q): %v", bad, err)
		}
	}
}

func TestCompletePrefix(t *testing.T) {
	cases := map[string]int{
		"plain":                5,
		"ab\x1b":               2,
		"ab\x1b[":              2,
		"ab\x1b[31":            2,
		"ab\x1b[31m":           7,
		"ab\x1b]0;title":       2,
		"ab\x1b]0;title\x07":   12,
		"ab\x1b]0;t\x1b":       2,
		"ab\x1b]0;t\x1b\\":     9,
		"ab\x1bP1;2":           2,
		"ab\x1b(":              2,
		"ab\x1b(B":             5,
		"ab\x1b7":              4,
		"é":                    2,
		"a\xc3":                1,
		"a\xe2\x82":            1,
		"a\xe2\x82\xac":        4,
		"a\x1b[1m\xf0\x9f\x98": 5,
	}
	for in, want := range cases {
		if got := completePrefix([]byte(in)); got != want {
			t.Errorf("completePrefix(%q) = %d, want %d", in, got, want)
		}
	}
}

func TestQuoteCommandShortensLongCommands(t *testing.T) {
	if got := quoteCommand("make test"); got != `"make test"` {
		t.Errorf("got %s", got)
	}
	long := strings.Repeat("é", 40) // 80 bytes
	got := quoteCommand(long)
	if !strings.HasSuffix(got, `…"`) || len(got) > 70 || strings.ContainsRune(got, '\uFFFD') {
		t.Errorf("got %s", got)
	}
}

// A command named in a message is quoted whole up to 60 bytes; a longer
// one is cut at the last character boundary up to byte 60 and marked
// with an ellipsis, whatever its bytes.
func TestQuoteCommandCutsAtACharacterBoundaryPastSixtyBytes(t *testing.T) {
	sixty := strings.Repeat("x", 60)
	cases := []struct{ name, cmd, want string }{
		{"60 bytes, whole", sixty, `"` + sixty + `"`},
		{"61 bytes, cut to 60", sixty + "y", `"` + sixty + `…"`},
		{"a character across byte 60 is left out whole", "a" + strings.Repeat("é", 30), `"a` + strings.Repeat("é", 29) + `…"`},
		// Continuation bytes all the way back: nothing is a boundary
		// but the start.
		{"bytes that are not UTF-8", strings.Repeat("\x80", 61), `"…"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := quoteCommand(c.cmd); got != c.want {
				t.Errorf("quoteCommand(%.20q...) = %s, want %s", c.cmd, got, c.want)
			}
		})
	}
}

func TestTextMatcherFindsPatternsAcrossFeedsAndTrims(t *testing.T) {
	m := newTextMatcher(mustCompile(t, []string{"needle-42"}, false))
	for i := 0; i < 2000; i++ {
		if _, ok := m.feed([]byte("hay hay hay hay\r\n")); ok {
			t.Fatal("matched hay")
		}
	}
	if m.done.Len() > 2*m.overlap+4096+64 {
		t.Fatalf("kept %d bytes of text", m.done.Len())
	}
	if _, ok := m.feed([]byte("nee")); ok {
		t.Fatal("matched a prefix")
	}
	if p, ok := m.feed([]byte("\x1b[1mdle-4\x1b[0m2 done\r\n")); !ok || p != "needle-42" {
		t.Fatalf("split pattern: %q %v", p, ok)
	}

	r := newTextMatcher(mustCompile(t, []string{`port (\d+) ready`}, true))
	r.feed([]byte("starting, port 80"))
	r.feed([]byte("80 "))
	if _, ok := r.feed([]byte("ready\r\n")); !ok {
		t.Fatal("regex split across three feeds")
	}
}

type deadStream struct{ stubStream }

func (deadStream) ReadFrom(o int64) ports.OutputChunk {
	return ports.OutputChunk{Offset: o, Ended: ports.ErrPaneDead}
}

type deadPanes struct{ ports.Terminal }

func (deadPanes) OpenOutput(context.Context, ports.PaneID) (ports.OutputStream, error) {
	return deadStream{}, nil
}

func TestFollowersOfGonePanesAreDroppedPastTheBound(t *testing.T) {
	svc := NewService(deadPanes{}, nil, testIDs{}, Config{})
	for i := 0; i < 3*maxFollowers; i++ {
		id := ports.PaneID(fmt.Sprintf("%%%d", i))
		if _, err := svc.follow(context.Background(), ports.PaneInfo{ID: id, Generation: "g"}); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(svc.followers.streams); n > maxFollowers+1 {
		t.Errorf("%d followers held, want at most %d", n, maxFollowers+1)
	}
}

// testIDs is the id source of the tests inside the package, which keep to
// the domain's own imports: one fixed id is all they need.
type testIDs struct{}

func (testIDs) NewID() string { return "testid01" }

// chunkStream answers every ReadFrom with its chunk, whatever the offset.
type chunkStream struct {
	stubStream
	chunk ports.OutputChunk
}

func (s chunkStream) ReadFrom(int64) ports.OutputChunk { return s.chunk }

func TestStreamReaderMovesPastWhatItReadAndSaysHowTheStreamEnded(t *testing.T) {
	broken := errors.New("control client exited")
	cases := []struct {
		name       string
		chunk      ports.OutputChunk
		wantOffset int64
		gone       bool
		broken     bool
	}{
		{"new bytes", ports.OutputChunk{Offset: 10, Data: []byte("abc")}, 13, false, false},
		{"nothing new", ports.OutputChunk{Offset: 10}, 10, false, false},
		{"a gap and nothing after it", ports.OutputChunk{Offset: 25, Missed: 15}, 25, false, false},
		{"a gap, then bytes", ports.OutputChunk{Offset: 25, Missed: 15, Data: []byte("xy")}, 27, false, false},
		{"the pane died", ports.OutputChunk{Offset: 10, Data: []byte("bye"), Ended: ports.ErrPaneDead}, 13, true, false},
		{"the pane vanished", ports.OutputChunk{Offset: 10, Ended: fmt.Errorf("pane %%3: %w", ports.ErrPaneNotFound)}, 10, true, false},
		{"the stream broke", ports.OutputChunk{Offset: 10, Ended: broken}, 10, false, true},
	}
	for _, c := range cases {
		r := streamReader{stream: chunkStream{chunk: c.chunk}, offset: 10}
		got := r.read()
		if r.offset != c.wantOffset || string(got.Data) != string(c.chunk.Data) || got.Missed != c.chunk.Missed {
			t.Errorf("%s: offset %d, read %+v; want offset %d", c.name, r.offset, got, c.wantOffset)
		}
		if (got.Gone != nil) != c.gone || (got.Broken != nil) != c.broken || got.Ended() != (c.gone || c.broken) {
			t.Errorf("%s: gone %v, broken %v; want gone %v, broken %v", c.name, got.Gone, got.Broken, c.gone, c.broken)
		}
	}
}
