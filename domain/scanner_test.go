package domain

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
)

// scan is what a FrameScanner reported after a stream.
type scan struct {
	output  string
	started bool
	ended   bool
	status  int
	foreign bool
}

// scanChunks writes chunks to a fresh scanner for id, each Write
// returning what the io.Writer contract says.
func scanChunks(t testing.TB, id string, chunks ...[]byte) scan {
	t.Helper()
	var out bytes.Buffer
	s := NewFrameScanner(id, &out)
	for _, c := range chunks {
		if n, err := s.Write(c); n != len(c) || err != nil {
			t.Fatalf("Write(%q) = %d, %v; want %d, nil", c, n, err, len(c))
		}
	}
	r := scan{output: out.String(), started: s.Started(), foreign: s.ForeignSeen()}
	r.status, r.ended = s.Ended()
	return r
}

func cat(parts ...string) string { return strings.Join(parts, "") }

var (
	sOurs   = string(StartMarker("abc"))
	eOurs0  = string(EndMarker("abc", 0))
	eOurs7  = string(EndMarker("abc", 7))
	sOther  = string(StartMarker("xyz"))
	eOther  = string(EndMarker("xyz", 0))
	sLonger = string(StartMarker("abcd"))
	eLonger = string(EndMarker("abcd", 0))
	eShort  = string(EndMarker("ab", 0))
)

// scannerCases are streams for id "abc" and what the scanner must make of
// them. Every case is also checked split at every byte.
var scannerCases = []struct {
	name   string
	stream string
	want   scan
}{
	{"nothing", "", scan{}},
	{"echo and prompt only", "$ printf '\\033]7717;tmcp;S;abc\\007'\r\n> ", scan{}},
	{"a whole call", cat("$ typed echo\r\n", sOurs, "hello\r\n", eOurs0, "$ "),
		scan{output: "hello\r\n", started: true, ended: true}},
	{"the exit status", cat(sOurs, "x", eOurs7), scan{output: "x", started: true, ended: true, status: 7}},
	{"a negative status", cat(sOurs, string(EndMarker("abc", -1))), scan{started: true, ended: true, status: -1}},
	{"the largest status", cat(sOurs, string(EndMarker("abc", 2147483647))), scan{started: true, ended: true, status: 2147483647}},
	{"started, not ended", cat(sOurs, "partial output\r\n"), scan{output: "partial output\r\n", started: true}},
	{"output without a final newline", cat(sOurs, "no newline", eOurs0), scan{output: "no newline", started: true, ended: true}},
	{"escape sequences in output are kept", cat(sOurs, "\x1b[31mred\x1b[0m\r\n\x1b]0;title\x07\x1b]8;;u\x1b\\l\x1b", eOurs0),
		scan{output: "\x1b[31mred\x1b[0m\r\n\x1b]0;title\x07\x1b]8;;u\x1b\\l\x1b", started: true, ended: true}},
	{"our end before our start does not count", cat(eOurs7, "x", sOurs, "y", eOurs0),
		scan{output: "y", started: true, ended: true}},
	{"bytes after our end are ignored", cat(sOurs, "a", eOurs0, "junk", string(EndMarker("abc", 1)), sOther),
		scan{output: "a", started: true, ended: true}},
	{"a second start of ours is dropped", cat(sOurs, "a", sOurs, "b", eOurs0), scan{output: "ab", started: true, ended: true}},
	{"ESC before a marker", cat(sOurs, "\x1b\x1b", eOurs0), scan{output: "\x1b\x1b", started: true, ended: true}},
	{"a marker prefix, then another marker", cat(sOurs, "\x1b]7717;tmcp;E;ab", eOurs7),
		scan{output: "\x1b]7717;tmcp;E;ab", started: true, ended: true, status: 7}},

	// Only our exact end marker ends the frame.
	{"a marker split by other bytes", cat(sOurs, "\x1b]7717;tmcp;E;a", "\r\n", "bc;0\x07"),
		scan{output: "\x1b]7717;tmcp;E;a\r\nbc;0\x07", started: true}},
	{"a marker split by a marker", cat(sOurs, "\x1b]7717;tmcp;E;a", eOther, "bc;0\x07"),
		scan{output: "\x1b]7717;tmcp;E;abc;0\x07", started: true, foreign: true}},
	{"an id with ours as a prefix", cat(sOurs, "a", eLonger, "b"), scan{output: "ab", started: true, foreign: true}},
	{"an id that is a prefix of ours", cat(sOurs, "a", eShort, "b"), scan{output: "ab", started: true, foreign: true}},
	{"a start of a longer id", cat(sOurs, "a", sLonger, "b", eLonger, "c", eOurs0),
		scan{output: "ac", started: true, ended: true, foreign: true}},
	{"no status", cat(sOurs, "\x1b]7717;tmcp;E;abc;\x07"), scan{output: "\x1b]7717;tmcp;E;abc;\x07", started: true}},
	{"no status field", cat(sOurs, "\x1b]7717;tmcp;E;abc\x07"), scan{output: "\x1b]7717;tmcp;E;abc\x07", started: true}},
	{"a status with a leading zero", cat(sOurs, "\x1b]7717;tmcp;E;abc;07\x07"), scan{output: "\x1b]7717;tmcp;E;abc;07\x07", started: true}},
	{"status 00", cat(sOurs, "\x1b]7717;tmcp;E;abc;00\x07"), scan{output: "\x1b]7717;tmcp;E;abc;00\x07", started: true}},
	{"status -0", cat(sOurs, "\x1b]7717;tmcp;E;abc;-0\x07"), scan{output: "\x1b]7717;tmcp;E;abc;-0\x07", started: true}},
	{"status -", cat(sOurs, "\x1b]7717;tmcp;E;abc;-\x07"), scan{output: "\x1b]7717;tmcp;E;abc;-\x07", started: true}},
	{"status +1", cat(sOurs, "\x1b]7717;tmcp;E;abc;+1\x07"), scan{output: "\x1b]7717;tmcp;E;abc;+1\x07", started: true}},
	{"status 1x", cat(sOurs, "\x1b]7717;tmcp;E;abc;1x\x07"), scan{output: "\x1b]7717;tmcp;E;abc;1x\x07", started: true}},
	{"a status too long for an int32", cat(sOurs, "\x1b]7717;tmcp;E;abc;123456789012\x07"),
		scan{output: "\x1b]7717;tmcp;E;abc;123456789012\x07", started: true}},
	{"ended by ST, not BEL", cat(sOurs, "\x1b]7717;tmcp;E;abc;0\x1b\\"), scan{output: "\x1b]7717;tmcp;E;abc;0\x1b\\", started: true}},
	{"a lowercase kind", cat(sOurs, "\x1b]7717;tmcp;e;abc;0\x07"), scan{output: "\x1b]7717;tmcp;e;abc;0\x07", started: true}},
	{"another kind", cat(sOurs, "\x1b]7717;tmcp;X;abc;0\x07"), scan{output: "\x1b]7717;tmcp;X;abc;0\x07", started: true}},
	{"no ; after the kind", cat(sOurs, "\x1b]7717;tmcp;Eabc;0\x07"), scan{output: "\x1b]7717;tmcp;Eabc;0\x07", started: true}},
	{"an empty id", cat(sOurs, "\x1b]7717;tmcp;E;;0\x07"), scan{output: "\x1b]7717;tmcp;E;;0\x07", started: true}},
	{"a start marker with a status", cat(sOurs, "\x1b]7717;tmcp;S;abc;0\x07"), scan{output: "\x1b]7717;tmcp;S;abc;0\x07", started: true}},
	{"an end marker without ;", cat(sOurs, "\x1b]7717;tmcp;E;abc\x070"), scan{output: "\x1b]7717;tmcp;E;abc\x070", started: true}},
	{"an id with a space", cat(sOurs, "\x1b]7717;tmcp;E;a c;0\x07"), scan{output: "\x1b]7717;tmcp;E;a c;0\x07", started: true}},
	{"an id longer than 64", cat(sOurs, "\x1b]7717;tmcp;E;", strings.Repeat("a", 65), ";0\x07"),
		scan{output: cat("\x1b]7717;tmcp;E;", strings.Repeat("a", 65), ";0\x07"), started: true}},
	{"a start of ours with a bad id byte", cat("\x1b]7717;tmcp;S;abc!\x07", "x", eOurs0), scan{}},
	{"another intro", cat(sOurs, "\x1b]7718;tmcp;E;abc;0\x07"), scan{output: "\x1b]7718;tmcp;E;abc;0\x07", started: true}},

	// Other callers' frames.
	{"another frame before ours", cat(sOther, "theirs", eOther, sOurs, "ours", eOurs0),
		scan{output: "ours", started: true, ended: true}},
	{"another frame inside ours", cat(sOurs, "a", sOther, "theirs", eOther, "b", eOurs0),
		scan{output: "ab", started: true, ended: true, foreign: true}},
	{"another start with no end before ours", cat(sOurs, "a", sOther, "theirs", eOurs0, "more"),
		scan{output: "a", started: true, ended: true, foreign: true}},
	{"another end whose start came before ours", cat(sOther, "t1", sOurs, "a", "t2", eOther, "b", eOurs0),
		scan{output: "at2b", started: true, ended: true, foreign: true}},
	{"nested other frames", cat(sOurs, "a", sOther, "1", sLonger, "2", eLonger, "3", eOther, "b", eOurs0),
		scan{output: "ab", started: true, ended: true, foreign: true}},
	{"interleaved other frames", cat(sOurs, "a", sOther, "1", sLonger, "2", eOther, "3", eLonger, "b", eOurs0),
		scan{output: "ab", started: true, ended: true, foreign: true}},
	{"the other frame's end with another status", cat(sOurs, "a", sOther, "1", string(EndMarker("xyz", 130)), "b", eOurs0),
		scan{output: "ab", started: true, ended: true, foreign: true}},
}

func TestFrameScannerFindsTheFrame(t *testing.T) {
	for _, c := range scannerCases {
		t.Run(c.name, func(t *testing.T) {
			if got := scanChunks(t, "abc", []byte(c.stream)); got != c.want {
				t.Errorf("scan = %+v\nwant   %+v", got, c.want)
			}
		})
	}
}

func TestFrameScannerIsIndifferentToHowTheStreamIsSplit(t *testing.T) {
	for _, c := range scannerCases {
		t.Run(c.name, func(t *testing.T) {
			b := []byte(c.stream)
			for i := 0; i <= len(b); i++ {
				if got := scanChunks(t, "abc", b[:i], b[i:]); got != c.want {
					t.Fatalf("split at %d: scan = %+v\nwant              %+v", i, got, c.want)
				}
			}
			bytewise := make([][]byte, len(b))
			for i := range b {
				bytewise[i] = b[i : i+1]
			}
			if got := scanChunks(t, "abc", bytewise...); got != c.want {
				t.Errorf("byte by byte: scan = %+v\nwant                %+v", got, c.want)
			}
		})
	}
}

func TestFrameScannerHoldsBackAPossibleMarkerAtTheEndOfAWrite(t *testing.T) {
	var out bytes.Buffer
	s := NewFrameScanner("abc", &out)
	s.Write([]byte(sOurs + "out\x1b]7717;tmcp;E;ab"))
	if out.String() != "out" {
		t.Fatalf("output = %q; want the possible marker held back", out.String())
	}
	s.Write([]byte("c;1"))
	if out.String() != "out" {
		t.Fatalf("output = %q; want the possible marker still held back", out.String())
	}
	s.Write([]byte("2\x07tail"))
	if status, ok := s.Ended(); !ok || status != 12 || out.String() != "out" {
		t.Errorf("Ended = %d, %v, output %q; want 12, true, \"out\"", status, ok, out.String())
	}
}

func TestFrameScannerPassesOnAHeldBackPrefixThatIsNoMarker(t *testing.T) {
	var out bytes.Buffer
	s := NewFrameScanner("abc", &out)
	s.Write([]byte(sOurs + "out\x1b]77"))
	s.Write([]byte("x\r\n"))
	if want := "out\x1b]77x\r\n"; out.String() != want {
		t.Errorf("output = %q, want %q", out.String(), want)
	}
}

func TestFrameScannerHoldsBackOnlyWhatTheNormalizerWouldDrop(t *testing.T) {
	// Streams that stop inside a possible marker: the text of the output
	// is the same as that of every byte after our start marker.
	for _, tail := range []string{"\x1b", "\x1b]", "\x1b]7717;tmcp;", "\x1b]7717;tmcp;E;ab", "\x1b]7717;tmcp;E;abc;-12"} {
		raw := "out\r\n" + tail
		var text bytes.Buffer
		norm := NewTextNormalizer(&text)
		NewFrameScanner("abc", norm).Write([]byte(sOurs + raw))
		norm.Flush()
		if want := NormalizeTerminalText([]byte(raw)); text.String() != want || want != "out\n" {
			t.Errorf("stream ending in %q: text %q, want %q and \"out\\n\"", tail, text.String(), want)
		}
	}
}

func TestFrameScannerFindsFramesOfRealIDs(t *testing.T) {
	id := NewID()
	other := NewID()
	stream := cat("prompt$ ", string(StartMarker(id)), "out\r\n", string(StartMarker(other)), "x", string(EndMarker(other, 1)),
		string(EndMarker(id, 42)))
	got := scanChunks(t, id, []byte(stream))
	want := scan{output: "out\r\n", started: true, ended: true, status: 42, foreign: true}
	if got != want {
		t.Errorf("scan = %+v, want %+v", got, want)
	}
}

// containsEndMarker reports whether b holds EndMarker(id, n) for any int
// n, found by trying every status text in b rather than by parsing as the
// scanner does.
func containsEndMarker(b []byte, id string) bool {
	prefix := []byte(markerIntro + "E;" + id + ";")
	for i := 0; ; {
		j := bytes.Index(b[i:], prefix)
		if j < 0 {
			return false
		}
		rest := b[i+j+len(prefix):]
		if k := bytes.IndexByte(rest, '\x07'); k >= 0 {
			if n, err := strconv.Atoi(string(rest[:k])); err == nil && bytes.Contains(b, EndMarker(id, n)) {
				return true
			}
		}
		i += j + 1
	}
}

func FuzzFrameScanner(f *testing.F) {
	for _, c := range scannerCases {
		f.Add([]byte(c.stream), []byte{3, 17, 1})
	}
	f.Add([]byte(cat(sOurs, "\x1b]7717;tmcp;E;abc;+0\x07")), []byte{40})
	f.Fuzz(func(t *testing.T, stream, cuts []byte) {
		whole := scanChunks(t, "abc", stream)
		if whole.ended && !containsEndMarker(stream, "abc") {
			t.Fatalf("Ended (status %d) for a stream without our end marker: %q", whole.status, stream)
		}
		if whole.ended && !bytes.Contains(stream, EndMarker("abc", whole.status)) {
			t.Fatalf("Ended with status %d, whose marker is not in the stream: %q", whole.status, stream)
		}
		if whole.ended && !whole.started {
			t.Fatalf("Ended without Started: %q", stream)
		}
		if len(whole.output) > len(stream) {
			t.Fatalf("output %q is longer than the stream %q", whole.output, stream)
		}

		// Cut the stream where the cuts say, cycling through them.
		var chunks [][]byte
		rest := stream
		for i := 0; len(rest) > 0; i++ {
			n := len(rest)
			if len(cuts) > 0 {
				n = min(int(cuts[i%len(cuts)])+1, len(rest))
			}
			chunks = append(chunks, rest[:n])
			rest = rest[n:]
		}
		if split := scanChunks(t, "abc", chunks...); split != whole {
			t.Fatalf("split into %d chunks: %+v\nin one Write:    %+v", len(chunks), split, whole)
		}
	})
}
