package tmux

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// controlRequest is one command line in flight and its reply as it comes:
// tmux answers every command of the line in a block of its own (and the
// commands that if-shell runs too, and a failing command ends the line's
// blocks), so the line is followed by a second one that prints marker, and
// the reply is every block before the marker's.
type controlRequest struct {
	marker   string
	printing bool     // a printing part (see commandPart), whose marker is secret
	opened   bool     // for a printing part: its command's block has begun
	lines    []string // what the blocks printed
	err      error    // the first block that failed
	done     chan controlReply
}

// controlReply is the reply to one command line.
type controlReply struct {
	lines []string
	err   error
}

// A clientGoneError is a command line that a control client could not
// carry to its end: the client had exited, writing to it failed, or it
// went away before tmux answered. Sent tells whether the line may have
// reached tmux.
type clientGoneError struct {
	err  error
	sent bool
}

func (e *clientGoneError) Error() string { return e.err.Error() }
func (e *clientGoneError) Unwrap() error { return e.err }

// command sends one command line (in tmux's command syntax; see
// commandLine) and waits for tmux to have run all of it. It returns the
// lines the commands printed, or an error: a *CommandError (named after
// name, the line's first command) when tmux refused a command, a
// *clientGoneError when the client could not carry the line, or ctx's.
func (c *controlClient) command(ctx context.Context, name, line string) ([]string, error) {
	out, err := c.send(ctx, name, commandPart{line: line})
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// A commandPart is one command line of a send. A printing part is one
// command whose output may hold a pane's text (capture-pane -p; see
// printingLine): its reply is read so that no line of that text can end
// it (see controlParser).
type commandPart struct {
	line     string
	printing bool
}

// send is command for several command lines, written at once, so that
// tmux runs them back to back and answers them in one round trip. It
// returns what each printed, in order, or the first error.
func (c *controlClient) send(ctx context.Context, name string, parts ...commandPart) ([][]string, error) {
	c.mu.Lock()
	if c.exited {
		c.mu.Unlock()
		return nil, &clientGoneError{err: c.exitError()}
	}
	// Replies come in the order the lines were written, so the queue and
	// the write must be one step.
	reqs, text := c.enqueue(parts)
	_, err := io.WriteString(c.stdin, text)
	c.mu.Unlock()
	c.cfg.lines.Add(1)
	if err != nil {
		// A partial write may have reached tmux.
		return nil, &clientGoneError{err: fmt.Errorf("control client for session %s: write command: %w", c.session, err), sent: true}
	}
	out := make([][]string, len(reqs))
	// The wait ends when tmux has said nothing at all for CommandTimeout:
	// a long reply that is still coming (a capture of many rows through
	// ssh on a slow link) is an answer.
	quiet := c.cfg.commandTimeout
	timeout := time.NewTimer(quiet)
	defer timeout.Stop()
	for i := 0; i < len(reqs); {
		select {
		case r := <-reqs[i].done:
			var gone *clientGoneError
			if r.err != nil && !errors.As(r.err, &gone) {
				msg := r.err.Error()
				return nil, &CommandError{Command: name, Message: msg, kind: classify(msg)}
			}
			if r.err != nil {
				return nil, r.err
			}
			out[i] = r.lines
			i++
		case <-ctx.Done():
			return nil, fmt.Errorf("tmux %s: %w", name, ctx.Err())
		case <-timeout.C:
			if since := time.Since(time.Unix(0, c.heard.Load())); since < quiet {
				timeout.Reset(quiet - since)
				continue
			}
			// The reply, should it come, goes to no one; tmux runs the
			// line all the same once it answers again.
			return nil, fmt.Errorf("tmux %s: no answer within %v, so tmux may still run it when it answers again: %w", name, quiet, errNoAnswer)
		}
	}
	return out, nil
}

// enqueue makes the requests of parts, queues them for their replies and
// returns the text that asks tmux for them: each part's line, then a line
// that prints the request's marker. c.mu is held.
func (c *controlClient) enqueue(parts []commandPart) ([]*controlRequest, string) {
	reqs := make([]*controlRequest, len(parts))
	var b strings.Builder
	for i, part := range parts {
		req := &controlRequest{done: make(chan controlReply, 1)}
		c.seq++
		if part.printing {
			// The end of its reply is known by a marker that its text
			// cannot hold, as nobody else knows it.
			req.marker, req.printing = "tmux-mcp-done "+secretMarker(), true
		} else {
			// Plain text that no reply of a command sent here can
			// print: their lines start with a tag and a field
			// separator, or are numbers.
			req.marker = fmt.Sprintf("tmux-mcp-done %d", c.seq)
		}
		reqs[i] = req
		b.WriteString(part.line + "\ndisplay-message -p \"" + req.marker + "\"\n")
	}
	c.pending = append(c.pending, reqs...)
	return reqs, b.String()
}

// errNoAnswer is a command that tmux did not answer within
// Options.CommandTimeout: a server that is stopped or stuck.
var errNoAnswer = fmt.Errorf("tmux does not answer: %w", ports.ErrNoAnswer)

// secretMarker returns 128 random bits in hex, for the marker of a
// printing part.
func secretMarker() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("tmux: no randomness for a reply marker: " + err.Error())
	}
	return hex.EncodeToString(b[:])
}

// printingBlock is the parser's question at each block that tmux opens
// for a command of this client's: the marker of the oldest request when
// the block is the reply to its printing part, "" otherwise.
func (c *controlClient) printingBlock() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.pending) == 0 {
		return ""
	}
	req := c.pending[0]
	if !req.printing || req.opened {
		return ""
	}
	// A printing part is one command: its first block is the command's.
	req.opened = true
	return req.marker
}

// reply takes one block of tmux's answers for the oldest request.
func (c *controlClient) reply(lines []string, err error) {
	c.mu.Lock()
	if len(c.pending) == 0 {
		c.mu.Unlock()
		return
	}
	req := c.pending[0]
	if err == nil && len(lines) == 1 && lines[0] == req.marker {
		c.pending = c.pending[1:]
		c.mu.Unlock()
		req.done <- controlReply{lines: req.lines, err: req.err}
		return
	}
	switch {
	case err == nil:
		req.lines = append(req.lines, lines...)
	case req.err == nil:
		req.err = err
	}
	c.mu.Unlock()
}
