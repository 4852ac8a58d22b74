// Package outbuf keeps the newest output bytes of a pane at absolute
// offsets and serves ports.OutputStream views of them. It is what the
// terminal adapters share of their output streams; how the bytes are
// obtained stays with each adapter.
//
// A Buffer is guarded by a lock that its owner gives to New and usually
// shares with its own state: the owner holds the lock whenever it calls a
// Buffer method, and the Streams take it themselves, so that every stream
// method may be called concurrently with every other and with the owner.
package outbuf

import (
	"errors"
	"sync"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// ErrClosed is what a stream's chunks carry in Ended after Close, unless
// the stream had already ended for another reason.
var ErrClosed = errors.New("output stream closed")

// A Buffer holds at most a fixed number of a pane's newest output bytes,
// and the streams open on them. Offsets count every byte written or
// skipped since New, so they keep counting across streams.
//
// All methods must be called with the lock given to New held.
type Buffer struct {
	mu      sync.Locker
	ring    ring
	streams map[*Stream]struct{}
	onClose func()
}

// New returns an empty Buffer, at offset 0, that retains at most size
// bytes (none when size <= 0) and is guarded by mu.
func New(mu sync.Locker, size int) *Buffer {
	return &Buffer{mu: mu, ring: ring{max: max(size, 0)}, streams: make(map[*Stream]struct{})}
}

// OnClose sets f to be called, with the lock held, each time Close is
// called on one of the Buffer's streams, after the stream is no longer
// counted by Streams. Owners use it to notice that nobody listens any
// more.
func (b *Buffer) OnClose(f func()) { b.onClose = f }

// Start returns the offset of the oldest retained byte; it equals End when
// nothing is retained.
func (b *Buffer) Start() int64 { return b.ring.start }

// End returns the offset just past the newest byte written or skipped.
func (b *Buffer) End() int64 { return b.ring.end }

// Retained returns a copy of the bytes retained, from Start to End.
func (b *Buffer) Retained() []byte { return b.ring.read(b.ring.start, b.ring.end) }

// Write appends p, dropping the oldest bytes beyond the size, and notifies
// the open streams. An empty p changes nothing.
func (b *Buffer) Write(p []byte) {
	if len(p) == 0 {
		return
	}
	b.ring.write(p)
	b.notify()
}

// Skip counts n bytes as written but never seen: End moves on by n with
// no data, and readers behind it learn of them as Missed. The retained
// bytes are dropped too, because a chunk holds one contiguous run of
// bytes: a reader behind the gap learns of all it missed in one Missed
// count and reads on from after the gap. Skip notifies the open streams;
// n <= 0 changes nothing.
func (b *Buffer) Skip(n int64) {
	if n <= 0 {
		return
	}
	b.ring.skip(n)
	b.notify()
}

// Release drops the retained bytes, without moving End, and frees the
// memory that held them: for when nobody reads and a gap may follow
// unnoticed anyway.
func (b *Buffer) Release() { b.ring.release() }

// Open returns a stream of the bytes written from End on. Bytes written
// before are reported as missed even while retained, as a backend only
// promises what comes after its OpenOutput.
func (b *Buffer) Open() *Stream {
	s := b.newStream()
	b.streams[s] = struct{}{}
	return s
}

// OpenEnded returns a stream that has already ended with err at End,
// for a pane that writes no more. It is not counted by Streams.
func (b *Buffer) OpenEnded(err error) *Stream {
	s := b.newStream()
	s.end(err)
	return s
}

func (b *Buffer) newStream() *Stream {
	return &Stream{b: b, from: b.ring.end, changed: make(chan struct{}, 1)}
}

// Streams returns how many streams are open and not ended.
func (b *Buffer) Streams() int { return len(b.streams) }

// EndStreams ends every open stream with err (unless it ended already) at
// the present End, notifies it and forgets it. Ended streams stay readable
// up to where they ended, whatever the Buffer receives afterwards.
func (b *Buffer) EndStreams(err error) {
	for s := range b.streams {
		s.end(err)
		s.notify()
	}
	clear(b.streams)
}

func (b *Buffer) notify() {
	for s := range b.streams {
		s.notify()
	}
}

// Stream is a ports.OutputStream on a Buffer, from the offset at which it
// was opened up to where it ended.
type Stream struct {
	b       *Buffer
	from    int64 // End when the stream was opened
	changed chan struct{}

	// Once ended is set no more bytes come: the stream ends at until even
	// if the Buffer receives more (say, from a respawned process). Both
	// are guarded by the Buffer's lock.
	ended error
	until int64
}

var _ ports.OutputStream = (*Stream)(nil)

// end ends the stream with err unless it has ended already. The lock is
// held.
func (s *Stream) end(err error) {
	if s.ended == nil {
		s.ended, s.until = err, s.b.ring.end
	}
}

// endLocked returns the stream's end offset. The lock is held.
func (s *Stream) endLocked() int64 {
	if s.ended != nil {
		return s.until
	}
	return s.b.ring.end
}

// notify sends on changed without blocking: a value already waiting
// stands for this change too.
func (s *Stream) notify() {
	select {
	case s.changed <- struct{}{}:
	default:
	}
}

// Changed returns the channel that receives a value, coalesced and never
// blocking the writer, after bytes arrive, bytes are lost or the stream
// ends (Close included). It is never closed.
func (s *Stream) Changed() <-chan struct{} { return s.changed }

// ReadFrom returns, without waiting, a copy of the retained bytes from
// offset on, up to the stream's end. What lies between offset and the
// first byte it can return (the oldest retained byte, or the offset at
// which the stream opened) is counted in Missed. An offset at or past the
// end yields no data and no Missed. Ended is set once the stream ended.
func (s *Stream) ReadFrom(offset int64) ports.OutputChunk {
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	end := s.endLocked()
	if offset >= end {
		return ports.OutputChunk{Offset: offset, Ended: s.ended}
	}
	start := min(max(offset, s.from, s.b.ring.start), end)
	return ports.OutputChunk{
		Offset: start,
		Data:   s.b.ring.read(start, end),
		Missed: start - offset,
		Ended:  s.ended,
	}
}

// End returns the offset just past the newest byte the stream received.
// It stays put once the stream has ended.
func (s *Stream) End() int64 {
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	return s.endLocked()
}

// Close stops the stream: later chunks report Ended (ErrClosed unless the
// stream had ended for another reason) and Changed receives a value, as
// for any end. Closing twice is harmless. It always returns nil.
func (s *Stream) Close() error {
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	s.end(ErrClosed)
	delete(s.b.streams, s)
	s.notify()
	if s.b.onClose != nil {
		s.b.onClose()
	}
	return nil
}
