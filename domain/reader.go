package domain

import (
	"errors"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// A streamReader reads a pane's output stream onward from an offset, for
// the three calls that follow output as it comes: run_shell_command,
// wait_for_text and capture_since. Each read hands over what is new since
// the last, moves the offset past it, and says how the stream ended, if
// it did; what a call makes of the bytes is the call's.
type streamReader struct {
	stream ports.OutputStream
	offset int64 // absolute: the next byte to read
}

// A streamRead is what one read found.
type streamRead struct {
	// Data are the new bytes. Missed counts the bytes before them that
	// the terminal lost: it is not 0 only when there was a gap.
	Data   []byte
	Missed int64
	// Gone is set when the pane died or vanished: nothing more will come.
	// Broken is set when the stream failed while the pane may live on:
	// more may come on a stream opened again.
	Gone, Broken error
}

// Ended reports whether the stream ended, either way.
func (r streamRead) Ended() bool { return r.Gone != nil || r.Broken != nil }

// read reads what the stream holds past the offset, without waiting.
func (r *streamReader) read() streamRead {
	chunk := r.stream.ReadFrom(r.offset)
	got := streamRead{Data: chunk.Data, Missed: chunk.Missed}
	switch {
	case len(chunk.Data) > 0:
		r.offset = chunk.Offset + int64(len(chunk.Data))
	case chunk.Offset > r.offset:
		r.offset = chunk.Offset
	}
	switch {
	case chunk.Ended == nil:
	case paneGone(chunk.Ended):
		got.Gone = chunk.Ended
	default:
		got.Broken = chunk.Ended
	}
	return got
}

// changed is the stream's signal that more may be there to read.
func (r *streamReader) changed() <-chan struct{} { return r.stream.Changed() }

// paneGone reports whether err says that the pane died or no longer
// exists: the one test of "gone" that every call shares.
func paneGone(err error) bool {
	return errors.Is(err, ports.ErrPaneDead) || errors.Is(err, ports.ErrPaneNotFound)
}
