package runlog

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// A Query asks for a page of one run's output.
type Query struct {
	RunID string
	// Start is the first line read, counting from 1; less than 1 means 1.
	Start int64
	// MaxLines bounds the lines returned (at least 1); MaxBytes the bytes
	// of the text (at least 1).
	MaxLines int
	MaxBytes int
	// Match, if set, makes the page a search: only the lines from Start
	// on that it matches are returned, each as "N:line", with Context
	// lines around them as "N-line" and "--" between groups that are not
	// next to each other, as grep -n -C prints them.
	Match   func(line string) bool
	Context int
}

// A Page is what Read returns.
type Page struct {
	RunID string
	Pane  ports.PaneID
	Text  string
	// StartLine is the first line read; ReturnedLines the lines in Text
	// (a search's separators not counted).
	StartLine     int64
	ReturnedLines int64
	// TotalLines is the lines stored so far; a last line without its
	// line end counts.
	TotalLines int64
	// NextLine is where the next page starts, when this one stopped
	// before the end of what is stored (by MaxLines or MaxBytes); 0 when
	// it reached the end.
	NextLine int64
	// MatchedLines is how many lines from StartLine on the search
	// matched, whether or not they all fit in Text.
	MatchedLines int64
	// ReturnedBytes is Text's length; OmittedBytes the bytes of lines in
	// the page that Text does not hold: a line longer than MaxBytes, or
	// than LineMax.
	ReturnedBytes int64
	OmittedBytes  int64
	// StoredBytes is what the store holds of the run; CutBytes what of
	// its output it does not hold, after StoredBytes, and CutReason why.
	StoredBytes int64
	CutBytes    int64
	CutReason   string
	// Running: the run's output is not over; more may come.
	Running bool
	Accounting
}

// Complete reports whether the Log holds the whole of what the run's
// command printed, as far as the server could tell: its output is over,
// nothing was cut, and its result says nothing was lost.
func (p Page) Complete() bool { return !p.Running && p.CutBytes == 0 && p.Lossless() }

// Read returns a page of run q.RunID's output: from q.Start on, or, with
// q.Match, the lines from there that match.
//
// Errors: wrapping ports.ErrRunNotFound when no run has the id (or it is
// older than the oldest remembered), ports.ErrRunEvicted when the run was
// evicted to keep within the budget, and the store's errors.
func (l *Log) Read(q Query) (Page, error) {
	if q.Start < 1 {
		q.Start = 1
	}
	q.MaxLines, q.MaxBytes, q.Context = max(q.MaxLines, 1), max(q.MaxBytes, 1), max(q.Context, 0)
	l.mu.Lock()
	r := l.runs[q.RunID]
	if r == nil {
		evicted := l.evicted[q.RunID]
		l.mu.Unlock()
		if evicted {
			return Page{}, fmt.Errorf("read the output of run %s: %w", q.RunID, ports.ErrRunEvicted)
		}
		return Page{}, fmt.Errorf("read the output of run %q: %w", q.RunID, ports.ErrRunNotFound)
	}
	p := Page{RunID: r.id, Pane: r.pane, StartLine: q.Start, TotalLines: r.lines, StoredBytes: r.size,
		CutBytes: r.cut, CutReason: r.cutWhy, Running: r.running, Accounting: r.acct}
	if r.open {
		p.TotalLines++
	}
	k := min(int((q.Start-1)/markEvery), len(r.marks)-1)
	from, fromLine := r.marks[k], int64(k)*markEvery+1
	created := r.created
	l.mu.Unlock()
	if p.StoredBytes == 0 || q.Start > p.TotalLines || !created {
		return p, nil
	}
	src, err := l.store.Open(r.id)
	if err != nil {
		return Page{}, l.readError(r.id, err)
	}
	defer src.Close()
	lines := &lineReader{br: bufio.NewReaderSize(io.NewSectionReader(src, from, p.StoredBytes-from), 64<<10), n: fromLine - 1}
	if q.Match == nil {
		err = page(&p, q, lines)
	} else {
		err = search(&p, q, lines)
	}
	if err != nil {
		return Page{}, l.readError(r.id, err)
	}
	return p, nil
}

// readError words a failed read: a run evicted while it was read says
// so.
func (l *Log) readError(id string, err error) error {
	l.mu.Lock()
	evicted := l.evicted[id]
	l.mu.Unlock()
	if evicted {
		return fmt.Errorf("read the output of run %s: %w", id, ports.ErrRunEvicted)
	}
	return fmt.Errorf("read the output of run %s: %w", id, err)
}

// A lineReader reads stored output a line at a time.
type lineReader struct {
	br   *bufio.Reader
	n    int64  // the number of the line last read
	line []byte // the line last read, at most LineMax bytes of it
	over int64  // bytes of the line past LineMax
}

// next reads the next line; false at the end.
func (lr *lineReader) next() (bool, error) {
	lr.line, lr.over = lr.line[:0], 0
	read := false
	for {
		chunk, err := lr.br.ReadSlice('\n')
		read = read || len(chunk) > 0
		body := chunk
		if len(body) > 0 && body[len(body)-1] == '\n' {
			body = body[:len(body)-1]
		}
		if room := LineMax - len(lr.line); len(body) > room {
			lr.over += int64(len(body) - room)
			body = body[:room]
		}
		lr.line = append(lr.line, body...)
		switch {
		case err == nil:
			lr.n++
			lr.trimCut()
			return true, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if read {
				lr.n++
				lr.trimCut()
			}
			return read, nil
		default:
			return false, err
		}
	}
}

// trimCut drops a character that LineMax cut in two.
func (lr *lineReader) trimCut() {
	if lr.over == 0 {
		return
	}
	n := len(lr.line)
	for n > 0 {
		if r, size := utf8.DecodeLastRune(lr.line[:n]); r != utf8.RuneError || size != 1 {
			break
		}
		n--
	}
	lr.over += int64(len(lr.line) - n)
	lr.line = lr.line[:n]
}

// skipTo reads lines until the next one is line n.
func (lr *lineReader) skipTo(n int64) (bool, error) {
	for lr.n < n-1 {
		if ok, err := lr.next(); !ok || err != nil {
			return false, err
		}
	}
	return true, nil
}

// page fills p with the lines from q.Start on.
func page(p *Page, q Query, lines *lineReader) error {
	if ok, err := lines.skipTo(q.Start); !ok || err != nil {
		return err
	}
	var b strings.Builder
	for p.ReturnedLines < int64(q.MaxLines) {
		ok, err := lines.next()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		sep := 0
		if p.ReturnedLines > 0 {
			sep = 1
		}
		text := lines.line
		if b.Len()+sep+len(text) > q.MaxBytes {
			if p.ReturnedLines > 0 {
				p.NextLine = lines.n
				break
			}
			// A first line longer than the page: as much of it as fits.
			keep := fitRunes(text, q.MaxBytes)
			p.OmittedBytes += int64(len(text) - keep)
			text = text[:keep]
		}
		if sep > 0 {
			b.WriteByte('\n')
		}
		b.Write(text)
		p.OmittedBytes += lines.over
		p.ReturnedLines++
	}
	if p.NextLine == 0 && lines.n < p.TotalLines {
		p.NextLine = lines.n + 1
	}
	p.Text, p.ReturnedBytes = b.String(), int64(b.Len())
	return nil
}

// fitRunes returns how much of b, in whole characters, fits in n bytes.
func fitRunes(b []byte, n int) int {
	if n >= len(b) {
		return len(b)
	}
	for n > 0 && !utf8.RuneStart(b[n]) {
		n--
	}
	return n
}

// A held line is one a search read and may still show as context.
type heldLine struct {
	n    int64
	text string
	over int64
}

// search fills p with the matching lines from q.Start on, and their
// context.
func search(p *Page, q Query, lines *lineReader) error {
	if ok, err := lines.skipTo(q.Start); !ok || err != nil {
		return err
	}
	var (
		b       bytes.Buffer
		before  []heldLine // lines just read and not shown, at most q.Context
		shown   int64      // the last line shown
		after   int        // context lines still to show after a match
		full    bool
		emitted int64
	)
	// emit shows one line, or reports that it does not fit.
	emit := func(h heldLine, mark byte) bool {
		head := strconv.FormatInt(h.n, 10) + string(mark)
		sep := 0
		if b.Len() > 0 {
			sep = 1
		}
		gap := q.Context > 0 && shown > 0 && h.n > shown+1
		extra := sep + len(head)
		if gap {
			extra += len("--") + 1
		}
		text := h.text
		omitted := h.over
		if emitted >= int64(q.MaxLines) || b.Len()+extra+len(text) > q.MaxBytes {
			if emitted > 0 || b.Len()+extra >= q.MaxBytes {
				return false
			}
			keep := fitRunes([]byte(text), q.MaxBytes-b.Len()-extra)
			omitted += int64(len(text) - keep)
			text = text[:keep]
		}
		if sep > 0 {
			b.WriteByte('\n')
		}
		if gap {
			b.WriteString("--\n")
		}
		b.WriteString(head)
		b.WriteString(text)
		p.OmittedBytes += omitted
		shown = h.n
		emitted++
		return true
	}
	for {
		ok, err := lines.next()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		h := heldLine{n: lines.n, over: lines.over}
		matched := q.Match(string(lines.line))
		if matched {
			p.MatchedLines++
		}
		if full {
			if matched && p.NextLine == 0 {
				p.NextLine = h.n
			}
			continue
		}
		h.text = string(lines.line)
		switch {
		case matched:
			// A match and the context before it are shown together or
			// left together for the next page; on a page of none yet,
			// the match alone, as much of it as fits.
			mark, markShown, markEmitted, markOmitted := b.Len(), shown, emitted, p.OmittedBytes
			for _, c := range before {
				if c.n > shown && !emit(c, '-') {
					full = true
					break
				}
			}
			before = before[:0]
			if full || !emit(h, ':') {
				b.Truncate(mark)
				shown, emitted, p.OmittedBytes = markShown, markEmitted, markOmitted
				if markEmitted > 0 || !emit(h, ':') {
					full = true
					p.NextLine = h.n
					continue
				}
				full = false
			}
			after = q.Context
		case after > 0:
			after--
			if !emit(h, '-') {
				full = true
			}
		case q.Context > 0:
			if len(before) == q.Context {
				before = append(before[:0], before[1:]...)
			}
			before = append(before, h)
		}
	}
	p.Text, p.ReturnedBytes, p.ReturnedLines = b.String(), int64(b.Len()), emitted
	return nil
}
