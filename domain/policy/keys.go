package policy

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/tmux-mcp/tmux-mcp/domain/fault"
)

// Key names are the contract's vocabulary for send_keys: the names a
// person would write ("Enter", "C-c", "M-x", "Up", "F5"). The domain
// checks every name before anything is sent, so an unknown name is an
// error and never typed as text; each backend translates the names it is
// given into whatever its multiplexer understands.

// namedKeys are the key names without modifiers, each mapped to its
// canonical spelling.
var namedKeys = func() map[string]string {
	m := map[string]string{}
	for _, k := range []string{
		"Enter", "Escape", "Tab", "BTab", "BSpace", "Space",
		"Up", "Down", "Left", "Right", "Home", "End",
		"PageUp", "PageDown", "PPage", "NPage", "PgUp", "PgDn",
		"IC", "DC", "Insert", "Delete",
	} {
		m[strings.ToLower(k)] = k
	}
	for i := 1; i <= 12; i++ {
		k := fmt.Sprintf("F%d", i)
		m[strings.ToLower(k)] = k
	}
	return m
}()

// ParseKey checks one key name and returns it in canonical spelling:
// modifiers "C-", "M-" and "S-" (in any order, each at most once) followed
// by a named key or by a single character. ok is false for anything else.
func ParseKey(name string) (canonical string, ok bool) {
	rest := name
	var mods []string
	seen := map[byte]bool{}
	for len(rest) > 2 && rest[1] == '-' && strings.IndexByte("CMS", rest[0]) >= 0 {
		if seen[rest[0]] {
			return "", false
		}
		seen[rest[0]] = true
		mods = append(mods, rest[:2])
		rest = rest[2:]
	}
	if k, found := namedKeys[strings.ToLower(rest)]; found {
		return strings.Join(mods, "") + k, true
	}
	if utf8.RuneCountInString(rest) == 1 {
		r, _ := utf8.DecodeRuneInString(rest)
		if r == utf8.RuneError || r < 0x20 || r == 0x7f {
			return "", false
		}
		return strings.Join(mods, "") + rest, true
	}
	return "", false
}

// ParseKeys splits a send_keys argument on white space and checks every
// name. It returns a *fault.ArgumentError naming the first unknown name,
// before anything could be sent.
func ParseKeys(keys string) ([]string, error) {
	fields := strings.Fields(keys)
	if len(fields) == 0 {
		return nil, &fault.ArgumentError{Field: "keys", Reason: "names no key"}
	}
	out := make([]string, len(fields))
	for i, f := range fields {
		k, ok := ParseKey(f)
		if !ok {
			return nil, &fault.ArgumentError{Field: "keys", Reason: fmt.Sprintf(
				"%q is not a key name (names are like Enter, Escape, Tab, Up, C-c, M-x, F5, or a single character)", f)}
		}
		out[i] = k
	}
	return out, nil
}

// IsInterrupt reports whether key interrupts a foreground program: the
// keys send_keys accepts for a pane whose command outlived its call.
func IsInterrupt(key string) bool { return key == `C-c` || key == `C-\` }
