package tmux

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tmux-mcp/tmux-mcp/adapters/internal/tty"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// Remote process state
//
// Over ssh the pane's terminal and its processes are on the other host,
// where this process cannot read /proc or a terminal's mode. The remote
// reader asks there instead: one long-lived session on the ssh master runs
// procScript (under bash, else /bin/sh: procCommand), which answers
// questions written to its standard input, one a line, with what /proc,
// the shell's read and, where needed, od, stat and stty say. The
// session is started on the first question, serves every pane of the
// Terminal, with questions from several callers in flight at once (answers
// come in the order asked), and ends after Options.IdleTimeout without a
// question, or when it breaks: the next question starts another.
//
// A question costs a line each way over the connection and what the remote
// shell does for it; a session costs an ssh session on the master (and a
// login shell's start) once, not per question. Every wait for an answer
// ends with the caller's context or after Options.CommandTimeout; a
// session that did not answer in time is ended, so that a connection that
// died silently fails the next question instead of holding it.
//
// The reader sends nothing but verbs and numbers it checked, and reads
// back only the fixed shapes parsed here (procForeground, procDevice,
// procMode): a value it did not see is not reported, and where the host
// cannot tell (no /proc, a terminal that is not /dev/pts/N, a file that
// cannot be read), the error wraps ports.ErrUnsupported. The failure of
// the reader itself (the connection lost, no answer) wraps
// ports.ErrUnavailable or ports.ErrNoAnswer, never ErrUnsupported: the
// domain takes ErrUnsupported for good, and would then do without the
// foreground for the rest of a command.
//
// A new question is one more verb in procScript and a parser here; the
// reader's session, framing and timeouts serve it as they are.

// procQuery is one question to the remote reader: a verb of procScript
// and its numbers.
type procQuery struct {
	verb string
	args []int
}

// procVerbs are the verbs procScript answers, with how many numbers each
// takes and whether the first is a process id (above zero).
var procVerbs = map[string]struct {
	args int
	pid  bool
}{
	"fg":   {1, true},
	"dev":  {1, false},
	"mode": {2, true},
	"last": {0, false},
	"ps":   {3, true},
	"rd":   {2, true},
	"who":  {1, true},
}

// line writes the question as procScript reads it, numbered id. It
// refuses what procScript would refuse, before anything is sent.
func (q procQuery) line(id uint64) (string, error) {
	v, ok := procVerbs[q.verb]
	if !ok || len(q.args) != v.args {
		return "", fmt.Errorf("remote reader: no question %q with %d numbers", q.verb, len(q.args))
	}
	var b strings.Builder
	b.WriteString(strconv.FormatUint(id, 10))
	b.WriteString(" " + q.verb)
	for i, n := range q.args {
		if n < 0 || n > procMaxArg || (i == 0 && v.pid && n == 0) {
			return "", fmt.Errorf("remote reader: %d is no number to ask about", n)
		}
		b.WriteString(" " + strconv.Itoa(n))
	}
	b.WriteByte('\n')
	return b.String(), nil
}

// procMaxArg is the largest number procScript takes: nine digits, more
// than any process id or terminal number (Linux's go up to 2^22 and 2^20),
// and an int everywhere.
const procMaxArg = 999_999_999

// procHello is what the reader said of the host as it started.
type procHello struct {
	proc  bool // /proc has Linux's stat files
	hides bool // /proc hides other users' processes
	nuls  bool // its shell reads command lines itself (read -d), without od
	pid   int  // the reader's process on the remote host, for logs and tests
}

// parseHello reads the reader's first line, "tmux-mcp-proc 1 P H R PID".
func parseHello(line string) (procHello, bool) {
	f := strings.Fields(line)
	if len(f) != 6 || f[0] != "tmux-mcp-proc" || f[1] != "1" || !isBit(f[2]) || !isBit(f[3]) || !isBit(f[4]) {
		return procHello{}, false
	}
	pid, err := strconv.Atoi(f[5])
	if err != nil || pid <= 0 {
		return procHello{}, false
	}
	return procHello{proc: f[2] == "1", hides: f[3] == "1", nuls: f[4] == "1", pid: pid}, true
}

// procCommand is the remote command line of the reader: procScript
// under bash where the host has it, whose read splits a command line at
// its NULs, so that a question about the foreground starts no process;
// else under /bin/sh. (mksh and ksh can split so too, but read their
// input so slowly, about 3 ms a line, that od under dash costs less.) It
// is fixed text: the script in single quotes (shellQuote), twice.
// BASH_ENV is unset so that bash reads no file of the user's first.
func procCommand() string {
	script := shellQuote(procScript)
	return "unset BASH_ENV; if command -v bash >/dev/null 2>&1; then exec bash -c " + script + "; fi; exec /bin/sh -c " + script
}

func isBit(s string) bool { return s == "0" || s == "1" }

// procSession is one running reader: questions are written to w, and the
// answers read from the reader's output by read, in order.
type procSession struct {
	w     io.WriteCloser
	kill  func()        // ends the reader's process
	hello procHello     // set before the session is handed out
	wsem  chan struct{} // one writer at a time, so that the queue's order is the written order

	mu      sync.Mutex
	pending []*procCall
	seq     uint64
	err     error         // why the session ended, once it has
	done    chan struct{} // closed once err is set
}

// procCall is one question in flight.
type procCall struct {
	id   uint64
	sent time.Time
	done chan procReply // buffered: read never waits for the asker
}

type procReply struct {
	lines []string
	err   error
}

// errProcNotSent marks a question that never reached the reader (its
// session had ended): asking again on a new session is safe.
var errProcNotSent = errors.New("the remote reader had ended")

// procAnswerMax bounds the lines of one answer: a command line of 65537
// bytes is 4097 lines of od.
const procAnswerMax = 8192

// newProcSession returns a session whose questions go to w; kill ends
// the reader. The caller sets hello and runs read on the reader's output.
func newProcSession(w io.WriteCloser, kill func()) *procSession {
	return &procSession{w: w, kill: kill, wsem: make(chan struct{}, 1), done: make(chan struct{})}
}

// greet reads lines until the reader's first line; lines before it are
// what the remote login shell's start-up files printed.
func greet(br *bufio.Reader) (procHello, error) {
	for range 1000 {
		line, err := readLine(br)
		if err != nil {
			return procHello{}, err
		}
		if h, ok := parseHello(string(line)); ok {
			return h, nil
		}
	}
	return procHello{}, errors.New("the remote reader never said hello")
}

// read hands each answer to the oldest question until the output ends or
// breaks the protocol, then ends the session with why.
func (s *procSession) read(br *bufio.Reader, exitErr func() error) {
	var lines []string
	for {
		b, err := readLine(br)
		if err != nil {
			s.fail(exitErr())
			return
		}
		line := string(b)
		id, end := strings.CutPrefix(line, ". ")
		if !end {
			more := []string{line}
			if line == "b" {
				if more, err = readRaw(br); err != nil {
					s.fail(err)
					return
				}
			}
			if len(lines)+len(more) > procAnswerMax {
				s.fail(fmt.Errorf("remote reader: an answer longer than %d lines", procAnswerMax))
				return
			}
			lines = append(lines, more...)
			continue
		}
		s.mu.Lock()
		if len(s.pending) == 0 || strconv.FormatUint(s.pending[0].id, 10) != id {
			s.mu.Unlock()
			s.fail(fmt.Errorf("remote reader: an answer to question %q, which is not the one asked", id))
			return
		}
		c := s.pending[0]
		s.pending = s.pending[1:]
		s.mu.Unlock()
		c.done <- procReply{lines: lines}
		lines = nil
	}
}

// readRaw reads the raw items after a line "b" (see procScript): each
// "+", bytes, NUL, until a line feed. Each becomes "=" and its bytes, an
// element no line of an answer can be. All of them together are bounded
// as a command line is.
func readRaw(br *bufio.Reader) ([]string, error) {
	var items []string
	total := 0
	for {
		c, err := br.ReadByte()
		switch {
		case err != nil:
			return nil, fmt.Errorf("remote reader: raw bytes cut short: %w: %w", err, ports.ErrUnavailable)
		case c == '\n':
			return items, nil
		case c != '+':
			return nil, fmt.Errorf("remote reader: raw bytes with an item that starts with %q", c)
		}
		item, err := br.ReadBytes(0)
		if err != nil {
			return nil, fmt.Errorf("remote reader: raw bytes cut short: %w: %w", err, ports.ErrUnavailable)
		}
		if total += len(item); total > procArgsMax+2 || len(items) >= procAnswerMax {
			return nil, fmt.Errorf("remote reader: raw bytes beyond the %d a command line may have", procArgsMax+1)
		}
		items = append(items, "="+string(item[:len(item)-1]))
	}
}

// fail ends the session: every question in flight gets err, and so does
// every later one. The first reason stands.
func (s *procSession) fail(err error) {
	s.mu.Lock()
	if s.err != nil {
		s.mu.Unlock()
		return
	}
	s.err = err
	pending := s.pending
	s.pending = nil
	close(s.done)
	s.mu.Unlock()
	s.kill()
	for _, c := range pending {
		c.done <- procReply{err: err}
	}
}

// ended reports whether the session has ended.
func (s *procSession) ended() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// ask writes the questions at once and waits for their answers, within
// ctx and timeout. A question not answered within timeout ends the
// session. An error wrapping errProcNotSent means that nothing reached
// the reader.
func (s *procSession) ask(ctx context.Context, timeout time.Duration, qs []procQuery) ([][]string, error) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	overdue := func() error {
		err := fmt.Errorf("remote reader: no answer within %v: %w", timeout, ports.ErrNoAnswer)
		s.fail(err)
		return err
	}
	select {
	case s.wsem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-timer.C:
		return nil, overdue()
	}
	s.mu.Lock()
	if s.err != nil {
		err := s.err
		s.mu.Unlock()
		<-s.wsem
		return nil, fmt.Errorf("%w: %w", errProcNotSent, err)
	}
	now := time.Now()
	if len(s.pending) > 0 && now.Sub(s.pending[0].sent) > timeout {
		// An earlier question, whose asker left, was never answered.
		s.mu.Unlock()
		<-s.wsem
		err := overdue()
		return nil, fmt.Errorf("%w: %w", errProcNotSent, err)
	}
	calls := make([]*procCall, len(qs))
	var b strings.Builder
	for i, q := range qs {
		line, err := q.line(s.seq + uint64(i) + 1)
		if err != nil {
			s.mu.Unlock()
			<-s.wsem
			return nil, err
		}
		b.WriteString(line)
		calls[i] = &procCall{id: s.seq + uint64(i) + 1, sent: now, done: make(chan procReply, 1)}
	}
	s.seq += uint64(len(qs))
	s.pending = append(s.pending, calls...)
	s.mu.Unlock()
	_, err := io.WriteString(s.w, b.String())
	<-s.wsem
	if err != nil {
		err = fmt.Errorf("remote reader: write: %w: %w", err, ports.ErrUnavailable)
		s.fail(err)
		return nil, err
	}
	out := make([][]string, len(calls))
	for i, c := range calls {
		select {
		case r := <-c.done:
			if r.err != nil {
				return nil, r.err
			}
			out[i] = r.lines
		case <-ctx.Done():
			// The answer, when it comes, goes to no one.
			return nil, ctx.Err()
		case <-timer.C:
			return nil, overdue()
		}
	}
	return out, nil
}

// close asks the reader to end (its input ends) and waits a moment for
// it, then ends it.
func (s *procSession) close() {
	s.w.Close()
	select {
	case <-s.done:
	case <-time.After(2 * time.Second):
		s.fail(errors.New("remote reader: closed"))
	}
}

// procReader keeps the Terminal's remote reader: one session at a time,
// started on demand (start), ended after idle without questions.
type procReader struct {
	start   func(ctx context.Context) (*procSession, error)
	timeout time.Duration // the longest wait for an answer, or for a start
	idle    time.Duration // how long an unused session stays

	mu        sync.Mutex
	sess      *procSession
	starting  chan struct{} // closed when the start in flight ends
	inflight  int           // questions being asked
	lastUsed  time.Time
	idleTimer *time.Timer
	failedAt  time.Time
	failedErr error
	closed    bool

	starts atomic.Int64 // sessions started, for tests
}

// procRetryAfter is how long a reader that failed to start is not
// started again: questions fail at once with its error meanwhile.
const procRetryAfter = sshRetryAfter

// ask asks the questions on the running session, starting one if none
// runs. A session found ended before anything reached it is replaced
// once.
func (p *procReader) ask(ctx context.Context, qs ...procQuery) ([][]string, error) {
	for attempt := 0; ; attempt++ {
		s, err := p.session(ctx)
		if err != nil {
			return nil, err
		}
		out, err := s.ask(ctx, p.timeout, qs)
		p.release()
		if err != nil && errors.Is(err, errProcNotSent) && attempt == 0 {
			continue
		}
		return out, err
	}
}

// hello returns what the running session, or a new one, said of the host.
func (p *procReader) hello(ctx context.Context) (procHello, error) {
	s, err := p.session(ctx)
	if err != nil {
		return procHello{}, err
	}
	p.release()
	return s.hello, nil
}

// session returns a running session, starting one if needed, with
// inflight raised (release lowers it).
func (p *procReader) session(ctx context.Context) (*procSession, error) {
	for {
		p.mu.Lock()
		switch {
		case p.closed:
			p.mu.Unlock()
			return nil, fmt.Errorf("remote reader: %w: %w", ErrTerminalClosed, ports.ErrUnavailable)
		case p.sess != nil && !p.sess.ended():
			s := p.sess
			p.inflight++
			p.mu.Unlock()
			return s, nil
		case p.starting != nil:
			wait := p.starting
			p.mu.Unlock()
			select {
			case <-wait:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		case p.failedErr != nil && time.Since(p.failedAt) < procRetryAfter:
			err := p.failedErr
			p.mu.Unlock()
			return nil, err
		}
		p.sess = nil
		wait := make(chan struct{})
		p.starting = wait
		p.mu.Unlock()

		s, err := p.start(ctx)
		p.starts.Add(1)

		p.mu.Lock()
		p.starting = nil
		close(wait)
		switch {
		case err != nil:
			if ctx.Err() == nil {
				p.failedAt, p.failedErr = time.Now(), err
			}
			p.mu.Unlock()
			return nil, err
		case p.closed:
			p.mu.Unlock()
			s.close()
			return nil, fmt.Errorf("remote reader: %w: %w", ErrTerminalClosed, ports.ErrUnavailable)
		}
		p.failedErr = nil
		p.sess = s
		p.inflight++
		p.mu.Unlock()
		return s, nil
	}
}

// release ends a use of the session and arms the idle timer.
func (p *procReader) release() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.inflight--
	p.lastUsed = time.Now()
	if p.inflight > 0 || p.closed {
		return
	}
	if p.idleTimer == nil {
		p.idleTimer = time.AfterFunc(p.idle, p.idleCheck)
	} else {
		p.idleTimer.Reset(p.idle)
	}
}

// idleCheck ends a session that nobody asked anything for idle.
func (p *procReader) idleCheck() {
	p.mu.Lock()
	s := p.sess
	if s == nil || p.inflight > 0 || time.Since(p.lastUsed) < p.idle {
		p.mu.Unlock()
		return
	}
	p.sess = nil
	p.mu.Unlock()
	s.close()
}

// close ends the session and every later question.
func (p *procReader) close() {
	p.mu.Lock()
	p.closed = true
	s := p.sess
	p.sess = nil
	if p.idleTimer != nil {
		p.idleTimer.Stop()
	}
	p.mu.Unlock()
	if s != nil {
		s.close()
	}
}

// startProcReader starts the reader on the remote host, in a session of
// the master, with the command line procCommand gives, and waits for its
// first line, within ctx and timeout.
func (l launcher) startProcReader(parent context.Context, timeout time.Duration, line string) (*procSession, error) {
	ctx, cancel := context.WithTimeout(parent, timeout)
	defer cancel()
	// A master that is gone is connected again within the caller's time;
	// the reader then outlives the call. (Should the master go in
	// between, ssh connects by itself, within the wait below.)
	if err := l.ssh.ensure(ctx); err != nil {
		return nil, fmt.Errorf("start the remote reader: %w", err)
	}
	cmd := exec.Command(l.ssh.bin, l.ssh.clientArgs(line)...)
	cmd.Env = l.ssh.env
	dieWithParent(cmd)
	var stderr limitedBuffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("start the remote reader: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("start the remote reader: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the remote reader: %w: %w", err, ports.ErrUnavailable)
	}
	kill := func() { cmd.Process.Kill() }
	s := newProcSession(stdin, kill)
	exitErr := func() error {
		err := cmd.Wait()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			if lerr := l.failed("remote reader", ee.ExitCode(), stderr.String()); lerr != nil {
				return fmt.Errorf("remote reader: %w", lerr)
			}
		}
		return fmt.Errorf("remote reader: exited (%v): %w", err, ports.ErrUnavailable)
	}
	br := bufio.NewReaderSize(stdout, 16<<10)
	hello := make(chan error, 1)
	go func() {
		h, err := greet(br)
		if err != nil {
			kill()
			hello <- exitErr()
			return
		}
		s.hello = h
		hello <- nil
		s.read(br, exitErr)
	}()
	select {
	case err := <-hello:
		if err != nil {
			return nil, fmt.Errorf("start the remote reader: %w", err)
		}
		l.ssh.debug("remote reader started", "destination", l.ssh.dest, "remote pid", s.hello.pid, "proc", s.hello.proc)
		return s, nil
	case <-ctx.Done():
		kill()
		<-hello
		if parent.Err() != nil {
			return nil, fmt.Errorf("start the remote reader: %w", parent.Err())
		}
		return nil, fmt.Errorf("start the remote reader: no answer within %v: %w", timeout, ports.ErrNoAnswer)
	}
}

// What the answers say. Each parser takes the lines of one answer, as
// procScript prints them for its verb.

// procArgsMax is the longest command line read back whole: procScript
// reads one byte more, so that a longer one is known to be cut, and is
// then not reported (Args nil: not read).
const procArgsMax = 65536

// procForeground reads the answer to "fg pid": the foreground process
// group of the terminal that pid is on, which must be the pane's (dev,
// its device number, as /proc/PID/stat writes one). As tty.Foreground
// does locally, a process without an entry is an error wrapping
// tty.ErrNoProc, and one on another terminal, or whose stat cannot be
// read, an error wrapping ports.ErrUnsupported.
func procForeground(pid int, dev uint64, hello procHello, lines []string) (ports.Foreground, error) {
	bad := func() (ports.Foreground, error) {
		return ports.Foreground{}, fmt.Errorf("remote reader: the answer about process %d is %q, not one it gives", pid, lines)
	}
	if len(lines) == 0 {
		return bad()
	}
	switch lines[0] {
	case "s -":
		return ports.Foreground{}, fmt.Errorf("process %d on the remote host: %w: %w", pid, tty.ErrNoProc, ports.ErrUnsupported)
	case "s ?":
		return ports.Foreground{}, fmt.Errorf("/proc/%d/stat on the remote host cannot be read: %w", pid, ports.ErrUnsupported)
	}
	rest, ok := strings.CutPrefix(lines[0], "s ")
	if !ok {
		return bad()
	}
	st, err := tty.ParseStat(pid, ")"+" "+rest)
	if err != nil {
		return ports.Foreground{}, err
	}
	if st.TTYNr != dev || st.Tpgid <= 0 {
		return ports.Foreground{}, fmt.Errorf("process %d is not on the pane's terminal: %w", pid, ports.ErrUnsupported)
	}
	// Then "k T ...", "a T", od's lines, "e T how".
	group := strconv.Itoa(st.Tpgid)
	if len(lines) < 4 || lines[2] != "a "+group {
		return bad()
	}
	kids, ok := strings.CutPrefix(lines[1], "k "+group)
	last := strings.Fields(lines[len(lines)-1])
	if !ok || (kids != "" && kids[0] != ' ') || len(last) != 3 || last[0] != "e" || last[1] != group {
		return bad()
	}
	fg := ports.Foreground{Group: st.Tpgid, Children: parseChildren(kids)}
	switch last[2] {
	case "ok":
		fg.Args = procArgs(lines[3 : len(lines)-1])
	case "+":
		// Longer than is read: not told.
	case "-":
		// The leader has exited (unless /proc hides it): the group lives
		// on without it.
		fg.Children = nil
		if !hello.hides {
			fg.Args = []string{}
		}
	case "?":
	default:
		return bad()
	}
	return fg, nil
}

// procArgs reads a command line as the reader printed it: raw items
// ("=" and an argument) or od's hex of the whole. Empty, not nil, when
// it holds nothing (a zombie's); nil when it is longer than is read or
// in neither shape.
func procArgs(lines []string) []string {
	if len(lines) > 0 && strings.HasPrefix(lines[0], "=") {
		args, n := make([]string, 0, len(lines)), 0
		for _, l := range lines {
			a, ok := strings.CutPrefix(l, "=")
			if n += len(l); !ok || n > procArgsMax {
				return nil
			}
			args = append(args, a)
		}
		return args
	}
	b, ok := decodeOD(lines)
	switch {
	case !ok || len(b) > procArgsMax:
		return nil
	case len(b) == 0:
		return []string{}
	}
	return tty.ParseArgs(b)
}

// parseChildren reads the children of a group's leader: numbers
// separated by spaces, [] for none, nil when they were not read ("?") or
// are not all numbers.
func parseChildren(s string) []int {
	f := strings.Fields(s)
	if len(f) == 1 && f[0] == "?" {
		return nil
	}
	kids := make([]int, 0, len(f))
	for _, w := range f {
		n, err := strconv.Atoi(w)
		if err != nil || n <= 0 {
			return nil
		}
		kids = append(kids, n)
	}
	return kids
}

// decodeOD reads what "od -An -v -tx1" printed: bytes in hex, two digits
// each, separated by blanks.
func decodeOD(lines []string) ([]byte, bool) {
	var b []byte
	for _, line := range lines {
		for _, w := range strings.Fields(line) {
			if len(w) != 2 {
				return nil, false
			}
			n, err := strconv.ParseUint(w, 16, 8)
			if err != nil {
				return nil, false
			}
			b = append(b, byte(n))
		}
	}
	return b, true
}

// procDevice reads the answer to "dev N": the device number of
// /dev/pts/N, encoded as /proc/PID/stat encodes a terminal (proc(5): the
// major number in bits 8 to 19, the minor in bits 0 to 7 and 20 to 31).
func procDevice(lines []string) (uint64, error) {
	if len(lines) == 1 && lines[0] == "d ?" {
		return 0, fmt.Errorf("the device of the pane's terminal on the remote host cannot be read (stat -L -c): %w", ports.ErrUnsupported)
	}
	var f []string
	if len(lines) == 1 {
		f = strings.Fields(lines[0])
	}
	var major, minor uint64
	var err1, err2 error
	if len(f) == 3 {
		major, err1 = strconv.ParseUint(f[1], 16, 32)
		minor, err2 = strconv.ParseUint(f[2], 16, 32)
	}
	if len(f) != 3 || f[0] != "d" || err1 != nil || err2 != nil {
		return 0, fmt.Errorf("remote reader: the answer about a terminal's device is %q, not one it gives", lines)
	}
	if major > 0xfff || minor > 0xfffff {
		return 0, fmt.Errorf("the device of the pane's terminal on the remote host is %q, which /proc cannot name: %w", lines[0], ports.ErrUnsupported)
	}
	return minor&0xff | major<<8 | (minor&^0xff)<<12, nil
}

// procMode reads the answer to "mode pid N": whether pid has an entry
// (alive 1, 0, or -1 when that cannot be told), and whether /dev/pts/N is
// set as a line editor sets it, canonical input and echo both off, from
// what stty -a printed.
func procMode(lines []string) (alive int, editing bool, err error) {
	bad := func() (int, bool, error) {
		return -1, false, fmt.Errorf("remote reader: the answer about a terminal's mode is %q, not one it gives", lines)
	}
	if len(lines) < 3 || lines[1] != "t" {
		return bad()
	}
	switch lines[0] {
	case "p 1":
		alive = 1
	case "p 0":
		alive = 0
	case "p ?":
		alive = -1
	default:
		return bad()
	}
	switch lines[len(lines)-1] {
	case "x ok":
	case "x ?":
		return alive, false, fmt.Errorf("stty cannot read the pane's terminal on the remote host: %w", ports.ErrUnsupported)
	default:
		return bad()
	}
	icanon, echo := sttyFlag(lines[2:len(lines)-1], "icanon"), sttyFlag(lines[2:len(lines)-1], "echo")
	if icanon < 0 || echo < 0 {
		return alive, false, fmt.Errorf("stty -a on the remote host does not say icanon and echo: %w", ports.ErrUnsupported)
	}
	return alive, icanon == 0 && echo == 0, nil
}

// sttyFlag finds a flag in what stty -a printed: 1 when it is set
// ("echo"), 0 when it is not ("-echo"), -1 when it is not there. Settings
// are separated by blanks or ";".
func sttyFlag(lines []string, name string) int {
	for _, line := range lines {
		for _, w := range strings.FieldsFunc(line, func(r rune) bool { return r == ' ' || r == '\t' || r == ';' }) {
			switch w {
			case name:
				return 1
			case "-" + name:
				return 0
			}
		}
	}
	return -1
}
