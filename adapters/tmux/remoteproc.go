package tmux

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

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
// procMode) and in remoteleft.go and remotereading.go (procStarted,
// procSleepers, procTermMode, procWho): a value it did not see is not reported, and where the host
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
