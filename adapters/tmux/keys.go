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
//
// A modifier is part of that vocabulary only before some keys. Elsewhere
// tmux 3.3a types the whole name as text (S-Tab, S-a, C-S-a, C-M-2, C-{)
// or sends the key without the modifier (C-é arrives as é, C-Enter and
// C-1 as nothing), and reports no error either way. Measured with every
// key name and every printable character under every combination of
// modifiers (TestSendKeysModifiersArriveAsTheirKeys), tmux sends:
//
//   - the cursor, editing and function keys with any modifiers;
//   - Enter, Escape, Tab, BTab, BSpace and the keypad keys with M- alone;
//   - Space with C- and M-;
//   - a character with M-, and with C- for a letter, @ [ \ ] ^ _ ? and
//     space, and without M- also - / 2 6 (^_ ^_ ^@ ^^);
//   - Shift before nothing else.

// A keyClass says which modifiers tmux sends a named key with.
type keyClass int

const (
	notAName keyClass = iota
	anyModifier
	metaOnly
	ctrlOrMeta
)

// keyNames are tmux's key names, lower-cased (tmux matches them without
// regard to case), with the modifiers it sends each with.
var keyNames = func() map[string]keyClass {
	m := map[string]keyClass{}
	add := func(class keyClass, names ...string) {
		for _, k := range names {
			m[strings.ToLower(k)] = class
		}
	}
	add(anyModifier,
		"F1", "F2", "F3", "F4", "F5", "F6", "F7", "F8", "F9", "F10", "F11", "F12",
		"IC", "Insert", "DC", "Delete", "Home", "End",
		"NPage", "PageDown", "PgDn", "PPage", "PageUp", "PgUp",
		"Up", "Down", "Left", "Right")
	add(metaOnly,
		"Tab", "BTab", "BSpace", "Enter", "Escape",
		"KP/", "KP*", "KP-", "KP7", "KP8", "KP9", "KP+", "KP4", "KP5", "KP6",
		"KP1", "KP2", "KP3", "KPEnter", "KP0", "KP.")
	add(ctrlOrMeta, "Space")
	return m
}()

// validKey reports whether tmux sends name as the key press it names, every
// modifier included: modifiers ("C-", "M-", "S-", in either case, as tmux
// accepts them; "^" first is tmux's other spelling of Ctrl) before a key
// name or a single character, where tmux sends the key with them.
func validKey(name string) bool {
	var ctrl, meta, shift bool
	rest := name
	if len(rest) > 1 && rest[0] == '^' {
		ctrl = true
		rest = rest[1:]
	}
	for len(rest) > 2 && rest[1] == '-' {
		switch rest[0] {
		case 'C', 'c':
			ctrl = true
		case 'M', 'm':
			meta = true
		case 'S', 's':
			shift = true
		default:
			// tmux gives up on a prefix it does not know.
			return false
		}
		rest = rest[2:]
	}
	switch keyNames[strings.ToLower(rest)] {
	case anyModifier:
		return true
	case metaOnly:
		return !ctrl && !shift
	case ctrlOrMeta:
		return !shift
	}
	if utf8.RuneCountInString(rest) != 1 {
		return false
	}
	r, _ := utf8.DecodeRuneInString(rest)
	switch {
	case r == utf8.RuneError || r < 0x20 || r == 0x7f:
		// Not a character tmux reads as a key (NUL cannot even be in
		// an argument); a control character is C- and a letter.
		return false
	case shift:
		return false
	case !ctrl:
		return true
	case r >= 'a' && r <= 'z', r >= '@' && r <= '_', r == '?', r == ' ':
		return true
	}
	return !meta && strings.ContainsRune("-/26", r)
}
