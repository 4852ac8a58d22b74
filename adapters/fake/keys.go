package fake

import (
	"strings"
	"unicode/utf8"
)

// The fake's key vocabulary is the contract's: optional modifiers "C-",
// "M-" and "S-" (each at most once, in any order) before a named key
// (matched without regard to case) or a single printable character, where
// the key has a code with them (domain/policy): Enter, Escape, Tab, BTab
// and BSpace take M- alone, Space C- and M-, a character M- and, where it
// has a control character, C-. What the fake delivers for each is what an
// xterm-like terminal would send, so that its scripted shell sees C-c as
// byte 3 and Enter as "\r".

// namedKeyBytes maps lower-cased key names to the bytes the key sends.
var namedKeyBytes = map[string]string{
	"enter": "\r", "escape": "\x1b", "tab": "\t", "btab": "\x1b[Z",
	"space": " ", "bspace": "\x7f",
	"up": "\x1b[A", "down": "\x1b[B", "right": "\x1b[C", "left": "\x1b[D",
	"home": "\x1b[1~", "end": "\x1b[4~",
	"insert": "\x1b[2~", "ic": "\x1b[2~", "delete": "\x1b[3~", "dc": "\x1b[3~",
	"pageup": "\x1b[5~", "pgup": "\x1b[5~", "ppage": "\x1b[5~",
	"pagedown": "\x1b[6~", "pgdn": "\x1b[6~", "npage": "\x1b[6~",
	"f1": "\x1bOP", "f2": "\x1bOQ", "f3": "\x1bOR", "f4": "\x1bOS",
	"f5": "\x1b[15~", "f6": "\x1b[17~", "f7": "\x1b[18~", "f8": "\x1b[19~",
	"f9": "\x1b[20~", "f10": "\x1b[21~", "f11": "\x1b[23~", "f12": "\x1b[24~",
}

// oneCodeKeys are the named keys of one code, which take no Shift, and
// no Ctrl but Space's (NUL).
var oneCodeKeys = map[string]bool{"enter": true, "escape": true, "tab": true, "btab": true, "bspace": true, "space": true}

// keyBytes returns the bytes that pressing the named key sends, and false
// when the name is not a key.
func keyBytes(name string) ([]byte, bool) {
	var ctrl, meta, shift bool
	rest := name
	for len(rest) > 2 && rest[1] == '-' {
		var seen *bool
		switch rest[0] {
		case 'C':
			seen = &ctrl
		case 'M':
			seen = &meta
		case 'S':
			seen = &shift
		default:
			return nil, false
		}
		if *seen {
			return nil, false
		}
		*seen = true
		rest = rest[2:]
	}
	var out []byte
	lower := strings.ToLower(rest)
	if b, ok := namedKeyBytes[lower]; ok {
		// Modified special keys have their own sequences in xterm; the
		// fake's programs do not tell them apart, so only the plain
		// sequence, after ESC for Meta, is sent.
		out = []byte(b)
		if oneCodeKeys[lower] {
			switch {
			case shift || ctrl && lower != "space":
				return nil, false
			case ctrl:
				out = []byte{0}
			}
		}
	} else {
		r, n := utf8.DecodeRuneInString(rest)
		if n != len(rest) || r == utf8.RuneError || r < 0x20 || r == 0x7f || shift {
			// A shifted character is named by itself.
			return nil, false
		}
		out = []byte(string(r))
		if ctrl {
			c, ok := controlByte(r)
			if !ok {
				return nil, false
			}
			out = []byte{c}
		}
	}
	if meta {
		out = append([]byte{0x1b}, out...)
	}
	return out, true
}

// controlByte returns the byte Ctrl with r sends, as xterm does.
func controlByte(r rune) (byte, bool) {
	switch {
	case r >= 'a' && r <= 'z':
		return byte(r-'a') + 1, true
	case r >= '@' && r <= '_': // '@', 'A'..'Z', '[', '\\', ']', '^', '_'
		return byte(r - '@'), true
	case r == ' ':
		return 0, true
	case r == '?':
		return 0x7f, true
	}
	return 0, false
}
