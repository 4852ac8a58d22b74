package tmux

import (
	"bufio"
	"bytes"
	"context"
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
	cfg     *clientConfig
	sink    clientSink
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

	// The Terminal's bookkeeping of the client, guarded by terminal.mu.
	closing  bool        // stopped on purpose: no reconnecting
	inflight int         // calls busy with this client: attaching a pane, or a command
	lastUsed time.Time   // when the client last took a command for Terminal.command
	idle     *time.Timer // closes the client when it serves no stream
	idleGen  uint64      // tells the armed timer from earlier ones
}

// clientConfig is what a control client needs of the Terminal to run:
// how to start tmux and with which flags, its timeouts, the gate against
// attaching while tmux notifies (see above), the Terminal's lifetime and
// the WaitGroup its goroutines are counted in, and where to log.
type clientConfig struct {
	launch         launcher
	sockArg        []string
	commandTimeout time.Duration
	pollInterval   time.Duration
	gate           *sync.RWMutex
	life           context.Context
	work           *sync.WaitGroup
	lines          *atomic.Int64 // counts the command lines written, for tests
	logger         Logger        // may be nil
	// ping asks whether a tmux server answers, for a client that ended by
	// itself (serverGone).
	ping func(ctx context.Context) error
}

// A clientSink is told what a control client reads, and when it ends.
// The methods run on the client's reader or watcher goroutine.
type clientSink interface {
	deliver(c *controlClient, id ports.PaneID, data []byte) // bytes a pane wrote
	pausedOutput(c *controlClient, id ports.PaneID)         // %pause: tmux dropped the pane's queued output
	checkPanes(c *controlClient)                            // a tick, or a notification that a pane may have gone
	clientExited(c *controlClient)                          // the process ended; the client is done
}

func (c *controlClient) debug(msg string, kv ...any) {
	if c.cfg.logger != nil {
		c.cfg.logger.Debug(msg, kv...)
	}
}

func (c *controlClient) warn(msg string, kv ...any) {
	if c.cfg.logger != nil {
		c.cfg.logger.Warn(msg, kv...)
	}
}

// newControlClient returns a client for session that start will run,
// telling sink what it reads.
func newControlClient(cfg *clientConfig, sink clientSink, session string) *controlClient {
	return &controlClient{
		cfg:      cfg,
		sink:     sink,
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
	cfg := c.cfg
	args := append(append([]string(nil), cfg.sockArg...), "-C", "attach-session", "-t", c.session, "-f", controlFlags)
	cmd, err := cfg.launch.command(context.Background(), args...)
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
	cfg.gate.Lock()
	defer cfg.gate.Unlock()
	err = c.cmd.Start()
	w.Close()
	if err != nil {
		stdout.Close()
		close(c.done)
		return fmt.Errorf("start control client for session %s: %w: %w", c.session, err, ports.ErrUnavailable)
	}
	cfg.work.Go(func() { c.read(stdout) })
	// tmux may run commands written to the client before the
	// attach-session of its command line, so a reply to one shows only
	// that the client's output is set up; the reply to attach-session
	// shows that it is attached.
	timeout := time.NewTimer(cfg.commandTimeout)
	defer timeout.Stop()
	select {
	case <-c.attached:
		err = c.attachErr
	case <-c.done:
		err = c.exitError()
	case <-ctx.Done():
		err = ctx.Err()
	case <-timeout.C:
		err = fmt.Errorf("no answer within %v: %w", cfg.commandTimeout, errNoAnswer)
	}
	if err != nil {
		// The gate is still held: the client may be half attached.
		c.stopProcess()
		return fmt.Errorf("attach control client to session %s: %w", c.session, err)
	}
	cfg.work.Go(c.watch)
	c.debug("tmux control client attached", "session", c.session, "pid", c.cmd.Process.Pid)
	return nil
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
		c.cfg.gate.RLock()
		defer c.cfg.gate.RUnlock()
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
	ctx, cancel := context.WithTimeout(c.cfg.life, stopTimeout)
	defer cancel()
	if cmd, err := c.cfg.launch.command(ctx, append(append([]string(nil), c.cfg.sockArg...), "list-sessions", "-F", "")...); err == nil {
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
		output:   func(id ports.PaneID, data []byte) { c.sink.deliver(c, id, data) },
		paused:   func(id ports.PaneID) { c.sink.pausedOutput(c, id) },
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
	c.debug("tmux control client exited", "session", c.session, "reason", err)
	if byItself && c.serverGone(err) {
		// Not this adapter's doing: the server went away under it. The
		// next call starts a new client, on a new server if one came.
		c.warn("the tmux server is gone: calls fail until a tmux server answers on the socket again",
			"session", c.session, "reason", err.Error())
	}
	c.sink.clientExited(c)
}

// serverGone reports whether a client that ended by itself, with err,
// did so because the server went away: tmux said so, or no server
// answers now. (A client also ends when its session is killed.)
func (c *controlClient) serverGone(err error) bool {
	if errors.Is(err, ports.ErrUnavailable) {
		return true
	}
	ctx, cancel := context.WithTimeout(c.cfg.life, stopTimeout)
	defer cancel()
	return errors.Is(c.cfg.ping(ctx), ports.ErrUnavailable)
}

// watch checks the panes of the client's open streams every poll interval
// and whenever a notification may mean that a pane went away.
func (c *controlClient) watch() {
	tick := time.NewTicker(c.cfg.pollInterval)
	defer tick.Stop()
	for {
		select {
		case <-c.done:
			return
		case <-tick.C:
		case <-c.kick:
		}
		c.sink.checkPanes(c)
	}
}

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
