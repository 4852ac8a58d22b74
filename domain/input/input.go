// Package input tells what a command that waits for input on its terminal
// asks for, from what the terminal says of it (ports.Reading) and the last
// line on its screen: a secret, a yes or no, a pager's or an editor's keys,
// a REPL's next line, a plain line. It is pure: the caller reads the
// terminal and the screen.
package input

import (
	"regexp"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// Kind says what a command waiting for input asks for.
type Kind string

// Kinds, as the tools report them.
const (
	Secret  Kind = "secret"  // echo off, a line at a time: a password or passphrase
	Confirm Kind = "confirm" // a prompt shaped like a yes-or-no question
	Pager   Kind = "pager"   // less, more, man: keys to scroll or quit
	Editor  Kind = "editor"  // vi, nano, emacs: an editor waiting for keys
	REPL    Kind = "repl"    // python, node, psql, a shell: its next line
	Line    Kind = "line"    // a line, echoed as typed
	Unknown Kind = "unknown" // keys, one at a time, for a program not told apart
)

// Classify tells what a command blocked reading its terminal (r) asks
// for, given the last line on its screen (prompt):
//
//   - The terminal reads a line at a time (canonical): with echo off it is
//     Secret, whatever the prompt says (what is typed is not to be seen);
//     with echo on, Confirm when the prompt looks like a yes-or-no
//     question, else Line. A REPL without line editing (python3 -c
//     'input()') reads lines too: what it asks is a line.
//   - The terminal delivers keys one at a time (raw): a program known as a
//     pager or an editor is one; else, echo off, a program known to ask
//     for secrets (sudo, ssh) or a prompt that asks for a password is
//     Secret; else a yes-or-no prompt is Confirm (a read -n 1); else a
//     program known as a REPL or a shell is one; else Unknown.
//
// Programs are told by the executable's name with its version and
// variant stripped ("python3.11", "vim.basic") and by the name they were
// started under ("irb" runs "ruby").
func Classify(r ports.Reading, prompt string) Kind {
	if r.Canonical {
		switch {
		case !r.Echo:
			return Secret
		case YesNo(prompt):
			return Confirm
		}
		return Line
	}
	names := []string{Base(r.Program), Base(r.Command)}
	switch {
	case anyIn(names, pagers):
		return Pager
	case anyIn(names, editors):
		return Editor
	case !r.Echo && (anyIn(names, askers) || secretPrompt.MatchString(prompt)):
		// sudo reads its password a key at a time, echo off.
		return Secret
	case YesNo(prompt):
		return Confirm
	case anyIn(names, repls):
		return REPL
	}
	return Unknown
}

var (
	pagers  = set("less", "more", "most", "man", "pg", "w3m", "lynx")
	editors = set("vi", "vim", "nvim", "gvim", "view", "nano", "pico", "emacs", "emacsclient", "micro", "hx", "helix",
		"kak", "joe", "mcedit", "ne", "mg", "jed")
	// askers are the programs that read secrets.
	askers = set("sudo", "su", "doas", "ssh", "ssh-keygen", "ssh-add", "gpg", "gpg-agent", "pinentry", "passwd", "kinit",
		"openssl", "cryptsetup", "age", "git-credential")
	repls = set("python", "ipython", "bpython", "node", "nodejs", "deno", "bun", "irb", "ruby", "pry", "psql",
		"mysql", "mariadb", "sqlite", "lua", "luajit", "ghc", "ghci", "R", "julia", "erl", "iex", "scala", "clj",
		"php", "perl", "redis-cli", "mongo", "mongosh", "gdb", "lldb", "pdb", "sh", "bash", "zsh", "dash", "ksh",
		"mksh", "fish", "ash", "busybox", "tclsh", "ocaml", "utop", "swipl", "sbcl", "guile", "racket")
)

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

func anyIn(names []string, m map[string]bool) bool {
	for _, n := range names {
		if n != "" && m[n] {
			return true
		}
	}
	return false
}

// Base is a program's name without its directory, its version or its
// variant: "python3.11" and "python3" are "python", "vim.basic" is "vim",
// "lua5.4" is "lua", "sqlite3" is "sqlite"; a login shell's "-bash" is
// "bash". A name that is all digits after its first letter is kept.
func Base(name string) string {
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	name = strings.TrimPrefix(name, "-")
	if i := strings.IndexByte(name, '.'); i > 0 {
		name = name[:i]
	}
	if i := strings.IndexAny(name, "0123456789"); i > 0 {
		name = name[:i]
	}
	name = strings.TrimRight(name, "-_")
	return name
}

// yesNo matches the forms a yes-or-no question takes at the end of a
// prompt: [y/N], (yes/no), [Y/n], y/n?, (y or n), [yes/no/[fingerprint]].
var yesNo = regexp.MustCompile(`(?i)(^|[^a-z])(y|yes)\s*(/|or|\|)\s*(n|no)([^a-z]|$)|(^|[^a-z])(n|no)\s*(/|or|\|)\s*(y|yes)([^a-z]|$)`)

// secretPrompt matches a prompt that asks for a secret.
var secretPrompt = regexp.MustCompile(`(?i)(password|passphrase|passcode|\bpin\b|secret|token)[^:]*:\s*$`)

// YesNo reports whether prompt looks like a yes-or-no question.
func YesNo(prompt string) bool { return yesNo.MatchString(prompt) }

// Prompt is the line of the screen that shows what a command asks: the
// last that is not blank, without its trailing blanks, cut to max bytes
// from its end (at a character's start) when longer.
func Prompt(lines []string, max int) string {
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimRight(lines[i], " \t")
		if strings.TrimSpace(l) == "" {
			continue
		}
		if len(l) > max {
			cut := len(l) - max
			for cut < len(l) && l[cut]&0xc0 == 0x80 {
				cut++
			}
			l = "…" + l[cut:]
		}
		return l
	}
	return ""
}
