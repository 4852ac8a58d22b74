package outbuf

// ring holds the newest bytes of a byte stream at absolute offsets: at
// most max of them, the bytes from start to end. Its buffer grows as bytes
// come, up to max, so that a quiet pane costs little.
type ring struct {
	max   int
	buf   []byte // the byte at offset o is buf[o%len(buf)]
	start int64  // offset of the oldest retained byte
	end   int64  // offset just past the newest byte
}

// minAlloc is the smallest buffer a ring allocates.
const minAlloc = 4 << 10

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
		if len(p) == 0 {
			return
		}
	}
	if need := int(r.end-r.start) + len(p); need > len(r.buf) && len(r.buf) < r.max {
		r.grow(need)
	}
	n := int64(len(r.buf))
	for len(p) > 0 {
		c := copy(r.buf[r.end%n:], p)
		p = p[c:]
		r.end += int64(c)
	}
	r.start = max(r.start, r.end-n)
}

// grow enlarges buf to hold at least need bytes (at most max), keeping the
// retained bytes.
func (r *ring) grow(need int) {
	size := max(len(r.buf)*2, minAlloc)
	for size < need {
		size *= 2
	}
	size = min(size, r.max)
	old := r.read(r.start, r.end)
	r.buf = make([]byte, size)
	r.end = r.start
	for len(old) > 0 {
		c := copy(r.buf[r.end%int64(size):], old)
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

// read returns a copy of the retained bytes in [from, to), both clamped to
// [start, end]; nil when there are none.
func (r *ring) read(from, to int64) []byte {
	from = min(max(from, r.start), r.end)
	to = min(max(to, from), r.end)
	if from == to {
		return nil
	}
	out := make([]byte, 0, to-from)
	n := int64(len(r.buf))
	for from < to {
		i := from % n
		j := min(n, i+(to-from))
		out = append(out, r.buf[i:j]...)
		from += j - i
	}
	return out
}
