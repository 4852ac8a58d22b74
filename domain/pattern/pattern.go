// Package pattern compiles the patterns that wait_for_text waits for and
// search_panes looks for: plain substrings, or RE2 regular expressions. It
// is the one place that says which patterns are refused, and with which
// words, so that the two tools (and the watch_pane prompt that leads to
// one of them) refuse the same patterns alike.
package pattern

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/domain/fault"
)

// A Set is a list of patterns, compiled, that a text is matched against
// in the order given.
type Set struct {
	patterns []string
	res      []*regexp.Regexp // nil for substrings
}

// Compile checks and compiles patterns, substrings or, with regex, RE2
// regular expressions.
//
// A pattern that can match without matching a character is refused: it
// would match at once, before anything was printed and on every row,
// which no caller means. For a substring that is "", for a regular
// expression "" and any other that can match where no character is
// (a*, (x)?, ^, $, \b, (?m)^$), whatever text it is given.
//
// Errors: *fault.ArgumentError for the field "patterns" when there are no
// patterns, when one can match no character, or when one is not an RE2
// regular expression; each names the pattern.
func Compile(patterns []string, regex bool) (*Set, error) {
	if len(patterns) == 0 {
		return nil, &fault.ArgumentError{Field: "patterns", Reason: "is empty; give at least one pattern to look for"}
	}
	s := &Set{patterns: patterns}
	if regex {
		s.res = make([]*regexp.Regexp, len(patterns))
	}
	for i, p := range patterns {
		if p == "" {
			return nil, &fault.ArgumentError{Field: "patterns", Reason: "holds an empty pattern, which would match any text at once"}
		}
		if !regex {
			continue
		}
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, &fault.ArgumentError{Field: "patterns", Reason: fmt.Sprintf("%q is not an RE2 regular expression: %v", p, err)}
		}
		if matchesNothing(p) {
			return nil, &fault.ArgumentError{Field: "patterns",
				Reason: fmt.Sprintf("%q can match where no character is, so it would match any text at once; make it need at least one character", p)}
		}
		s.res[i] = re
	}
	return s, nil
}

// matchesNothing reports whether the RE2 regular expression p, which
// compiles, can match a string of no characters somewhere in some text:
// its assertions (^, $, \b, \B, \A, \z) are taken to hold, since in some
// text they do.
func matchesNothing(p string) bool {
	re, err := syntax.Parse(p, syntax.Perl)
	return err == nil && nullable(re.Simplify())
}

// nullable reports whether re matches the empty string, assertions
// holding.
func nullable(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary, syntax.OpStar, syntax.OpQuest:
		return true
	case syntax.OpLiteral:
		return len(re.Rune) == 0
	case syntax.OpCapture, syntax.OpPlus:
		return nullable(re.Sub[0])
	case syntax.OpRepeat:
		return re.Min == 0 || nullable(re.Sub[0])
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if !nullable(sub) {
				return false
			}
		}
		return true
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			if nullable(sub) {
				return true
			}
		}
		return false
	}
	// A character, a class, any character, no match.
	return false
}

// Patterns returns the patterns as given.
func (s *Set) Patterns() []string { return s.patterns }

// Regex reports whether the patterns are regular expressions.
func (s *Set) Regex() bool { return s.res != nil }

// Match returns the first pattern, as given, that matches text.
func (s *Set) Match(text string) (string, bool) {
	for i, p := range s.patterns {
		if s.res == nil && strings.Contains(text, p) || s.res != nil && s.res[i].MatchString(text) {
			return p, true
		}
	}
	return "", false
}

// Find is Match that also returns where in text the first pattern's
// leftmost match starts.
func (s *Set) Find(text string) (pattern string, at int, ok bool) {
	for i, p := range s.patterns {
		if s.res == nil {
			if at := strings.Index(text, p); at >= 0 {
				return p, at, true
			}
		} else if loc := s.res[i].FindStringIndex(text); loc != nil {
			return p, loc[0], true
		}
	}
	return "", 0, false
}
