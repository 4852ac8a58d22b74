package fake

import (
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// OutputStore is an in-memory ports.OutputStore, for tests and for
// -backend fake, which touches no disk. It passes the same contract suite
// as adapters/outputstore's directory of files. The zero value is not
// usable; call NewOutputStore.
type OutputStore struct {
	mu   sync.Mutex
	runs map[string]*output
}

var _ ports.OutputStore = (*OutputStore)(nil)

type output struct {
	data    []byte
	removed bool
}

// NewOutputStore returns an empty in-memory store.
func NewOutputStore() *OutputStore { return &OutputStore{runs: map[string]*output{}} }

// Create makes run id's output (see ports.OutputStore).
func (s *OutputStore) Create(id string) (io.WriteCloser, error) {
	if !ports.ValidRunID(id) {
		return nil, fmt.Errorf("create the output of run %q: %w", id, ports.ErrInvalidRunID)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.runs[id] != nil {
		return nil, fmt.Errorf("create the output of run %s: %w", id, ports.ErrRunExists)
	}
	o := &output{}
	s.runs[id] = o
	return &outputWriter{s: s, o: o}, nil
}

// Open returns a reader of run id's output (see ports.OutputStore).
func (s *OutputStore) Open(id string) (ports.OutputReader, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o := s.runs[id]
	if o == nil {
		return nil, fmt.Errorf("open the output of run %q: %w", id, ports.ErrRunNotFound)
	}
	return &outputReader{s: s, o: o}, nil
}

// Remove deletes run id's output (see ports.OutputStore).
func (s *OutputStore) Remove(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	o := s.runs[id]
	if o == nil {
		return fmt.Errorf("remove the output of run %q: %w", id, ports.ErrRunNotFound)
	}
	o.removed, o.data = true, nil
	delete(s.runs, id)
	return nil
}

// Size returns how many bytes the store holds, for tests of a budget.
func (s *OutputStore) Size() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	var n int64
	for _, o := range s.runs {
		n += int64(len(o.data))
	}
	return n
}

// Len returns how many outputs the store holds.
func (s *OutputStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.runs)
}

var errRemoved = errors.New("the output was removed")

type outputWriter struct {
	s      *OutputStore
	o      *output
	closed bool
}

func (w *outputWriter) Write(p []byte) (int, error) {
	w.s.mu.Lock()
	defer w.s.mu.Unlock()
	switch {
	case w.o.removed:
		return 0, errRemoved
	case w.closed:
		return 0, errors.New("write to a closed output")
	}
	w.o.data = append(w.o.data, p...)
	return len(p), nil
}

func (w *outputWriter) Close() error {
	w.s.mu.Lock()
	defer w.s.mu.Unlock()
	w.closed = true
	return nil
}

type outputReader struct {
	s *OutputStore
	o *output
}

func (r *outputReader) ReadAt(p []byte, off int64) (int, error) {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	if r.o.removed {
		return 0, errRemoved
	}
	if off < 0 {
		return 0, errors.New("negative offset")
	}
	if off >= int64(len(r.o.data)) {
		return 0, io.EOF
	}
	n := copy(p, r.o.data[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (r *outputReader) Close() error { return nil }
