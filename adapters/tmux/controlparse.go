package tmux

import (
	"bufio"
	"bytes"
	"errors"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// readLine reads one line without its newline, however long.
func readLine(br *bufio.Reader) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		long := append([]byte(nil), line...)
		for err == bufio.ErrBufferFull {
			line, err = br.ReadSlice('\n')
			long = append(long, line...)
		}
		line = long
	}
	if err != nil {
		return nil, err
	}
	return line[:len(line)-1], nil
}

// controlParser turns the lines of control mode into calls. It holds the
// state of a reply block between lines.
type controlParser struct {
	output   func(id ports.PaneID, data []byte) // bytes a pane wrote
	paused   func(id ports.PaneID)              // %pause: tmux dropped the pane's queued output
	reply    func(lines []string, err error)    // the reply to a command this client sent
	notify   func(name string)                  // any other notification, by name
	attached func(err error)                    // the reply to the attach-session of the command line
	exit     func(reason string)                // %exit
	// printing is asked at each block of a command of this client's:
	// the marker of the request whose printing part the block answers,
	// or "" (see printingLine).
	printing func() string

	inBlock bool
	guard   string // "<time> <number> <flags>" of the open block
	secret  string // the marker that ends the open block, when it answers a printing part
	lines   []string
}

// A printing part's block may hold a pane's text, and a line of it may
// look like the block's "%end" (whose time and number can be guessed) and
// be followed by what looks like tmux's lines. So such a block does not
// end at a line that looks like its end: every line is kept, whatever it
// looks like, until the line of the request's secret marker, which the
// next block prints and nobody can forge. That block's "%begin" is the
// line before it; the last "%end" or "%error" with the printing block's
// guard before that is the real end, as the pane's text all came before
// it; and the lines in between are tmux's own (notifications), read then.

func (p *controlParser) line(line []byte) {
	if p.secret != "" {
		p.printed(line)
		return
	}
	if p.inBlock {
		// Inside a block every line is the command's output, even one
		// that starts with "%", until the matching %end or %error.
		if rest, ok := bytes.CutPrefix(line, []byte("%end ")); ok && string(rest) == p.guard {
			p.finish(nil)
			return
		}
		if rest, ok := bytes.CutPrefix(line, []byte("%error ")); ok && string(rest) == p.guard {
			p.finish(errors.New(strings.Join(p.lines, "; ")))
			return
		}
		p.lines = append(p.lines, string(line))
		return
	}
	switch {
	case bytes.HasPrefix(line, []byte("%output ")):
		id, data, _ := bytes.Cut(line[len("%output "):], []byte(" "))
		if len(id) > 0 {
			p.output(ports.PaneID(id), unescape(data))
		}
	case bytes.HasPrefix(line, []byte("%extended-output ")):
		// Sent instead of %output under pause-after, which this adapter
		// does not set: "%extended-output %N age ... : data".
		rest := line[len("%extended-output "):]
		id, rest, _ := bytes.Cut(rest, []byte(" "))
		if _, data, ok := bytes.Cut(rest, []byte(" : ")); ok {
			p.output(ports.PaneID(id), unescape(data))
		}
	case bytes.HasPrefix(line, []byte("%pause ")):
		if id := bytes.TrimSpace(line[len("%pause "):]); len(id) > 0 {
			p.paused(ports.PaneID(id))
		}
	case bytes.HasPrefix(line, []byte("%begin ")):
		p.inBlock, p.guard, p.lines = true, string(line[len("%begin "):]), nil
		if strings.HasSuffix(p.guard, " 1") && p.printing != nil {
			p.secret = p.printing()
		}
	case bytes.HasPrefix(line, []byte("%exit")):
		p.exit(strings.TrimSpace(string(line[len("%exit"):])))
	case bytes.HasPrefix(line, []byte("%")):
		name, _, _ := bytes.Cut(line, []byte(" "))
		p.notify(string(name))
	}
}

// printed takes a line of a printing part's block (see above).
func (p *controlParser) printed(line []byte) {
	n := len(p.lines)
	if string(line) != p.secret || n == 0 || !strings.HasPrefix(p.lines[n-1], "%begin ") {
		p.lines = append(p.lines, string(line))
		return
	}
	next := p.lines[n-1]
	end := -1
	for i := n - 2; i >= 0; i-- {
		if l := p.lines[i]; l == "%end "+p.guard || l == "%error "+p.guard {
			end = i
			break
		}
	}
	p.secret = ""
	if end < 0 {
		// Not tmux's framing: fail the request rather than guess.
		p.lines = nil
		p.finish(errors.New("tmux's reply to a capture had no end"))
	} else {
		between := p.lines[end+1 : n-1]
		failed := strings.HasPrefix(p.lines[end], "%error ")
		p.lines = p.lines[:end]
		if failed {
			p.finish(errors.New(strings.Join(p.lines, "; ")))
		} else {
			p.finish(nil)
		}
		for _, l := range between {
			p.line([]byte(l))
		}
	}
	p.line([]byte(next))
	p.line(line)
}

// finish ends the open block. Blocks whose flags are not 1 answer the
// attach-session of the command line, not a command this client wrote.
func (p *controlParser) finish(err error) {
	fromClient := strings.HasSuffix(p.guard, " 1")
	lines := p.lines
	p.inBlock, p.guard, p.lines = false, "", nil
	if fromClient {
		p.reply(lines, err)
	} else {
		p.attached(err)
	}
}

// unescape decodes the data of %output: tmux writes bytes below space and
// the backslash as a backslash and three octal digits, all others as they
// are.
func unescape(data []byte) []byte {
	out := make([]byte, 0, len(data))
	for i := 0; i < len(data); i++ {
		b := data[i]
		if b == '\\' && i+3 < len(data) && isOctal(data[i+1]) && isOctal(data[i+2]) && isOctal(data[i+3]) {
			out = append(out, (data[i+1]-'0')<<6|(data[i+2]-'0')<<3|(data[i+3]-'0'))
			i += 3
			continue
		}
		out = append(out, b)
	}
	return out
}

func isOctal(b byte) bool { return b >= '0' && b <= '7' }
