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

// Specs of the edges of the Log's rules: each states one rule at the value
// where it turns.

// A page starts at the line asked for, whichever side of a remembered
// offset (every 1024 lines) it is.
func TestPageStartsAtEveryLine(t *testing.T) {
	l := runlog.New(fake.NewOutputStore(), runlog.DefaultBudget)
	w := l.Start("r", "%0")
	write(t, w, numbered(1, 3000))
	for _, start := range []int64{1, 2, 1023, 1024, 1025, 1026, 2047, 2048, 2049, 3000} {
		p := read(t, l, runlog.Query{RunID: "r", Start: start, MaxLines: 1})
		if want := fmt.Sprintf("line %d", start); p.Text != want || p.StartLine != start {
			t.Errorf("the page at line %d = %q (start %d), want %q", start, p.Text, p.StartLine, want)
		}
	}
}

// halfWriter is a store's writer whose write fails after storing part of
// what it was given, as a disk that fills up mid-write does.
type halfWriter struct{ io.WriteCloser }

func (w halfWriter) Write(p []byte) (int, error) {
	n, _ := w.WriteCloser.Write(p[:len(p)/2])
	return n, errors.New("no space left on device")
}

type halfStore struct {
	*fake.OutputStore
	fail bool
}

func (s *halfStore) Create(id string) (io.WriteCloser, error) {
	w, err := s.OutputStore.Create(id)
	return &switchWriter{w, s}, err
}

type switchWriter struct {
	io.WriteCloser
	s *halfStore
}

func (w *switchWriter) Write(p []byte) (int, error) {
	if w.s.fail {
		return halfWriter{w.WriteCloser}.Write(p)
	}
	return w.WriteCloser.Write(p)
}

// What a failed write left in the store is not the run's: no page shows
// it, even one read from a remembered offset deep in the output.
func TestFailedWriteLeavesNothingVisible(t *testing.T) {
	s := &halfStore{OutputStore: fake.NewOutputStore()}
	l := runlog.New(s, runlog.DefaultBudget)
	w := l.Start("r", "%0")
	w.Account(runlog.Accounting{})
	write(t, w, numbered(1, 1100))
	s.fail = true
	write(t, w, "half of this\nreaches the store\n")
	for _, start := range []int64{1, 1025, 1100} {
		p := read(t, l, runlog.Query{RunID: "r", Start: start, MaxLines: 5000})
		if want := strings.TrimSuffix(numbered(int(start), 1100), "\n"); p.Text != want {
			t.Errorf("from line %d: %d bytes ending %q, want the %d stored before the failure", start, len(p.Text), p.Text[max(len(p.Text)-20, 0):], len(want))
		}
		if p.TotalLines != 1100 || p.CutBytes != 31 {
			t.Errorf("from line %d: total %d cut %d, want 1100 and 31", start, p.TotalLines, p.CutBytes)
		}
	}
}

// LineMax never cuts a character in two: the character it would is
// dropped and counted as omitted.
func TestLongLineCutAtACharacter(t *testing.T) {
	l := runlog.New(fake.NewOutputStore(), runlog.DefaultBudget)
	w := l.Start("r", "%0")
	line := "x" + strings.Repeat("é", runlog.LineMax/2+5) // LineMax falls inside an é
	write(t, w, line+"\n")
	p := read(t, l, runlog.Query{RunID: "r", MaxBytes: 2 << 20})
	if want := runlog.LineMax - 1; len(p.Text) != want || p.OmittedBytes != int64(len(line)-want) {
		t.Fatalf("a long line cut inside a character: %d bytes, %d omitted; want %d and %d", len(p.Text), p.OmittedBytes, want, len(line)-want)
	}
	if !strings.HasSuffix(p.Text, "é") {
		t.Errorf("the cut line ends with %q, not a whole character", p.Text[len(p.Text)-3:])
	}
}

// Output that is not UTF-8 is kept, cut and read back without failing:
// a cut that finds no character start keeps nothing of the line.
func TestBytesThatAreNotCharacters(t *testing.T) {
	l := runlog.New(fake.NewOutputStore(), runlog.DefaultBudget)
	w := l.Start("r", "%0")
	write(t, w, "\x80\x80\x80\x80\n")
	p := read(t, l, runlog.Query{RunID: "r", MaxBytes: 1})
	if p.Text != "" || p.OmittedBytes != 4 || p.ReturnedLines != 1 {
		t.Errorf("a page of 1 byte of a line of continuation bytes = %+v", p)
	}
	l = runlog.New(fake.NewOutputStore(), 2)
	w = l.Start("r", "%0")
	write(t, w, "\x80\x80\x80")
	p = read(t, l, runlog.Query{RunID: "r"})
	if p.StoredBytes != 0 || p.CutBytes != 3 {
		t.Errorf("continuation bytes over a budget of 2 = %+v", p)
	}
}

// A search's page is never longer than MaxBytes, and a page that has room
// for exactly the whole result holds it all, "--" separators included.
func TestSearchPageBytes(t *testing.T) {
	l := runlog.New(fake.NewOutputStore(), runlog.DefaultBudget)
	w := l.Start("r", "%0")
	write(t, w, "ok 1\nok 2\nERROR a\nok 4\nok 5\nok 6\nok 7\nERROR b\nok 9\n")
	match := func(s string) bool { return strings.Contains(s, "ERROR") }
	for ctx := range 3 {
		whole := read(t, l, runlog.Query{RunID: "r", Match: match, Context: ctx})
		exact := read(t, l, runlog.Query{RunID: "r", Match: match, Context: ctx, MaxBytes: len(whole.Text)})
		if exact.Text != whole.Text || exact.NextLine != 0 {
			t.Errorf("context %d: a page of exactly %d bytes = %q next %d, want %q", ctx, len(whole.Text), exact.Text, exact.NextLine, whole.Text)
		}
		for n := 1; n <= len(whole.Text); n++ {
			p := read(t, l, runlog.Query{RunID: "r", Match: match, Context: ctx, MaxBytes: n})
			if len(p.Text) > n || p.ReturnedBytes != int64(len(p.Text)) {
				t.Errorf("context %d, MaxBytes %d: %d bytes (%q)", ctx, n, len(p.Text), p.Text)
			}
		}
	}
}

// A search page with no room even for a match's number shows nothing and
// leaves the match for the next page.
func TestSearchPageTooSmallForTheNumber(t *testing.T) {
	l := runlog.New(fake.NewOutputStore(), runlog.DefaultBudget)
	w := l.Start("r", "%0")
	write(t, w, "ok\nERROR\n")
	for _, n := range []int{1, 2} {
		p := read(t, l, runlog.Query{RunID: "r", Match: func(s string) bool { return s == "ERROR" }, MaxBytes: n})
		if p.Text != "" || p.NextLine != 2 || p.ReturnedLines != 0 || p.MatchedLines != 1 {
			t.Errorf("a search page of %d bytes = %+v", n, p)
		}
	}
}

// The budget is of all runs together: a run that is cut keeps only what
// is left by the bytes already kept, and the store never holds more.
func TestCutCountsWhatIsKept(t *testing.T) {
	store := fake.NewOutputStore()
	l := runlog.New(store, 25)
	w := l.Start("r", "%0")
	w.Account(runlog.Accounting{})
	write(t, w, "0123456789\n")             // 11
	write(t, w, "abcdefghij\nklmnopqrst\n") // 22: 14 are left, one line fits
	p := read(t, l, runlog.Query{RunID: "r"})
	if p.Text != "0123456789\nabcdefghij" || p.StoredBytes != 22 || p.CutBytes != 11 || store.Size() > 25 {
		t.Errorf("a run cut after a first write = %+v, the store holds %d", p, store.Size())
	}
}

// Output that fills the budget exactly is kept whole; once it is full, a
// write keeps nothing, and an empty write changes nothing.
func TestBudgetFilledExactly(t *testing.T) {
	l := runlog.New(fake.NewOutputStore(), 10)
	w := l.Start("r", "%0")
	w.Account(runlog.Accounting{})
	write(t, w, "")
	write(t, w, "12345\n6789")
	p := read(t, l, runlog.Query{RunID: "r"})
	if p.Text != "12345\n6789" || p.CutBytes != 0 || p.CutReason != "" {
		t.Fatalf("output of exactly the budget = %+v", p)
	}
	write(t, w, "")
	write(t, w, "0\n")
	p = read(t, l, runlog.Query{RunID: "r"})
	if p.Text != "12345\n6789" || p.CutBytes != 2 || p.CutReason == "" {
		t.Errorf("a write into a full budget = %+v", p)
	}
}

// A cut keeps up to the last line end that fits, even one that is the
// first byte of the write.
func TestCutAtALineEndFirst(t *testing.T) {
	l := runlog.New(fake.NewOutputStore(), 5)
	w := l.Start("r", "%0")
	write(t, w, "abc")
	write(t, w, "\nxyzw\n") // 2 bytes are left: "\n" fits, "x" would not end a line
	p := read(t, l, runlog.Query{RunID: "r"})
	if p.Text != "abc" || p.StoredBytes != 4 || p.CutBytes != 5 || p.TotalLines != 1 {
		t.Errorf("a cut after a line end at the write's start = %+v", p)
	}
}

// Empty lines are lines: counted, numbered and read back.
func TestEmptyLines(t *testing.T) {
	l := runlog.New(fake.NewOutputStore(), runlog.DefaultBudget)
	w := l.Start("r", "%0")
	write(t, w, "a\n\n\nb\n")
	p := read(t, l, runlog.Query{RunID: "r"})
	if p.Text != "a\n\n\nb" || p.TotalLines != 4 || p.ReturnedLines != 4 {
		t.Errorf("output with empty lines = %+v", p)
	}
	if p = read(t, l, runlog.Query{RunID: "r", Start: 4}); p.Text != "b" {
		t.Errorf("line 4 = %q, want b", p.Text)
	}
}

// A line end written alone ends the line before it: what comes after is
// a new line.
func TestNewestAfterALoneLineEnd(t *testing.T) {
	l := runlog.New(nil, 0)
	w := l.Start("r", "%0")
	write(t, w, "abc")
	write(t, w, "\n")
	if got := w.Newest(); got != "abc" {
		t.Errorf("newest after a lone line end = %q, want abc", got)
	}
	write(t, w, "def")
	if got := w.Newest(); got != "def" {
		t.Errorf("newest of the line after it = %q, want def", got)
	}
}

// A line not yet ended that is longer than NewestMax characters is
// shown as its first ones and "…", whatever its characters' size.
func TestNewestOfALongUnendedLine(t *testing.T) {
	for _, c := range []string{"a", "é", "界", "😀"} {
		l := runlog.New(nil, 0)
		w := l.Start("r", "%0")
		write(t, w, strings.Repeat(c, 150))
		write(t, w, strings.Repeat(c, 150))
		got := w.Newest()
		if want := strings.Repeat(c, runlog.NewestMax-1) + "…"; got != want {
			t.Errorf("a line of 300 %q not yet ended: %d characters %q…, want %d ending in …", c, len([]rune(got)), got[:min(len(got), 12)], runlog.NewestMax)
		}
	}
}

func TestShortenAtTheBound(t *testing.T) {
	for in, want := range map[string]string{"abcde": "abcde", "abcdé": "abcdé", "abcdef": "abcd…", "": ""} {
		if got := runlog.Shorten(in, 5); got != want {
			t.Errorf("Shorten(%q, 5) = %q, want %q", in, got, want)
		}
	}
}

// The ids of exactly the last MaxRuns evicted runs are remembered.
func TestEvictedIDsRememberedExactly(t *testing.T) {
	l := runlog.New(fake.NewOutputStore(), runlog.DefaultBudget)
	for i := range 2*runlog.MaxRuns + 1 {
		w := l.Start(fmt.Sprintf("r%d", i), "%0")
		w.Account(runlog.Accounting{})
		w.End()
	}
	// r0 … r4096 were evicted by count; the last MaxRuns of them are r1 … r4096.
	if _, err := l.Read(runlog.Query{RunID: "r1"}); !errors.Is(err, ports.ErrRunEvicted) {
		t.Errorf("the oldest evicted id remembered: %v, want ErrRunEvicted", err)
	}
	if _, err := l.Read(runlog.Query{RunID: "r0"}); !errors.Is(err, ports.ErrRunNotFound) {
		t.Errorf("the evicted id just past those remembered: %v, want ErrRunNotFound", err)
	}
}

// Sizes past the largest unit are said in it.
func TestSizePastTheLastUnit(t *testing.T) {
	for n, want := range map[int64]string{1 << 40: "1 TiB", 1 << 50: "1024 TiB", 3 << 49: "1536 TiB"} {
		if got := runlog.Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}
