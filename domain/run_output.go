package domain

import "io"

// The pipeline a run's output goes through, between the frame's scanner
// and the result's tail.

// heldOutput holds the command's output until the pane's process is
// confirmed to be the one that read the frame (checkAlive, or the end
// marker itself), so that a process that replaced it contributes nothing.
type heldOutput struct {
	w       io.Writer
	pending []byte
	dropped int64 // bytes dropped as not attributable
}

func (h *heldOutput) Write(p []byte) (int, error) {
	h.pending = append(h.pending, p...)
	return len(p), nil
}

func (h *heldOutput) size() int { return len(h.pending) }

func (h *heldOutput) commit() {
	if len(h.pending) > 0 {
		_, _ = h.w.Write(h.pending)
		h.pending = h.pending[:0]
	}
}

func (h *heldOutput) drop() {
	h.dropped += int64(len(h.pending))
	h.pending = nil
}

// finalNewline passes text on but for a final line feed, which it holds
// back until more text follows: so the line break just before the end
// marker, which every line-ending command prints, is not output
// (`echo hi` gives "hi"), and neither is the last line feed of a command
// that did not end.
type finalNewline struct {
	w    io.Writer
	held bool
}

func (f *finalNewline) Write(p []byte) (int, error) {
	n := len(p)
	if n == 0 {
		return 0, nil
	}
	if f.held {
		if _, err := f.w.Write([]byte{'\n'}); err != nil {
			return 0, err
		}
		f.held = false
	}
	if p[len(p)-1] == '\n' {
		f.held, p = true, p[:len(p)-1]
	}
	if len(p) > 0 {
		if _, err := f.w.Write(p); err != nil {
			return 0, err
		}
	}
	return n, nil
}
