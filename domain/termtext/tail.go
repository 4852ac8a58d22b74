package termtext

import (
	"bytes"
	"encoding/binary"
	"unicode/utf8"
)

// TailResult is the bounded tail of a text and the account of what was
// withheld from it.
type TailResult struct {
	// Text is the tail: the last lines within the line limit, then the
	// last bytes of those within the byte limit.
	Text string
	// TotalLines counts the lines of the whole text. A line is text ending
	// in "\n"; a final fragment without one counts as a line too.
	TotalLines int64
	// DroppedLines counts the lines withheld by the line limit.
	DroppedLines int64
	// OmittedBytes counts the bytes of the kept lines cut from the front
	// by the byte limit.
	OmittedBytes int64
	// ReturnedBytes is len(Text).
	ReturnedBytes int64
}

// A Tail keeps the bounded tail of a text stream and accounts for what it
// withholds. First at most maxLines lines are kept, from the end
// (DroppedLines counts the others); then, if they are longer than maxBytes
// bytes, their front is cut (OmittedBytes counts the bytes cut), at a
// UTF-8 character boundary so that the text stays valid UTF-8.
//
// Memory stays near maxBytes, plus the last line while it is longer than
// that, plus a byte or two per kept line for its length, whatever the size
// of the stream. maxLines <= 0 means no line limit and maxBytes <= 0 no
// byte limit (then the whole kept text is held).
//
// A Tail is not safe for concurrent use.
type Tail struct {
	maxLines, maxBytes int

	total   int64 // bytes written
	lines   int64 // lines begun
	newLine bool  // the next byte begins a line

	// The kept lines: the first begins at first; lens holds the length
	// of each kept line but the last, as uvarints, from lensAt on.
	kept   int64
	first  int64
	last   int64 // where the last kept line begins
	lens   []byte
	lensAt int

	// buf holds the stream's bytes from offset base to total: at least
	// those the result can still need.
	buf  []byte
	base int64
}

// compactMin is the least number of unneeded bytes worth moving buffered
// data for.
const compactMin = 4096

// NewTail returns a Tail that keeps at most maxLines lines and maxBytes
// bytes; a limit <= 0 is no limit.
func NewTail(maxLines, maxBytes int) *Tail {
	return &Tail{maxLines: maxLines, maxBytes: maxBytes, newLine: true}
}

// Write adds p to the stream. It always returns len(p), nil.
func (t *Tail) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if t.newLine {
			t.beginLine()
		}
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			t.keep(p)
			break
		}
		t.keep(p[:i+1])
		p = p[i+1:]
		t.newLine = true
	}
	return n, nil
}

// beginLine records that a line begins at the current offset.
func (t *Tail) beginLine() {
	t.newLine = false
	t.lines++
	if t.maxLines <= 0 {
		return
	}
	if t.kept > 0 {
		t.lens = binary.AppendUvarint(t.lens, uint64(t.total-t.last))
	} else {
		t.first = t.total
	}
	t.last = t.total
	t.kept++
	if t.kept > int64(t.maxLines) {
		// The oldest kept line falls out.
		l, size := binary.Uvarint(t.lens[t.lensAt:])
		t.lensAt += size
		t.first += int64(l)
		t.kept--
		if t.lensAt >= compactMin && t.lensAt >= len(t.lens)/2 {
			t.lens = append(t.lens[:0], t.lens[t.lensAt:]...)
			t.lensAt = 0
		}
	}
}

// keep appends p to the buffer and drops what no result can need: bytes
// before the first kept line, and bytes more than maxBytes from the end.
func (t *Tail) keep(p []byte) {
	t.total += int64(len(p))
	if t.maxBytes > 0 && len(p) >= t.maxBytes {
		// Nothing before p's last maxBytes bytes can be needed.
		t.buf = append(t.buf[:0], p[len(p)-t.maxBytes:]...)
		t.base = t.total - int64(t.maxBytes)
	} else {
		t.buf = append(t.buf, p...)
	}
	need := t.first
	if t.maxLines <= 0 {
		need = 0
	}
	if t.maxBytes > 0 {
		need = max(need, t.total-int64(t.maxBytes))
	}
	if drop := need - t.base; drop >= compactMin && drop >= int64(len(t.buf))/4 {
		t.buf = append(t.buf[:0], t.buf[drop:]...)
		t.base = need
	}
}

// Result returns the tail kept so far and its account. It may be called at
// any time, and again after more Writes.
func (t *Tail) Result() TailResult {
	r := TailResult{TotalLines: t.lines}
	start := int64(0)
	if t.maxLines > 0 && t.lines > int64(t.maxLines) {
		r.DroppedLines = t.lines - int64(t.maxLines)
		start = t.first
	}
	if t.maxBytes > 0 && t.total-start > int64(t.maxBytes) {
		cut := t.total - int64(t.maxBytes)
		// Step past continuation bytes to the next character; at most
		// UTFMax-1 of them, so that bytes that are not UTF-8 are cut
		// like any others.
		for i := 0; i < utf8.UTFMax-1 && cut < t.total && !utf8.RuneStart(t.buf[cut-t.base]); i++ {
			cut++
		}
		r.OmittedBytes = cut - start
		start = cut
	}
	r.Text = string(t.buf[start-t.base:])
	r.ReturnedBytes = int64(len(r.Text))
	return r
}

// TailOf returns the tail of text as a Tail with these limits would.
func TailOf(text string, maxLines, maxBytes int) TailResult {
	t := NewTail(maxLines, maxBytes)
	_, _ = t.Write([]byte(text))
	return t.Result()
}
