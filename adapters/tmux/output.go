package tmux

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/tmux-mcp/tmux-mcp/adapters/internal/outbuf"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// How output is listened to
//
// A pane's output comes from a control-mode client attached to a session
// that holds the pane's window; tmux sends such a client the output of
// every pane of its session. The Terminal starts one client per session on
// demand (OpenOutput, or a command about one of its panes; see command.go)
// and stops it when it has served no stream and no command for
// Options.IdleTimeout. Each pane that was ever listened to has a
// paneRecord: its absolute offset (bytes seen since the Terminal first
// listened to it), a ring of its newest bytes and its open streams. Exactly
// one client, the record's owner, feeds a record, even when the pane's
// window is linked into several sessions.
//
// The clients are ignore-size, so they never resize windows, and type
// into panes only what a command sends (see controlFlags for why they are
// not read-only); tmux lists them as control-mode clients, which
// Pane does not count as watchers. No pause-after flow control is asked
// for: the reader copies every line into the rings at once, so tmux never
// has to buffer much for it.
//
// While no client listens to a pane (before a client for its new session
// is attached after the pane moved, after a client was detached or exited,
// after an idle client was stopped), the pane may write bytes nobody sees.
// tmux does not count a pane's bytes, so the loss cannot be measured; it
// can be detected, from the window's activity time (the last second any of
// its panes wrote). When the pane is listened to again and its window was
// active since listening lapsed, one byte is counted as missed — a lower
// bound of the loss, so that a reader behind it learns that output is
// incomplete.
//
// Pane death ends the streams with an error wrapping ports.ErrPaneDead:
// notifications that may mean a pane went away (%layout-change,
// %window-close, ...) trigger a check at once, and the panes of open
// streams are checked every Options.PollInterval, since tmux sends no
// notification when a pane kept by remain-on-exit dies.

// ErrStreamClosed is what a closed stream's chunks carry in Ended. It is
// the error every adapter built on outbuf uses.
var ErrStreamClosed = outbuf.ErrClosed

// paneRecord is what the Terminal keeps of one pane's output. The
// recorder's lock, terminal.rmu, guards out (the pane's newest bytes and
// its open streams), held and heldGap: what a control client's reader
// writes for every %output line, which so contends with the stream's
// readers only, not with every command on terminal.mu. owner and
// claiming, which that reader reads too, are written under both locks
// and read under either; the other fields are guarded by terminal.mu,
// except listenMu. Lock order: terminal.mu before terminal.rmu.
type paneRecord struct {
	id  ports.PaneID
	out *outbuf.Buffer

	owner    *controlClient // the client whose output is recorded; nil while none listens
	claiming bool           // owner is being confirmed; bytes wait in held
	held     []byte
	heldGap  bool // tmux dropped output after held (a %pause while claiming)

	// blindSince is when listening lapsed, zero while nothing may have been
	// missed; covered is when a check last found the pane in the owner's
	// session.
	blindSince time.Time
	covered    time.Time

	// confirmed is the owner when the lease's command list has just found
	// the pane in the owner's session (see confirmOwner), confirmedAt when
	// it asked and confirmedDead whether the pane was dead then: the next
	// listen takes that for its own check instead of asking again. Cleared
	// by that listen and whenever listening lapses.
	confirmed     *controlClient
	confirmedAt   time.Time
	confirmedDead bool

	listenMu sync.Mutex // serializes attaching the pane to a client
}

// record returns the pane's record, making it if needed. t.mu is held.
func (t *terminal) record(id ports.PaneID) *paneRecord {
	rec := t.panes[id]
	if rec == nil {
		rec = &paneRecord{id: id, out: outbuf.New(&t.rmu, t.opts.RingSize)}
		t.rmu.Lock()
		t.panes[id] = rec
		t.rmu.Unlock()
	}
	return rec
}

// streams counts the pane's open streams.
func (t *terminal) streams(rec *paneRecord) int {
	t.rmu.Lock()
	defer t.rmu.Unlock()
	return rec.out.Streams()
}

// A recordedStream is a stream of a pane's record. Closing it may leave
// the pane's client serving no stream, so it then arms the client's idle
// timer: after the buffer's Close, which holds terminal.rmu, as that
// takes terminal.mu.
type recordedStream struct {
	*outbuf.Stream
	t   *terminal
	rec *paneRecord
}

func (s recordedStream) Close() error {
	err := s.Stream.Close()
	s.t.mu.Lock()
	if s.rec.owner != nil {
		s.t.armIdle(s.rec.owner)
	}
	s.t.mu.Unlock()
	return err
}

// OpenOutput returns a stream of the pane's output. It returns once a
// control-mode client is attached to a session holding the pane and tmux
// has answered a command sent through it after the pane was claimed, so
// every byte the pane writes after OpenOutput returns reaches the stream.
// On a dead pane it returns a stream that has already ended with an error
// wrapping ports.ErrPaneDead.
//
// Errors wrap ports.ErrPaneNotFound or ports.ErrUnavailable.
func (t *Terminal) OpenOutput(ctx context.Context, id ports.PaneID) (ports.OutputStream, error) {
	if err := checkPaneID(id); err != nil {
		return nil, err
	}
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil, fmt.Errorf("open output of pane %s: %w: %w", id, ErrTerminalClosed, ports.ErrUnavailable)
	}
	rec := t.record(id)
	t.mu.Unlock()

	_, release, dead, err := t.listen(ctx, rec)
	if err != nil {
		return nil, fmt.Errorf("open output of pane %s: %w", id, err)
	}
	// Given back once the stream is open, which keeps the client.
	defer release()
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil, fmt.Errorf("open output of pane %s: %w: %w", id, ErrTerminalClosed, ports.ErrUnavailable)
	}
	t.rmu.Lock()
	defer t.rmu.Unlock()
	if dead {
		return recordedStream{rec.out.OpenEnded(deadError(id)), t.terminal, rec}, nil
	}
	return recordedStream{rec.out.Open(), t.terminal, rec}, nil
}

// deadError is the Ended of the streams of a pane that died or was closed.
func deadError(id ports.PaneID) error {
	return fmt.Errorf("pane %s exited: %w", id, ports.ErrPaneDead)
}

// listen makes sure a control client records the pane's output. It
// returns that client, taken for the caller (see acquire), and its
// release, or dead when the pane is dead (with no client if none
// listens). release is never nil; the caller calls it, on error too.
func (t *terminal) listen(ctx context.Context, rec *paneRecord) (c *controlClient, release func(), dead bool, err error) {
	rec.listenMu.Lock()
	defer rec.listenMu.Unlock()
	none := func() {}
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		if ctx.Err() != nil {
			return nil, none, false, ctx.Err()
		}
		t.mu.Lock()
		c = rec.owner
		if c != nil {
			release = t.acquire(c)
		}
		t.mu.Unlock()
		if c != nil {
			// Already recorded: confirm that the pane is still in the
			// owner's session, unless the lease's command list did so a
			// moment ago.
			t.mu.Lock()
			pre := rec.confirmed == c && c.running() && time.Since(rec.confirmedAt) < confirmationFresh
			dead := rec.confirmedDead
			rec.confirmed = nil
			t.mu.Unlock()
			if pre {
				return c, release, dead, nil
			}
			states, err := t.sessionPanes(ctx, c)
			st, found := states[rec.id]
			if err == nil && found {
				return c, release, st.dead, nil
			}
			t.mu.Lock()
			if rec.owner == c {
				t.lapse(rec, rec.covered)
			}
			t.mu.Unlock()
			release()
		}

		loc, err := t.locate(ctx, rec.id)
		if err != nil {
			return nil, none, false, err
		}
		if loc.dead {
			return nil, none, true, nil
		}
		c, release, err = t.clientFor(ctx, loc.session)
		if err != nil {
			if errors.Is(err, ports.ErrUnavailable) || ctx.Err() != nil {
				return nil, none, false, err
			}
			lastErr = err
			continue
		}

		// Claim the pane before asking, so that no byte tmux sends after
		// the question is dropped; they wait in held until the answer
		// tells whether bytes were missed before.
		t.mu.Lock()
		t.rmu.Lock()
		rec.owner, rec.claiming, rec.held, rec.heldGap = c, true, nil, false
		t.rmu.Unlock()
		t.mu.Unlock()
		asked := time.Now()
		states, err := t.sessionPanes(ctx, c)
		st, found := states[rec.id]
		t.mu.Lock()
		if err != nil || !found {
			if rec.owner == c {
				t.rmu.Lock()
				rec.owner, rec.claiming, rec.held, rec.heldGap = nil, false, nil, false
				t.rmu.Unlock()
			}
			t.mu.Unlock()
			release()
			if err == nil {
				err = fmt.Errorf("pane %s left session %s", rec.id, c.session)
			}
			lastErr = err
			continue
		}
		missed := !rec.blindSince.IsZero() && st.activity >= rec.blindSince.Unix()
		t.rmu.Lock()
		if missed {
			rec.out.Skip(1)
		}
		rec.out.Write(rec.held)
		if rec.heldGap {
			rec.out.Skip(1)
		}
		rec.owner, rec.claiming, rec.held, rec.heldGap = c, false, nil, false
		t.rmu.Unlock()
		if missed {
			t.debug("tmux pane output may have been missed", "pane", rec.id, "since", rec.blindSince)
		}
		rec.blindSince, rec.covered = time.Time{}, asked
		t.mu.Unlock()
		return c, release, st.dead, nil
	}
	return nil, none, false, fmt.Errorf("attach a control client: %w", lastErr)
}

// confirmationFresh is how long a confirmation made by the lease's command
// list stands in for listen's own. The check that keeps a stream honest
// when its pane moves afterwards is checkPanes, as for any stream; this
// only bounds how old a fact listen takes from another call.
const confirmationFresh = time.Second

// listener returns the client that records the pane's output, or nil
// while none does or one is being confirmed.
func (t *terminal) listener(pane ports.PaneID) *controlClient {
	t.mu.Lock()
	defer t.mu.Unlock()
	if rec := t.panes[pane]; rec != nil && rec.owner != nil && !rec.claiming {
		return rec.owner
	}
	return nil
}

// ownerCheckCmd lists the pane if session holds it, tagged "S" with
// whether it is dead. It never fails, whatever became of the pane or the
// session: a failing command would end the list it is part of.
func ownerCheckCmd(pane ports.PaneID, session string) cmdList {
	return tmuxCmd("list-panes", "-a",
		"-f", "#{&&:#{==:#{pane_id},"+string(pane)+"},#{==:#{session_id},"+session+"}}",
		"-F", "S"+sep+"#{pane_id}"+sep+"#{pane_dead}")
}

// confirmOwner takes note of what ownerCheckCmd printed in out, asked at
// asked: when c still records the pane and its session holds it, the
// next listen need not ask.
func (t *terminal) confirmOwner(pane ports.PaneID, c *controlClient, out string, asked time.Time) {
	for _, row := range tagged(out, "S", 2) {
		if row[0] != string(pane) {
			continue
		}
		t.mu.Lock()
		if rec := t.panes[pane]; rec != nil && rec.owner == c && !rec.claiming {
			rec.confirmed, rec.confirmedAt, rec.confirmedDead = c, asked, row[1] == "1"
			rec.covered = asked
		}
		t.mu.Unlock()
		return
	}
}

// lapse records that nobody listens to the pane from since on. t.mu is
// held, not t.rmu.
func (t *terminal) lapse(rec *paneRecord, since time.Time) {
	t.rmu.Lock()
	defer t.rmu.Unlock()
	rec.owner, rec.claiming, rec.held, rec.heldGap = nil, false, nil, false
	rec.confirmed = nil
	if since.IsZero() {
		since = time.Now()
	}
	if rec.blindSince.IsZero() || since.Before(rec.blindSince) {
		rec.blindSince = since
	}
	if rec.out.Streams() == 0 {
		// Nobody reads on; what is retained may now have a hole after it
		// anyway.
		rec.out.Release()
	}
}

// deliver records bytes that client c received from pane id, under the
// recorder's lock alone.
func (t *terminal) deliver(c *controlClient, id ports.PaneID, data []byte) {
	t.rmu.Lock()
	defer t.rmu.Unlock()
	rec := t.panes[id]
	if rec == nil || rec.owner != c || len(data) == 0 {
		return
	}
	if rec.claiming {
		rec.held = append(rec.held, data...)
		return
	}
	rec.out.Write(data)
}

// pausedOutput handles "%pause %N": tmux has dropped the output of the
// pane it had queued for the client and sends it none until told to
// continue. RespawnPane does that to every control client around
// respawn-pane (see manage.go), and so may another process that shares
// the server. How many bytes were dropped is unknown, so the pane's
// streams count one as missed at that point; and the client is told to
// continue at once, in the background (the reply comes through the
// reader that called this), so that it is never left paused by whoever
// paused it. Continuing a pane that is not paused does nothing.
func (t *terminal) pausedOutput(c *controlClient, id ports.PaneID) {
	t.rmu.Lock()
	if rec := t.panes[id]; rec != nil && rec.owner == c {
		if rec.claiming {
			rec.heldGap = true
		} else {
			rec.out.Skip(1)
		}
	}
	t.rmu.Unlock()
	if checkPaneID(id) != nil {
		return
	}
	t.debug("tmux paused a pane's output, which may have been missed", "pane", id, "session", c.session)
	t.work.Go(func() {
		ctx, cancel := context.WithTimeout(t.life, backgroundTimeout)
		defer cancel()
		if _, err := c.command(ctx, "refresh-client", "refresh-client -A "+string(id)+":continue"); err != nil {
			t.debug("tmux pane output not continued", "pane", id, "err", err)
		}
	})
}

// checkPanes ends the streams of the client's panes that died, and
// listens again to those that left its session.
func (t *terminal) checkPanes(c *controlClient) {
	t.rmu.Lock()
	var watched []*paneRecord
	for _, rec := range t.panes {
		if rec.owner == c && !rec.claiming && rec.out.Streams() > 0 {
			watched = append(watched, rec)
		}
	}
	t.rmu.Unlock()
	if len(watched) == 0 {
		return
	}
	asked := time.Now()
	ctx, cancel := context.WithTimeout(t.life, backgroundTimeout)
	states, err := t.sessionPanes(ctx, c)
	cancel()
	if err != nil {
		// An exited client is handled by clientExited.
		return
	}
	var moved []*paneRecord
	t.mu.Lock()
	for _, rec := range watched {
		if rec.owner != c || rec.claiming {
			continue
		}
		st, found := states[rec.id]
		switch {
		case found && st.dead:
			t.endStreams(rec, deadError(rec.id))
		case found:
			rec.covered = asked
		default:
			moved = append(moved, rec)
		}
	}
	t.mu.Unlock()
	for _, rec := range moved {
		t.work.Go(func() { t.relisten(rec) })
	}
}

// relisten attaches a pane with open streams to a client again after its
// owner lost it, or ends its streams when the pane is gone.
func (t *terminal) relisten(rec *paneRecord) {
	var lastErr error
	for attempt := 0; attempt < 5; attempt++ {
		if attempt > 0 {
			select {
			case <-time.After(time.Duration(50<<attempt) * time.Millisecond):
			case <-t.life.Done():
				return
			}
		}
		t.mu.Lock()
		if t.closed || t.streams(rec) == 0 {
			t.mu.Unlock()
			return
		}
		t.mu.Unlock()
		ctx, cancel := context.WithTimeout(t.life, backgroundTimeout)
		_, release, dead, err := t.listen(ctx, rec)
		cancel()
		release()
		t.mu.Lock()
		switch {
		case err == nil && dead:
			t.endStreams(rec, deadError(rec.id))
		case err == nil:
		case errors.Is(err, ports.ErrPaneNotFound):
			t.endStreams(rec, fmt.Errorf("pane %s closed: %w", rec.id, ports.ErrPaneDead))
		case errors.Is(err, ports.ErrUnavailable) && !isLinkError(err):
			// The tmux server has gone, and its panes with it. A lost
			// connection to a remote host says nothing about its panes:
			// that is retried, and the streams end as broken, not dead.
			t.endStreams(rec, fmt.Errorf("pane %s: %w (%w)", rec.id, ports.ErrPaneDead, err))
		default:
			t.mu.Unlock()
			lastErr = err
			continue
		}
		t.mu.Unlock()
		return
	}
	t.mu.Lock()
	t.endStreams(rec, fmt.Errorf("output of pane %s: cannot listen again: %w", rec.id, lastErr))
	t.mu.Unlock()
}

// endStreams ends every open stream of the pane with err. t.mu is held,
// not t.rmu.
func (t *terminal) endStreams(rec *paneRecord, err error) {
	t.rmu.Lock()
	rec.out.EndStreams(err)
	t.rmu.Unlock()
	if rec.owner != nil {
		t.armIdle(rec.owner)
	}
}

// backgroundTimeout bounds each command that the Terminal's own
// goroutines send (checking panes, listening again, continuing a paused
// pane), within its lifetime.
const backgroundTimeout = 10 * time.Second
