package tmux

import (
	"strings"
	"unicode/utf8"
)

// tmux reads a send-keys argument as a key name when it knows the name and
// types it as literal text otherwise, so "Bogus" would reach the pane as
// five letters. Every name is therefore checked here first, against the
// part of tmux's own vocabulary (key-string.c) that means a key press:
// mouse, focus and placeholder names ("None", "Any") are left out.

// keyNames are tmux's key names, lower-cased; tmux matches them without
// regard to case.
var keyNames = func() map[string]bool {
	m := map[string]bool{}
	for _, k := range []string{
		"F1", "F2", "F3", "F4", "F5", "F6", "F7", "F8", "F9", "F10", "F11", "F12",
		"IC", "Insert", "DC", "Delete", "Home", "End",
		"NPage", "PageDown", "PgDn", "PPage", "PageUp", "PgUp",
		"Tab", "BTab", "Space", "BSpace", "Enter", "Escape",
		"Up", "Down", "Left", "Right",
		"KP/", "KP*", "KP-", "KP7", "KP8", "KP9", "KP+", "KP4", "KP5", "KP6",
		"KP1", "KP2", "KP3", "KPEnter", "KP0", "KP.",
	} {
		m[strings.ToLower(k)] = true
	}
	return m
}()

// validKey reports whether tmux reads name as a key press: modifiers
// ("C-", "M-", "S-", in either case, as tmux accepts them) before a key name
// or a single character, or "^" before a single character (tmux's other
// spelling of Ctrl).
func validKey(name string) bool {
	rest := name
	if len(rest) > 1 && rest[0] == '^' {
		rest = rest[1:]
		if utf8.RuneCountInString(rest) == 1 {
			return validChar(rest)
		}
	}
	for len(rest) > 2 && rest[1] == '-' {
		switch rest[0] {
		case 'C', 'c', 'M', 'm', 'S', 's':
			rest = rest[2:]
		default:
			// tmux gives up on a prefix it does not know.
			return false
		}
	}
	if keyNames[strings.ToLower(rest)] {
		return true
	}
	return utf8.RuneCountInString(rest) == 1 && validChar(rest)
}

// validChar reports whether s, one character, is a valid UTF-8 character
// other than NUL (which tmux cannot take in an argument).
func validChar(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return r != utf8.RuneError && r != 0
}
