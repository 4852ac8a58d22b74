package tmux

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// controlFlags are the flags of the adapter's control-mode clients:
// ignore-size so that they never resize anyone's windows. They are not
// read-only: they send nothing to a pane but what a command sends, and
// tmux hands a pane's mode the keys of no read-only client (send-keys q
// could not leave copy mode), nor those of any command whose client tmux
// picks from the session's, which are these.
const controlFlags = "ignore-size"

// controlPipeSize is the buffer asked for the pipe a control client writes
// its output into.
const controlPipeSize = 1 << 20

// tmux 3.3a crashes (a NULL dereference in control_write) when it sends a
// notification meant for every control client — a session created,
// renamed or closed, a client detached, a pane entering or leaving a mode —
// while a control client is still attaching: tmux takes the client for a
// control client at the first message of its handshake but sets up its
// output only at the last, and serves other clients in between. Nothing
// can stop other programs from causing such a notification at that moment,
// but the Terminal never causes one itself while one of its own clients
// attaches: start holds Terminal.attachGate exclusively from starting the
// process until tmux has answered its first command, and whatever of the
// Terminal's own makes tmux notify every control client holds the gate
// shared — stopping a client (until tmux has taken note that it left) and
// the commands in notifiesControlClients.

// A controlClient is one "tmux -C attach-session" process. tmux sends it
// "%output %N <escaped bytes>" for every pane of the session it is attached
// to, notifications such as "%layout-change", and the reply to each command
// written to its standard input, framed by "%begin" and "%end" (or
// "%error") lines.
type controlClient struct {
	t       *terminal
	session string // the session id, e.g. "$3"
	cmd     *exec.Cmd
	stderr  limitedBuffer

	ready    chan struct{} // closed once start has finished
	startErr error         // set before ready closes

	attached  chan struct{} // closed when tmux has answered attach-session
	attachErr error         // set before attached closes

	mu       sync.Mutex // guards stdin, pending, seq, exited and stopping
	stdin    io.WriteCloser
	pending  []*controlRequest
	seq      uint64 // numbers the requests' end markers
	exited   bool
	stopping bool // the adapter ends the client (stopProcess)

	done    chan struct{} // closed when the process has exited
	exitMsg string        // the reason tmux gave in %exit, set before done closes
	kick    chan struct{} // asks for a check of the panes now

	// heard is when the client last read a line from tmux (Unix
	// nanoseconds): a reply that is still coming, or anything else, shows
	// that tmux answers (see send).
	heard atomic.Int64

	// Guarded by t.mu.
	closing  bool        // stopped on purpose: no reconnecting
	inflight int         // calls busy with this client: attaching a pane, or a command
	lastUsed time.Time   // when the client last took a command for Terminal.command
	idle     *time.Timer // closes the client when it serves no stream
	idleGen  uint64      // tells the armed timer from earlier ones
}

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

// newControlClient returns a client for session that start will run.
func newControlClient(t *terminal, session string) *controlClient {
	return &controlClient{
		t:        t,
		session:  session,
		ready:    make(chan struct{}),
		attached: make(chan struct{}),
		done:     make(chan struct{}),
		kick:     make(chan struct{}, 1),
	}
}

// start runs the control-mode client and waits until tmux has attached it
// to the session, so that it receives the output of the session's panes
// when start returns. The process outlives ctx.
func (c *controlClient) start(ctx context.Context) error {
	t := c.t
	args := append(append([]string(nil), t.sockArg...), "-C", "attach-session", "-t", c.session, "-f", controlFlags)
	cmd, err := t.launch.command(context.Background(), args...)
	if err != nil {
		close(c.done)
		return fmt.Errorf("start control client for session %s: %w", c.session, err)
	}
	c.cmd = cmd
	dieWithParent(c.cmd)
	c.cmd.Stderr = &c.stderr
	stdin, err := c.cmd.StdinPipe()
	if err != nil {
		return fmt.Errorf("start control client for session %s: %w", c.session, err)
	}
	// tmux writes a control client's output straight into this pipe and
	// stops reading a pane while more than a few hundred bytes of it wait
	// to be written. A pane that is not read makes its program's writes
	// block and, worse, makes the kernel discard the tty's echo of input
	// (a large paste), so the pipe gets a large buffer to ride out moments
	// when the reader is not scheduled.
	stdout, w, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("start control client for session %s: %w", c.session, err)
	}
	growPipe(w, controlPipeSize)
	c.cmd.Stdout = w
	c.stdin = stdin
	t.attachGate.Lock()
	defer t.attachGate.Unlock()
	err = c.cmd.Start()
	w.Close()
	if err != nil {
		stdout.Close()
		close(c.done)
		return fmt.Errorf("start control client for session %s: %w: %w", c.session, err, ports.ErrUnavailable)
	}
	t.work.Go(func() { c.read(stdout) })
	// tmux may run commands written to the client before the
	// attach-session of its command line, so a reply to one shows only
	// that the client's output is set up; the reply to attach-session
	// shows that it is attached.
	timeout := time.NewTimer(t.opts.CommandTimeout)
	defer timeout.Stop()
	select {
	case <-c.attached:
		err = c.attachErr
	case <-c.done:
		err = c.exitError()
	case <-ctx.Done():
		err = ctx.Err()
	case <-timeout.C:
		err = fmt.Errorf("no answer within %v: %w", t.opts.CommandTimeout, errNoAnswer)
	}
	if err != nil {
		// The gate is still held: the client may be half attached.
		c.stopProcess()
		return fmt.Errorf("attach control client to session %s: %w", c.session, err)
	}
	t.work.Go(c.watch)
	t.debug("tmux control client attached", "session", c.session, "pid", c.cmd.Process.Pid)
	return nil
}

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
	c.t.controlLines.Add(1)
	if err != nil {
		// A partial write may have reached tmux.
		return nil, &clientGoneError{err: fmt.Errorf("control client for session %s: write command: %w", c.session, err), sent: true}
	}
	out := make([][]string, len(reqs))
	// The wait ends when tmux has said nothing at all for CommandTimeout:
	// a long reply that is still coming (a capture of many rows through
	// ssh on a slow link) is an answer.
	quiet := c.t.opts.CommandTimeout
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

// running reports whether the client has attached and was not stopped on
// purpose. t.mu is held.
func (c *controlClient) running() bool {
	select {
	case <-c.ready:
		return c.startErr == nil && !c.closing
	default:
		return false
	}
}

// exitError says why the client is gone.
func (c *controlClient) exitError() error {
	why := c.exitMsg
	if s := strings.TrimSpace(c.stderr.String()); s != "" {
		why = strings.TrimSpace(why + " " + s)
	}
	if why == "" {
		why = "exited"
	}
	err := fmt.Errorf("control client for session %s: %s", c.session, why)
	if kind := classify(why); kind != nil {
		err = fmt.Errorf("%w: %w", err, kind)
	}
	return err
}

// poke asks for a check of the panes without waiting for the next tick.
func (c *controlClient) poke() {
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

// stop waits for start to finish and ends the process it started.
func (c *controlClient) stop() {
	<-c.ready
	if c.startErr == nil {
		// Detaching makes tmux notify every control client.
		c.t.attachGate.RLock()
		defer c.t.attachGate.RUnlock()
		c.stopProcess()
	}
}

// stopProcess ends the process: closing its standard input detaches it,
// and a process that does not exit soon after is killed. It returns once
// tmux has taken note that the client left. The caller holds attachGate.
func (c *controlClient) stopProcess() {
	c.mu.Lock()
	c.stopping = true
	c.stdin.Close()
	c.mu.Unlock()
	select {
	case <-c.done:
	case <-time.After(stopTimeout):
		c.cmd.Process.Kill()
		<-c.done
	}
	// tmux notifies the other control clients that the client left when it
	// sees the client's connection close, which is after the process has
	// exited: one more command to the server is answered only after that.
	// (Close stops its clients before it ends the Terminal's life.)
	ctx, cancel := context.WithTimeout(c.t.life, stopTimeout)
	defer cancel()
	if cmd, err := c.t.launch.command(ctx, append(append([]string(nil), c.t.sockArg...), "list-sessions", "-F", "")...); err == nil {
		cmd.Run() // a server that has gone notifies nobody
	}
}

// stopTimeout is how long a client's process is given to exit once told
// to, and tmux to take note that it left; and how long a client that
// ended by itself waits to learn whether the server is gone.
const stopTimeout = 2 * time.Second

// read consumes the client's output until it ends, then reaps the process
// and tells the Terminal.
func (c *controlClient) read(r io.ReadCloser) {
	defer r.Close()
	p := controlParser{
		output:   func(id ports.PaneID, data []byte) { c.t.deliver(c, id, data) },
		paused:   func(id ports.PaneID) { c.t.pausedOutput(c, id) },
		reply:    c.reply,
		printing: c.printingBlock,
		notify: func(name string) {
			switch name {
			case "%layout-change", "%window-close", "%unlinked-window-close",
				"%window-pane-changed", "%sessions-changed", "%session-window-changed",
				"%unlinked-window-add", "%window-add":
				c.poke()
			}
		},
		attached: func(err error) {
			select {
			case <-c.attached:
			default:
				if err != nil {
					msg := err.Error()
					c.attachErr = &CommandError{Command: "attach-session", Message: msg, kind: classify(msg)}
				}
				close(c.attached)
			}
		},
		exit: func(reason string) { c.exitMsg = reason },
	}
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := readLine(br)
		if err != nil {
			break
		}
		c.heard.Store(time.Now().UnixNano())
		p.line(line)
	}
	c.cmd.Wait()
	c.mu.Lock()
	c.exited = true
	pending := c.pending
	c.pending = nil
	byItself := !c.stopping
	c.mu.Unlock()
	err := &clientGoneError{err: c.exitError(), sent: true}
	for _, req := range pending {
		req.done <- controlReply{err: err}
	}
	close(c.done)
	c.t.debug("tmux control client exited", "session", c.session, "reason", err)
	if byItself && c.serverGone(err) {
		// Not this adapter's doing: the server went away under it. The
		// next call starts a new client, on a new server if one came.
		c.t.warn("the tmux server is gone: calls fail until a tmux server answers on the socket again",
			"session", c.session, "reason", err.Error())
	}
	c.t.clientExited(c)
}

// serverGone reports whether a client that ended by itself, with err,
// did so because the server went away: tmux said so, or no server
// answers now. (A client also ends when its session is killed.)
func (c *controlClient) serverGone(err error) bool {
	if errors.Is(err, ports.ErrUnavailable) {
		return true
	}
	ctx, cancel := context.WithTimeout(c.t.life, stopTimeout)
	defer cancel()
	return errors.Is(c.t.ping(ctx), ports.ErrUnavailable)
}

// watch checks the panes of the client's open streams every poll interval
// and whenever a notification may mean that a pane went away.
func (c *controlClient) watch() {
	tick := time.NewTicker(c.t.opts.PollInterval)
	defer tick.Stop()
	for {
		select {
		case <-c.done:
			return
		case <-tick.C:
		case <-c.kick:
		}
		c.t.checkPanes(c)
	}
}

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

// limitedBuffer keeps the first 4 KiB written to it, for error messages.
type limitedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if room := 4<<10 - b.buf.Len(); room > 0 {
		b.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (b *limitedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
