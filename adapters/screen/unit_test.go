package screen

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// These tests need no screen: they specify the pure parts of the adapter.

func TestStuffEscapeHidesEverythingScreenWouldRead(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain text", "plain text"},
		{`a\b`, `a\\b`},
		{"a^b", `a\^b`},
		{"$HOME ${X}", `\$HOME \${X}`},
		{`\101`, `\\101`},
		{"nul\x00byte", `nul\000byte`},
		{"quotes ' \" and % stay", "quotes ' \" and % stay"},
		{"é€\x1b\r\n\t", "é€\x1b\r\n\t"},
	} {
		if got := stuffEscape([]byte(tc.in)); got != tc.want {
			t.Errorf("stuffEscape(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSplitPiecesKeepsLimitsAndRunes(t *testing.T) {
	text := []byte(strings.Repeat("ab^$\\€😀\x00x", 300))
	for _, limit := range []int{4, 7, 480} {
		pieces := splitPieces(text, limit, stuffCost)
		if got := bytes.Join(pieces, nil); !bytes.Equal(got, text) {
			t.Fatalf("limit %d: the pieces do not add up to the text", limit)
		}
		for i, p := range pieces {
			if n := len(stuffEscape(p)); n > limit {
				t.Errorf("limit %d: piece %d is %d bytes escaped", limit, i, n)
			}
			if !utf8.Valid(p) {
				t.Errorf("limit %d: piece %d cuts a UTF-8 sequence: %q", limit, i, p)
			}
		}
	}
	if got := splitPieces(nil, 10, func(byte) int { return 1 }); len(got) != 0 {
		t.Errorf("splitPieces(nil) = %q, want no pieces", got)
	}
}

func TestKeyBytes(t *testing.T) {
	for _, tc := range []struct {
		name      string
		appCursor bool
		want      string
	}{
		{"Enter", false, "\r"},
		{"enter", false, "\r"},
		{"Escape", false, "\x1b"},
		{"Tab", false, "\t"},
		{"BTab", false, "\x1b[Z"},
		{"BSpace", false, "\x7f"},
		{"Space", false, " "},
		{"C-Space", false, "\x00"},
		{"Up", false, "\x1b[A"},
		{"Up", true, "\x1bOA"},
		{"Down", false, "\x1b[B"},
		{"Right", false, "\x1b[C"},
		{"Left", true, "\x1bOD"},
		{"C-Left", true, "\x1b[1;5D"},
		{"S-Up", false, "\x1b[1;2A"},
		{"M-Right", false, "\x1b[1;3C"},
		{"Home", false, "\x1b[1~"},
		{"End", false, "\x1b[4~"},
		{"C-Home", false, "\x1b[1;5H"},
		{"S-End", false, "\x1b[1;2F"},
		{"PageUp", false, "\x1b[5~"},
		{"PPage", false, "\x1b[5~"},
		{"NPage", false, "\x1b[6~"},
		{"PgDn", false, "\x1b[6~"},
		{"IC", false, "\x1b[2~"},
		{"DC", false, "\x1b[3~"},
		{"C-DC", false, "\x1b[3;5~"},
		{"F1", false, "\x1bOP"},
		{"F4", true, "\x1bOS"},
		{"S-F2", false, "\x1b[1;2Q"},
		{"F5", false, "\x1b[15~"},
		{"F10", false, "\x1b[21~"},
		{"F12", false, "\x1b[24~"},
		{"C-F12", false, "\x1b[24;5~"},
		{"C-a", false, "\x01"},
		{"C-c", false, "\x03"},
		{"C-z", false, "\x1a"},
		{"C-A", false, "\x01"},
		{`C-\`, false, "\x1c"},
		{"C-]", false, "\x1d"},
		{"C-[", false, "\x1b"},
		{"C-@", false, "\x00"},
		{"C-?", false, "\x7f"},
		{"M-x", false, "\x1bx"},
		{"M-C-x", false, "\x1b\x18"},
		{"C-M-x", false, "\x1b\x18"},
		{"M-Enter", false, "\x1b\r"},
		{"M-Escape", false, "\x1b\x1b"},
		{"M-Tab", false, "\x1b\t"},
		{"M-BTab", false, "\x1b\x1b[Z"},
		{"M-BSpace", false, "\x1b\x7f"},
		{"M-Space", false, "\x1b "},
		{"C-M-Space", false, "\x1b\x00"},
		{"C-M-S-Up", false, "\x1b[1;8A"},
		{"M-S-F5", false, "\x1b[15;4~"},
		{"M-é", false, "\x1bé"},
		{"x", false, "x"},
		{"€", false, "€"},
		{"^", false, "^"},
	} {
		got, err := keyBytes(tc.name, tc.appCursor)
		if err != nil || string(got) != tc.want {
			t.Errorf("keyBytes(%q, appCursor %v) = %q, %v; want %q", tc.name, tc.appCursor, got, err, tc.want)
		}
	}
}

func TestKeyBytesRefusesNamesWithoutBytes(t *testing.T) {
	for _, name := range []string{"", "NotAKey", "xy", "C-1", "C-é", "S-1", "C-Enter", "S-Enter", "C-Escape", "C-Tab",
		"C-C-c", "X-a", "\x01", "\x7f", "C-", "F13", "M-",
		// Modifiers the domain refuses for the keys, as tmux cannot send
		// them: Shift before a character or a key of one code (a
		// shifted character is named by itself, Shift with Tab is BTab),
		// Ctrl before those keys or a character without a control code.
		"S-Tab", "M-S-Tab", "S-BTab", "S-Space", "S-BSpace", "S-Escape", "S-a", "S-A", "M-S-a", "C-S-a", "S-é",
		"C-BSpace", "C-BTab", "C-M-Enter", "C-2", "C-6", "C--", "C-/", "C-M-2", "C-{", "C-日"} {
		if got, err := keyBytes(name, false); !errors.Is(err, ports.ErrUnknownKey) {
			t.Errorf("keyBytes(%q) = %q, %v; want an error wrapping ErrUnknownKey", name, got, err)
		}
	}
}

func TestKeysBytesTranslatesAllOrNothing(t *testing.T) {
	got, err := keysBytes([]string{"a", "Enter", "C-c"}, false)
	if err != nil || string(got) != "a\r\x03" {
		t.Errorf("keysBytes(a Enter C-c) = %q, %v; want %q", got, err, "a\r\x03")
	}
	got, err = keysBytes([]string{"a", "Bogus", "Enter"}, false)
	if !errors.Is(err, ports.ErrUnknownKey) || got != nil {
		t.Errorf("keysBytes(a Bogus Enter) = %q, %v; want nothing and ErrUnknownKey", got, err)
	}
}

func TestParseStatReadsFieldsAfterTheCommandName(t *testing.T) {
	line := "4242 (a (weird) name) S 17 4242 4242 34816 4250 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 200"
	st, err := parseStat(4242, []byte(line))
	if err != nil {
		t.Fatal(err)
	}
	want := procStat{pid: 4242, comm: "a (weird) name", ppid: 17, pgrp: 4242, ttyNr: 34816, tpgid: 4250, start: 987654}
	if st != want {
		t.Errorf("parseStat = %+v, want %+v", st, want)
	}
	if _, err := parseStat(1, []byte("1 (x) S 0")); err == nil {
		t.Error("parseStat of a short line: no error")
	}
}

func TestParseListAndVersion(t *testing.T) {
	out := "There are screens on:\n" +
		"\t8916.work\t(11/30/26 11:08:23)\t(Detached)\n" +
		"\t8916.work-queryA\t(11/30/26 11:08:23)\t(Detached)\n" +
		"\t77.old\t(11/30/26 10:42:57)\t(Dead ???)\n" +
		"\t9001.other.name\t(11/30/26 11:08:23)\t(Attached)\n" +
		"3 Sockets in /run/screen/S-root.\n"
	refs, dir := parseList(out)
	want := []sessionRef{{name: "8916.work", pid: 8916}, {name: "9001.other.name", pid: 9001}}
	if !slices.Equal(refs, want) || dir != "/run/screen/S-root" {
		t.Errorf("parseList = %+v, %q; want %+v, %q", refs, dir, want, "/run/screen/S-root")
	}
	v, major, minor, ok := parseVersion("Screen version 4.09.00 (GNU) 30-Jan-22\n")
	if !ok || v != "4.09.00" || major != 4 || minor != 9 {
		t.Errorf("parseVersion = %q %d %d %v, want 4.09.00 4 9 true", v, major, minor, ok)
	}
	if _, _, _, ok := parseVersion("tmux 3.3a"); ok {
		t.Error("parseVersion read a tmux version")
	}
}

func TestModeScannerFollowsModesAcrossReads(t *testing.T) {
	var m modeScanner
	m.scan([]byte("text\x1b[?1h"))
	if !m.appCursor || m.bracketed {
		t.Fatalf("after ESC[?1h: %+v", m)
	}
	m.scan([]byte("\x1b[?20"))
	m.scan([]byte("04h more"))
	if !m.bracketed {
		t.Errorf("a sequence split across reads was missed: %+v", m)
	}
	m.scan([]byte("\x1b[?1;2004l"))
	if m.appCursor || m.bracketed {
		t.Errorf("after ESC[?1;2004l: %+v", m)
	}
	m.scan([]byte("\x1b[?2004h\x1b"))
	m.scan([]byte("c"))
	if m.bracketed {
		t.Errorf("a reset (ESC c) split across reads was missed: %+v", m)
	}
	m.scan([]byte("\x1b[1h\x1b[?25h\x1b]0;title\x07"))
	if m.appCursor || m.bracketed {
		t.Errorf("other sequences changed the modes: %+v", m)
	}
}

func TestSliceRowsFollowsTheRowConvention(t *testing.T) {
	// Two history rows, then a screen of three.
	lines := []string{"h1", "h2", "s0", "s1", "s2"}
	for _, tc := range []struct {
		start, end int
		want       []string
	}{
		{0, 2, []string{"s0", "s1", "s2"}},
		{-2, 2, lines},
		{-1, -1, []string{"h2"}},
		{-2, -2, []string{"h1"}},
		{-1, 0, []string{"h2", "s0"}},
		{-9, 0, []string{"h1", "h2", "s0"}},
		{2, 9, []string{"s2"}},
	} {
		if got := sliceRows(lines, 3, tc.start, tc.end); !slices.Equal(got, tc.want) {
			t.Errorf("rows %d..%d = %q, want %q", tc.start, tc.end, got, tc.want)
		}
	}
	if got := splitRows("a  \n\n b \n"); !slices.Equal(got, []string{"a", "", " b"}) {
		t.Errorf("splitRows = %q", got)
	}
	if got := splitRows("\n"); !slices.Equal(got, []string{""}) {
		t.Errorf("splitRows of one blank row = %q", got)
	}
}

func TestParsePaneID(t *testing.T) {
	for id, want := range map[ports.PaneID]int{"%0": 0, "%7": 7, "%42": 42} {
		if n, err := parsePaneID(id); err != nil || n != want {
			t.Errorf("parsePaneID(%q) = %d, %v; want %d", id, n, err, want)
		}
	}
	for _, id := range []ports.PaneID{"", "%", "7", "%-1", "%07", "%1a", "@1", "%+1"} {
		if _, err := parsePaneID(id); !errors.Is(err, ports.ErrPaneNotFound) {
			t.Errorf("parsePaneID(%q) = %v, want an error wrapping ErrPaneNotFound", id, err)
		}
	}
}

func TestPlainPathAndChildEnv(t *testing.T) {
	if !plainPath("/tmp/screen-mcp-123/logs_1.x") || plainPath("/tmp/a b") || plainPath("/tmp/%n") ||
		plainPath("/tmp/$x") || plainPath("relative") {
		t.Error("plainPath misjudges a path")
	}
	env := childEnv([]string{"STY=1.x", "WINDOW=3", "SCREENDIR=/old", "HOME=/root"}, "/new")
	if want := []string{"HOME=/root", "SCREENDIR=/new"}; !slices.Equal(env, want) {
		t.Errorf("childEnv = %q, want %q", env, want)
	}
	if env := childEnv([]string{"SCREENDIR=/old"}, ""); !slices.Equal(env, []string{"SCREENDIR=/old"}) {
		t.Errorf("childEnv without a directory = %q", env)
	}
}
