package domain

import (
	"strings"
	"testing"
)

// completePrefix is how much of data capture_since hands out while more
// output may come.
func completePrefix(data []byte) int {
	_, _, keep := sinceText(data, false, 0, 0)
	return keep
}

// capture_since hands out output up to the last escape sequence or
// character that is not finished yet, and no further: the rest stays
// behind the cursor for the next call. TestCompletePrefix has the common
// cases; these are the edges of each rule.
func TestCompletePrefixHoldsBackExactlyWhatIsUnfinished(t *testing.T) {
	longTitle := "\x1b]0;" + strings.Repeat("t", 64<<10-4) // 64 KiB, unfinished
	cases := []struct {
		name string
		in   string
		want int
	}{
		{"a CSI sequence whose final byte is the lowest, @", "ab\x1b[2@", 6},
		{"a CSI sequence whose final byte is the highest, ~", "ab\x1b[200~", 8},
		{"an unfinished sequence at the very start", "\x1b[3", 0},
		{"the first byte of a character and nothing else", "\xe2", 0},
		{"a character cut after a continuation byte 0x80", "a\xe2\x80", 1},
		{"an unfinished title holding a backslash", "ab\x1b]0;C:\\dir", 2},
		{"an unfinished title of 64 KiB, the longest looked back over", longTitle, 0},
		{"output after a title of 64 KiB", longTitle + "\x07ok", len(longTitle) + 3},
		{"an unfinished title longer than 64 KiB is handed out", longTitle + "t", len(longTitle) + 1},
		{"an ESC that ends a title and starts a sequence", "ab\x1b]0;t\x1b[3", 7},
		{"a screen title, which ESC k begins", "ab\x1bktitle", 2},
		{"an unfinished CSI after a line feed inside it", "ab\x1b[\n3", 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := completePrefix([]byte(c.in)); got != c.want {
				t.Errorf("completePrefix(%.20q) = %d, want %d", c.in, got, c.want)
			}
		})
	}
}

// What capture_since hands out says what of it the text does not carry,
// and what it holds back is counted by the call that reads it whole; once
// no more output can come, an unfinished end is handed out, and counted.
func TestSinceTextAccountsForWhatItHandsOut(t *testing.T) {
	longTitle := "\x1b]0;" + strings.Repeat("t", 64<<10)
	cases := []struct {
		name     string
		in       string
		ended    bool
		text     string
		replaced int64
		unended  int64
		keep     int
	}{
		{"bytes that are not UTF-8", "a\xff\x00b\r\n", false, "a\uFFFDb\n", 2, 0, 6},
		{"an unfinished OSC is held back, and not counted", "ok\xfe\r\n\x1b]1\r\n2", false, "ok\uFFFD\n", 1, 0, 5},
		{"a control inside an unfinished CSI is not carried out twice", "a\x1b[\n", false, "a", 0, 0, 1},
		{"an unfinished OSC of a pane that ended", "ok\r\n\x1b]1\r\n2", true, "ok\n", 0, 6, 10},
		{"a cut character of a pane that ended", "ok\xe2\x82", true, "ok", 0, 2, 4},
		{"an unfinished OSC longer than the bound", "ok" + longTitle, false, "ok", 0, int64(len(longTitle)), len(longTitle) + 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr, loss, keep := sinceText([]byte(c.in), c.ended, 0, 0)
			if tr.Text != c.text || loss.Replaced != c.replaced || loss.Unterminated != c.unended || keep != c.keep {
				t.Errorf("sinceText(%.30q) = %q, %+v, keep %d; want %q, replaced %d, unterminated %d, keep %d",
					c.in, tr.Text, loss, keep, c.text, c.replaced, c.unended, c.keep)
			}
		})
	}
}
