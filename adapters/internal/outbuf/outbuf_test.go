package outbuf_test

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/adapters/internal/outbuf"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

var errGone = fmt.Errorf("pane %%1: %w", ports.ErrPaneDead)

// buffer is a Buffer with its lock, written to as its owner would.
type buffer struct {
	mu sync.Mutex
	b  *outbuf.Buffer
}

func newBuffer(size int) *buffer {
	b := &buffer{}
	b.b = outbuf.New(&b.mu, size)
	return b
}

// do runs f with the lock held.
func (b *buffer) do(f func(*outbuf.Buffer)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	f(b.b)
}

func (b *buffer) write(s string) { b.do(func(b *outbuf.Buffer) { b.Write([]byte(s)) }) }

func (b *buffer) open() *outbuf.Stream {
	var s *outbuf.Stream
	b.do(func(b *outbuf.Buffer) { s = b.Open() })
	return s
}

// changed reports whether a value waits on s.Changed, taking it.
func changed(s ports.OutputStream) bool {
	select {
	case <-s.Changed():
		return true
	default:
		return false
	}
}

func chunk(offset int64, data string, missed int64, ended error) ports.OutputChunk {
	c := ports.OutputChunk{Offset: offset, Missed: missed, Ended: ended}
	if data != "" {
		c.Data = []byte(data)
	}
	return c
}

func sameChunk(got, want ports.OutputChunk) bool {
	return got.Offset == want.Offset && string(got.Data) == string(want.Data) &&
		(got.Data == nil) == (want.Data == nil) && got.Missed == want.Missed &&
		errors.Is(got.Ended, want.Ended) && (got.Ended == nil) == (want.Ended == nil)
}

func TestReadFrom(t *testing.T) {
	// Each case opens a stream on a Buffer of 8 bytes that already holds
	// "old" (offsets 0-2), then does what it says (with the lock held),
	// closes the stream if asked to, and reads.
	for _, tc := range []struct {
		name   string
		after  func(b *outbuf.Buffer)
		close  bool
		offset int64
		want   ports.OutputChunk
	}{
		{"bytes from the offset at which the stream opened",
			func(b *outbuf.Buffer) { b.Write([]byte("abc")) }, false,
			3, chunk(3, "abc", 0, nil)},
		{"bytes from within them",
			func(b *outbuf.Buffer) { b.Write([]byte("abc")) }, false,
			4, chunk(4, "bc", 0, nil)},
		{"bytes retained from before the stream opened, counted as missed",
			func(b *outbuf.Buffer) { b.Write([]byte("abc")) }, false,
			0, chunk(3, "abc", 3, nil)},
		{"a negative offset",
			func(b *outbuf.Buffer) { b.Write([]byte("abc")) }, false,
			-2, chunk(3, "abc", 5, nil)},
		{"the end",
			func(b *outbuf.Buffer) { b.Write([]byte("abc")) }, false,
			6, chunk(6, "", 0, nil)},
		{"past the end, which is not missed",
			func(b *outbuf.Buffer) { b.Write([]byte("abc")) }, false,
			40, chunk(40, "", 0, nil)},
		{"no bytes yet",
			func(*outbuf.Buffer) {}, false,
			3, chunk(3, "", 0, nil)},
		{"bytes dropped from the window",
			func(b *outbuf.Buffer) { b.Write([]byte("0123456789")) }, false,
			3, chunk(5, "23456789", 2, nil)},
		{"a write longer than the window",
			func(b *outbuf.Buffer) { b.Write([]byte("0123456789abcdef")) }, false,
			4, chunk(11, "89abcdef", 7, nil)},
		{"bytes skipped, with what was retained before them",
			func(b *outbuf.Buffer) { b.Write([]byte("ab")); b.Skip(4); b.Write([]byte("cd")) }, false,
			3, chunk(9, "cd", 6, nil)},
		{"from within the skipped bytes",
			func(b *outbuf.Buffer) { b.Write([]byte("ab")); b.Skip(4); b.Write([]byte("cd")) }, false,
			7, chunk(9, "cd", 2, nil)},
		{"a skip of nothing",
			func(b *outbuf.Buffer) { b.Write([]byte("ab")); b.Skip(0); b.Skip(-3) }, false,
			3, chunk(3, "ab", 0, nil)},
		{"after a release, which keeps the end",
			func(b *outbuf.Buffer) { b.Write([]byte("ab")); b.Release(); b.Write([]byte("c")) }, false,
			3, chunk(5, "c", 2, nil)},
		{"an ended stream, up to where it ended",
			func(b *outbuf.Buffer) {
				b.Write([]byte("ab"))
				b.EndStreams(errGone)
				b.Write([]byte("after")) // a respawned process, say
			}, false,
			3, chunk(3, "ab", 0, errGone)},
		{"an ended stream whose bytes the window dropped since",
			func(b *outbuf.Buffer) {
				b.Write([]byte("ab"))
				b.EndStreams(errGone)
				b.Write([]byte("0123456789"))
			}, false,
			3, chunk(5, "", 2, errGone)},
		{"an ended stream at its end",
			func(b *outbuf.Buffer) {
				b.Write([]byte("ab"))
				b.EndStreams(errGone)
				b.Write([]byte("x"))
			}, false,
			5, chunk(5, "", 0, errGone)},
		{"a closed stream",
			func(b *outbuf.Buffer) { b.Write([]byte("ab")) }, true,
			3, chunk(3, "ab", 0, outbuf.ErrClosed)},
		{"a stream closed after it ended, which keeps the first reason",
			func(b *outbuf.Buffer) { b.Write([]byte("ab")); b.EndStreams(errGone) }, true,
			3, chunk(3, "ab", 0, errGone)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBuffer(8)
			b.write("old")
			s := b.open()
			b.do(tc.after)
			if tc.close {
				s.Close()
			}
			if got := s.ReadFrom(tc.offset); !sameChunk(got, tc.want) {
				t.Errorf("ReadFrom(%d) = {%d %q missed %d ended %v}, want {%d %q missed %d ended %v}",
					tc.offset, got.Offset, got.Data, got.Missed, got.Ended,
					tc.want.Offset, tc.want.Data, tc.want.Missed, tc.want.Ended)
			}
		})
	}
}

func TestReadFromReturnsACopy(t *testing.T) {
	b := newBuffer(8)
	s := b.open()
	b.write("abc")
	c := s.ReadFrom(0)
	c.Data[0] = 'X'
	if got := string(s.ReadFrom(0).Data); got != "abc" {
		t.Errorf("after the caller changed its Data, ReadFrom = %q, want abc", got)
	}
	var kept []byte
	b.do(func(b *outbuf.Buffer) { kept = b.Retained() })
	kept[0] = 'Y'
	b.do(func(b *outbuf.Buffer) { kept = b.Retained() })
	if string(kept) != "abc" {
		t.Errorf("after the caller changed what Retained returned, Retained = %q, want abc", kept)
	}
}

func TestEnd(t *testing.T) {
	b := newBuffer(4)
	b.write("before")
	s := b.open()
	steps := []struct {
		name string
		do   func(b *outbuf.Buffer)
		want int64
	}{
		{"at open", func(*outbuf.Buffer) {}, 6},
		{"after a write beyond the window", func(b *outbuf.Buffer) { b.Write([]byte("0123456")) }, 13},
		{"after a skip", func(b *outbuf.Buffer) { b.Skip(3) }, 16},
		{"after a release", func(b *outbuf.Buffer) { b.Release() }, 16},
		{"after the stream ended", func(b *outbuf.Buffer) { b.EndStreams(errGone) }, 16},
		{"after bytes came past the end", func(b *outbuf.Buffer) { b.Write([]byte("more")) }, 16},
	}
	for _, st := range steps {
		b.do(st.do)
		if got := s.End(); got != st.want {
			t.Fatalf("End() %s = %d, want %d", st.name, got, st.want)
		}
	}
	var bufEnd int64
	b.do(func(b *outbuf.Buffer) { bufEnd = b.End() })
	if bufEnd != 20 {
		t.Errorf("the Buffer's End = %d, want 20: it counts on after its streams end", bufEnd)
	}
}

func TestChanged(t *testing.T) {
	for _, tc := range []struct {
		name string
		do   func(b *outbuf.Buffer)
		want bool
	}{
		{"after bytes arrive", func(b *outbuf.Buffer) { b.Write([]byte("x")) }, true},
		{"after bytes are lost", func(b *outbuf.Buffer) { b.Skip(1) }, true},
		{"after the stream ends", func(b *outbuf.Buffer) { b.EndStreams(errGone) }, true},
		{"not after an empty write", func(b *outbuf.Buffer) { b.Write(nil) }, false},
		{"not after a skip of nothing", func(b *outbuf.Buffer) { b.Skip(0) }, false},
		{"not after a release", func(b *outbuf.Buffer) { b.Release() }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBuffer(8)
			s := b.open()
			b.do(tc.do)
			if got := changed(s); got != tc.want {
				t.Errorf("a value waits on Changed: %v, want %v", got, tc.want)
			}
		})
	}
}

func TestChangedCoalesces(t *testing.T) {
	b := newBuffer(8)
	s := b.open()
	for range 5 {
		b.write("x") // must not block, though nobody receives
	}
	if !changed(s) {
		t.Fatal("no value on Changed after 5 writes")
	}
	if changed(s) {
		t.Error("a second value on Changed: notifications should coalesce")
	}
}

func TestChangedIsQuietAfterTheStreamEnded(t *testing.T) {
	b := newBuffer(8)
	s := b.open()
	b.do(func(b *outbuf.Buffer) { b.EndStreams(errGone) })
	changed(s)
	b.write("x")
	if changed(s) {
		t.Error("a value on Changed for bytes that came after the stream ended")
	}
}

func TestClose(t *testing.T) {
	b := newBuffer(8)
	closes := 0
	var streamsAtClose []int
	b.do(func(bb *outbuf.Buffer) {
		bb.OnClose(func() {
			if b.mu.TryLock() {
				b.mu.Unlock()
				t.Error("OnClose's function ran without the lock held")
			}
			closes++
			streamsAtClose = append(streamsAtClose, bb.Streams())
		})
	})
	s1, s2 := b.open(), b.open()
	b.write("ab")
	changed(s1)
	if err := s1.Close(); err != nil {
		t.Fatalf("Close() = %v", err)
	}
	if !changed(s1) {
		t.Error("no value on Changed when the stream was closed")
	}
	if c := s1.ReadFrom(0); !errors.Is(c.Ended, outbuf.ErrClosed) || string(c.Data) != "ab" {
		t.Errorf("after Close: ReadFrom(0) = %q ended %v, want ab ended ErrClosed", c.Data, c.Ended)
	}
	b.write("cd")
	if changed(s1) || s1.End() != 2 {
		t.Errorf("a closed stream moved on: End() = %d", s1.End())
	}
	if s1.Close() != nil {
		t.Error("a second Close failed")
	}
	s2.Close()
	if want := []int{1, 1, 0}; closes != 3 || !slices.Equal(streamsAtClose, want) {
		t.Errorf("OnClose ran %d times seeing %v streams, want 3 times seeing %v", closes, streamsAtClose, want)
	}
}

func TestCloseKeepsAnEarlierEnd(t *testing.T) {
	b := newBuffer(8)
	s := b.open()
	b.do(func(b *outbuf.Buffer) { b.EndStreams(errGone) })
	s.Close()
	if c := s.ReadFrom(0); !errors.Is(c.Ended, ports.ErrPaneDead) {
		t.Errorf("Ended = %v, want the earlier reason (ErrPaneDead)", c.Ended)
	}
}

func TestOpenEnded(t *testing.T) {
	b := newBuffer(8)
	b.write("abc")
	var s *outbuf.Stream
	var n int
	b.do(func(b *outbuf.Buffer) { s = b.OpenEnded(errGone); n = b.Streams() })
	b.write("def")
	if n != 0 {
		t.Errorf("Streams() = %d, want an ended stream not counted", n)
	}
	if got := s.End(); got != 3 {
		t.Errorf("End() = %d, want 3, where it opened", got)
	}
	if c := s.ReadFrom(0); !sameChunk(c, chunk(3, "", 3, errGone)) {
		t.Errorf("ReadFrom(0) = %+v, want nothing, 3 missed, ended", c)
	}
	if changed(s) {
		t.Error("a value on Changed of a stream that opened ended")
	}
}

func TestStreamsCountsOpenStreams(t *testing.T) {
	b := newBuffer(8)
	count := func() (n int) { b.do(func(b *outbuf.Buffer) { n = b.Streams() }); return n }
	s := b.open()
	b.open()
	if n := count(); n != 2 {
		t.Fatalf("Streams() = %d after 2 opens", n)
	}
	s.Close()
	if n := count(); n != 1 {
		t.Fatalf("Streams() = %d after a Close", n)
	}
	b.do(func(b *outbuf.Buffer) { b.EndStreams(errGone) })
	if n := count(); n != 0 {
		t.Fatalf("Streams() = %d after EndStreams", n)
	}
}

// TestConcurrentUse is for the race detector: every stream method runs
// while the owner writes and ends.
func TestConcurrentUse(t *testing.T) {
	b := newBuffer(64)
	streams := []*outbuf.Stream{b.open(), b.open(), b.open()}
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range 200 {
			b.write(fmt.Sprintf("line %d\n", i))
			if i%50 == 0 {
				b.do(func(b *outbuf.Buffer) { b.Skip(1) })
			}
		}
		b.do(func(b *outbuf.Buffer) { b.EndStreams(errGone) })
	})
	for _, s := range streams {
		wg.Go(func() {
			var at int64
			for {
				c := s.ReadFrom(at)
				if c.Offset != at+c.Missed {
					t.Errorf("chunk at %d after asking for %d with %d missed", c.Offset, at, c.Missed)
					return
				}
				at = c.Offset + int64(len(c.Data))
				if c.Ended != nil && at == s.End() {
					return
				}
				<-s.Changed()
			}
		})
	}
	wg.Go(func() { streams[0].Close() })
	wg.Wait()
}
