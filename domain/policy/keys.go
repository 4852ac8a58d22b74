package policy

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tmux-mcp/tmux-mcp/domain/fault"
)

// Key names are the contract's vocabulary for send_keys: the names a
// person would write ("Enter", "C-c", "M-x", "Up", "F5"). The domain
// checks every name before anything is sent, so an unknown name is an
// error and never typed as text; each backend translates the names it is
// given into whatever its multiplexer understands.
//
// A modifier goes before a key only where a terminal has a code for the
// pair that a program can receive, so that what reaches the program is
// the key that was named. Elsewhere tmux types the name as text (S-Tab,
// S-a, C-S-a) or sends the key without the modifier (C-é arrives as é,
// C-Enter as nothing), and no backend has anything better to send:
//
//   - the cursor, editing and function keys take C-, M- and S- in any
//     combination (xterm's modifier parameter, "\e[1;5A" for C-Up);
//   - Enter, Escape, Tab, BTab and BSpace take M- alone (ESC before the
//     key's code);
//   - Space takes C- (NUL) and M-;
//   - a character takes M-, and C- where ASCII has a control character
//     for it: a letter, @ [ \ ] ^ _ and ? (C-? is DEL).
//
// Shift takes no character: a shifted character is named by itself (A,
// not S-a), and Shift with Tab is the key BTab. C-2, C-6, C-- and C-/
// are refused too, for C-@, C-^ and C-_: tmux sends those control
// characters for them, but types C-M-2 as text, and one name for each
// control character keeps the rule the same for every modifier.

// A keyClass says which modifiers a named key takes.
type keyClass int

const (
	// anyModifier: the cursor, editing and function keys.
	anyModifier keyClass = iota
	// metaOnly: the keys of one control character (or BTab's sequence).
	metaOnly
	// ctrlOrMeta: Space.
	ctrlOrMeta
)

// A namedKey is a key name in canonical spelling and its class.
type namedKey struct {
	name  string
	class keyClass
}

// namedKeys are the key names without modifiers, by lower-case spelling.
var namedKeys = func() map[string]namedKey {
	m := map[string]namedKey{}
	add := func(class keyClass, names ...string) {
		for _, k := range names {
			m[strings.ToLower(k)] = namedKey{k, class}
		}
	}
	add(anyModifier, "Up", "Down", "Left", "Right", "Home", "End", "PageUp", "PageDown", "Insert", "Delete")
	// tmux's other spellings are read as the names they stand for, so
	// that what was pressed is told in the canonical name.
	for alias, name := range map[string]string{"PPage": "PageUp", "PgUp": "PageUp", "NPage": "PageDown", "PgDn": "PageDown",
		"IC": "Insert", "DC": "Delete"} {
		m[strings.ToLower(alias)] = m[strings.ToLower(name)]
	}
	for i := 1; i <= 12; i++ {
		add(anyModifier, fmt.Sprintf("F%d", i))
	}
	add(metaOnly, "Enter", "Escape", "Tab", "BTab", "BSpace")
	add(ctrlOrMeta, "Space")
	return m
}()

// ctrlAliases are the characters other than controlChars that xterm sends
// a control character for with Ctrl, mapped to the character named for
// that control character.
var ctrlAliases = map[rune]rune{'2': '@', '6': '^', '-': '_', '/': '_'}

// controlChar reports whether ASCII has a control character for Ctrl with
// r.
func controlChar(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= '@' && r <= '_' || r == '?'
}

// A key is a parsed key name: its modifier prefixes in the order given,
// and a named key or one character.
type key struct {
	mods  []string // "C-", "M-", "S-", each at most once
	named *namedKey
	char  rune
}

func (k key) has(mod string) bool {
	for _, m := range k.mods {
		if m == mod {
			return true
		}
	}
	return false
}

// unshifted returns k without Shift, as the named key or the character
// that Shift with k's key is.
func (k key) unshifted(named *namedKey, char rune) key {
	var mods []string
	for _, m := range k.mods {
		if m != "S-" {
			mods = append(mods, m)
		}
	}
	return key{mods: mods, named: named, char: char}
}

// String is the canonical spelling of k.
func (k key) String() string {
	base := string(k.char)
	if k.named != nil {
		base = k.named.name
	}
	return strings.Join(k.mods, "") + base
}

// splitKey reads modifiers "C-", "M-" and "S-" (in any order, each at most
// once) followed by a named key or a single character other than a
// control character. ok is false for anything else.
func splitKey(name string) (k key, ok bool) {
	rest := name
	for len(rest) > 2 && rest[1] == '-' && strings.IndexByte("CMS", rest[0]) >= 0 {
		if k.has(rest[:2]) {
			return key{}, false
		}
		k.mods = append(k.mods, rest[:2])
		rest = rest[2:]
	}
	if nk, found := namedKeys[strings.ToLower(rest)]; found {
		k.named = &nk
		return k, true
	}
	if utf8.RuneCountInString(rest) == 1 {
		r, _ := utf8.DecodeRuneInString(rest)
		if r == utf8.RuneError || r < 0x20 || r == 0x7f {
			return key{}, false
		}
		k.char = r
		return k, true
	}
	return key{}, false
}

// problem says why k cannot be pressed, "" when it can. When the same key
// has another name, fix is that name and fixed is true.
func (k key) problem() (why string, fix key, fixed bool) {
	shift, ctrl := k.has("S-"), k.has("C-")
	if k.named != nil {
		switch {
		case k.named.class == anyModifier:
			return "", key{}, false
		case shift && k.named.name == "Tab":
			btab := namedKeys["btab"]
			return "Shift with Tab is BTab", k.unshifted(&btab, 0), true
		case shift && k.named.class == metaOnly:
			return fmt.Sprintf("Shift does not go with %s (only M- does)", k.named.name), key{}, false
		case shift:
			return fmt.Sprintf("Shift does not go with %s (only C- and M- do)", k.named.name), key{}, false
		case ctrl && k.named.class == metaOnly:
			return fmt.Sprintf("Ctrl does not go with %s (only M- does)", k.named.name), key{}, false
		}
		return "", key{}, false
	}
	switch r := k.char; {
	case shift && unicode.ToUpper(r) != unicode.ToLower(r):
		return "Shift with a letter is the upper-case letter", k.unshifted(nil, unicode.ToUpper(r)), true
	case shift:
		return "Shift with a character is the character it types, named by itself (! rather than S-1 on a US keyboard)", key{}, false
	case ctrl && ctrlAliases[r] != 0:
		return fmt.Sprintf("Ctrl with %c is Ctrl with %c", r, ctrlAliases[r]), key{mods: k.mods, char: ctrlAliases[r]}, true
	case ctrl && !controlChar(r):
		return `Ctrl goes with a character only where ASCII has a control character for it: a letter, @ [ \ ] ^ _ or ?`, key{}, false
	}
	return "", key{}, false
}

// parseKey checks one key name and returns it in canonical spelling, or
// why it is refused ("" when it is not).
func parseKey(name string) (canonical, refused string) {
	k, ok := splitKey(name)
	if !ok {
		return "", fmt.Sprintf("%q is not a key name (names are like Enter, Escape, Tab, Up, C-c, M-x, F5, or a single character)", name)
	}
	var why []string
	for {
		problem, fix, fixed := k.problem()
		switch {
		case problem == "" && len(why) == 0:
			return k.String(), ""
		case problem == "":
			return "", fmt.Sprintf("%q cannot be pressed: %s, so send %s", name, strings.Join(why, "; "), k)
		case !fixed:
			return "", fmt.Sprintf("%q cannot be pressed: %s", name, strings.Join(append(why, problem), "; "))
		}
		why = append(why, problem)
		k = fix
	}
}

// ParseKeys splits a send_keys argument on white space and checks every
// name. It returns a *fault.ArgumentError naming the first name that is
// unknown or cannot be pressed, and the key to send instead where there
// is one, before anything could be sent.
func ParseKeys(keys string) ([]string, error) {
	fields := strings.Fields(keys)
	if len(fields) == 0 {
		return nil, &fault.ArgumentError{Field: "keys", Reason: "names no key"}
	}
	out := make([]string, len(fields))
	for i, f := range fields {
		k, refused := parseKey(f)
		if refused != "" {
			return nil, &fault.ArgumentError{Field: "keys", Reason: refused}
		}
		out[i] = k
	}
	return out, nil
}

// IsInterrupt reports whether key interrupts a foreground program: the
// keys send_keys accepts for a pane whose command outlived its call.
func IsInterrupt(key string) bool { return key == `C-c` || key == `C-\` }
