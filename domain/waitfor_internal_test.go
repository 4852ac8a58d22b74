package domain

import (
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/domain/pattern"
)

// Output shorter than the pattern is no match, and the matcher goes on.
func TestTextMatcherTakesOutputShorterThanThePattern(t *testing.T) {
	m := newTextMatcher(mustCompile(t, []string{"compiled"}, false))
	for _, out := range []string{"ok\r\n", "", "c", "ompiled\r\n"} {
		p, ok := m.feed([]byte(out))
		if want := out == "ompiled\r\n"; ok != want || ok && p != "compiled" {
			t.Fatalf("after %q: matched %q %v, want %v", out, p, ok, want)
		}
	}
}

// A pattern may span lines; the text the matcher lets go of, however much
// came before, never holds the start of a match still to come.
func TestTextMatcherFindsAPatternSpanningLinesAfterMuchOutput(t *testing.T) {
	const pattern = "end of\nthe run"
	m := newTextMatcher(mustCompile(t, []string{pattern}, false))
	if _, ok := m.feed([]byte(strings.Repeat("x", 10<<10) + "\r\nend of\r\n")); ok {
		t.Fatal("matched half the pattern")
	}
	if p, ok := m.feed([]byte("the run\r\n")); !ok || p != pattern {
		t.Fatalf("the second half: matched %q %v", p, ok)
	}
}

// mustCompile compiles patterns that the test knows are good.
func mustCompile(t *testing.T, patterns []string, regex bool) *pattern.Set {
	t.Helper()
	set, err := pattern.Compile(patterns, regex)
	if err != nil {
		t.Fatal(err)
	}
	return set
}
