package screen

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// Keys are typed as the bytes a terminal sends for them, since screen has
// no key names of its own for input: xterm's sequences, with the editing
// keys as screen's terminal description ("screen" in terminfo) has them,
// which is what programs in a screen window expect.

// csiKeys are the keys sent as CSI <n> ~, by lower-case name.
var csiKeys = map[string]int{
	"home": 1, "ic": 2, "insert": 2, "dc": 3, "delete": 3, "end": 4,
	"pageup": 5, "ppage": 5, "pgup": 5, "pagedown": 6, "npage": 6, "pgdn": 6,
	"f5": 15, "f6": 17, "f7": 18, "f8": 19, "f9": 20, "f10": 21, "f11": 23, "f12": 24,
}

// letterKeys are the keys sent as a final letter: after SS3 (ESC O) for
// F1-F4 and for the cursor keys in application mode, after CSI otherwise.
var letterKeys = map[string]byte{
	"up": 'A', "down": 'B', "right": 'C', "left": 'D',
	"f1": 'P', "f2": 'Q', "f3": 'R', "f4": 'S',
}

// plainKeys are the keys that are one byte (or a fixed sequence) and take
// no modifier but Meta (an ESC before them), and Control for Space (NUL).
var plainKeys = map[string]string{
	"enter": "\r", "escape": "\x1b", "tab": "\t", "bspace": "\x7f", "space": " ", "btab": "\x1b[Z",
}

// modifiers of a key name.
type modifiers struct{ ctrl, meta, shift bool }

// param is the modifier parameter of xterm's sequences: 1 plus 1 for
// Shift, 2 for Meta, 4 for Control.
func (m modifiers) param() int {
	p := 1
	if m.shift {
		p++
	}
	if m.meta {
		p += 2
	}
	if m.ctrl {
		p += 4
	}
	return p
}

func (m modifiers) none() bool { return !m.ctrl && !m.meta && !m.shift }

// keyBytes returns the bytes a terminal sends for the named key: a name of
// the contract's send_keys vocabulary, "C-", "M-" and "S-" prefixes
// (each at most once) followed by a key name or one character, where the
// key has a code with those modifiers, as the domain's vocabulary has it
// (domain/policy) and tmux sends them. appCursor selects the cursor keys'
// application mode (DECCKM). It returns an error wrapping
// ports.ErrUnknownKey for a name that stands for no bytes, Shift before a
// character or Tab among them: a shifted character is named by itself,
// and Shift with Tab is BTab, as the domain tells the caller.
func keyBytes(name string, appCursor bool) ([]byte, error) {
	unknown := func() ([]byte, error) {
		return nil, fmt.Errorf("key %q: %w", name, ports.ErrUnknownKey)
	}
	var m modifiers
	rest := name
	for len(rest) > 2 && rest[1] == '-' {
		var flag *bool
		switch rest[0] {
		case 'C':
			flag = &m.ctrl
		case 'M':
			flag = &m.meta
		case 'S':
			flag = &m.shift
		}
		if flag == nil || *flag {
			break
		}
		*flag = true
		rest = rest[2:]
	}
	lower := strings.ToLower(rest)
	meta := func(b string) []byte {
		if m.meta {
			return []byte("\x1b" + b)
		}
		return []byte(b)
	}

	if n, ok := csiKeys[lower]; ok {
		if m.none() {
			return []byte(fmt.Sprintf("\x1b[%d~", n)), nil
		}
		// Modified Home and End have no form in screen's terminfo
		// (khome=\E[1~, kend=\E[4~); xterm's is the one programs know.
		switch n {
		case 1:
			return []byte(fmt.Sprintf("\x1b[1;%dH", m.param())), nil
		case 4:
			return []byte(fmt.Sprintf("\x1b[1;%dF", m.param())), nil
		}
		return []byte(fmt.Sprintf("\x1b[%d;%d~", n, m.param())), nil
	}
	if c, ok := letterKeys[lower]; ok {
		switch {
		case !m.none():
			return []byte(fmt.Sprintf("\x1b[1;%d%c", m.param(), c)), nil
		case c >= 'P' || appCursor:
			return []byte{0x1b, 'O', c}, nil
		default:
			return []byte{0x1b, '[', c}, nil
		}
	}
	if seq, ok := plainKeys[lower]; ok {
		switch {
		case m.shift:
			return unknown()
		case m.ctrl && lower == "space":
			return meta("\x00"), nil
		case m.ctrl:
			return unknown()
		}
		return meta(seq), nil
	}

	r, size := utf8.DecodeRuneInString(rest)
	if size != len(rest) || r == utf8.RuneError || r < 0x20 || r == 0x7f {
		return unknown()
	}
	if m.shift {
		// A shifted character is named by itself: A, not S-a.
		return unknown()
	}
	if m.ctrl {
		c, ok := control(r)
		if !ok {
			return unknown()
		}
		return meta(string(c)), nil
	}
	return meta(string(r)), nil
}

// control returns the control character a terminal sends for Control and
// r: C-a to C-z, and C-@ C-[ C-\ C-] C-^ C-_ C-? as ASCII defines them.
func control(r rune) (byte, bool) {
	switch {
	case r >= 'a' && r <= 'z':
		return byte(r-'a') + 1, true
	case r >= '@' && r <= '_':
		return byte(r - '@'), true
	case r == '?':
		return 0x7f, true
	case r == ' ':
		return 0, true
	}
	return 0, false
}

// keysBytes translates every name, or returns the first name's error and
// nothing.
func keysBytes(names []string, appCursor bool) ([]byte, error) {
	var out []byte
	for _, k := range names {
		b, err := keyBytes(k, appCursor)
		if err != nil {
			return nil, err
		}
		out = append(out, b...)
	}
	return out, nil
}
