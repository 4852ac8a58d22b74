package fake

import "testing"

func TestKeyBytes(t *testing.T) {
	for name, want := range map[string]string{
		"Enter":    "\r",
		"enter":    "\r", // names match without regard to case, as in tmux
		"Escape":   "\x1b",
		"Tab":      "\t",
		"BTab":     "\x1b[Z",
		"BSpace":   "\x7f",
		"Space":    " ",
		"Up":       "\x1b[A",
		"Left":     "\x1b[D",
		"PageDown": "\x1b[6~",
		"NPage":    "\x1b[6~",
		"DC":       "\x1b[3~",
		"F1":       "\x1bOP",
		"F12":      "\x1b[24~",
		"C-c":      "\x03",
		"C-d":      "\x04",
		"C-C":      "\x03",
		"C-[":      "\x1b",
		"C-?":      "\x7f",
		"C-Space":  "\x00",
		"M-x":      "\x1bx",
		"M-Enter":  "\x1b\r",
		"C-M-a":    "\x1b\x01",
		"M-C-a":    "\x1b\x01",
		"M-Tab":    "\x1b\t",
		"M-Space":  "\x1b ",
		"S-Up":     "\x1b[A",
		"C-M-S-F5": "\x1b\x1b[15~",
		"M-é":      "\x1bé",
		"a":        "a",
		";":        ";",
		"-":        "-",
		"é":        "é",
	} {
		got, ok := keyBytes(name)
		if !ok || string(got) != want {
			t.Errorf("keyBytes(%q) = %q, %v; want %q, true", name, got, ok, want)
		}
	}
}

func TestKeyBytesRejectsWhatIsNotAKey(t *testing.T) {
	for _, name := range []string{
		"", "NotAKeyName", "hello", "Enter ", "C-", "C-C-c", "X-a", "F13", "\x01", "\x7f", "ab", "C-M-C-a", "\xff",
		// Modifiers the key has no code with, as the contract has it.
		"S-Tab", "S-a", "S-Enter", "S-Space", "S-BSpace", "S-Escape", "S-1", "C-S-a", "C-S-Tab", "M-S-Tab", "C-é",
		"C-Enter", "C-Tab", "C-BSpace", "C-BTab", "C-Escape", "C--", "C-2", "C-1", "C-M-{",
	} {
		if got, ok := keyBytes(name); ok {
			t.Errorf("keyBytes(%q) = %q, true; want it rejected", name, got)
		}
	}
}
