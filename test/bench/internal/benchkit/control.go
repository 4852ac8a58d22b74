package benchkit

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"
)

// The control-mode floor: the least any call that types into a pane and
// sees what it printed can cost. The benchmark attaches a control-mode
// client of its own (`tmux -C attach-session`, one process kept open for
// the whole run) to a session of its own holding one idle shell pane, and
// times, through that client alone:
//
//   - typed: writing one send-keys command that types
//     `printf '<%s>\n' X$((k+1))` and Enter, until the %output line that
//     carries `<X…>` arrives: tmux reading the command, the shell running
//     printf, tmux passing its output back. The typed text does not hold
//     the printed text, so the pane's echo of the line cannot end a sample.
//   - send-keys: writing `send-keys -t PANE C-c`, until its %end arrives:
//     one control-mode command's round trip, what send_keys C-c needs of
//     tmux. PANE is a second pane of the session, whose program reads
//     bytes in raw mode and discards them: tmux's work for the command
//     does not depend on the program, and a C-c to the floor shell would
//     leave it drawing prompts, or (bash 5.2, now and then) reading the
//     next line with its first key lost.
//   - subshell: as typed, with the printf in a subshell,
//     `(printf '<%s>\n' X$((k+1)))`: the least a run_shell_command can
//     cost in that shell, since the contract runs every command in a
//     subshell of the pane's shell (so that cd and export do not outlive
//     the call), and a subshell is a fork. It is not a target's floor; it
//     tells how much of the typed floor's distance is the fork.
//
// A typed sample then waits for the shell's prompt to come back, so that
// the next one finds the shell idle again. The session is not the one of
// the measured panes: the client sees no output but the floor pane's.

// floorSession names the session of the floor pane.
const floorSession = "floor"

// controlClient is the benchmark's own control-mode client.
type controlClient struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	pane   string // the floor pane, e.g. "%1"
	keys   string // the pane that takes the send-keys floor's C-c
	events chan controlEvent
	done   chan struct{} // closed when the client's output ended
	seq    int           // numbers the typed samples
}

// controlEvent is one line of the client's output that a sample waits
// for, with the time the reader saw it.
type controlEvent struct {
	reply bool   // the %end or %error of a command this client wrote
	err   string // the %error's output; "" for %end
	data  []byte // for an %output of the floor pane: the bytes, decoded
	at    time.Time
}

// startControl starts the client on the floor session, whose panes are
// pane (a shell) and keys (a raw reader), and waits until tmux has
// answered its attach-session. The caller must call close.
func (t *tmuxServer) startControl(ctx context.Context, pane, keys string) (*controlClient, error) {
	cmd := exec.Command(t.Bin, "-L", t.Socket, "-C", "attach-session", "-t", floorSession)
	cmd.Env = t.Env
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the control-mode client: %w", err)
	}
	c := &controlClient{cmd: cmd, stdin: stdin, pane: pane, keys: keys, events: make(chan controlEvent, 4096), done: make(chan struct{})}
	attached := make(chan error, 1)
	go c.read(stdout, attached)
	select {
	case err = <-attached:
	case <-c.done:
		err = errors.New("the control-mode client exited before it attached")
	case <-ctx.Done():
		err = ctx.Err()
	case <-time.After(10 * time.Second):
		err = errors.New("the control-mode client did not attach within 10s")
	}
	if err != nil {
		c.close()
		return nil, fmt.Errorf("attach the control-mode client: %w", err)
	}
	return c, nil
}

// read parses the client's output until it ends. The first block that
// does not answer a command of this client (its flags are not 1) is the
// reply to attach-session.
func (c *controlClient) read(r io.Reader, attached chan<- error) {
	defer close(c.done)
	defer close(c.events)
	br := bufio.NewReaderSize(r, 64<<10)
	var guard string // "<time> <number> <flags>" of the open block, "" outside one
	var out []string
	for {
		line, err := br.ReadBytes('\n')
		if err != nil {
			return
		}
		at := time.Now()
		line = bytes.TrimSuffix(line, []byte("\n"))
		if guard != "" {
			rest, isEnd := bytes.CutPrefix(line, []byte("%end "))
			if !isEnd {
				rest, _ = bytes.CutPrefix(line, []byte("%error "))
			}
			if string(rest) != guard || len(rest) == len(line) {
				out = append(out, string(line))
				continue
			}
			ev := controlEvent{reply: true, at: at}
			if !isEnd {
				ev.err = strings.Join(out, "; ")
			}
			switch {
			case strings.HasSuffix(guard, " 1"):
				c.events <- ev
			case attached != nil:
				if ev.err != "" {
					attached <- errors.New(ev.err)
				}
				close(attached)
				attached = nil
			}
			guard, out = "", nil
			continue
		}
		switch {
		case bytes.HasPrefix(line, []byte("%begin ")):
			guard = string(line[len("%begin "):])
		case bytes.HasPrefix(line, []byte("%output ")):
			pane, data, _ := bytes.Cut(line[len("%output "):], []byte(" "))
			if string(pane) == c.pane {
				c.events <- controlEvent{data: unescapeOutput(data), at: at}
			}
		}
	}
}

// write sends one command line.
func (c *controlClient) write(line string) error {
	if _, err := io.WriteString(c.stdin, line+"\n"); err != nil {
		return fmt.Errorf("control-mode client: %w", err)
	}
	return nil
}

// drain drops what arrived since the last sample: the rest of a prompt
// being drawn, replies nobody waited for.
func (c *controlClient) drain() {
	for {
		select {
		case _, ok := <-c.events:
			if !ok {
				return
			}
		default:
			return
		}
	}
}

// next returns the next event, or an error after timeout.
func (c *controlClient) next(ctx context.Context, deadline <-chan time.Time, what string) (controlEvent, error) {
	select {
	case ev, ok := <-c.events:
		if !ok {
			return controlEvent{}, fmt.Errorf("control-mode client: exited while waiting for %s", what)
		}
		return ev, nil
	case <-ctx.Done():
		return controlEvent{}, ctx.Err()
	case <-deadline:
		return controlEvent{}, fmt.Errorf("control-mode client: no %s within 5s", what)
	}
}

// prompt is what the floor pane's shell shows when it waits for a line,
// once setPrompt has set it. A sample ends when it comes back.
const prompt = "idle> "

// setPrompt sets the floor shell's prompt to prompt, typed so that the
// echo of the line does not hold it, and waits until the shell shows it.
func (c *controlClient) setPrompt(ctx context.Context) error {
	if err := c.typeInto(c.pane, "PS1='idle''> '"); err != nil {
		return err
	}
	deadline := time.After(5 * time.Second)
	var seen []byte
	replied := false
	for !replied || !bytes.Contains(seen, []byte(prompt)) {
		ev, err := c.next(ctx, deadline, "the reply to send-keys and the prompt "+prompt)
		if err != nil {
			return err
		}
		if ev.reply && ev.err != "" {
			return fmt.Errorf("control-mode send-keys: %s", ev.err)
		}
		replied = replied || ev.reply
		seen = append(seen, ev.data...)
	}
	return nil
}

// typed measures one typed floor sample: from writing the send-keys
// command to the %output carrying what printf printed.
func (c *controlClient) typed(ctx context.Context) (time.Duration, error) {
	return c.typedLine(ctx, `printf '<%%s>\n' X$((%d+1))`)
}

// typedSubshell measures one subshell floor sample: typed, with the
// printf in a subshell.
func (c *controlClient) typedSubshell(ctx context.Context) (time.Duration, error) {
	return c.typedLine(ctx, `(printf '<%%s>\n' X$((%d+1)))`)
}

// typedLine types command, a format of the sample's number whose output
// is <X(number+1)>, and Enter, and returns the time from writing the
// send-keys command to the %output carrying that output.
func (c *controlClient) typedLine(ctx context.Context, command string) (time.Duration, error) {
	c.seq++
	mark := fmt.Sprintf("<X%d>", c.seq+1)
	line := fmt.Sprintf(`send-keys -t %s -- %s Enter`, c.pane, tmuxQuote(fmt.Sprintf(command, c.seq)))
	c.drain()
	start := time.Now()
	if err := c.write(line); err != nil {
		return 0, err
	}
	printed, err := c.awaitMarkThenPrompt(ctx, mark, "output "+mark)
	if err != nil {
		return 0, err
	}
	return printed.Sub(start), nil
}

// awaitMarkThenPrompt waits, up to 5 s, for the reply to the command just
// written and for mark in the pane's output followed by the prompt, and
// returns when the %output carrying mark arrived. what names the mark in
// an error.
func (c *controlClient) awaitMarkThenPrompt(ctx context.Context, mark, what string) (time.Time, error) {
	deadline := time.After(5 * time.Second)
	var seen []byte
	var printed time.Time
	after := -1 // where the mark ends in seen
	replied := false
	for after < 0 || !replied || !bytes.Contains(seen[after:], []byte(prompt)) {
		ev, err := c.next(ctx, deadline, what+" and the prompt after it")
		if err != nil {
			return time.Time{}, fmt.Errorf("%w (replied %v, the pane printed %q)", err, replied, seen)
		}
		if ev.reply {
			if ev.err != "" {
				return time.Time{}, fmt.Errorf("control-mode send-keys: %s", ev.err)
			}
			replied = true
			continue
		}
		seen = append(seen, ev.data...)
		if i := bytes.Index(seen, []byte(mark)); after < 0 && i >= 0 {
			printed, after = ev.at, i+len(mark)
		}
	}
	return printed, nil
}

// sendKeys measures one send-keys floor sample: from writing
// `send-keys -t PANE C-c` to its %end.
func (c *controlClient) sendKeys(ctx context.Context) (time.Duration, error) {
	c.drain()
	start := time.Now()
	if err := c.write("send-keys -t " + c.keys + " C-c"); err != nil {
		return 0, err
	}
	at, err := c.awaitReply(ctx)
	if err != nil {
		return 0, err
	}
	return at.Sub(start), nil
}

// command measures one command line of the floor: from writing line to
// the last of its replies (one per command of the line; tmux answers each
// command of a list in a block of its own).
func (c *controlClient) command(ctx context.Context, line string, replies int) (time.Duration, error) {
	c.drain()
	start := time.Now()
	if err := c.write(line); err != nil {
		return 0, err
	}
	var at time.Time
	for range replies {
		var err error
		if at, err = c.awaitReply(ctx); err != nil {
			return 0, err
		}
	}
	return at.Sub(start), nil
}

// typeInto types line and Enter into another pane with one send-keys
// command, and returns once the command was written, without waiting for
// tmux's reply (awaitReply collects it).
func (c *controlClient) typeInto(pane, line string) error {
	c.drain()
	return c.write(fmt.Sprintf("send-keys -t %s -- %s Enter", pane, tmuxQuote(line)))
}

// awaitReply waits for the reply to the command last written and returns
// when the reader saw it. The floor pane is idle meanwhile, so no output
// of its comes between.
func (c *controlClient) awaitReply(ctx context.Context) (time.Time, error) {
	deadline := time.After(5 * time.Second)
	for {
		ev, err := c.next(ctx, deadline, "the reply to send-keys")
		if err != nil {
			return time.Time{}, err
		}
		if ev.reply {
			if ev.err != "" {
				return time.Time{}, fmt.Errorf("control-mode send-keys: %s", ev.err)
			}
			return ev.at, nil
		}
	}
}

// close detaches the client (its standard input ends) and waits for it.
func (c *controlClient) close() {
	c.stdin.Close()
	timeout := time.After(2 * time.Second)
	for open := true; open; {
		select {
		case _, open = <-c.events:
		case <-timeout:
			c.cmd.Process.Kill()
			timeout = nil
		}
	}
	c.cmd.Wait()
}

// tmuxQuote writes s as one double-quoted argument of tmux's command
// syntax that tmux reads back as exactly s: letters, digits and a few
// punctuation marks as they are, every other byte as a backslash and three
// octal digits (so that no "$", "~", "#", quote or line end is read as
// syntax).
func tmuxQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if 'a' <= ch && ch <= 'z' || 'A' <= ch && ch <= 'Z' || '0' <= ch && ch <= '9' || strings.IndexByte(" -_./:,=+@", ch) >= 0 {
			b.WriteByte(ch)
		} else {
			fmt.Fprintf(&b, `\%03o`, ch)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// unescapeOutput decodes the data of an %output line: tmux writes every
// byte below a space, and the backslash, as a backslash and three octal
// digits.
func unescapeOutput(data []byte) []byte {
	out := make([]byte, 0, len(data))
	for i := 0; i < len(data); i++ {
		if data[i] == '\\' && i+3 < len(data) && isOctalDigit(data[i+1]) && isOctalDigit(data[i+2]) && isOctalDigit(data[i+3]) {
			out = append(out, (data[i+1]-'0')<<6|(data[i+2]-'0')<<3|(data[i+3]-'0'))
			i += 3
			continue
		}
		out = append(out, data[i])
	}
	return out
}

func isOctalDigit(b byte) bool { return '0' <= b && b <= '7' }
