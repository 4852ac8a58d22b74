package policy

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/domain/frame"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

func TestParseKey(t *testing.T) {
	good := map[string]string{
		"Enter": "Enter", "enter": "Enter", "C-c": "C-c", "M-x": "M-x", "C-M-Up": "C-M-Up", "BTab": "BTab",
		"F12": "F12", "a": "a", "é": "é", "BSpace": "BSpace", "pageup": "PageUp", `C-\`: `C-\`, "-": "-",
		"M-C-Up": "M-C-Up", "S-M-C-f5": "S-M-C-F5", "M-tab": "M-Tab", "C-space": "C-Space",
		// The printable characters at the edges of ASCII's control
		// characters, which are refused.
		" ": " ", "~": "~",
	}
	for in, want := range good {
		if got, ok := ParseKey(in); !ok || got != want {
			t.Errorf("ParseKey(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, bad := range []string{"", "Escpae", "F13", "C-C-c", "ab", "C-", "\x00", "\x01", "\x1f", "\x7f", "C-\x1b", "hello world",
		"s-Up", "c-c", "X-a", "S-S-Up", "C-\xff", "\xff"} {
		if got, ok := ParseKey(bad); ok {
			t.Errorf("ParseKey(%q) = %q, accepted", bad, got)
		}
	}
	if _, err := ParseKeys("   "); !errors.Is(err, fault.ErrInvalidArgument) {
		t.Errorf("no keys: %v", err)
	}
	if got, err := ParseKeys(" enter\tC-c  S-up M-é\n"); err != nil || !slices.Equal(got, []string{"Enter", "C-c", "S-Up", "M-é"}) {
		t.Errorf("ParseKeys = %q, %v; want the names in canonical spelling", got, err)
	}
}

// modifierSets are every combination of the three modifiers, in the
// order of their prefixes.
var modifierSets = []struct {
	prefix            string
	ctrl, meta, shift bool
}{
	{"", false, false, false}, {"S-", false, false, true}, {"C-", true, false, false}, {"M-", false, true, false},
	{"C-S-", true, false, true}, {"M-S-", false, true, true}, {"C-M-", true, true, false}, {"C-M-S-", true, true, true},
}

// Which modifiers go with which keys, the contract's table: every named
// key and every printable ASCII character (and a few others) under every
// combination of modifiers, each accepted exactly where a terminal has a
// code for it (checked against tmux 3.3a by the tmux adapter's
// TestSendKeysModifiersArriveAsTheirKeys).
func TestParseKeyTakesModifiersOnlyWhereTheKeyHasACodeForThem(t *testing.T) {
	takes := func(ctrl, meta, shift bool) map[string]bool {
		return map[string]bool{"ctrl": ctrl, "meta": meta, "shift": shift}
	}
	named := map[string]map[string]bool{}
	for _, k := range []string{"Up", "Down", "Left", "Right", "Home", "End", "PageUp", "PageDown", "PPage", "NPage",
		"PgUp", "PgDn", "IC", "DC", "Insert", "Delete", "F1", "F2", "F3", "F4", "F5", "F6", "F7", "F8", "F9", "F10", "F11", "F12"} {
		named[k] = takes(true, true, true)
	}
	for _, k := range []string{"Enter", "Escape", "Tab", "BTab", "BSpace"} {
		named[k] = takes(false, true, false)
	}
	named["Space"] = takes(true, true, false)
	if len(named) != len(namedKeys) {
		t.Fatalf("the test knows %d key names, the vocabulary has %d", len(named), len(namedKeys))
	}
	chars := map[string]map[string]bool{}
	for c := rune(0x21); c < 0x7f; c++ {
		ctrl := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || strings.ContainsRune(`@[\]^_?`, c)
		chars[string(c)] = takes(ctrl, true, false)
	}
	for _, c := range []string{"é", "É", "ß", "日", "€", "😀"} {
		chars[c] = takes(false, true, false)
	}
	for _, table := range []map[string]map[string]bool{named, chars} {
		for base, ok := range table {
			for _, m := range modifierSets {
				name := m.prefix + base
				want := (!m.ctrl || ok["ctrl"]) && (!m.meta || ok["meta"]) && (!m.shift || ok["shift"])
				got, accepted := ParseKey(name)
				if accepted != want {
					t.Errorf("ParseKey(%q) accepted %v, want %v", name, accepted, want)
				}
				if want := m.prefix + canonical(base); accepted && got != want {
					t.Errorf("ParseKey(%q) = %q, want %q", name, got, want)
				}
			}
		}
	}
}

// canonical is the name the contract gives a key that tmux also spells
// otherwise.
func canonical(name string) string {
	if c, ok := map[string]string{"PPage": "PageUp", "PgUp": "PageUp", "NPage": "PageDown", "PgDn": "PageDown", "IC": "Insert", "DC": "Delete"}[name]; ok {
		return c
	}
	return name
}

// A refused name is named in the error with why, and with the key that
// reaches the program as the one meant where there is one.
func TestParseKeysSaysWhatToSendInstead(t *testing.T) {
	for name, want := range map[string]string{
		"S-Tab":      "Shift with Tab is BTab, so send BTab",
		"s-tab":      "is not a key name",
		"S-tab":      "so send BTab",
		"M-S-Tab":    "so send M-BTab",
		"S-M-Tab":    "so send M-BTab",
		"C-S-Tab":    "Shift with Tab is BTab; Ctrl does not go with BTab (only M- does)",
		"S-a":        "Shift with a letter is the upper-case letter, so send A",
		"S-A":        "so send A",
		"S-é":        "so send É",
		"M-S-a":      "so send M-A",
		"C-S-a":      "so send C-A",
		"S-C-M-z":    "so send C-M-Z",
		"C-S-é":      "upper-case letter; Ctrl goes with a character only where ASCII has a control character",
		"S-1":        "Shift with a character is the character it types",
		"S-ß":        "Shift with a character is the character it types",
		"S-日":        "Shift with a character is the character it types",
		"C-é":        `Ctrl goes with a character only where ASCII has a control character for it: a letter, @ [ \ ] ^ _ or ?`,
		"C-1":        "Ctrl goes with a character only",
		"C-M-`":      "Ctrl goes with a character only",
		"C-2":        "Ctrl with 2 is Ctrl with @, so send C-@",
		"C-6":        "so send C-^",
		"C--":        "so send C-_",
		"M-C-/":      "so send M-C-_",
		"S-Enter":    "Shift does not go with Enter (only M- does)",
		"S-Space":    "Shift does not go with Space (only C- and M- do)",
		"S-BTab":     "Shift does not go with BTab",
		"C-Enter":    "Ctrl does not go with Enter (only M- does)",
		"C-M-BSpace": "Ctrl does not go with BSpace",
		"C-Escape":   "Ctrl does not go with Escape",
		"C-Tab":      "Ctrl does not go with Tab",
	} {
		_, err := ParseKeys("Enter " + name + " Up")
		var arg *fault.ArgumentError
		if !errors.As(err, &arg) || arg.Field != "keys" {
			t.Errorf("ParseKeys(%q) = %v, want an ArgumentError for keys", name, err)
			continue
		}
		if !strings.Contains(arg.Reason, strconv.Quote(name)) || !strings.Contains(arg.Reason, want) {
			t.Errorf("ParseKeys(%q): %q, want it to name the key and say %q", name, arg.Reason, want)
		}
		if strings.Contains(want, "so send") != strings.Contains(arg.Reason, "so send") {
			t.Errorf("ParseKeys(%q): %q names a key to send instead where %q does not", name, arg.Reason, want)
		}
	}
}

func TestPolicyMessages(t *testing.T) {
	base := ports.PaneInfo{ID: "%1", Command: "zsh"}
	for _, f := range []ports.Fact{ports.FactWatched, ports.FactAlsoReaches, ports.FactSelf, ports.FactMode} {
		info := base
		info.Unknown = []ports.Fact{f}
		err := Check(info, Type, true, "")
		if !errors.Is(err, fault.ErrRefused) || !strings.Contains(err.Error(), "cannot tell") {
			t.Errorf("unknown %s: %v", f, err)
		}
	}
	info := base
	info.Unknown = []ports.Fact{ports.FactCommand}
	if err := Check(info, Type, false, ""); err != nil {
		t.Errorf("paste needs no command: %v", err)
	}
	if _, err := CheckRun(info, false); !errors.Is(err, fault.ErrRefused) {
		t.Errorf("run needs the command: %v", err)
	}
	if sh, err := CheckRun(base, false); err != nil || sh != frame.ShellZsh {
		t.Errorf("zsh: %v %v", sh, err)
	}
	sync := base
	sync.AlsoReaches = []ports.PaneID{"%2", "%3"}
	if err := Check(sync, Type, true, ""); err == nil || !strings.Contains(err.Error(), "%2, %3") {
		t.Errorf("synchronized: %v", err)
	}
}

// A refusal of a call that would end the pane says so (Ending) and says
// first what the call would do; a refusal of a write says neither.
func TestARefusalToEndAPaneSaysWhatTheCallWouldDo(t *testing.T) {
	watched := ports.PaneInfo{ID: "%1", Command: "bash", Watchers: []string{"/dev/pts/3"}}
	const action = "kill_window @1 would end it"
	var ending *fault.RefusalError
	if err := Check(watched, End, false, action); !errors.As(err, &ending) || !ending.Ending ||
		ending.Reason != action+", and a person is watching it (/dev/pts/3)" {
		t.Errorf("ending a watched pane: %#v; want Ending and the action first", err)
	}
	for _, use := range []Use{Type, Press} {
		var writing *fault.RefusalError
		if err := Check(watched, use, false, action); !errors.As(err, &writing) || writing.Ending ||
			writing.Reason != "a person is watching it (/dev/pts/3)" {
			t.Errorf("use %d of a watched pane: %#v; want no Ending and no action", use, err)
		}
	}
}

// The server's own pane is refused for ending as for writing, and the
// reason fits both: an end sends no input.
func TestTheServersOwnPaneIsRefusedInWordsThatFitAnEnd(t *testing.T) {
	own := ports.PaneInfo{ID: "%1", Command: "bash", Self: true}
	var r *fault.RefusalError
	if err := Check(own, End, false, "kill_pane %1 would end it"); !errors.As(err, &r) || strings.Contains(r.Reason, "input") ||
		!strings.Contains(r.Reason, "server's own session") {
		t.Errorf("ending the server's own pane: %v; want it refused as the server's own session's, without input", err)
	}
}

// tmux's other spellings of the page, insert and delete keys are taken,
// and told in the names the contract gives them.
func TestParseKeysTellsAliasesInTheirCanonicalNames(t *testing.T) {
	got, err := ParseKeys("NPage PgUp C-PPage pgdn DC M-IC")
	want := []string{"PageDown", "PageUp", "C-PageUp", "PageDown", "Delete", "M-Insert"}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("ParseKeys = %v, %v; want %v", got, err, want)
	}
}

// ParseKey checks one key name as ParseKeys does and returns it in
// canonical spelling: modifiers "C-", "M-" and "S-" (in any order, each
// at most once) followed by a named key or by a single character, where
// the modifiers go with that key. ok is false for anything else.
func ParseKey(name string) (canonical string, ok bool) {
	canonical, refused := parseKey(name)
	return canonical, refused == ""
}
