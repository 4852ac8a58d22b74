package runlog_test

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
	"github.com/tmux-mcp/tmux-mcp/domain/runlog"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

func write(t *testing.T, w io.Writer, s string) {
	t.Helper()
	if n, err := w.Write([]byte(s)); n != len(s) || err != nil {
		t.Fatalf("Write = %d, %v; a run's writer takes everything", n, err)
	}
}

func read(t *testing.T, l *runlog.Log, q runlog.Query) runlog.Page {
	t.Helper()
	if q.MaxLines == 0 {
		q.MaxLines = 1000
	}
	if q.MaxBytes == 0 {
		q.MaxBytes = 1 << 20
	}
	p, err := l.Read(q)
	if err != nil {
		t.Fatalf("Read(%+v): %v", q, err)
	}
	return p
}

func numbered(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

// A run's whole output is read back, a page at a time, each page saying
// where the next starts.
func TestPages(t *testing.T) {
	l := runlog.New(fake.NewOutputStore(), runlog.DefaultBudget)
	w := l.Start("run1", "%3")
	write(t, w, numbered(1, 5000))
	w.Account(runlog.Accounting{})
	w.End()

	p := read(t, l, runlog.Query{RunID: "run1", MaxLines: 2})
	if p.Text != "line 1\nline 2" || p.StartLine != 1 || p.ReturnedLines != 2 || p.NextLine != 3 || p.TotalLines != 5000 || p.Pane != "%3" {
		t.Fatalf("first page = %+v", p)
	}
	if !p.Complete() {
		t.Errorf("a whole, ended run is not complete: %+v", p)
	}
	// Deep in the output, past the remembered offsets.
	p = read(t, l, runlog.Query{RunID: "run1", Start: 4097, MaxLines: 3})
	if p.Text != "line 4097\nline 4098\nline 4099" || p.NextLine != 4100 {
		t.Fatalf("page at 4097 = %q next %d", p.Text, p.NextLine)
	}
	p = read(t, l, runlog.Query{RunID: "run1", Start: 4999, MaxLines: 10})
	if p.Text != "line 4999\nline 5000" || p.NextLine != 0 || p.ReturnedLines != 2 {
		t.Fatalf("last page = %+v", p)
	}
	p = read(t, l, runlog.Query{RunID: "run1", Start: 6000})
	if p.Text != "" || p.ReturnedLines != 0 || p.NextLine != 0 || p.TotalLines != 5000 {
		t.Fatalf("a page past the end = %+v", p)
	}
	// Each page's NextLine leads through every line exactly once.
	var all []string
	for next := int64(1); next != 0; {
		p := read(t, l, runlog.Query{RunID: "run1", Start: next, MaxLines: 333})
		all = append(all, p.Text)
		next = p.NextLine
	}
	if got := strings.Join(all, "\n") + "\n"; got != numbered(1, 5000) {
		t.Errorf("paging through gave %d bytes, not the %d written", len(got), len(numbered(1, 5000)))
	}
}

// The byte bound ends a page early, at a whole line; a first line longer
// than the page is cut at a character, the rest counted.
func TestPageBytes(t *testing.T) {
	l := runlog.New(fake.NewOutputStore(), runlog.DefaultBudget)
	w := l.Start("r", "%0")
	write(t, w, "aaaa\nbbbb\nééééé\ncc")
	p := read(t, l, runlog.Query{RunID: "r", MaxBytes: 9})
	if p.Text != "aaaa\nbbbb" || p.NextLine != 3 || p.OmittedBytes != 0 {
		t.Fatalf("page of 9 bytes = %+v", p)
	}
	p = read(t, l, runlog.Query{RunID: "r", Start: 3, MaxBytes: 5})
	if p.Text != "éé" || p.OmittedBytes != 6 || p.NextLine != 4 || p.ReturnedBytes != 4 {
		t.Fatalf("a line longer than the page = %+v", p)
	}
	p = read(t, l, runlog.Query{RunID: "r", Start: 4})
	if p.Text != "cc" || p.TotalLines != 4 || !p.Running || p.Complete() {
		t.Fatalf("a last line without its end, of a run still running = %+v", p)
	}
}

// A search returns the matching lines with their numbers, context around
// them as grep -C shows it, and how many matched in all.
func TestSearch(t *testing.T) {
	l := runlog.New(fake.NewOutputStore(), runlog.DefaultBudget)
	w := l.Start("r", "%0")
	write(t, w, "ok 1\nok 2\nERROR a\nok 4\nok 5\nok 6\nok 7\nERROR b\nERROR c\nok 10\nok 11\n")
	w.Account(runlog.Accounting{})
	w.End()
	match := func(s string) bool { return strings.Contains(s, "ERROR") }
	p := read(t, l, runlog.Query{RunID: "r", Match: match})
	if p.Text != "3:ERROR a\n8:ERROR b\n9:ERROR c" || p.MatchedLines != 3 || p.ReturnedLines != 3 || p.NextLine != 0 {
		t.Fatalf("search = %+v", p)
	}
	p = read(t, l, runlog.Query{RunID: "r", Match: match, Context: 1})
	want := "2-ok 2\n3:ERROR a\n4-ok 4\n--\n7-ok 7\n8:ERROR b\n9:ERROR c\n10-ok 10"
	if p.Text != want || p.ReturnedLines != 7 {
		t.Fatalf("search with context 1 = %q, want %q", p.Text, want)
	}
	// Groups that touch are not parted.
	p = read(t, l, runlog.Query{RunID: "r", Match: match, Context: 2})
	want = "1-ok 1\n2-ok 2\n3:ERROR a\n4-ok 4\n5-ok 5\n6-ok 6\n7-ok 7\n8:ERROR b\n9:ERROR c\n10-ok 10\n11-ok 11"
	if p.Text != want {
		t.Fatalf("search with context 2 = %q, want %q", p.Text, want)
	}
	// Bounded: the next page starts at the first match not shown, and
	// the count covers them all.
	p = read(t, l, runlog.Query{RunID: "r", Match: match, MaxLines: 2})
	if p.Text != "3:ERROR a\n8:ERROR b" || p.NextLine != 9 || p.MatchedLines != 3 {
		t.Fatalf("search of 2 lines = %+v", p)
	}
	p = read(t, l, runlog.Query{RunID: "r", Match: match, Start: p.NextLine})
	if p.Text != "9:ERROR c" || p.MatchedLines != 1 || p.StartLine != 9 {
		t.Fatalf("the search's next page = %+v", p)
	}
	p = read(t, l, runlog.Query{RunID: "r", Match: func(string) bool { return false }})
	if p.Text != "" || p.MatchedLines != 0 || p.NextLine != 0 {
		t.Fatalf("a search that matches nothing = %+v", p)
	}
	// A context group that does not fit is left for the next page.
	p = read(t, l, runlog.Query{RunID: "r", Match: match, Context: 1, MaxLines: 4})
	if p.Text != "2-ok 2\n3:ERROR a\n4-ok 4" || p.NextLine != 8 {
		t.Fatalf("a bounded search with context = %+v", p)
	}
}

// An unknown id is not found; an evicted one says it was evicted.
func TestUnknownAndEvicted(t *testing.T) {
	store := fake.NewOutputStore()
	l := runlog.New(store, 100)
	if _, err := l.Read(runlog.Query{RunID: "nope"}); !errors.Is(err, ports.ErrRunNotFound) {
		t.Errorf("an unknown run: %v, want ErrRunNotFound", err)
	}
	old := l.Start("old", "%0")
	write(t, old, strings.Repeat("o", 59)+"\n")
	old.Account(runlog.Accounting{})
	old.End()
	young := l.Start("young", "%0")
	young.Account(runlog.Accounting{})
	write(t, young, strings.Repeat("y", 59)+"\n")
	if _, err := l.Read(runlog.Query{RunID: "old"}); !errors.Is(err, ports.ErrRunEvicted) {
		t.Errorf("the run evicted for a younger one: %v, want ErrRunEvicted", err)
	}
	if store.Size() != 60 || store.Len() != 1 {
		t.Errorf("the store holds %d bytes in %d outputs; want the young run's 60 alone", store.Size(), store.Len())
	}
	p := read(t, l, runlog.Query{RunID: "young"})
	if p.Text != strings.Repeat("y", 59) || p.CutBytes != 0 || !p.Running {
		t.Errorf("the young run = %+v", p)
	}
}

// The oldest runs go first, and only as many as the budget needs.
func TestEvictionOrder(t *testing.T) {
	store := fake.NewOutputStore()
	l := runlog.New(store, 100)
	for _, id := range []string{"a", "b", "c", "d"} {
		w := l.Start(id, "%0")
		w.Account(runlog.Accounting{})
		write(t, w, strings.Repeat(id, 29)+"\n") // 30 bytes each
		w.End()
	}
	// 120 bytes were written into 100: a went for d.
	for id, want := range map[string]error{"a": ports.ErrRunEvicted, "b": nil, "c": nil, "d": nil} {
		if _, err := l.Read(runlog.Query{RunID: id, MaxLines: 1, MaxBytes: 100}); !errors.Is(err, want) {
			t.Errorf("run %s: %v, want %v", id, err, want)
		}
	}
	e := l.Start("e", "%0")
	e.Account(runlog.Accounting{})
	write(t, e, strings.Repeat("e", 69)+"\n") // 70: b and c go
	for id, want := range map[string]error{"b": ports.ErrRunEvicted, "c": ports.ErrRunEvicted, "d": nil, "e": nil} {
		if _, err := l.Read(runlog.Query{RunID: id, MaxLines: 1, MaxBytes: 100}); !errors.Is(err, want) {
			t.Errorf("after e, run %s: %v, want %v", id, err, want)
		}
	}
	if store.Size() > 100 {
		t.Errorf("the store holds %d bytes, over the budget of 100", store.Size())
	}
}

// A run that alone outgrows the budget keeps its beginning, up to a line
// end, and says how much it did not keep, and why.
func TestBudgetCut(t *testing.T) {
	store := fake.NewOutputStore()
	l := runlog.New(store, 25)
	w := l.Start("flood", "%0")
	w.Account(runlog.Accounting{})
	write(t, w, "first error\nsecond line\nthird line\n") // 12 + 12 + 11
	write(t, w, "more\n")
	w.End()
	p := read(t, l, runlog.Query{RunID: "flood"})
	if p.Text != "first error\nsecond line" || p.StoredBytes != 24 || p.CutBytes != 16 || p.TotalLines != 2 {
		t.Fatalf("a run over the budget = %+v", p)
	}
	if p.Complete() || !strings.Contains(p.CutReason, "budget (25 B for all runs)") {
		t.Errorf("a cut run is complete, or its reason does not say why: %+v", p)
	}
	// A line longer than what is left is cut at a character.
	l = runlog.New(fake.NewOutputStore(), 5)
	w = l.Start("long", "%0")
	w.Account(runlog.Accounting{})
	write(t, w, "ééé") // 6 bytes
	p = read(t, l, runlog.Query{RunID: "long"})
	if p.Text != "éé" || p.CutBytes != 2 {
		t.Fatalf("a long line over the budget = %+v", p)
	}
}

// Evicting a run that is still written stops it keeping anything; the
// store never holds more than the budget.
func TestEvictedWhileRunning(t *testing.T) {
	store := fake.NewOutputStore()
	l := runlog.New(store, 50)
	a := l.Start("a", "%0")
	a.Account(runlog.Accounting{})
	write(t, a, strings.Repeat("a", 39)+"\n")
	b := l.Start("b", "%1")
	b.Account(runlog.Accounting{})
	write(t, b, strings.Repeat("b", 39)+"\n")
	write(t, a, "more of a\n")
	if _, err := l.Read(runlog.Query{RunID: "a"}); !errors.Is(err, ports.ErrRunEvicted) {
		t.Errorf("the running run evicted: %v", err)
	}
	if store.Size() != 40 {
		t.Errorf("the store holds %d bytes; want b's 40", store.Size())
	}
}

// Without a store, or with a budget of 0, nothing is kept and every
// byte is counted as cut.
func TestKeepingNothing(t *testing.T) {
	for name, l := range map[string]*runlog.Log{"no store": runlog.New(nil, runlog.DefaultBudget), "budget 0": runlog.New(fake.NewOutputStore(), 0)} {
		w := l.Start("r", "%0")
		w.Account(runlog.Accounting{})
		write(t, w, "hello\n")
		w.End()
		p := read(t, l, runlog.Query{RunID: "r"})
		if p.Text != "" || p.CutBytes != 6 || p.CutReason == "" || p.Complete() {
			t.Errorf("%s: %+v", name, p)
		}
		if w.Newest() != "hello" {
			t.Errorf("%s: the newest line is %q, want it known all the same", name, w.Newest())
		}
	}
}

// A run whose id no result gave is forgotten when it ends.
func TestUnhandedRunIsForgotten(t *testing.T) {
	store := fake.NewOutputStore()
	l := runlog.New(store, runlog.DefaultBudget)
	w := l.Start("never", "%0")
	write(t, w, "x\n")
	w.End()
	if _, err := l.Read(runlog.Query{RunID: "never"}); !errors.Is(err, ports.ErrRunNotFound) {
		t.Errorf("a run no result named: %v, want ErrRunNotFound", err)
	}
	if store.Len() != 0 {
		t.Errorf("its output stayed in the store")
	}
}

// A run that was never ended is still running; its accounting is the
// last its result gave.
func TestRunningAndAccounting(t *testing.T) {
	l := runlog.New(fake.NewOutputStore(), runlog.DefaultBudget)
	w := l.Start("r", "%0")
	write(t, w, "partial")
	w.Account(runlog.Accounting{Missed: 3})
	p := read(t, l, runlog.Query{RunID: "r"})
	if !p.Running || p.Missed != 3 || p.Complete() || p.Text != "partial" {
		t.Fatalf("a running run = %+v", p)
	}
	write(t, w, " line\n")
	w.Account(runlog.Accounting{})
	w.End()
	write(t, w, "after the end\n")
	p = read(t, l, runlog.Query{RunID: "r"})
	if p.Running || !p.Complete() || p.Text != "partial line" {
		t.Fatalf("the ended run = %+v", p)
	}
}

// At most MaxRuns runs are kept; older ones are evicted by count.
func TestMaxRuns(t *testing.T) {
	l := runlog.New(fake.NewOutputStore(), runlog.DefaultBudget)
	for i := range runlog.MaxRuns + 1 {
		w := l.Start(fmt.Sprintf("r%d", i), "%0")
		w.Account(runlog.Accounting{})
		w.End()
	}
	if _, err := l.Read(runlog.Query{RunID: "r0"}); !errors.Is(err, ports.ErrRunEvicted) {
		t.Errorf("the oldest of MaxRuns+1 runs: %v, want ErrRunEvicted", err)
	}
	if _, err := l.Read(runlog.Query{RunID: "r1"}); err != nil {
		t.Errorf("the second oldest: %v", err)
	}
}

// The newest line is the last one that is not blank, cut to NewestMax
// characters, whole ones.
func TestNewest(t *testing.T) {
	l := runlog.New(nil, 0)
	w := l.Start("r", "%0")
	if w.Newest() != "" {
		t.Errorf("before any output: %q", w.Newest())
	}
	write(t, w, "one\ntwo\n\n   \n")
	if w.Newest() != "two" {
		t.Errorf("newest = %q, want two", w.Newest())
	}
	write(t, w, "thr")
	write(t, w, "ee\n")
	if w.Newest() != "three" {
		t.Errorf("a line written in two parts: %q", w.Newest())
	}
	write(t, w, "Password: ")
	if w.Newest() != "Password:" {
		t.Errorf("a line without its end yet: %q", w.Newest())
	}
	write(t, w, "\n"+strings.Repeat("界", 300)+"\n")
	got := w.Newest()
	if n := len([]rune(got)); n != runlog.NewestMax || !strings.HasSuffix(got, "…") || !strings.HasPrefix(got, "界界") {
		t.Errorf("a long line is %d characters: %q", n, got)
	}
}

func TestShorten(t *testing.T) {
	for in, want := range map[string]string{"abc": "abc", "abcdef": "abcd…", "ab   ": "ab", "abc  def": "abc…", "éééééé": "éééé…"} {
		if got := runlog.Shorten(in, 5); got != want {
			t.Errorf("Shorten(%q, 5) = %q, want %q", in, got, want)
		}
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{900: "900 B", 256 << 20: "256 MiB", 1536 << 20: "1.5 GiB", 1 << 10: "1 KiB"} {
		if got := runlog.Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}

// A line longer than LineMax is read as its first LineMax bytes, the rest
// counted as omitted, and searched in that part.
func TestLongLines(t *testing.T) {
	l := runlog.New(fake.NewOutputStore(), runlog.DefaultBudget)
	w := l.Start("r", "%0")
	write(t, w, strings.Repeat("x", runlog.LineMax+10)+"\nshort\n")
	p := read(t, l, runlog.Query{RunID: "r", MaxBytes: 2 << 20})
	if p.ReturnedLines != 2 || p.OmittedBytes != 10 || !strings.HasSuffix(p.Text, "x\nshort") {
		t.Fatalf("a line past LineMax: lines %d omitted %d", p.ReturnedLines, p.OmittedBytes)
	}
}

// On a page too small for a match and its context, the match comes
// alone, cut to fit.
func TestSearchSmallPage(t *testing.T) {
	l := runlog.New(fake.NewOutputStore(), runlog.DefaultBudget)
	w := l.Start("r", "%0")
	write(t, w, "before\nERROR here\n")
	p := read(t, l, runlog.Query{RunID: "r", Match: func(s string) bool { return strings.HasPrefix(s, "ERROR") }, Context: 1, MaxBytes: 8})
	if p.Text != "2:ERROR " || p.OmittedBytes != 4 || p.ReturnedLines != 1 || p.NextLine != 0 {
		t.Fatalf("a match on a small page = %+v", p)
	}
}

// failingStore fails what it is told to.
type failingStore struct {
	*fake.OutputStore
	create, write, open error
}

func (s *failingStore) Create(id string) (io.WriteCloser, error) {
	if s.create != nil {
		return nil, s.create
	}
	w, err := s.OutputStore.Create(id)
	return failingWriter{w, s}, err
}

func (s *failingStore) Open(id string) (ports.OutputReader, error) {
	if s.open != nil {
		return nil, s.open
	}
	return s.OutputStore.Open(id)
}

type failingWriter struct {
	io.WriteCloser
	s *failingStore
}

func (w failingWriter) Write(p []byte) (int, error) {
	if w.s.write != nil {
		return 0, w.s.write
	}
	return w.WriteCloser.Write(p)
}

// A store that cannot keep a run's output has its run say why, and keep
// nothing after the failure; the run's writer never fails the command's.
func TestStoreFailures(t *testing.T) {
	s := &failingStore{OutputStore: fake.NewOutputStore(), create: errors.New("disk full")}
	l := runlog.New(s, runlog.DefaultBudget)
	w := l.Start("r1", "%0")
	w.Account(runlog.Accounting{})
	write(t, w, "lost\n")
	p := read(t, l, runlog.Query{RunID: "r1"})
	if p.CutBytes != 5 || !strings.Contains(p.CutReason, "disk full") || p.StoredBytes != 0 {
		t.Errorf("a run whose output could not be created = %+v", p)
	}

	s.create = nil
	w = l.Start("r2", "%0")
	w.Account(runlog.Accounting{})
	write(t, w, "kept\n")
	s.write = errors.New("i/o error")
	write(t, w, "lost\n")
	s.write = nil
	write(t, w, "after\n")
	p = read(t, l, runlog.Query{RunID: "r2"})
	if p.Text != "kept" || p.CutBytes != 11 || !strings.Contains(p.CutReason, "i/o error") {
		t.Errorf("a run whose write failed = %+v", p)
	}

	s.open = fmt.Errorf("open: %w", ports.ErrRunNotFound)
	if _, err := l.Read(runlog.Query{RunID: "r2", MaxLines: 1, MaxBytes: 10}); !errors.Is(err, ports.ErrRunNotFound) {
		t.Errorf("a store that cannot open the run: %v", err)
	}
}

// The evicted ids remembered are bounded too: the oldest become unknown.
func TestEvictedIDsAreBounded(t *testing.T) {
	lg := runlog.New(fake.NewOutputStore(), 1)
	for i := range 2*runlog.MaxRuns + 1 {
		w := lg.Start(fmt.Sprintf("r%d", i), "%0")
		w.Account(runlog.Accounting{})
		w.End()
	}
	if _, err := lg.Read(runlog.Query{RunID: "r0"}); !errors.Is(err, ports.ErrRunNotFound) {
		t.Errorf("the oldest of more evicted runs than are remembered: %v, want ErrRunNotFound", err)
	}
	if _, err := lg.Read(runlog.Query{RunID: fmt.Sprintf("r%d", runlog.MaxRuns)}); !errors.Is(err, ports.ErrRunEvicted) {
		t.Errorf("a recently evicted run: %v, want ErrRunEvicted", err)
	}
	if got := runlog.New(nil, -5).Budget(); got != 0 {
		t.Errorf("a negative budget is %d, want 0", got)
	}
}
