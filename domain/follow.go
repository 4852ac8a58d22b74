package domain

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// followers keeps one output stream open for every pane a cursor has been
// issued for, so that a cursor keeps meaning the same thing while the
// server runs: the backend counts offsets only while somebody listens.
// Memory per pane is whatever the backend retains for a stream (bounded by
// the backend; 1 MiB by default for tmux); bytes older than that are
// reported as missed. A follower is dropped when its pane dies or its
// process is replaced.
type followers struct {
	mu      sync.Mutex
	streams map[ports.PaneID]*follower
}

type follower struct {
	generation string
	stream     ports.OutputStream
}

// follow returns the open stream of the pane described by info, opening it
// if needed.
func (s *Service) follow(ctx context.Context, info ports.PaneInfo) (ports.OutputStream, error) {
	f := &s.followers
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.streams == nil {
		f.streams = make(map[ports.PaneID]*follower)
	}
	if cur, ok := f.streams[info.ID]; ok {
		ended := cur.stream.ReadFrom(cur.stream.End()).Ended
		// A stream that ended because its pane died still holds the pane's
		// last words, which cursors into it must be able to read; only a
		// new process, or a stream that broke for another reason, calls
		// for a new one.
		paneGone := errors.Is(ended, ports.ErrPaneDead) || errors.Is(ended, ports.ErrPaneNotFound)
		if cur.generation == info.Generation && (ended == nil || paneGone) {
			return cur.stream, nil
		}
		cur.stream.Close()
		delete(f.streams, info.ID)
	}
	stream, err := s.term.OpenOutput(ctx, info.ID)
	if err != nil {
		return nil, fmt.Errorf("open output of pane %s: %w", info.ID, err)
	}
	f.streams[info.ID] = &follower{generation: info.Generation, stream: stream}
	return stream, nil
}

// Close closes every stream the Service holds open.
func (s *Service) Close() error {
	f := &s.followers
	f.mu.Lock()
	defer f.mu.Unlock()
	var errs []error
	for id, cur := range f.streams {
		errs = append(errs, cur.stream.Close())
		delete(f.streams, id)
	}
	return errors.Join(errs...)
}
