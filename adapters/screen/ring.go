package screen

// ring keeps the newest bytes of a byte stream, at most max of them, at
// absolute offsets. Its buffer grows as bytes come, up to max, so that a
// quiet window costs little.
type ring struct {
	max   int
	buf   []byte // circular once full: the oldest byte is at head
	head  int
	n     int   // bytes retained
	start int64 // offset of the oldest retained byte
}

func newRing(max int) *ring { return &ring{max: max} }

// end is the offset just past the newest byte.
func (r *ring) end() int64 { return r.start + int64(r.n) }

// write appends p, dropping the oldest bytes beyond max.
func (r *ring) write(p []byte) {
	if len(p) >= r.max {
		r.start = r.end() + int64(len(p)-r.max)
		r.buf = append(r.buf[:0], p[len(p)-r.max:]...)
		r.head, r.n = 0, r.max
		return
	}
	if need := r.n + len(p); need > len(r.buf) && len(r.buf) < r.max {
		size := max(4<<10, 2*len(r.buf))
		for size < need {
			size *= 2
		}
		r.linearize(min(size, r.max))
	}
	if drop := r.n + len(p) - len(r.buf); drop > 0 {
		r.head = (r.head + drop) % len(r.buf)
		r.n -= drop
		r.start += int64(drop)
	}
	for len(p) > 0 {
		i := (r.head + r.n) % len(r.buf)
		c := copy(r.buf[i:min(len(r.buf), i+len(p))], p)
		p = p[c:]
		r.n += c
	}
}

// linearize moves the retained bytes to the front of a buffer of size.
func (r *ring) linearize(size int) {
	nb := make([]byte, size)
	copy(nb, r.read(r.start))
	r.buf, r.head = nb, 0
}

// skip counts n bytes that were written but not seen: the end moves on
// and the retained bytes, no longer contiguous with what follows, go.
func (r *ring) skip(n int64) {
	r.start = r.end() + n
	r.head, r.n = 0, 0
}

// read returns a copy of the retained bytes from offset from (clamped to
// what is retained) to the end.
func (r *ring) read(from int64) []byte {
	from = min(max(from, r.start), r.end())
	k := int(from - r.start)
	out := make([]byte, 0, r.n-k)
	for k < r.n {
		i := (r.head + k) % len(r.buf)
		j := min(len(r.buf), i+(r.n-k))
		out = append(out, r.buf[i:j]...)
		k += j - i
	}
	return out
}
