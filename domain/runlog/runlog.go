// Package runlog keeps the whole output of each command the server runs,
// by run id, within a budget, and reads it back a page at a time or
// searched: what read_output serves. The bytes go to a ports.OutputStore;
// what is kept, and what is let go, is decided here, the same for every
// store.
//
// The rules:
//
//   - A run's output is its normalized text (termtext.Normalizer), as a
//     result's output is, but whole: lines a result withholds by maxLines
//     or the byte ceiling are all kept.
//   - Every run counts against one budget, shared by all runs of the
//     process. Before a write would pass it, the oldest runs (by start)
//     are evicted, whole, until it fits; a run that is evicted while it is
//     still being written keeps nothing more. Once only the run being
//     written is left and it does not fit, it is cut: it keeps the first
//     part of its output (up to the last line end that fits) and counts
//     the rest, so that a flood's beginning, where a build's first error
//     is, survives.
//   - At most MaxRuns runs are kept, and the ids of the last
//     MaxRuns evicted ones are remembered, so that reading one says it
//     was evicted rather than that it never existed.
//   - A run whose id no result gave (its command never started) is
//     forgotten as it ends.
//
// A Log is safe for concurrent use: a run is read while it is written.
package runlog

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// Bounds.
const (
	// DefaultBudget is the bytes of output kept for all runs together
	// when the server is given no budget: 256 MiB.
	DefaultBudget = 256 << 20
	// MaxRuns bounds the runs kept, and the evicted ones remembered.
	MaxRuns = 4096
	// LineMax is how much of one line is read back, searched or
	// returned; the rest of a longer line is counted as omitted.
	LineMax = 1 << 20
	// NewestMax is how many characters of the newest line Newest gives.
	NewestMax = 200
)

// markEvery is how many lines apart the offsets a run remembers are, so
// that a page deep in a long output is read without reading all before
// it.
const markEvery = 1024

// A Log is the output of the runs of one process.
type Log struct {
	store  ports.OutputStore // nil: nothing is kept
	budget int64

	mu      sync.Mutex
	runs    map[string]*run
	order   []*run // kept runs, oldest first
	used    int64  // bytes the kept runs hold
	evicted map[string]bool
	gone    []string // evicted ids, oldest first
}

// New returns the Log of runs whose output goes to store, budget bytes
// of it in all. A nil store, or a budget of 0 or less, keeps nothing:
// each run's output is counted as cut.
func New(store ports.OutputStore, budget int64) *Log {
	if budget < 0 {
		budget = 0
	}
	return &Log{store: store, budget: budget, runs: map[string]*run{}, evicted: map[string]bool{}}
}

// Budget returns the bytes the Log keeps at most.
func (l *Log) Budget() int64 { return l.budget }

// Accounting is what a run's result says of its output beyond the text:
// what the server could not read, or could not tell was the command's
// (see domain.RunResult). Read returns it as the run's result last gave
// it.
type Accounting struct {
	Missed, Replaced, Unterminated, Unattributed int64
	Abandoned, Unverified, Foreign               bool
}

// Lossless reports whether the accounting says that nothing of the
// command's output was lost or may be another's.
func (a Accounting) Lossless() bool {
	return a.Missed == 0 && a.Replaced == 0 && a.Unterminated == 0 && a.Unattributed == 0 && !a.Abandoned && !a.Unverified
}

type run struct {
	id   string
	pane ports.PaneID

	w      io.WriteCloser // nil once nothing more is stored
	size   int64          // bytes stored
	cut    int64          // bytes not stored
	cutWhy string         // why they were not, once some were not
	lines  int64          // line ends stored
	open   bool           // what is stored ends inside a line
	marks  []int64        // marks[k]: the offset of line k*markEvery (0-based)

	created bool // the store holds a file of it
	running bool
	evicted bool
	handed  bool // a result gave its id
	acct    Accounting

	newest  string
	pending []byte // the start of the line being written, bounded
}

// A Writer takes one run's output; it is the Log's, so that its writes
// never fail: what cannot be kept is counted.
type Writer struct {
	l *Log
	r *run
}

// Start begins the output of run id in pane. The id must be fresh and of
// the port's form (ports.ValidRunID).
func (l *Log) Start(id string, pane ports.PaneID) *Writer {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := &run{id: id, pane: pane, running: true, marks: []int64{0}}
	switch {
	case l.store == nil:
		r.cutWhy = "this server keeps no output"
	case l.budget == 0:
		r.cutWhy = "this server's output budget is 0"
	default:
		w, err := l.store.Create(id)
		if err != nil {
			r.cutWhy = "the server could not keep it: " + err.Error()
		}
		r.w, r.created = w, err == nil
	}
	for len(l.order) >= MaxRuns {
		l.evictLocked(l.order[0])
	}
	l.runs[id] = r
	l.order = append(l.order, r)
	return &Writer{l: l, r: r}
}

// ID returns the run's id.
func (w *Writer) ID() string { return w.r.id }

// Write takes p, the next of the run's output; it never fails.
func (w *Writer) Write(p []byte) (int, error) {
	l, r := w.l, w.r
	l.mu.Lock()
	defer l.mu.Unlock()
	if !r.running || r.evicted {
		return len(p), nil
	}
	r.track(p)
	if r.w == nil {
		r.cut += int64(len(p))
		return len(p), nil
	}
	need := int64(len(p))
	for l.used+need > l.budget && len(l.order) > 0 && l.order[0] != r {
		l.evictLocked(l.order[0])
	}
	keep := p
	if room := l.budget - l.used; need > room {
		keep = p[:cutPoint(p, int(room))]
		r.cutWhy = fmt.Sprintf("the output budget (%s for all runs) was full", Size(l.budget))
	}
	if len(keep) > 0 {
		if _, err := r.w.Write(keep); err != nil {
			// What a failed write left in the store is not known: keep
			// none of it, and nothing after.
			r.cutWhy = "the server could not keep it: " + err.Error()
			keep = nil
		} else {
			r.stored(keep)
			l.used += int64(len(keep))
		}
	}
	if len(keep) < len(p) {
		r.cut += int64(len(p) - len(keep))
		r.w.Close()
		r.w = nil
	}
	return len(p), nil
}

// stored notes the lines of b, just stored.
func (r *run) stored(b []byte) {
	for off := 0; ; {
		i := bytes.IndexByte(b[off:], '\n')
		if i < 0 {
			break
		}
		off += i + 1
		r.lines++
		if r.lines%markEvery == 0 {
			r.marks = append(r.marks, r.size+int64(off))
		}
	}
	r.size += int64(len(b))
	r.open = b[len(b)-1] != '\n'
}

// cutPoint returns how much of p to keep in room bytes: up to its last
// line end that fits, else as many whole characters as fit.
func cutPoint(p []byte, room int) int {
	if room <= 0 {
		return 0
	}
	if i := bytes.LastIndexByte(p[:room], '\n'); i >= 0 {
		return i + 1
	}
	n := room
	for n > 0 && !utf8.RuneStart(p[n]) {
		n--
	}
	return n
}

// track notes the newest line of output that is not blank.
func (r *run) track(p []byte) {
	last := bytes.LastIndexByte(p, '\n')
	if last < 0 {
		r.pending = appendBounded(r.pending, p)
		return
	}
	for end := last; ; {
		start := bytes.LastIndexByte(p[:end], '\n') + 1
		line := p[start:end]
		if start == 0 {
			line = appendBounded(r.pending, line)
		}
		if !blank(line) {
			r.newest = Shorten(string(line), NewestMax)
			break
		}
		if start == 0 {
			break
		}
		end = start - 1
	}
	r.pending = appendBounded(r.pending[:0], p[last+1:])
}

// appendBounded appends to b what of p fits in enough bytes for
// NewestMax characters and one more: the one more is what tells Shorten
// that a line of NewestMax characters of four bytes goes on, and is cut.
func appendBounded(b, p []byte) []byte {
	const limit = (NewestMax + 1) * utf8.UTFMax
	if room := limit - len(b); room < len(p) {
		p = p[:max(room, 0)]
	}
	return append(b, p...)
}

func blank(b []byte) bool { return len(bytes.TrimSpace(b)) == 0 }

// Shorten returns s cut to at most n characters, the last one then "…",
// with white space at its end taken off. A character cut in two by a
// bound upstream is dropped.
func Shorten(s string, n int) string {
	s = strings.ToValidUTF8(strings.TrimRightFunc(s, unicode.IsSpace), "")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i, count := 0, 0
	for j := range s {
		if count == n-1 {
			i = j
			break
		}
		count++
	}
	return strings.TrimRightFunc(s[:i], unicode.IsSpace) + "…"
}

// Newest returns the run's newest line of output that is not blank, cut
// to NewestMax characters; "" before there is one.
func (w *Writer) Newest() string {
	w.l.mu.Lock()
	defer w.l.mu.Unlock()
	if !blank(w.r.pending) {
		return Shorten(string(w.r.pending), NewestMax)
	}
	return w.r.newest
}

// Account records what the run's result says of its output, and that a
// result gave its id.
func (w *Writer) Account(a Accounting) {
	w.l.mu.Lock()
	defer w.l.mu.Unlock()
	w.r.acct, w.r.handed = a, true
}

// End says that the run's output is over: nothing more will be written.
// A run no result gave the id of is forgotten. Calling it again is
// harmless.
func (w *Writer) End() {
	l, r := w.l, w.r
	l.mu.Lock()
	defer l.mu.Unlock()
	if !r.running {
		return
	}
	r.running = false
	if r.w != nil {
		r.w.Close()
		r.w = nil
	}
	if !r.handed && !r.evicted {
		l.dropLocked(r)
		delete(l.runs, r.id)
	}
}

// evictLocked lets r go to make room, remembering that it was.
func (l *Log) evictLocked(r *run) {
	l.dropLocked(r)
	r.evicted = true
	delete(l.runs, r.id)
	l.evicted[r.id] = true
	l.gone = append(l.gone, r.id)
	for len(l.gone) > MaxRuns {
		delete(l.evicted, l.gone[0])
		l.gone = l.gone[1:]
	}
}

// dropLocked removes r's output from the store and from the kept runs.
func (l *Log) dropLocked(r *run) {
	if r.w != nil {
		r.w.Close()
		r.w = nil
	}
	if r.created {
		_ = l.store.Remove(r.id)
		r.created = false
	}
	l.used -= r.size
	for i, o := range l.order {
		if o == r {
			l.order = append(l.order[:i], l.order[i+1:]...)
			break
		}
	}
}

// Size says a number of bytes for a person: "256 MiB", "1.5 GiB", "900 B".
func Size(n int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	f, u := float64(n), 0
	for f >= 1024 && u < len(units)-1 {
		f /= 1024
		u++
	}
	if u == 0 || f == float64(int64(f)) {
		return fmt.Sprintf("%d %s", int64(f), units[u])
	}
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.1f", f), "0"), ".") + " " + units[u]
}
