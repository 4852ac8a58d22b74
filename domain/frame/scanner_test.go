package frame

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
)

// scan is what a Scanner reported after a stream.
type scan struct {
	output  string
	started bool
	pid     int
	ended   bool
	status  int
	unread  bool
	foreign bool
	known   bool // SecretKnown
}

// ours are the ids of the frame the scanner tests follow.
var ours = IDs{ID: "abc", Secret: "s3cret", Unread: "u1"}

// scanChunks writes chunks to a fresh scanner for ours, each Write
// returning what the io.Writer contract says.
func scanChunks(t testing.TB, chunks ...[]byte) scan {
	t.Helper()
	var out bytes.Buffer
	s := NewScanner(ours, &out)
	for _, c := range chunks {
		if n, err := s.Write(c); n != len(c) || err != nil {
			t.Fatalf("Write(%q) = %d, %v; want %d, nil", c, n, err, len(c))
		}
	}
	r := scan{output: out.String(), started: s.Started(), pid: s.ShellPID(), unread: s.Unread(), foreign: s.ForeignSeen(), known: s.SecretKnown()}
	r.status, r.ended = s.Ended()
	return r
}

func cat(parts ...string) string { return strings.Join(parts, "") }

func end(ids IDs, status int) string { return string(EndMarker(ids, status)) }

var (
	sOurs   = string(StartMarker("abc", 42))
	eOurs0  = end(ours, 0)
	eOurs7  = end(ours, 7)
	xOurs   = string(UnreadMarker("u1"))
	other   = IDs{ID: "xyz", Secret: "q", Unread: "u2"}
	sOther  = string(StartMarker("xyz", 43))
	eOther  = end(other, 0)
	sLonger = string(StartMarker("abcd", 42))
	eLonger = end(IDs{ID: "abcd", Secret: "s3cret", Unread: "v"}, 0)
	// An end marker with our id and another secret: what a command that
	// learnt the id would print.
	eForged = end(IDs{ID: "abc", Secret: "guess", Unread: "u1"}, 0)
	// The end marker of a server that wrote no secret.
	eLegacy = "\x1b]7717;tmcp;E;abc;0\x07"
)

// scannerCases are streams for ours and what the scanner must make of
// them. Every case is also checked split at every byte.
var scannerCases = []struct {
	name   string
	stream string
	want   scan
}{
	{"nothing", "", scan{}},
	{"the echo of a typed line", "$ : 'x'; . '/p' || printf '\\033]7717;tmcp;X;u1\\007'\r\n", scan{}},
	{"a whole call", cat("$ typed\r\n", sOurs, "hello\r\n", eOurs0, "$ "),
		scan{output: "hello\r\n", started: true, pid: 42, ended: true}},
	{"the exit status", cat(sOurs, "x", eOurs7), scan{output: "x", started: true, pid: 42, ended: true, status: 7}},
	{"a negative status", cat(sOurs, end(ours, -1)), scan{started: true, pid: 42, ended: true, status: -1}},
	{"the largest status", cat(sOurs, end(ours, 2147483647)), scan{started: true, pid: 42, ended: true, status: 2147483647}},
	{"started, not ended", cat(sOurs, "partial output\r\n"), scan{output: "partial output\r\n", started: true, pid: 42}},
	{"output without a final newline", cat(sOurs, "no newline", eOurs0), scan{output: "no newline", started: true, pid: 42, ended: true}},
	{"escape sequences in output are kept", cat(sOurs, "\x1b[31mred\x1b[0m\r\n\x1b]0;title\x07\x1b]8;;u\x1b\\l\x1b", eOurs0),
		scan{output: "\x1b[31mred\x1b[0m\r\n\x1b]0;title\x07\x1b]8;;u\x1b\\l\x1b", started: true, pid: 42, ended: true}},
	{"bytes after our end are held back", cat(sOurs, "a", eOurs0, "$ prompt", sOther, eOther),
		scan{output: "a", started: true, pid: 42, ended: true}},
	{"a second end with the secret: the first stands", cat(sOurs, "a", eOurs0, "b", sOther, end(ours, 1), "$ "),
		scan{output: "a", started: true, pid: 42, ended: true, status: 0, foreign: true, known: true}},
	{"ESC before a marker", cat(sOurs, "\x1b\x1b", eOurs0), scan{output: "\x1b\x1b", started: true, pid: 42, ended: true}},
	{"a marker prefix, then another marker", cat(sOurs, "\x1b]7717;tmcp;E;ab", eOurs7),
		scan{output: "\x1b]7717;tmcp;E;ab", started: true, pid: 42, ended: true, status: 7}},

	// The unread marker: only ours, only before the start.
	{"the shell could not read the script", cat("typed\r\n", "sh: cannot open\r\n", xOurs, "$ "), scan{unread: true}},
	{"another unread marker", cat(string(UnreadMarker("u9")), sOurs, "a", eOurs0), scan{output: "a", started: true, pid: 42, ended: true}},
	{"our unread marker after the start", cat(sOurs, "a", xOurs, "b", eOurs0),
		scan{output: "ab", started: true, pid: 42, ended: true, foreign: true}},

	// Only our end marker with our secret ends the frame; every marker
	// is removed, and nothing else is.
	{"a forged end marker", cat(sOurs, "a", eForged, "b", eOurs7), scan{output: "ab", started: true, pid: 42, ended: true, status: 7, foreign: true}},
	{"a forged end marker and no other", cat(sOurs, "a", eForged, "b"), scan{output: "ab", started: true, pid: 42, foreign: true}},
	{"the end marker of a server without secrets", cat(sOurs, "a", eLegacy, "b", eOurs0),
		scan{output: "ab", started: true, pid: 42, ended: true, foreign: true}},
	{"our end before our start", cat(eOurs7, "x", sOurs, "y", eOurs0),
		scan{output: "y", started: true, pid: 42, ended: true, foreign: true, known: true}},
	{"our end alone", cat(eOurs7, "x"), scan{foreign: true, known: true}},
	{"a second start of ours", cat(sOurs, "a", sOurs, "b", eOurs0), scan{output: "ab", started: true, pid: 42, ended: true, foreign: true}},
	{"a marker split by other bytes", cat(sOurs, "\x1b]7717;tmcp;E;abc;s3c", "\r\n", "ret;0\x07"),
		scan{output: "\x1b]7717;tmcp;E;abc;s3c\r\nret;0\x07", started: true, pid: 42}},
	{"a marker split by a marker", cat(sOurs, "\x1b]7717;tmcp;E;abc;s3", eOther, "cret;0\x07"),
		scan{output: "\x1b]7717;tmcp;E;abc;s3cret;0\x07", started: true, pid: 42, foreign: true}},
	{"an id with ours as a prefix", cat(sOurs, "a", eLonger, "b"), scan{output: "ab", started: true, pid: 42, foreign: true}},
	{"a secret with ours as a prefix", cat(sOurs, "a", end(IDs{ID: "abc", Secret: "s3crets"}, 0), "b"),
		scan{output: "ab", started: true, pid: 42, foreign: true}},
	{"no status", cat(sOurs, "\x1b]7717;tmcp;E;abc;s3cret;\x07"), scan{output: "\x1b]7717;tmcp;E;abc;s3cret;\x07", started: true, pid: 42}},
	{"a status with a leading zero", cat(sOurs, "\x1b]7717;tmcp;E;abc;s3cret;07\x07"),
		scan{output: "\x1b]7717;tmcp;E;abc;s3cret;07\x07", started: true, pid: 42}},
	{"status -0", cat(sOurs, "\x1b]7717;tmcp;E;abc;s3cret;-0\x07"), scan{output: "\x1b]7717;tmcp;E;abc;s3cret;-0\x07", started: true, pid: 42}},
	{"status -", cat(sOurs, "\x1b]7717;tmcp;E;abc;s3cret;-\x07"), scan{output: "\x1b]7717;tmcp;E;abc;s3cret;-\x07", started: true, pid: 42}},
	{"status 1x", cat(sOurs, "\x1b]7717;tmcp;E;abc;s3cret;1x\x07"), scan{output: "\x1b]7717;tmcp;E;abc;s3cret;1x\x07", started: true, pid: 42}},
	{"a status too long for an int32", cat(sOurs, "\x1b]7717;tmcp;E;abc;s3cret;123456789012\x07"),
		scan{output: "\x1b]7717;tmcp;E;abc;s3cret;123456789012\x07", started: true, pid: 42}},
	{"four fields", cat(sOurs, "\x1b]7717;tmcp;E;abc;s3cret;1;2\x07"), scan{output: "\x1b]7717;tmcp;E;abc;s3cret;1;2\x07", started: true, pid: 42}},
	{"ended by ST, not BEL", cat(sOurs, "\x1b]7717;tmcp;E;abc;s3cret;0\x1b\\"),
		scan{output: "\x1b]7717;tmcp;E;abc;s3cret;0\x1b\\", started: true, pid: 42}},
	{"a lowercase kind", cat(sOurs, "\x1b]7717;tmcp;e;abc;s3cret;0\x07"), scan{output: "\x1b]7717;tmcp;e;abc;s3cret;0\x07", started: true, pid: 42}},
	{"another kind", cat(sOurs, "\x1b]7717;tmcp;Y;abc\x07"), scan{output: "\x1b]7717;tmcp;Y;abc\x07", started: true, pid: 42}},
	{"no ; after the kind", cat(sOurs, "\x1b]7717;tmcp;Eabc;0\x07"), scan{output: "\x1b]7717;tmcp;Eabc;0\x07", started: true, pid: 42}},
	{"an empty id", cat(sOurs, "\x1b]7717;tmcp;E;;0\x07"), scan{output: "\x1b]7717;tmcp;E;;0\x07", started: true, pid: 42}},
	{"a start marker with a bad pid", cat(sOurs, "\x1b]7717;tmcp;S;abc;-1\x07"), scan{output: "\x1b]7717;tmcp;S;abc;-1\x07", started: true, pid: 42}},
	{"an id with a space", cat(sOurs, "\x1b]7717;tmcp;E;a c;0\x07"), scan{output: "\x1b]7717;tmcp;E;a c;0\x07", started: true, pid: 42}},
	{"an id longer than 64", cat(sOurs, "\x1b]7717;tmcp;E;", strings.Repeat("a", 65), ";0\x07"),
		scan{output: cat("\x1b]7717;tmcp;E;", strings.Repeat("a", 65), ";0\x07"), started: true, pid: 42}},
	{"a start of ours with a bad id byte", cat("\x1b]7717;tmcp;S;abc!;42\x07", "x", eOurs0), scan{foreign: true, known: true}},
	{"a start of ours without a pid", cat("\x1b]7717;tmcp;S;abc\x07", "x", eOurs0), scan{foreign: true, known: true}},
	{"a start of ours with pid 0", cat("\x1b]7717;tmcp;S;abc;0\x07", "x", eOurs0), scan{foreign: true, known: true}},
	{"a start marker with pid 0 inside ours", cat(sOurs, "a\x1b]7717;tmcp;S;abc;0\x07b", eOurs0),
		scan{output: "a\x1b]7717;tmcp;S;abc;0\x07b", started: true, pid: 42, ended: true}},
	{"a start of ours with a bad pid", cat("\x1b]7717;tmcp;S;abc;042\x07", "x", eOurs0), scan{foreign: true, known: true}},
	{"a start of ours with three fields", cat("\x1b]7717;tmcp;S;abc;42;1\x07", "x", eOurs0), scan{foreign: true, known: true}},
	{"a legacy start marker inside ours", cat(sOurs, "a\x1b]7717;tmcp;S;old\x07b", eOurs0),
		scan{output: "ab", started: true, pid: 42, ended: true, foreign: true}},
	{"another intro", cat(sOurs, "\x1b]7718;tmcp;E;abc;s3cret;0\x07"), scan{output: "\x1b]7718;tmcp;E;abc;s3cret;0\x07", started: true, pid: 42}},

	// Other frames: their markers are removed and flagged, what they
	// enclose is kept, whether or not they end.
	{"another frame before ours", cat(sOther, "theirs", eOther, sOurs, "ours", eOurs0),
		scan{output: "ours", started: true, pid: 42, ended: true}},
	{"another frame inside ours", cat(sOurs, "a", sOther, "theirs", eOther, "b", eOurs0),
		scan{output: "atheirsb", started: true, pid: 42, ended: true, foreign: true}},
	{"another start with no end", cat(sOurs, "a", sOther, "theirs", eOurs0, "more"),
		scan{output: "atheirs", started: true, pid: 42, ended: true, foreign: true}},
	{"another start with no end, and more output", cat(sOurs, "a", sOther, "theirs\r\n", "and after\r\n"),
		scan{output: "atheirs\r\nand after\r\n", started: true, pid: 42, foreign: true}},
	{"another end whose start came before ours", cat(sOther, "t1", sOurs, "a", "t2", eOther, "b", eOurs0),
		scan{output: "at2b", started: true, pid: 42, ended: true, foreign: true}},
	{"nested other frames", cat(sOurs, "a", sOther, "1", sLonger, "2", eLonger, "3", eOther, "b", eOurs0),
		scan{output: "a123b", started: true, pid: 42, ended: true, foreign: true}},
}

func TestScannerFindsTheFrame(t *testing.T) {
	for _, c := range scannerCases {
		t.Run(c.name, func(t *testing.T) {
			if got := scanChunks(t, []byte(c.stream)); got != c.want {
				t.Errorf("scan = %+v\nwant   %+v", got, c.want)
			}
		})
	}
}

func TestScannerIsIndifferentToHowTheStreamIsSplit(t *testing.T) {
	for _, c := range scannerCases {
		t.Run(c.name, func(t *testing.T) {
			b := []byte(c.stream)
			for i := 0; i <= len(b); i++ {
				if got := scanChunks(t, b[:i], b[i:]); got != c.want {
					t.Fatalf("split at %d: scan = %+v\nwant              %+v", i, got, c.want)
				}
			}
			bytewise := make([][]byte, len(b))
			for i := range b {
				bytewise[i] = b[i : i+1]
			}
			if got := scanChunks(t, bytewise...); got != c.want {
				t.Errorf("byte by byte: scan = %+v\nwant                %+v", got, c.want)
			}
		})
	}
}

func TestScannerHoldsBackAPossibleMarkerAtTheEndOfAWrite(t *testing.T) {
	var out bytes.Buffer
	s := NewScanner(ours, &out)
	s.Write([]byte(sOurs + "out\x1b]7717;tmcp;E;abc;s3c"))
	if out.String() != "out" {
		t.Fatalf("output = %q; want the possible marker held back", out.String())
	}
	s.Write([]byte("ret;1"))
	if out.String() != "out" {
		t.Fatalf("output = %q; want the possible marker still held back", out.String())
	}
	s.Write([]byte("2\x07tail"))
	if status, ok := s.Ended(); !ok || status != 12 || out.String() != "out" {
		t.Errorf("Ended = %d, %v, output %q; want 12, true, \"out\"", status, ok, out.String())
	}
}

func TestScannerDemotedEndPassesOnWhatFollowedIt(t *testing.T) {
	var out bytes.Buffer
	s := NewScanner(ours, &out)
	s.Write([]byte(sOurs + "a" + eOurs7 + "b" + sOther))
	if status, ok := s.Ended(); !ok || status != 7 || out.String() != "a" || s.ForeignSeen() {
		t.Fatalf("before Demote: ended %v %d, output %q, foreign %v", ok, status, out.String(), s.ForeignSeen())
	}
	s.Demote()
	s.Write([]byte("c" + eOurs0 + "after"))
	if status, ok := s.Ended(); !ok || status != 0 || out.String() != "abc" || !s.ForeignSeen() || !s.SecretKnown() {
		t.Errorf("after Demote: ended %v %d, output %q, foreign %v, secret known %v; want true 0 \"abc\" true true",
			ok, status, out.String(), s.ForeignSeen(), s.SecretKnown())
	}
}

// Exit statuses are read whatever digits they hold: each digit once at
// least, in every place, and at the edges of a status (a shell's 0..255,
// 128+signal, and an int32's extremes, which some shells print).
func TestScannerReadsEveryExitStatusAsTheShellPrintedIt(t *testing.T) {
	statuses := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 19, 90, 99, 126, 127, 128, 129, 130, 137, 143, 199, 255, 256,
		-1, -9, -19, 1234567890, 987654321, 2147483647, -2147483648}
	for _, st := range statuses {
		if got := scanChunks(t, []byte(cat(sOurs, "out", end(ours, st)))); !got.ended || got.status != st || got.output != "out" {
			t.Errorf("status %d: scan = %+v; want it ended with status %d", st, got, st)
		}
		file := strconv.Itoa(st) + "\n"
		if got, ok := ParseStatusFile([]byte(file)); !ok || got != st {
			t.Errorf("ParseStatusFile(%q) = %d, %v; want %d, true", file, got, ok, st)
		}
	}
}

// A frame of ids at their longest, made of every byte an id may hold, is
// followed as any other: its markers are the longest the scanner reads.
func TestScannerFollowsAFrameOfTheLongestIDs(t *testing.T) {
	stream := cat("$ typed\r\n", string(StartMarker(longestIDs.ID, 42)), "out\r\n", string(EndMarker(longestIDs, 129)), "$ ")
	want := scan{output: "out\r\n", started: true, pid: 42, ended: true, status: 129}
	for split := range len(stream) + 1 {
		var out bytes.Buffer
		s := NewScanner(longestIDs, &out)
		s.Write([]byte(stream[:split]))
		s.Write([]byte(stream[split:]))
		got := scan{output: out.String(), started: s.Started(), pid: s.ShellPID(), unread: s.Unread(), foreign: s.ForeignSeen(), known: s.SecretKnown()}
		got.status, got.ended = s.Ended()
		if got != want {
			t.Fatalf("split at %d: scan = %+v\nwant              %+v", split, got, want)
		}
	}
	var out bytes.Buffer
	s := NewScanner(longestIDs, &out)
	s.Write([]byte("typed\r\n" + string(UnreadMarker(longestIDs.Unread))))
	if !s.Unread() {
		t.Errorf("the unread marker of the longest unread id is not seen")
	}
}

func TestScannerKeepsAnEndFollowedByUpTo64KiB(t *testing.T) {
	var out bytes.Buffer
	s := NewScanner(ours, &out)
	s.Write([]byte(sOurs + "a" + eOurs7))
	s.Write([]byte(strings.Repeat("x", maxAfter)))
	if status, ok := s.Ended(); !ok || status != 7 || out.String() != "a" || s.ForeignSeen() {
		t.Errorf("ended %v (status %d), %d bytes of output, foreign %v; want the end kept with %d bytes after it",
			ok, status, out.Len(), s.ForeignSeen(), maxAfter)
	}
}

func TestScannerDemotesAnEndFollowedByTooMuch(t *testing.T) {
	var out bytes.Buffer
	s := NewScanner(ours, &out)
	s.Write([]byte(sOurs + "a" + eOurs7))
	more := strings.Repeat("x", maxAfter+1)
	s.Write([]byte(more))
	if _, ok := s.Ended(); ok || out.String() != "a"+more || !s.ForeignSeen() {
		t.Errorf("ended %v, %d bytes of output, foreign %v; want the end given up and nothing lost", ok, out.Len(), s.ForeignSeen())
	}
}

func TestScannerPassesOnAHeldBackPrefixThatIsNoMarker(t *testing.T) {
	var out bytes.Buffer
	s := NewScanner(ours, &out)
	s.Write([]byte(sOurs + "out\x1b]77"))
	s.Write([]byte("x\r\n"))
	if want := "out\x1b]77x\r\n"; out.String() != want {
		t.Errorf("output = %q, want %q", out.String(), want)
	}
}

func TestScannerResumesAfterLostBytesWithoutReportingAStart(t *testing.T) {
	var out bytes.Buffer
	s := NewScanner(ours, &out)
	s.Write([]byte("echo of the typed line\r\n"))
	s.Resume()
	s.Write([]byte("rest of the output\r\n" + eOurs7))
	status, ok := s.Ended()
	if s.Started() || !ok || status != 7 || out.String() != "rest of the output\r\n" {
		t.Errorf("Started %v, Ended %d %v, output %q; want false, 7 true, the output after Resume",
			s.Started(), status, ok, out.String())
	}
}

// containsEndMarker reports whether b holds EndMarker(ours, n) for any int
// n, found by trying every status text in b rather than by parsing as the
// scanner does.
func containsEndMarker(b []byte) bool {
	prefix := []byte(intro + "E;" + ours.ID + ";" + ours.Secret + ";")
	for i := 0; ; {
		j := bytes.Index(b[i:], prefix)
		if j < 0 {
			return false
		}
		rest := b[i+j+len(prefix):]
		if k := bytes.IndexByte(rest, bel); k >= 0 {
			if n, err := strconv.Atoi(string(rest[:k])); err == nil && bytes.Contains(b, EndMarker(ours, n)) {
				return true
			}
		}
		i += j + 1
	}
}

func FuzzScanner(f *testing.F) {
	for _, c := range scannerCases {
		f.Add([]byte(c.stream), []byte{3, 17, 1})
	}
	f.Add([]byte(cat(sOurs, "\x1b]7717;tmcp;E;abc;s3cret;+0\x07")), []byte{40})
	f.Fuzz(func(t *testing.T, stream, cuts []byte) {
		whole := scanChunks(t, stream)
		if whole.ended && !containsEndMarker(stream) {
			t.Fatalf("Ended (status %d) for a stream without our end marker: %q", whole.status, stream)
		}
		if whole.ended && !bytes.Contains(stream, EndMarker(ours, whole.status)) {
			t.Fatalf("Ended with status %d, whose marker is not in the stream: %q", whole.status, stream)
		}
		if whole.unread && !bytes.Contains(stream, UnreadMarker(ours.Unread)) {
			t.Fatalf("Unread for a stream without our unread marker: %q", stream)
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
		if split := scanChunks(t, chunks...); split != whole {
			t.Fatalf("split into %d chunks: %+v\nin one Write:    %+v", len(chunks), split, whole)
		}
	})
}
