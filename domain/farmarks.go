package domain

import "bytes"

// promptMarks follows a pane's output for the prompt marks of shell
// integration (OSC 133, as VS Code, iTerm2, WezTerm, kitty, Ghostty and
// this server's own snippet print them): ESC ] 133 ; K [; ...] ended by BEL
// or ESC \, where K is A (a prompt starts), B (the prompt ends and the
// line being typed starts), C (a command runs) or D (it ended). It tells
// whether the shell that printed them is at its prompt now: the last mark
// is B and nothing since has ended a line (an Enter pressed at the prompt
// would have); or the last mark is A, for an integration that marks the
// prompt's start only, with no line ended since (so only a one-line
// prompt tells). Bytes arrive in pieces: a mark cut between two is held
// until it is whole.
type promptMarks struct {
	last   byte // the newest mark's kind; 0 before any
	broken bool // a line ended after it
	held   []byte
}

// promptIntro starts every prompt mark.
var promptIntro = []byte("\x1b]133;")

// maxPromptMark bounds a mark's length: what is longer is not one.
const maxPromptMark = 256

// Write reads more of the pane's output.
func (m *promptMarks) Write(p []byte) {
	if len(m.held) > 0 {
		p = append(m.held, p...)
		m.held = nil
	}
	for len(p) > 0 {
		i := bytes.IndexByte(p, 0x1b)
		if i < 0 {
			m.text(p)
			return
		}
		m.text(p[:i])
		p = p[i:]
		n, kind, whole := parsePromptMark(p)
		switch {
		case !whole && len(p) < maxPromptMark:
			m.held = append([]byte(nil), p...)
			return
		case n == 0:
			// Not a mark: the escape is text as far as marks go.
			p = p[1:]
			continue
		}
		m.last, m.broken = kind, false
		p = p[n:]
	}
}

// text notes output that is not a mark.
func (m *promptMarks) text(p []byte) {
	if m.last != 0 && !m.broken && bytes.ContainsAny(p, "\r\n") {
		m.broken = true
	}
}

// seen reports whether any prompt mark has come.
func (m *promptMarks) seen() bool { return m.last != 0 }

// atPrompt reports whether the marks say the shell is at its prompt.
func (m *promptMarks) atPrompt() bool { return (m.last == 'B' || m.last == 'A') && !m.broken }

// parsePromptMark reads the prompt mark p starts with: its length and
// kind. whole is false when p may be the start of one that is cut off; n
// is 0 when p does not start one.
func parsePromptMark(p []byte) (n int, kind byte, whole bool) {
	if len(p) < len(promptIntro) {
		return 0, 0, !bytes.HasPrefix(promptIntro, p)
	}
	if !bytes.HasPrefix(p, promptIntro) {
		return 0, 0, true
	}
	rest := p[len(promptIntro):]
	for i, c := range rest {
		switch {
		case c == 0x07:
			return markOf(p, len(promptIntro)+i+1, rest[:i])
		case c == 0x1b:
			if i+1 == len(rest) {
				return 0, 0, false
			}
			if rest[i+1] != '\\' {
				return 0, 0, true
			}
			return markOf(p, len(promptIntro)+i+2, rest[:i])
		case i >= maxPromptMark:
			return 0, 0, true
		}
	}
	return 0, 0, false
}

func markOf(p []byte, n int, body []byte) (int, byte, bool) {
	if len(body) == 0 || !bytes.ContainsRune([]byte("ABCD"), rune(body[0])) || len(body) > 1 && body[1] != ';' {
		return 0, 0, true
	}
	return n, body[0], true
}
