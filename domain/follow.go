package domain

import (
	"context"
	"errors"
	"sync"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// followers keeps one output stream open for every pane a cursor has been
// issued for, so that a cursor keeps meaning the same thing while the
// server runs: the backend counts offsets only while somebody listens.
// Memory per pane is whatever the backend retains for a stream (bounded by
// the backend; 1 MiB by default for tmux); bytes older than that are
// reported as missed. A follower is replaced when its pane's process is
// replaced; one whose pane is gone is kept (cursors may still read its
// last words) until more than maxFollowers are held, and then dropped.
type followers struct {
	mu      sync.Mutex
	streams map[ports.PaneID]*follower
}

// maxFollowers bounds how many panes are followed before the followers of
// panes that have gone are dropped.
const maxFollowers = 256

type follower struct {
	generation string
	ready      chan struct{} // closed once stream or err is set
	stream     ports.OutputStream
	err        error
}

// ended reports whether the follower's stream ended because its pane went
// away (its last words stay readable), and whether it ended at all.
func (fl *follower) ended() (gone, ended bool) {
	if fl.err != nil {
		return false, true
	}
	e := fl.stream.ReadFrom(fl.stream.End()).Ended
	return paneGone(e), e != nil
}

// follow returns the open stream of the pane described by info, opening it
// if needed. Opening happens outside the lock, so that a slow backend
// holds up only the callers that wait for the same pane.
func (s *Service) follow(ctx context.Context, info ports.PaneInfo) (ports.OutputStream, error) {
	f := &s.followers
	for {
		f.mu.Lock()
		if f.streams == nil {
			f.streams = make(map[ports.PaneID]*follower)
		}
		cur, ok := f.streams[info.ID]
		if !ok {
			nf := &follower{generation: info.Generation, ready: make(chan struct{})}
			f.streams[info.ID] = nf
			f.evictLocked()
			f.mu.Unlock()
			nf.stream, nf.err = s.term.OpenOutput(ctx, info.ID)
			close(nf.ready)
			if nf.err != nil {
				f.drop(info.ID, nf)
				return nil, nf.err
			}
			return nf.stream, nil
		}
		f.mu.Unlock()
		select {
		case <-cur.ready:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		// A stream that ended because its pane died still holds the pane's
		// last words, which cursors into it must be able to read; only a
		// new process, or a stream that broke for another reason, calls
		// for a new one.
		if gone, ended := cur.ended(); cur.generation == info.Generation && (!ended || gone) {
			return cur.stream, nil
		}
		f.drop(info.ID, cur)
	}
}

// drop removes fl if it is still pane's follower, closing its stream.
func (f *followers) drop(pane ports.PaneID, fl *follower) {
	f.mu.Lock()
	if f.streams[pane] == fl {
		delete(f.streams, pane)
	}
	f.mu.Unlock()
	if fl.stream != nil {
		fl.stream.Close()
	}
}

// evictLocked drops followers of panes that have gone once there are more
// than maxFollowers. The caller holds f.mu.
func (f *followers) evictLocked() {
	if len(f.streams) <= maxFollowers {
		return
	}
	for id, fl := range f.streams {
		select {
		case <-fl.ready:
		default:
			continue // still opening
		}
		if _, ended := fl.ended(); ended {
			delete(f.streams, id)
			if fl.stream != nil {
				fl.stream.Close()
			}
		}
	}
}

// close closes every stream kept open for cursors.
func (f *followers) close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	var errs []error
	for id, cur := range f.streams {
		select {
		case <-cur.ready:
			if cur.stream != nil {
				errs = append(errs, cur.stream.Close())
			}
		default: // its opener closes nothing; the Terminal's own Close ends it
		}
		delete(f.streams, id)
	}
	return errors.Join(errs...)
}
