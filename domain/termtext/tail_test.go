package termtext

import (
	"fmt"
	"github.com/tmux-mcp/tmux-mcp/domain/frame"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTailOfKeepsTheEndWithinBothLimits(t *testing.T) {
	cases := []struct {
		name               string
		text               string
		maxLines, maxBytes int
		want               TailResult
	}{
		{"empty output", "", 10, 100, TailResult{}},
		{"empty output, no limits", "", 0, 0, TailResult{}},
		{"exact fit", "a\nb\n", 2, 4, TailResult{Text: "a\nb\n", TotalLines: 2, ReturnedBytes: 4}},
		{"under both limits", "a\nb\n", 5, 100, TailResult{Text: "a\nb\n", TotalLines: 2, ReturnedBytes: 4}},
		{"no limits", "a\nb\nc", 0, 0, TailResult{Text: "a\nb\nc", TotalLines: 3, ReturnedBytes: 5}},
		{"lines only", "1\n2\n3\n", 2, 100, TailResult{Text: "2\n3\n", TotalLines: 3, DroppedLines: 1, ReturnedBytes: 4}},
		{"lines, no byte limit", "1\n2\n3\n", 1, 0, TailResult{Text: "3\n", TotalLines: 3, DroppedLines: 2, ReturnedBytes: 2}},
		{"bytes only", "hello\nworld\n", 0, 8, TailResult{Text: "o\nworld\n", TotalLines: 2, OmittedBytes: 4, ReturnedBytes: 8}},
		{"bytes within the line limit", "hello\nworld\n", 5, 8, TailResult{Text: "o\nworld\n", TotalLines: 2, OmittedBytes: 4, ReturnedBytes: 8}},
		{"both", "aaaa\nbbbb\ncccc\n", 2, 7, TailResult{Text: "b\ncccc\n", TotalLines: 3, DroppedLines: 1, OmittedBytes: 3, ReturnedBytes: 7}},
		{"lines make the bytes fit", "aaaa\nbbbb\ncccc\n", 1, 7, TailResult{Text: "cccc\n", TotalLines: 3, DroppedLines: 2, ReturnedBytes: 5}},
		{"an unterminated last line counts", "a\nb", 1, 100, TailResult{Text: "b", TotalLines: 2, DroppedLines: 1, ReturnedBytes: 1}},
		{"a final newline starts no line", "a\n", 5, 100, TailResult{Text: "a\n", TotalLines: 1, ReturnedBytes: 2}},
		{"empty lines count", "\n\n\n", 2, 100, TailResult{Text: "\n\n", TotalLines: 3, DroppedLines: 1, ReturnedBytes: 2}},
		{"a line without newline", "abc", 1, 100, TailResult{Text: "abc", TotalLines: 1, ReturnedBytes: 3}},
		{"a cut inside a character", "日本語", 0, 4, TailResult{Text: "語", TotalLines: 1, OmittedBytes: 6, ReturnedBytes: 3}},
		{"a cut at a character", "日本語", 0, 6, TailResult{Text: "本語", TotalLines: 1, OmittedBytes: 3, ReturnedBytes: 6}},
		{"a limit smaller than the last character", "a€", 0, 2, TailResult{Text: "", TotalLines: 1, OmittedBytes: 4}},
		{"a cut inside a four-byte character", "x🎉y", 1, 4, TailResult{Text: "y", TotalLines: 1, OmittedBytes: 5, ReturnedBytes: 1}},
		{"bytes that are not UTF-8 are cut like any", "\x80\x80\x80\x80\x80\x80a", 0, 6,
			TailResult{Text: "\x80\x80a", TotalLines: 1, OmittedBytes: 4, ReturnedBytes: 3}},
		// A text that fits is never cut, whatever its bytes: not even to
		// a character boundary.
		{"bytes that are not UTF-8 fitting exactly", "\x80abc", 0, 4, TailResult{Text: "\x80abc", TotalLines: 1, ReturnedBytes: 4}},
		{"kept lines fitting exactly", "x\n\x80b\n", 1, 3,
			TailResult{Text: "\x80b\n", TotalLines: 2, DroppedLines: 1, ReturnedBytes: 3}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := TailOf(c.text, c.maxLines, c.maxBytes); got != c.want {
				t.Errorf("TailOf(%q, %d, %d) = %+v\nwant %+v", c.text, c.maxLines, c.maxBytes, got, c.want)
			}
		})
	}
}

func TestTailOfASingleHugeLine(t *testing.T) {
	line := strings.Repeat("0123456789", 300_000) // 3 MB, no newline
	tail := NewTail(200, 1_000_000)
	for i := 0; i < len(line); i += 32 << 10 {
		tail.Write([]byte(line[i:min(i+32<<10, len(line))]))
	}
	got := tail.Result()
	want := TailResult{Text: line[2_000_000:], TotalLines: 1, OmittedBytes: 2_000_000, ReturnedBytes: 1_000_000}
	if got != want {
		t.Errorf("Result = {%d lines, %d dropped, %d omitted, %d returned}, want {%d, %d, %d, %d}",
			got.TotalLines, got.DroppedLines, got.OmittedBytes, got.ReturnedBytes,
			want.TotalLines, want.DroppedLines, want.OmittedBytes, want.ReturnedBytes)
	}
	if got.Text != want.Text {
		t.Errorf("Text is not the last million bytes of the line")
	}
	if c := cap(tail.buf); c > 2_500_000 {
		t.Errorf("the tail holds %d bytes for a 1,000,000-byte limit", c)
	}
}

func TestTailMemoryStaysBoundedFor10MB(t *testing.T) {
	for _, limits := range []struct{ maxLines, maxBytes int }{{200, 1_000_000}, {0, 1_000_000}, {1000, 0}} {
		t.Run(fmt.Sprintf("%d lines, %d bytes", limits.maxLines, limits.maxBytes), func(t *testing.T) {
			tail := NewTail(limits.maxLines, limits.maxBytes)
			line := []byte(strings.Repeat("x", 99) + "\n")
			chunk := []byte(strings.Repeat(string(line), 300))
			for written := 0; written < 10<<20; written += len(chunk) {
				tail.Write(chunk)
				if held := cap(tail.buf) + cap(tail.lens); held > 3_000_000 {
					t.Fatalf("after %d bytes the tail holds %d", written, held)
				}
			}
			r := tail.Result()
			if r.TotalLines != int64((10<<20+len(chunk)-1)/len(chunk)*300) {
				t.Errorf("TotalLines = %d", r.TotalLines)
			}
			if limits.maxBytes > 0 && r.ReturnedBytes > int64(limits.maxBytes) {
				t.Errorf("ReturnedBytes = %d over the limit", r.ReturnedBytes)
			}
		})
	}
}

// What a tail holds to count lines is the length of each kept line, a
// byte or two apiece: however many lines went by, not one per line seen.
func TestTailHoldsTheLengthsOfItsKeptLinesOnly(t *testing.T) {
	const maxLines = 10
	tail := NewTail(maxLines, 1_000_000)
	chunk := []byte(strings.Repeat("\n", 64<<10))
	for written := 0; written < 1<<20; written += len(chunk) {
		tail.Write(chunk)
	}
	// Lengths are dropped in batches of compactMin bytes, so that each is
	// moved once; the slice's capacity may be twice what it holds.
	if held := cap(tail.lens); held > 4*compactMin {
		t.Errorf("after %d lines the tail holds %d bytes of line lengths; want at most %d for %d kept lines",
			1<<20, held, 4*compactMin, maxLines)
	}
	if r := tail.Result(); r.TotalLines != 1<<20 || r.DroppedLines != 1<<20-maxLines || r.Text != strings.Repeat("\n", maxLines) {
		t.Errorf("Result = %d lines, %d dropped, %q", r.TotalLines, r.DroppedLines, r.Text)
	}
}

// So also when the kept lines are many: lengths that fall out are let go
// once as many have fallen out as are kept, not only when compactMin of
// them have.
func TestTailHoldsTheLengthsOfManyKeptLinesOnly(t *testing.T) {
	const maxLines = 5 * compactMin / 4 // more kept lengths than compactMin
	tail := NewTail(maxLines, 1_000_000)
	chunk := []byte(strings.Repeat("\n", 64<<10))
	for written := 0; written < 1<<20; written += len(chunk) {
		tail.Write(chunk)
	}
	// Each length is a byte; the tail holds those of the kept lines and
	// at most as many fallen out, in a slice of up to twice that capacity.
	if held := cap(tail.lens); held > 4*maxLines {
		t.Errorf("after %d lines the tail holds %d bytes of line lengths; want at most %d for %d kept lines",
			1<<20, held, 4*maxLines, maxLines)
	}
	if r := tail.Result(); r.TotalLines != 1<<20 || r.DroppedLines != 1<<20-maxLines || r.Text != strings.Repeat("\n", maxLines) {
		t.Errorf("Result = %d lines, %d dropped, %d bytes", r.TotalLines, r.DroppedLines, len(r.Text))
	}
}

// A tail whose kept lines are far shorter than maxBytes holds about those
// lines, not maxBytes of the stream: the bytes before the first kept line
// are let go once there are compactMin of them.
func TestTailOfAFewShortLinesHoldsAboutThoseLines(t *testing.T) {
	const maxLines = 10
	tail := NewTail(maxLines, 1_000_000)
	line := []byte(strings.Repeat("x", 99) + "\n")
	chunk := []byte(strings.Repeat(string(line), 300))
	kept := maxLines * len(line)
	for written := 0; written < 10<<20; written += len(chunk) {
		tail.Write(chunk)
		if held := cap(tail.buf); held > 2*(kept+compactMin) {
			t.Fatalf("after %d bytes the tail holds %d for %d bytes of kept lines; want at most %d",
				written+len(chunk), held, kept, 2*(kept+compactMin))
		}
	}
	if r := tail.Result(); r.Text != strings.Repeat(string(line), maxLines) || r.OmittedBytes != 0 {
		t.Errorf("Result = %+v", r)
	}
}

func TestTailResultCanBeTakenWhileWriting(t *testing.T) {
	tail := NewTail(2, 100)
	tail.Write([]byte("one\ntwo\n"))
	if got := tail.Result(); got.Text != "one\ntwo\n" || got.DroppedLines != 0 {
		t.Fatalf("first Result = %+v", got)
	}
	tail.Write([]byte("three"))
	if got := tail.Result(); got.Text != "two\nthree" || got.DroppedLines != 1 || got.TotalLines != 3 {
		t.Fatalf("second Result = %+v", got)
	}
	tail.Write([]byte(" and more\n"))
	if got := tail.Result(); got.Text != "two\nthree and more\n" || got.DroppedLines != 1 || got.TotalLines != 3 {
		t.Fatalf("third Result = %+v", got)
	}
}

// naiveTail is the specification of TailOf, computed on the whole text.
func naiveTail(text string, maxLines, maxBytes int) TailResult {
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	r := TailResult{TotalLines: int64(len(lines))}
	if maxLines > 0 && len(lines) > maxLines {
		r.DroppedLines = int64(len(lines) - maxLines)
		lines = lines[len(lines)-maxLines:]
	}
	kept := strings.Join(lines, "")
	if maxBytes > 0 && len(kept) > maxBytes {
		cut := len(kept) - maxBytes
		for i := 0; i < utf8.UTFMax-1 && cut < len(kept) && !utf8.RuneStart(kept[cut]); i++ {
			cut++
		}
		r.OmittedBytes = int64(cut)
		kept = kept[cut:]
	}
	r.Text = kept
	r.ReturnedBytes = int64(len(kept))
	return r
}

func TestTailAgreesWithTheWholeTextComputationWhateverTheWrites(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"a", "bc", "\n", "\n\n", "日本", "🎉", "\x80", strings.Repeat("z", 5000), strings.Repeat("y\n", 3000)}
	for i := range 300 {
		var b strings.Builder
		for range rng.IntN(40) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		text := b.String()
		maxLines, maxBytes := rng.IntN(50)-5, rng.IntN(20000)-100
		want := naiveTail(text, maxLines, maxBytes)

		tail := NewTail(maxLines, maxBytes)
		for rest := text; len(rest) > 0; {
			n := min(1+rng.IntN(9000), len(rest))
			tail.Write([]byte(rest[:n]))
			rest = rest[n:]
		}
		if got := tail.Result(); got != want {
			t.Fatalf("case %d (%d bytes, maxLines %d, maxBytes %d): Result = {%d %d %d %d}, want {%d %d %d %d}; texts equal: %v",
				i, len(text), maxLines, maxBytes, got.TotalLines, got.DroppedLines, got.OmittedBytes, got.ReturnedBytes,
				want.TotalLines, want.DroppedLines, want.OmittedBytes, want.ReturnedBytes, got.Text == want.Text)
		}
	}
}

func TestTailWriteNeverFails(t *testing.T) {
	tail := NewTail(1, 1)
	if n, err := tail.Write([]byte("abc\ndef")); n != 7 || err != nil {
		t.Errorf("Write = %d, %v; want 7, nil", n, err)
	}
}

func BenchmarkTail(b *testing.B) {
	chunk := []byte(strings.Repeat(strings.Repeat("x", 79)+"\n", 400)) // 32 KB
	b.SetBytes(10 << 20)
	b.ReportAllocs()
	for b.Loop() {
		tail := NewTail(200, 1_000_000)
		for written := 0; written < 10<<20; written += len(chunk) {
			tail.Write(chunk)
		}
		tail.Result()
	}
}

func BenchmarkScan10MB(b *testing.B) {
	var body strings.Builder
	for i := 0; body.Len() < 10<<20; i++ {
		fmt.Fprintf(&body, "\x1b[32mline %d\x1b[0m of a build log, with colour and CRLF: ok\r\n", i)
		if i%100 == 0 {
			body.WriteString("progress 10%\rprogress 50%\r\x1b[Kprogress 100%\r\n")
		}
	}
	ids := frame.IDs{ID: "0123456789abcdef", Secret: "fedcba9876543210fedcba9876543210", Unread: "u"}
	stream := []byte("prompt$ " + string(frame.StartMarker(ids.ID, 4242)) + body.String() + string(frame.EndMarker(ids, 0)) + "prompt$ ")
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for b.Loop() {
		tail := NewTail(200, 1_000_000)
		norm := NewNormalizer(tail)
		sc := frame.NewScanner(ids, norm)
		for i := 0; i < len(stream); i += 32 << 10 {
			sc.Write(stream[i:min(i+32<<10, len(stream))])
		}
		norm.Flush()
		if _, ok := sc.Ended(); !ok {
			b.Fatal("no end marker found")
		}
		tail.Result()
	}
}
