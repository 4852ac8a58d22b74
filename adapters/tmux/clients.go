package tmux

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// location is where locate found a pane.
type location struct {
	session string
	dead    bool
}

// locate finds a session that holds the pane (tmux's choice when the
// window is linked into several) and whether the pane is dead, through
// any control client already attached.
func (t *terminal) locate(ctx context.Context, id ports.PaneID) (location, error) {
	out, err := t.exec(ctx, route{}, tmuxCmd("list-panes", "-t", string(id),
		"-f", "#{==:#{pane_id},"+string(id)+"}", "-F", "#{session_id}"+sep+"#{pane_dead}"))
	if err != nil {
		return location{}, err
	}
	session, dead, ok := strings.Cut(strings.TrimSpace(out), sep)
	if !ok {
		return location{}, fmt.Errorf("locate pane %s: tmux did not list it: %w", id, ports.ErrPaneNotFound)
	}
	return location{session: session, dead: dead == "1"}, nil
}

// paneState is a pane as a check through a control client saw it.
type paneState struct {
	dead     bool
	activity int64 // the window's last activity, in seconds since 1970
}

// sessionPanes lists the panes of the client's session through the client
// itself, so the answer comes after every %output line tmux sent before.
func (t *terminal) sessionPanes(ctx context.Context, c *controlClient) (map[ports.PaneID]paneState, error) {
	line, _ := commandLine([][]string{{"list-panes", "-s", "-t", c.session, "-F", "#{pane_id} #{pane_dead} #{window_activity}"}})
	lines, err := c.command(ctx, "list-panes", line)
	if err != nil {
		return nil, err
	}
	states := make(map[ports.PaneID]paneState, len(lines))
	for _, line := range lines {
		f := strings.Fields(line)
		if len(f) != 3 {
			continue
		}
		activity, _ := strconv.ParseInt(f[2], 10, 64)
		states[ports.PaneID(f[0])] = paneState{dead: f[1] == "1", activity: activity}
	}
	return states, nil
}

// clientFor returns the running client for session, starting one if
// needed, taken for the caller (see acquire), and its release.
func (t *terminal) clientFor(ctx context.Context, session string) (*controlClient, func(), error) {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil, nil, fmt.Errorf("%w: %w", ErrTerminalClosed, ports.ErrUnavailable)
	}
	c := t.clients[session]
	if c == nil {
		c = newControlClient(t.clientCfg, t, session)
		release := t.acquire(c)
		t.clients[session] = c
		t.attaching++
		t.track() // not closed: checked above
		t.mu.Unlock()
		err := c.start(ctx)
		t.work.Done()
		t.mu.Lock()
		t.attaching--
		if err != nil {
			// Gone for good: no idle timer, no listening again.
			c.closing = true
			if t.clients[session] == c {
				delete(t.clients, session)
			}
		}
		t.mu.Unlock()
		c.startErr = err
		close(c.ready)
		if err != nil {
			release()
			return nil, nil, err
		}
		return c, release, nil
	}
	release := t.acquire(c)
	t.mu.Unlock()
	var err error
	select {
	case <-c.ready:
		err = c.startErr
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err != nil {
		release()
		return nil, nil, err
	}
	return c, release, nil
}

// clientExited forgets a client whose process ended and, unless it was
// stopped on purpose, listens again to the panes it served.
func (t *terminal) clientExited(c *controlClient) {
	t.mu.Lock()
	if t.clients[c.session] == c {
		delete(t.clients, c.session)
	}
	if c.idle != nil {
		c.idle.Stop()
		c.idle = nil
	}
	var again []*paneRecord
	for _, rec := range t.panes {
		if rec.owner != c || rec.claiming {
			// A claim in progress fails on its own and retries.
			continue
		}
		// tmux may have stopped sending a moment before the end of the
		// output was read.
		t.lapse(rec, time.Now().Add(-time.Second))
		if !c.closing && t.streams(rec) > 0 {
			again = append(again, rec)
		}
	}
	t.mu.Unlock()
	for _, rec := range again {
		t.work.Go(func() { t.relisten(rec) })
	}
}

// armIdle starts the client's idle timer when it serves no stream and no
// caller is using it (attaching a pane, or waiting for a command), and
// stops the timer otherwise; see idleFired for commands. t.mu is
// held.
func (t *terminal) armIdle(c *controlClient) {
	if c.closing || t.closed {
		return
	}
	if c.inflight > 0 || t.serves(c) {
		if c.idle != nil {
			c.idle.Stop()
			c.idle = nil
		}
		return
	}
	if c.idle != nil {
		return
	}
	c.idleGen++
	gen := c.idleGen
	c.idle = time.AfterFunc(t.opts.IdleTimeout, func() { t.idleFired(c, gen) })
}

// serves reports whether any open stream is fed by c. t.mu is held.
func (t *terminal) serves(c *controlClient) bool {
	for _, rec := range t.panes {
		if rec.owner == c && t.streams(rec) > 0 {
			return true
		}
	}
	return false
}

// idleFired stops a client that has stayed idle: no stream and no command
// for Options.IdleTimeout.
func (t *terminal) idleFired(c *controlClient, gen uint64) {
	t.mu.Lock()
	if c.idle == nil || c.idleGen != gen || c.closing || c.inflight > 0 || t.serves(c) {
		t.mu.Unlock()
		return
	}
	if quiet := time.Since(c.lastUsed); quiet < t.opts.IdleTimeout {
		c.idleGen++
		gen := c.idleGen
		c.idle = time.AfterFunc(t.opts.IdleTimeout-quiet, func() { t.idleFired(c, gen) })
		t.mu.Unlock()
		return
	}
	if !t.track() {
		t.mu.Unlock()
		return
	}
	defer t.work.Done()
	c.idle = nil
	c.closing = true
	if t.clients[c.session] == c {
		delete(t.clients, c.session)
	}
	for _, rec := range t.panes {
		if rec.owner == c {
			t.lapse(rec, time.Now())
		}
	}
	t.mu.Unlock()
	t.debug("tmux control client idle, stopping", "session", c.session)
	c.stop()
}
