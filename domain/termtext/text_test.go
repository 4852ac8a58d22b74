package termtext

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tmux-mcp/tmux-mcp/domain/frame"
)

// normalizerCases are raw terminal bytes and the text a person would read.
// Every case is also checked split at every byte.
var normalizerCases = []struct {
	name, raw, want string
}{
	{"empty", "", ""},
	{"plain lines", "hello\nworld\n", "hello\nworld\n"},
	{"a last line without newline", "hello\nworld", "hello\nworld"},
	{"empty lines", "\n\n", "\n\n"},
	{"CRLF", "a\r\nb\r\n", "a\nb\n"},
	{"CR CR LF", "a\r\r\n", "a\n"},
	{"progress bar", "10%\r50%\r100%\n", "100%\n"},
	{"a shorter overwrite keeps the rest", "100%\r50\n", "500%\n"},
	{"CR then erase to end of line", "100%\r\x1b[K5%\n", "5%\n"},
	{"CR then erase with 0", "100%\r\x1b[0K5%\n", "5%\n"},
	{"erase whole line then CR", "progress 50%\x1b[2K\rdone\n", "done\n"},
	{"erase whole line keeps the column", "abc\x1b[2Kx\n", "   x\n"},
	{"erase whole line twice keeps the column", "abc\x1b[2K\x1b[2Kx\n", "   x\n"},
	{"erase whole line after text on blank cells", "abc\x1b[2Kd\x1b[2Kx\n", "    x\n"},
	{"erase to the cursor inside a line", "abcdef\rab\x1b[1K\n", "   def\n"},
	{"erase to the cursor at the end", "abc\x1b[1Kx\n", "   x\n"},
	{"erase to the cursor on blank cells", "abc\x1b[2K\x1b[1Kx\n", "   x\n"},
	{"erase to the cursor of an empty line", "\x1b[1Kx\n", "x\n"},
	{"erase after a backspace", "abc\b\x1b[K\n", "ab\n"},
	{"an erase that is not interpreted", "abc\r\x1b[3Kx\n", "xbc\n"},
	{"an erase with too many parameters", "abc\r\x1b[00000000000000000000K\n", "abc\n"},
	{"backspace over blank cells", "abc\x1b[2K\bx\n", "  x\n"},
	{"backspace", "ab\bc\n", "ac\n"},
	{"backspace does not erase", "abc\b\b\n", "abc\n"},
	{"backspace at the start", "a\b\b\bb\n", "b\n"},
	{"backspace over a multibyte character", "é\bx\n", "x\n"},
	{"overwrite with a longer character", "x\ré\n", "é\n"},
	{"overwrite with a shorter character", "éa\rx\n", "xa\n"},
	{"overwrite in the middle", "日本語\r\b日x\n", "日x語\n"},
	{"overwrite past the end", "ab\rxyz\n", "xyz\n"},
	{"a tab is kept", "a\tb\n", "a\tb\n"},
	{"other C0 controls are dropped", "a\x00b\x07c\x01\x0e\x0f\x1f\n", "abc\n"},
	{"DEL is dropped", "a\x7fb\n", "ab\n"},
	{"C1 controls are dropped", "a\u0085b\u009bc\u0090\n", "abc\n"},
	{"SGR colours", "\x1b[1;31mred\x1b[0m \x1b[38;2;1;2;3mrgb\x1b[m\n", "red rgb\n"},
	{"private CSI", "\x1b[?25l\x1b[?2004hx\x1b[?1049l\n", "x\n"},
	{"cursor movement is removed", "a\x1b[3Cb\x1b[2Dc\x1b[1;1Hd\n", "abcd\n"},
	{"OSC ended by BEL", "\x1b]0;title\x07x\n", "x\n"},
	{"OSC ended by ST", "\x1b]8;;http://example.com\x1b\\link\x1b]8;;\x1b\\\n", "link\n"},
	{"OSC holding UTF-8 and controls", "\x1b]2;tïtle\r\n\ttab\x07x\n", "x\n"},
	{"our markers are removed", string(frame.StartMarker("abc", 1)) + "x\n" + string(frame.EndMarker(frame.IDs{ID: "abc", Secret: "s"}, 0)), "x\n"},
	{"DCS", "\x1bP1$r0m\x1b\\x\n", "x\n"},
	{"tmux passthrough", "\x1bPtmux;\x1b\x1b]0;t\x07\x1b\\after\n", "after\n"},
	{"APC", "\x1b_Gf=100;AAAA\x1b\\x\n", "x\n"},
	{"SOS and PM", "\x1bXsos\x1b\\\x1b^pm\x1b\\x\n", "x\n"},
	{"screen title", "\x1bktitle\x1b\\x\n", "x\n"},
	{"ESC inside a string that is not ST", "\x1b]0;t\x1b[31mx\n", "x\n"},
	{"ESC ESC inside a string", "\x1b]0;t\x1b\x1b[1mx\n", "x\n"},
	{"two-byte sequences", "\x1b7a\x1b8\x1b=b\x1b>\x1bMc\x1bc\n", "abc\n"},
	{"charset designations", "\x1b(Ba\x1b)0b\x1b#8c\x1b%G\x1b$(Cd\n", "abcd\n"},
	{"CAN cancels a sequence", "\x1b[12\x18abc\n", "abc\n"},
	{"SUB cancels a string", "\x1b]0;t\x1aabc\n", "abc\n"},
	{"ESC restarts a sequence", "\x1b[1\x1b[31mx\n", "x\n"},
	{"ESC ESC", "\x1b\x1b[31mx\n", "x\n"},
	{"a control inside CSI is carried out", "abc\x1b[1\rmX\n", "Xbc\n"},
	{"a control inside ESC is carried out", "ab\x1b\r(Bx\n", "xb\n"},
	{"a control after an intermediate is carried out", "ab\x1b(\rBx\n", "xb\n"},
	{"DEL inside a sequence is ignored", "\x1b[1\x7fmx\x1b\x7f7\n", "x\n"},
	{"a character ends CSI", "\x1b[1é\n", "é\n"},
	{"a character ends ESC", "\x1bé\n", "é\n"},
	{"a character ends an intermediate", "\x1b(é\n", "é\n"},
	{"a newline inside ESC", "a\x1b\n[31mb\n", "a\nb\n"},
	{"ESC then a final byte", "a\x1bb\n", "a\n"},
	{"an unterminated string hides the rest", "a\x1b]0;title\nmore\n", "a"},
	{"an unterminated CSI is dropped", "a\x1b[1", "a"},
	{"invalid UTF-8", "a\xffb\n", "a\uFFFDb\n"},
	{"a truncated character", "\xe2\x82A\n", "\uFFFD\uFFFDA\n"},
	{"a truncated character at the end is unfinished", "ab\xe2\x82", "ab"},
	{"a surrogate", "\xed\xa0\x80\n", "\uFFFD\uFFFD\uFFFD\n"},
	{"an overlong encoding", "\xc0\xaf\n", "\uFFFD\uFFFD\n"},
	{"four-byte characters", "🎉 日本\n", "🎉 日本\n"},
}

// normalizeChunks feeds chunks to a fresh normalizer, flushes it and
// returns what reached the sink.
func normalizeChunks(t testing.TB, chunks ...[]byte) string {
	t.Helper()
	var out bytes.Buffer
	n := NewNormalizer(&out)
	for _, c := range chunks {
		if w, err := n.Write(c); w != len(c) || err != nil {
			t.Fatalf("Write(%q) = %d, %v; want %d, nil", c, w, err, len(c))
		}
	}
	if err := n.Flush(); err != nil {
		t.Fatalf("Flush: %v", err)
	}
	return out.String()
}

func TestTextNormalizerShowsWhatATerminalShows(t *testing.T) {
	for _, c := range normalizerCases {
		t.Run(c.name, func(t *testing.T) {
			if got := normalizeChunks(t, []byte(c.raw)); got != c.want {
				t.Errorf("normalize(%q) = %q, want %q", c.raw, got, c.want)
			}
			if got := Normalize([]byte(c.raw)); got != c.want {
				t.Errorf("Normalize(%q) = %q, want %q", c.raw, got, c.want)
			}
		})
	}
}

func TestTextNormalizerIsIndifferentToHowTheInputIsSplit(t *testing.T) {
	for _, c := range normalizerCases {
		t.Run(c.name, func(t *testing.T) {
			b := []byte(c.raw)
			for i := 0; i <= len(b); i++ {
				if got := normalizeChunks(t, b[:i], b[i:]); got != c.want {
					t.Fatalf("split at %d: %q, want %q", i, got, c.want)
				}
			}
			bytewise := make([][]byte, len(b))
			for i := range b {
				bytewise[i] = b[i : i+1]
			}
			if got := normalizeChunks(t, bytewise...); got != c.want {
				t.Errorf("byte by byte: %q, want %q", got, c.want)
			}
		})
	}
}

// sinkLog records each Write the normalizer makes.
type sinkLog struct{ writes []string }

func (s *sinkLog) Write(p []byte) (int, error) {
	s.writes = append(s.writes, string(p))
	return len(p), nil
}

func TestTextNormalizerPassesOnEachLineWhenItsNewlineArrives(t *testing.T) {
	var sink sinkLog
	n := NewNormalizer(&sink)
	steps := []struct {
		write string
		sent  string // everything the sink has had so far
	}{
		{"first", ""},
		{" line\r", ""},
		{"\n", "first line\n"},
		{"second\nthird\nfou", "first line\nsecond\nthird\n"},
		{"rth", "first line\nsecond\nthird\n"},
	}
	for _, s := range steps {
		n.Write([]byte(s.write))
		if got := strings.Join(sink.writes, ""); got != s.sent {
			t.Fatalf("after Write(%q) the sink has %q, want %q", s.write, got, s.sent)
		}
	}
	n.Flush()
	if got, want := strings.Join(sink.writes, ""), "first line\nsecond\nthird\nfourth"; got != want {
		t.Fatalf("after Flush the sink has %q, want %q", got, want)
	}
	// A second Flush has nothing more to pass on; the normalizer goes on.
	n.Flush()
	n.Write([]byte("again\n"))
	if got, want := strings.Join(sink.writes, ""), "first line\nsecond\nthird\nfourthagain\n"; got != want {
		t.Errorf("after more Writes the sink has %q, want %q", got, want)
	}
}

// A Flush in the middle of the output (a result taken while a command
// runs on) passes on the line so far, but leaves an unfinished escape
// sequence or character as it is: what comes next goes on with it, as on
// the terminal, and only Loss says, meanwhile, that it is unfinished.
func TestTextNormalizerFlushKeepsWhatIsUnfinished(t *testing.T) {
	var out bytes.Buffer
	n := NewNormalizer(&out)
	n.Write([]byte("abc\x1b]0;unfinished title"))
	n.Flush()
	if got, want := n.Loss(), (Loss{Unterminated: int64(len("\x1b]0;unfinished title"))}); got != want {
		t.Errorf("after the Flush: %+v, want %+v", got, want)
	}
	n.Write([]byte(" goes on\x07\rx\n\xe2\x82"))
	n.Flush()
	if got, want := n.Loss(), (Loss{Unterminated: 2}); got != want {
		t.Errorf("after the title's end: %+v, want %+v", got, want)
	}
	n.Write([]byte("\xacy\n"))
	n.Flush()
	// Flush passed on "abc" as a last line, without a newline; the title
	// went on to its BEL, and the character to its last byte.
	if want := "abcx\n€y\n"; out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
	if got := n.Loss(); !got.Exact() {
		t.Errorf("in the end: %+v, want nothing lost", got)
	}
}

// lossCases are raw bytes, the text, and what of the bytes the text does
// not carry. Every case is also checked split at every byte.
var lossCases = []struct {
	name, raw, want string
	loss            Loss
}{
	{"plain text", "a\tb\r\nc\bd\n", "a\tb\nd\n", Loss{}},
	{"escape sequences and controls that act are not lost", "\x1b[1mA\x1b[0m\x07\x0b\x0c\x0e\x0fB\x1b]0;t\x07\x1b]0;t\x1b\\\x1bP1$r\x1b\\\x1b[1\x18\x1b]0\x1a\n",
		"AB\n", Loss{}},
	{"a literal U+FFFD is text", "\uFFFD\n", "\uFFFD\n", Loss{}},
	{"bytes that are not UTF-8", "a\xff\xfeb\n", "a\uFFFD\uFFFDb\n", Loss{Replaced: 2}},
	{"a surrogate's bytes", "\xed\xa0\x80\n", "\uFFFD\uFFFD\uFFFD\n", Loss{Replaced: 3}},
	{"a character cut short in the middle", "\xe2\x82A\n", "\uFFFD\uFFFDA\n", Loss{Replaced: 2}},
	{"NUL", "a\x00b\n", "ab\n", Loss{Replaced: 1}},
	{"C0 controls that do nothing, and DEL", "\x01\x02\x03\x04\x05\x06\x10\x11\x12\x13\x14\x15\x16\x17\x19\x1c\x1d\x1e\x1f\x7fx",
		"x", Loss{Replaced: 20}},
	{"C1 controls, two bytes each", "a\u0085b\u009b\n", "ab\n", Loss{Replaced: 4}},
	{"a NUL inside CSI is the sequence's", "\x1b[1\x00mx\n", "x\n", Loss{}},
	{"bytes inside a string are the string's", "\x1b]0;\xff\x00\u0085\x07x\n", "x\n", Loss{}},
	{"a byte that is not UTF-8 ends a CSI, and is lost", "\x1b[1\xffx\n", "\uFFFDx\n", Loss{Replaced: 1}},
	{"an OSC never ended", "\x1b]1\r\n2\r\ntail\r\n", "", Loss{Unterminated: 14}},
	{"an OSC never ended after text", "ok\r\n\x1b]" + "1\n2\n", "ok\n", Loss{Unterminated: 6}},
	{"an OSC whose ESC may be ST", "ok\x1b]0;t\x1b", "ok", Loss{Unterminated: 6}},
	{"an ESC ends a string and starts a sequence", "\x1b]0;t\x1b[3", "", Loss{Unterminated: 3}},
	{"an unfinished CSI", "a\x1b[31", "a", Loss{Unterminated: 4}},
	{"a lone ESC", "a\x1b", "a", Loss{Unterminated: 1}},
	{"an unfinished designation", "a\x1b(", "a", Loss{Unterminated: 2}},
	{"a DCS never ended", "a\x1bPq#0;2;0;0;0\n", "a", Loss{Unterminated: 14}},
	{"a character cut at the end", "a\xf0\x9f\x8e", "a", Loss{Unterminated: 3}},
	{"an unfinished sequence holding a cut character", "a\x1b]0;\xe2\x82", "a", Loss{Unterminated: 6}},
	{"both", "\xff\x1b]", "\uFFFD", Loss{Replaced: 1, Unterminated: 2}},
}

// lossOf is the Loss of chunks written in turn.
func lossOf(chunks ...[]byte) Loss {
	n := NewNormalizer(io.Discard)
	for _, c := range chunks {
		n.Write(c)
	}
	n.Flush()
	return n.Loss()
}

func TestTextNormalizerAccountsForWhatTheTextCannotCarry(t *testing.T) {
	for _, c := range lossCases {
		t.Run(c.name, func(t *testing.T) {
			b := []byte(c.raw)
			for i := 0; i <= len(b); i++ {
				var out bytes.Buffer
				n := NewNormalizer(&out)
				n.Write(b[:i])
				n.Write(b[i:])
				n.Flush()
				if out.String() != c.want || n.Loss() != c.loss {
					t.Fatalf("split at %d: %q, %+v; want %q, %+v", i, out.String(), n.Loss(), c.want, c.loss)
				}
			}
			if exact := c.loss.Replaced == 0 && c.loss.Unterminated == 0; c.loss.Exact() != exact {
				t.Errorf("Exact() = %v for %+v", !exact, c.loss)
			}
		})
	}
}

func TestTextNormalizerWritesLargeInputInBoundedPieces(t *testing.T) {
	var sink sinkLog
	n := NewNormalizer(&sink)
	line := strings.Repeat("x", 99) + "\n"
	n.Write([]byte(strings.Repeat(line, 10000))) // 1 MB in one Write
	n.Flush()
	total := 0
	for _, w := range sink.writes {
		if len(w) > outFlushSize+len(line) {
			t.Fatalf("one sink Write of %d bytes; want at most about %d", len(w), outFlushSize)
		}
		total += len(w)
	}
	if total != 10000*len(line) {
		t.Errorf("sink received %d bytes, want %d", total, 10000*len(line))
	}
}

// The bound holds after a line longer than it, too: the long line goes
// to the sink as soon as it is complete, and the lines after it are
// gathered afresh, not held until the end of the Write.
func TestTextNormalizerDoesNotGatherLinesBehindALongOne(t *testing.T) {
	var sink sinkLog
	n := NewNormalizer(&sink)
	long := strings.Repeat("y", 2*outFlushSize) + "\n"
	line := strings.Repeat("x", 99) + "\n"
	n.Write([]byte(long + strings.Repeat(line, 10000)))
	n.Flush()
	if len(sink.writes) == 0 || sink.writes[0] != long {
		t.Fatalf("the sink's first Write is not the long line alone")
	}
	total := len(long)
	for _, w := range sink.writes[1:] {
		if len(w) > outFlushSize+len(line) {
			t.Fatalf("after the long line, one sink Write of %d bytes; want at most about %d", len(w), outFlushSize)
		}
		total += len(w)
	}
	if total != len(long)+10000*len(line) {
		t.Errorf("sink received %d bytes, want %d", total, len(long)+10000*len(line))
	}
}

type failingSink struct{ err error }

func (f failingSink) Write(p []byte) (int, error) { return 0, f.err }

func TestTextNormalizerReportsTheSinksError(t *testing.T) {
	sinkErr := errors.New("disk full")
	n := NewNormalizer(failingSink{sinkErr})
	if _, err := n.Write([]byte("no line yet")); err != nil {
		t.Fatalf("Write before any line = %v, want nil", err)
	}
	if w, err := n.Write([]byte("\nmore")); w != 5 || !errors.Is(err, sinkErr) {
		t.Fatalf("Write = %d, %v; want 5, %v", w, err, sinkErr)
	}
	if err := n.Flush(); !errors.Is(err, sinkErr) {
		t.Fatalf("Flush = %v, want %v", err, sinkErr)
	}
}

func FuzzTextNormalizer(f *testing.F) {
	for _, c := range normalizerCases {
		f.Add([]byte(c.raw), []byte{2, 7})
	}
	f.Fuzz(func(t *testing.T, raw, cuts []byte) {
		whole := Normalize(raw)
		if !utf8.ValidString(whole) {
			t.Fatalf("output %q of %q is not valid UTF-8", whole, raw)
		}
		for _, r := range whole {
			if r < 0x20 && r != '\n' && r != '\t' || r >= 0x7f && r <= 0x9f {
				t.Fatalf("output %q of %q holds control %U", whole, raw, r)
			}
		}
		if strings.Count(whole, "\n") > strings.Count(string(raw), "\n") {
			t.Fatalf("output %q of %q has more lines than the input", whole, raw)
		}
		var chunks [][]byte
		rest := raw
		for i := 0; len(rest) > 0; i++ {
			n := len(rest)
			if len(cuts) > 0 {
				n = min(int(cuts[i%len(cuts)])+1, len(rest))
			}
			chunks = append(chunks, rest[:n])
			rest = rest[n:]
		}
		if split := normalizeChunks(t, chunks...); split != whole {
			t.Fatalf("split into %d chunks: %q; in one piece: %q", len(chunks), split, whole)
		}
		one, split := lossOf(raw), lossOf(chunks...)
		if one != split {
			t.Fatalf("split into %d chunks: %+v; in one piece: %+v", len(chunks), split, one)
		}
		if one.Replaced+one.Unterminated > int64(len(raw)) {
			t.Fatalf("%+v of %d bytes", one, len(raw))
		}
	})
}

// Normalize normalizes raw all at once, as a Normalizer followed by Flush
// would.
func Normalize(raw []byte) string {
	var b bytes.Buffer
	n := NewNormalizer(&b)
	_, _ = n.Write(raw)
	_ = n.Flush()
	return b.String()
}
