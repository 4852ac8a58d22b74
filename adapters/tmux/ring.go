package tmux

// ring holds the newest bytes of a stream of bytes at absolute offsets: at
// most max of them, the bytes from start to end. It grows its buffer as
// bytes come, up to max, so that a quiet pane costs little.
type ring struct {
	max   int
	buf   []byte // the byte at offset o is buf[o%len(buf)]
	start int64  // offset of the oldest retained byte
	end   int64  // offset just past the newest byte
}

func newRing(max int) *ring { return &ring{max: max} }

// write appends p, dropping the oldest bytes beyond max.
func (r *ring) write(p []byte) {
	if len(p) == 0 {
		return
	}
	if len(p) >= r.max {
		// Only the last max bytes can be kept.
		r.end += int64(len(p) - r.max)
		r.start = r.end
		p = p[len(p)-r.max:]
	}
	if need := int(r.end-r.start) + len(p); need > len(r.buf) && len(r.buf) < r.max {
		r.grow(need)
	}
	n := int64(len(r.buf))
	for len(p) > 0 {
		i := int(r.end % n)
		c := copy(r.buf[i:], p)
		p = p[c:]
		r.end += int64(c)
	}
	if r.end-r.start > n {
		r.start = r.end - n
	}
}

// grow enlarges buf to hold at least need bytes (at most max), keeping
// the retained bytes.
func (r *ring) grow(need int) {
	size := max(len(r.buf)*2, 4<<10)
	for size < need {
		size *= 2
	}
	size = min(size, r.max)
	old := r.read(r.start)
	r.buf = make([]byte, size)
	r.end = r.start
	for len(old) > 0 {
		i := int(r.end % int64(size))
		c := copy(r.buf[i:], old)
		old = old[c:]
		r.end += int64(c)
	}
}

// skip moves the end n bytes on without data (bytes that were written but
// not seen) and drops the retained bytes, which are no longer contiguous
// with what follows.
func (r *ring) skip(n int64) {
	r.end += n
	r.start = r.end
}

// release drops the retained bytes and frees the buffer.
func (r *ring) release() {
	r.start = r.end
	r.buf = nil
}

// read returns a copy of the retained bytes from offset from (clamped to
// [start, end]) to the end.
func (r *ring) read(from int64) []byte {
	from = min(max(from, r.start), r.end)
	if from == r.end {
		return nil
	}
	out := make([]byte, 0, r.end-from)
	n := int64(len(r.buf))
	for from < r.end {
		i := from % n
		j := min(n, i+(r.end-from))
		out = append(out, r.buf[i:j]...)
		from += j - i
	}
	return out
}
