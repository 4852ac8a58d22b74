package fake

import (
	"slices"
	"strconv"
	"testing"
)

// rowsOf returns every row of the screen, history first.
func rowsOf(s *screen, join bool) []string {
	return s.capture(-s.historySize(), s.height-1, join)
}

func TestScreenDisplaysText(t *testing.T) {
	for _, tc := range []struct {
		name  string
		input []string // written in this many pieces
		want  []string // the visible rows
	}{
		{"lines", []string{"one\r\ntwo\r\n"}, []string{"one", "two", ""}},
		{"carriage return overwrites", []string{"abcdef\rXY"}, []string{"XYcdef", "", ""}},
		{"line feed keeps the column", []string{"ab\ncd"}, []string{"ab", "  cd", ""}},
		{"backspace moves left", []string{"abc\b\bX"}, []string{"aXc", "", ""}},
		{"backspace stops at column 0", []string{"\b\bab"}, []string{"ab", "", ""}},
		{"echo of an erased character", []string{"abc\b \b"}, []string{"ab", "", ""}},
		{"tab to the next stop", []string{"a\tb"}, []string{"a       b", "", ""}},
		{"trailing blanks are trimmed", []string{"a    \r\n"}, []string{"a", "", ""}},
		{"CSI sequences are not displayed", []string{"\x1b[1;31mred\x1b[0m \x1b[2K\x1b[?25lok"}, []string{"red ok", "", ""}},
		{"OSC ended by BEL", []string{"\x1b]0;title\x07text"}, []string{"text", "", ""}},
		{"OSC ended by ST", []string{"\x1b]7717;tmcp;S;x\x1b\\text"}, []string{"text", "", ""}},
		{"short escapes", []string{"\x1b=\x1b(Bab\x1b7c"}, []string{"abc", "", ""}},
		{"escape split across writes", []string{"a\x1b", "[3", "1mb\x1b]0;t", "itle\x07c"}, []string{"abc", "", ""}},
		{"UTF-8 split across writes", []string{"caf\xc3", "\xa9 \xe2\x9c", "\x93"}, []string{"café ✓", "", ""}},
		{"other controls are ignored", []string{"a\x00\x07\x0eb"}, []string{"ab", "", ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newScreen(12, 3, 100)
			for _, in := range tc.input {
				s.write([]byte(in))
			}
			if got := s.capture(0, 2, false); !slices.Equal(got, tc.want) {
				t.Errorf("screen = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestScreenWrapsAtTheRightMargin(t *testing.T) {
	s := newScreen(5, 4, 100)
	s.write([]byte("abcdefghijkl\r\nxy"))
	if got, want := rowsOf(s, false), []string{"abcde", "fghij", "kl", "xy"}; !slices.Equal(got, want) {
		t.Errorf("rows = %q, want %q", got, want)
	}
	if got, want := rowsOf(s, true), []string{"abcdefghijkl", "xy"}; !slices.Equal(got, want) {
		t.Errorf("joined rows = %q, want %q", got, want)
	}
}

// As in xterm and tmux, the cursor waits on the last column: a line of
// exactly the width followed by a line end is not a wrapped line.
func TestScreenLineOfExactlyTheWidthIsNotWrapped(t *testing.T) {
	s := newScreen(5, 3, 100)
	s.write([]byte("abcde\r\nfg"))
	if got, want := rowsOf(s, true), []string{"abcde", "fg", ""}; !slices.Equal(got, want) {
		t.Errorf("joined rows = %q, want %q", got, want)
	}
}

// Joining stays within the range asked for: a capture that ends on a
// wrapped row returns its part, and one that starts on a continuation
// starts there.
func TestScreenJoinsOnlyWithinTheRange(t *testing.T) {
	s := newScreen(4, 3, 100)
	s.write([]byte("abcdefghij"))
	if got, want := s.capture(0, 1, true), []string{"abcdefgh"}; !slices.Equal(got, want) {
		t.Errorf("rows 0..1 joined = %q, want %q", got, want)
	}
	if got, want := s.capture(1, 2, true), []string{"efghij"}; !slices.Equal(got, want) {
		t.Errorf("rows 1..2 joined = %q, want %q", got, want)
	}
}

// A line feed with a wrap pending (no carriage return) leaves the cursor
// past the last column of a blank row, which the next character wraps:
// the join keeps that row's blank columns.
func TestScreenJoinKeepsTheColumnsOfABlankWrappedRow(t *testing.T) {
	s := newScreen(5, 3, 100)
	s.write([]byte("abcde\nf"))
	if got, want := rowsOf(s, true), []string{"abcde", "     f"}; !slices.Equal(got, want) {
		t.Errorf("joined rows = %q, want %q", got, want)
	}
}

func TestScreenScrollsIntoHistory(t *testing.T) {
	s := newScreen(10, 3, 100)
	s.write([]byte("1\r\n2\r\n3\r\n4\r\n5"))
	if got := s.historySize(); got != 2 {
		t.Errorf("history size = %d, want 2", got)
	}
	if got, want := s.capture(-2, 2, false), []string{"1", "2", "3", "4", "5"}; !slices.Equal(got, want) {
		t.Errorf("rows -2..2 = %q, want %q", got, want)
	}
	if got, want := s.capture(-1, -1, false), []string{"2"}; !slices.Equal(got, want) {
		t.Errorf("row -1 = %q, want the newest history row %q", got, want)
	}
}

// A wrapped line that scrolled half into history still joins.
func TestScreenJoinsAcrossTheHistoryBoundary(t *testing.T) {
	s := newScreen(4, 2, 100)
	s.write([]byte("abcdefgh\r\nz"))
	if got, want := s.capture(-1, 1, true), []string{"abcdefgh", "z"}; !slices.Equal(got, want) {
		t.Errorf("joined rows = %q, want %q", got, want)
	}
}

// History is trimmed the way tmux trims it: once full, the next row to
// scroll off drops the oldest tenth of the limit (at least one row) first.
func TestScreenTrimsHistoryInBatches(t *testing.T) {
	for _, tc := range []struct {
		limit int
		lines int // lines scrolled into history
		want  int // history size after
		first int // number of the oldest line kept
	}{
		{limit: 20, lines: 20, want: 20, first: 1},
		{limit: 20, lines: 21, want: 19, first: 3}, // 2 dropped, then one added
		{limit: 20, lines: 22, want: 20, first: 3}, // fills again
		{limit: 20, lines: 23, want: 19, first: 5}, // and trims again
		{limit: 100, lines: 101, want: 91, first: 11},
		{limit: 5, lines: 6, want: 5, first: 2}, // limit/10 is 0: one row
		{limit: 1, lines: 3, want: 1, first: 3},
	} {
		s := newScreen(10, 1, tc.limit)
		for i := 1; i <= tc.lines+1; i++ { // the last line stays on the screen
			if i > 1 {
				s.write([]byte("\r\n"))
			}
			s.write([]byte(strconv.Itoa(i)))
		}
		hist := s.capture(-s.historySize(), -1, false)
		if len(hist) != tc.want || hist[0] != strconv.Itoa(tc.first) {
			t.Errorf("limit %d after %d lines: history %d rows from %q, want %d rows from %q",
				tc.limit, tc.lines, len(hist), first(hist), tc.want, strconv.Itoa(tc.first))
		}
	}
}

func TestScreenWithoutHistoryKeepsNone(t *testing.T) {
	s := newScreen(10, 2, 0)
	s.write([]byte("1\r\n2\r\n3\r\n4"))
	if got := s.historySize(); got != 0 {
		t.Errorf("history size = %d, want 0", got)
	}
	if got, want := s.capture(0, 1, false), []string{"3", "4"}; !slices.Equal(got, want) {
		t.Errorf("screen = %q, want %q", got, want)
	}
}

func TestScreenNotesBracketedPasteRequests(t *testing.T) {
	s := newScreen(10, 2, 10)
	s.write([]byte("\x1b[?2004h"))
	if !s.bracketed {
		t.Fatal("CSI ? 2004 h did not turn bracketed paste on")
	}
	s.write([]byte("\x1b[?2004l"))
	if s.bracketed {
		t.Error("CSI ? 2004 l did not turn bracketed paste off")
	}
}

func first(rows []string) string {
	if len(rows) == 0 {
		return ""
	}
	return rows[0]
}
