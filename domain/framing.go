package domain

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// Markers.
//
// A framed command makes the shell print a start marker just before the
// command runs and an end marker, carrying the exit status, just after:
//
//	start: ESC ] 7717 ; tmcp ; S ; <id> BEL
//	end:   ESC ] 7717 ; tmcp ; E ; <id> ; <status> BEL
//
// Each is an OSC (operating system command) string with a private number,
// which terminals and tmux swallow without showing anything, so a person
// watching the pane sees no trace of the frame. <status> is the decimal exit
// status exactly as strconv.Itoa writes it. The shell builds the markers at
// run time from printf escapes (\033, \007): the text typed into the pane,
// and so its echo, holds backslash-digits but never the ESC and BEL bytes,
// so no echo or prompt can be mistaken for a marker.
const (
	markerIntro = "\x1b]7717;tmcp;"
	markerEnd   = '\x07'
)

// StartMarker returns the exact bytes the framed command with this id makes
// the shell print before the command runs.
func StartMarker(id string) []byte {
	return []byte(markerIntro + "S;" + id + "\x07")
}

// EndMarker returns the exact bytes the framed command with this id makes
// the shell print after the command ran with the given exit status.
func EndMarker(id string, status int) []byte {
	return []byte(markerIntro + "E;" + id + ";" + strconv.Itoa(status) + "\x07")
}

// idLen is the length of the ids NewID returns, in hex digits (64 bits).
const idLen = 16

// maxFrameIDLen bounds the ids Frame accepts and the scanner recognises, so
// that the scanner holds back only a short possible marker prefix.
const maxFrameIDLen = 64

// NewID returns a fresh random id for one call: 16 lowercase hex digits from
// crypto/rand, so that two calls, even of two servers on one pane, never
// share an id.
func NewID() string {
	var b [idLen / 2]byte
	// crypto/rand.Read never returns an error (it crashes the program
	// irrecoverably instead), so there is nothing to handle.
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// ValidID reports whether s has the form NewID returns: exactly 16
// lowercase hex digits.
func ValidID(s string) bool {
	if len(s) != idLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// isIDByte reports whether c may appear in an id that Frame accepts and the
// scanner recognises. The set is closed under shell quoting: none of these
// bytes is special inside single quotes, in a printf format or in a case
// pattern.
func isIDByte(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || c == '-'
}

// frameableID reports whether Frame accepts id: 1 to 64 ASCII letters,
// digits, '_' or '-'. Every id NewID returns qualifies; tests may use
// shorter readable ones.
func frameableID(id string) bool {
	if id == "" || len(id) > maxFrameIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		if !isIDByte(id[i]) {
			return false
		}
	}
	return true
}

// frameChunk is the number of base64 characters on one typed line. With the
// longest head or tail of a frame beside it, a physical line stays under
// 1,100 bytes: far below the 4,095-byte line limit of a tty in canonical
// mode, in which dash and other shells without line editing read.
const frameChunk = 900

// Frame returns the text to type into a pane whose interactive shell is of
// family sh, so that the shell runs command in a child shell and prints
// StartMarker(id) before it and EndMarker(id, status) after it, status
// being the command's exit status. The caller types the text and presses
// Enter once; the text ends without a newline. A Shell value that is not
// one of the constants is framed as ShellSh. Frame panics if id is not 1
// to 64 ASCII letters, digits, '_' or '-' (NewID's ids always are).
//
// The command travels base64-encoded, with a newline appended, and is
// decoded by base64 -d in the pane, so any text is run as written:
// several lines, a here-document (also on the last line), a trailing
// comment, quotes, tabs (which typed raw would trigger completion), any
// Unicode, and no size limit. The base64 is split into lines of 900
// characters joined by backslash-newline continuations.
//
// POSIX families (bash, zsh, sh, ksh): the decoded text runs under eval in
// a ( ) subshell, so cd, export and exit do not reach the pane's shell.
// The subshell traps SIGINT to exit 130: without that, an interactive bash
// or dash whose job died of a C-c abandons the rest of the line, and the
// end marker would never be printed. The status comes from $?.
//
// fish has no subshell: the decoded text goes to a temporary file (psub
// -f, removed when the command is done) that a child fish runs, so that
// neither the size of an argument nor a pipe on standard input limits the
// command; its status comes from $status. The child fish runs under sh
// for the same SIGINT trap, since fish too abandons the rest of a line
// whose job died of SIGINT.
//
// History: the text starts with a space, which keeps it out of the history
// in bash with HISTCONTROL=ignorespace (or ignoreboth), zsh with
// HIST_IGNORE_SPACE, and always in fish. bash 5.0 and later also deletes
// the entry of the framed line itself when it was recorded (history -d -1,
// only when the newest entry holds this frame's id, so never a user's
// entry). dash keeps no history; ksh and other sh shells may record the
// line.
// A recorded line holds only base64 and the markers' printf formats, never
// the command in plain text.
func Frame(sh Shell, id string, command string) string {
	if !frameableID(id) {
		panic(fmt.Sprintf("domain.Frame: id %q is not 1-64 ASCII letters, digits, '_' or '-'", id))
	}
	switch sh {
	case ShellBash, ShellZsh, ShellKsh, ShellFish:
	default:
		sh = ShellSh
	}
	head, tail := frameEnds(sh, id)
	enc := base64.StdEncoding.EncodeToString([]byte(command + "\n"))
	var b strings.Builder
	b.Grow(len(head) + len(enc) + len(enc)/frameChunk*2 + len(tail) + 2)
	b.WriteString(head)
	for len(enc) > frameChunk {
		b.WriteString(enc[:frameChunk])
		b.WriteString("\\\n")
		enc = enc[frameChunk:]
	}
	b.WriteString(enc)
	b.WriteString(tail)
	return b.String()
}

// frameEnds returns the text Frame puts before and after the base64 of the
// command. The head ends with a backslash-newline, so that the base64
// starts a line of its own.
//
// In the POSIX frame, echo hands the base64 to the decoder: it is a
// builtin in every such shell (mksh has no printf builtin, and an
// external command's argument holds at most 128 KB), and base64 holds no
// backslash or leading '-' that an echo could read as an option or escape.
// The decoder's output is followed by "." so that the
// command substitution, which strips trailing newlines, keeps the newline
// that ends the command's last line (a here-document's delimiter needs it);
// ${v%.} then takes the dot away. eval unsets the variable before the
// command runs, so the command never sees it. The variable is named after
// the family, which is what lets Unframe tell the families apart.
func frameEnds(sh Shell, id string) (head, tail string) {
	start := `printf '\033]7717;tmcp;S;` + id + `\007'; `
	end := `printf '\033]7717;tmcp;E;` + id + `;%d\007'`
	status := ` "$?"`
	if sh == ShellKsh {
		// mksh has no printf builtin: an external printf would still be
		// the pane's foreground program when the end marker arrives, and
		// the next call would find no shell there. print is a builtin of
		// every ksh and reads \0nnn escapes, so "\033" is ESC to it too.
		start = `print -n '\033]7717;tmcp;S;` + id + `\007'; `
		end, status = `print -n "\033]7717;tmcp;E;`+id+`;$?\007"`, ""
	}
	if sh == ShellFish {
		return " " + start + `sh -c 'trap "exit 130" INT; fish "$1"' sh (printf %s \` + "\n",
			" | base64 -d | psub -f); " + end + " $status"
	}
	var prefix string
	if sh == ShellBash {
		prefix = `case $(history 1) in *'tmcp;S;` + id + `\007'*) history -d -1;; esac 2>/dev/null; `
	}
	v := "__tmcp_" + string(sh)
	head = " " + prefix + start + "(trap 'exit 130' INT; " + v + "=$(echo \\\n"
	tail = " | base64 -d && echo .) || exit; eval \"unset " + v + "; ${" + v + "%.}\"); " + end + status
	return head, tail
}

// frameShells lists every family, in the order Unframe tries them.
var frameShells = []Shell{ShellBash, ShellZsh, ShellSh, ShellKsh, ShellFish}

// Unframe is Frame's inverse, for in-memory terminals and tests: given
// text typed into a shell, possibly followed by the "\r" or "\n" of
// Enter, it returns the shell family, id and command that Frame was
// called with. Line ends typed as "\r" or "\r\n" are read as "\n". ok is
// false when typed is not exactly a framed command.
func Unframe(typed string) (sh Shell, id, command string, ok bool) {
	typed = strings.ReplaceAll(typed, "\r\n", "\n")
	typed = strings.ReplaceAll(typed, "\r", "\n")
	typed = strings.TrimSuffix(typed, "\n")

	// The id follows the start marker's format.
	const idAt = `\033]7717;tmcp;S;`
	i := strings.Index(typed, idAt)
	if i < 0 {
		return "", "", "", false
	}
	rest := typed[i+len(idAt):]
	j := strings.Index(rest, `\007'`)
	if j < 0 || !frameableID(rest[:j]) {
		return "", "", "", false
	}
	id = rest[:j]

	// The base64 runs from the line after the head, which is the first
	// to end in a backslash, to " | base64 -d".
	i = strings.Index(typed, "\\\n")
	if i < 0 {
		return "", "", "", false
	}
	rest = typed[i+2:]
	j = strings.Index(rest, " | base64 -d")
	if j < 0 {
		return "", "", "", false
	}
	raw, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(rest[:j], "\\\n", ""))
	if err != nil || len(raw) == 0 || raw[len(raw)-1] != '\n' {
		return "", "", "", false
	}
	command = string(raw[:len(raw)-1])

	// Only an exact match counts, so nothing that merely resembles a frame
	// (another chunk size, an edited line) is taken for one.
	for _, sh := range frameShells {
		if Frame(sh, id, command) == typed {
			return sh, id, command, true
		}
	}
	return "", "", "", false
}
