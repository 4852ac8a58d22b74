package pattern

import (
	"errors"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/domain/fault"
)

// Both kinds of pattern are refused alike: none at all, one that matches
// without a character, one RE2 does not read. The error names the field
// and the pattern.
func TestCompileRefusesWhatWouldMatchAtOnce(t *testing.T) {
	cases := []struct {
		name     string
		patterns []string
		regex    bool
		reason   string // in the error's reason
	}{
		{"no patterns", nil, false, "is empty"},
		{"no regular expressions", []string{}, true, "is empty"},
		{"an empty substring", []string{"ok", ""}, false, "empty pattern"},
		{"an empty regular expression", []string{""}, true, "empty pattern"},
		{"a star", []string{"ok", "x*"}, true, `"x*" can match where no character is`},
		{"an optional group", []string{"(error)?"}, true, `"(error)?"`},
		{"a repeat from zero", []string{"a{0,3}"}, true, `"a{0,3}"`},
		{"an alternative that is empty", []string{"a|"}, true, `"a|"`},
		{"a start of line", []string{"^"}, true, `"^"`},
		{"an empty line", []string{"(?m)^$"}, true, `"(?m)^$"`},
		{"a word boundary", []string{`\b`}, true, `"\\b"`},
		{"not RE2", []string{"(a"}, true, `"(a" is not an RE2 regular expression`},
		{"a back reference", []string{`(a)\1`}, true, "is not an RE2 regular expression"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Compile(c.patterns, c.regex)
			var arg *fault.ArgumentError
			if !errors.As(err, &arg) || arg.Field != "patterns" || !strings.Contains(arg.Reason, c.reason) ||
				!errors.Is(err, fault.ErrInvalidArgument) {
				t.Fatalf("Compile(%q, %v) = %v; want an invalid patterns whose reason holds %q", c.patterns, c.regex, err, c.reason)
			}
		})
	}
}

func TestCompiledPatternsMatchInTheOrderGiven(t *testing.T) {
	cases := []struct {
		name     string
		patterns []string
		regex    bool
		text     string
		want     string // "" for no match
		at       int
	}{
		{"a substring", []string{"done"}, false, "all done\n", "done", 4},
		{"the first pattern given wins", []string{"b", "a"}, false, "ab", "b", 1},
		{"a substring is not read as a regular expression", []string{"a.c"}, false, "abc", "", 0},
		{"no match", []string{"x"}, false, "abc", "", 0},
		{"a regular expression", []string{`port (\d+) ready`}, true, "port 80 ready", `port (\d+) ready`, 0},
		{"anchors and optional parts within a character", []string{`^ok(ay)?$`}, true, "ok", `^ok(ay)?$`, 0},
		{"a word at a boundary", []string{`\bfail`}, true, "it fails", `\bfail`, 3},
		{"a regular expression in the order given", []string{"z", "[a-c]+"}, true, "xxbc", "[a-c]+", 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := Compile(c.patterns, c.regex)
			if err != nil {
				t.Fatal(err)
			}
			p, ok := s.Match(c.text)
			fp, at, fok := s.Find(c.text)
			if ok != (c.want != "") || p != c.want || fok != ok || fp != p || at != c.at {
				t.Errorf("Match = %q, %v; Find = %q, %d, %v; want %q at %d", p, ok, fp, at, fok, c.want, c.at)
			}
			if s.Regex() != c.regex || len(s.Patterns()) != len(c.patterns) {
				t.Errorf("Regex() = %v, Patterns() = %q", s.Regex(), s.Patterns())
			}
		})
	}
}
