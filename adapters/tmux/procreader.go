package tmux

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

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
