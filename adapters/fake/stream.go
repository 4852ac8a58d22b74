package fake

import (
	"errors"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// DefaultOutputWindow is how many of a pane's newest output bytes the fake
// retains unless told otherwise (WithOutputWindow, PaneSpec.OutputWindow).
const DefaultOutputWindow = 1 << 20

// ErrStreamClosed is what a closed stream's chunks carry in Ended.
var ErrStreamClosed = errors.New("output stream closed")

// outputLog is everything a pane's program wrote, at absolute offsets, of
// which the newest window bytes are retained. It is guarded by the
// Terminal's mutex.
type outputLog struct {
	window  int
	base    int64  // offset of data[0]
	data    []byte // retained bytes; base+len(data) is the end
	streams map[*stream]struct{}
}

func (l *outputLog) end() int64 { return l.base + int64(len(l.data)) }

// append records bytes the program wrote, dropping the oldest beyond the
// window, and tells every open stream.
func (l *outputLog) append(b []byte) {
	if len(b) == 0 {
		return
	}
	l.data = append(l.data, b...)
	if over := len(l.data) - l.window; over > 0 {
		l.data = l.data[over:]
		l.base += int64(over)
	}
	l.notify()
}

// lose counts n bytes as written but never seen. A chunk is one
// contiguous run of bytes, so the retained bytes before the gap are
// dropped too: a reader behind the gap learns of all it missed in one
// Missed count and then reads on from after the gap.
func (l *outputLog) lose(n int64) {
	if n <= 0 {
		return
	}
	l.base = l.end() + n
	l.data = nil
	l.notify()
}

func (l *outputLog) notify() {
	for s := range l.streams {
		s.notify()
	}
}

// endStreams ends every open stream with err; they stay readable up to
// the present end.
func (l *outputLog) endStreams(err error) {
	for s := range l.streams {
		s.end(err)
		s.notify()
	}
	l.streams = nil
}

// stream is the fake's ports.OutputStream: a view of a pane's outputLog
// from the offset at which it was opened. Bytes written before it opened
// are reported as missed even while the pane retains them, because a real
// backend only promises what is written after OpenOutput returns.
type stream struct {
	t       *Terminal
	log     *outputLog
	from    int64
	changed chan struct{}

	// Once ended is set, no more bytes come: the stream's end stays at
	// until even if the pane writes on after a respawn. Both are guarded
	// by t.mu.
	ended error
	until int64
}

func (s *stream) end(err error) {
	if s.ended == nil {
		s.ended, s.until = err, s.log.end()
	}
}

// endLocked returns the stream's end offset.
func (s *stream) endLocked() int64 {
	if s.ended != nil {
		return s.until
	}
	return s.log.end()
}

// Changed returns the channel that receives a value (coalesced, never
// blocking the writer) after new bytes arrive, bytes are lost or the
// stream ends.
func (s *stream) Changed() <-chan struct{} { return s.changed }

func (s *stream) notify() {
	select {
	case s.changed <- struct{}{}:
	default:
	}
}

// ReadFrom returns the retained bytes from offset on, without waiting.
// What lies between offset and the first retained byte is counted in
// Missed. An offset at or past the end yields no data and no Missed.
func (s *stream) ReadFrom(offset int64) ports.OutputChunk {
	s.t.mu.Lock()
	defer s.t.mu.Unlock()
	end := s.endLocked()
	if offset >= end {
		return ports.OutputChunk{Offset: offset, Ended: s.ended}
	}
	start := min(max(offset, s.from, s.log.base), end)
	c := ports.OutputChunk{Offset: start, Ended: s.ended}
	if start > offset {
		c.Missed = start - offset
	}
	if start < end {
		// A copy: the caller owns Data and may change it.
		c.Data = append([]byte(nil), s.log.data[start-s.log.base:end-s.log.base]...)
	}
	return c
}

// End returns the offset just past the newest byte the stream received.
func (s *stream) End() int64 {
	s.t.mu.Lock()
	defer s.t.mu.Unlock()
	return s.endLocked()
}

// Close stops the stream: later chunks report Ended (ErrStreamClosed
// unless the stream had already ended for another reason). Closing twice
// is harmless.
func (s *stream) Close() error {
	s.t.mu.Lock()
	defer s.t.mu.Unlock()
	s.end(ErrStreamClosed)
	delete(s.log.streams, s)
	return nil
}
