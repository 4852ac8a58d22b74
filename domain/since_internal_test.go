package domain

import (
	"strings"
	"testing"
)

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
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := completePrefix([]byte(c.in)); got != c.want {
				t.Errorf("completePrefix(%.20q) = %d, want %d", c.in, got, c.want)
			}
		})
	}
}
