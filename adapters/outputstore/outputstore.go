// Package outputstore is the ports.OutputStore of a server process whose
// commands run on this machine or another: one file per run, in a
// directory of the process's own that only its user may enter, removed
// when the process closes it. How much it holds is the domain's to bound
// (domain/runlog keeps every run within the server's budget); the store
// keeps what it is given.
//
// The directory is made under a base, by default the user's state
// directory, $XDG_STATE_HOME/tmux-mcp/runs (~/.local/state/tmux-mcp/runs
// when XDG_STATE_HOME is not set): on a disk, not in memory as the
// runtime directory and /dev/shm are, since a budget of hundreds of
// megabytes there would be taken from the machine's memory. Each process
// makes its own directory, named after its pid, mode 0700, and its files
// are 0600; a process that died without cleaning up leaves its directory
// to the next process that opens a store under the same base, which
// removes it.
package outputstore

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/tmux-mcp/tmux-mcp/adapters/internal/proc"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// A Dir is the directory of one process's run outputs. The zero value is
// not usable; call Open.
type Dir struct {
	path string

	mu     sync.Mutex
	runs   map[string]*runFile
	closed bool
}

var _ ports.OutputStore = (*Dir)(nil)

// A runFile is one run's output: the file and its writer's descriptor.
type runFile struct {
	path string

	mu      sync.Mutex
	w       *os.File // nil once closed
	removed bool
}

// DefaultBase returns the directory under which Open("") makes its
// directory: $XDG_STATE_HOME/tmux-mcp/runs, else
// ~/.local/state/tmux-mcp/runs, else, with no home directory known,
// tmux-mcp-UID/runs in the system's temporary directory.
func DefaultBase() string {
	if s := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(s) {
		return filepath.Join(s, "tmux-mcp", "runs")
	}
	if home, err := os.UserHomeDir(); err == nil && filepath.IsAbs(home) {
		return filepath.Join(home, ".local", "state", "tmux-mcp", "runs")
	}
	return filepath.Join(os.TempDir(), "tmux-mcp-"+strconv.Itoa(os.Getuid()), "runs")
}

// Open makes a new, empty Dir under base (DefaultBase when base is
// empty), making base first if need be, only its user's. It removes the
// directories that processes no longer running left under base.
//
// Errors: base cannot be made, or is not a directory of this user's
// that others cannot enter.
func Open(base string) (*Dir, error) {
	if base == "" {
		base = DefaultBase()
	}
	if err := os.MkdirAll(base, 0o700); err != nil {
		return nil, fmt.Errorf("make the run output directory: %w", err)
	}
	fi, err := os.Stat(base)
	switch {
	case err != nil:
		return nil, fmt.Errorf("make the run output directory: %w", err)
	case !fi.IsDir():
		return nil, fmt.Errorf("make the run output directory: %s is not a directory", base)
	case !proc.Mine(fi):
		return nil, fmt.Errorf("make the run output directory: %s belongs to another user", base)
	}
	sweep(base)
	path, err := os.MkdirTemp(base, strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return nil, fmt.Errorf("make the run output directory: %w", err)
	}
	// MkdirTemp makes it 0700; say so, whatever the umask.
	if err := os.Chmod(path, 0o700); err != nil {
		os.Remove(path)
		return nil, fmt.Errorf("make the run output directory: %w", err)
	}
	return &Dir{path: path, runs: map[string]*runFile{}}, nil
}

// Path returns the directory the outputs are in.
func (d *Dir) Path() string { return d.path }

// Close removes the directory and every output in it; a later Create
// fails. Calling it again is harmless.
func (d *Dir) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil
	}
	d.closed = true
	for id, f := range d.runs {
		f.remove()
		delete(d.runs, id)
	}
	if err := os.RemoveAll(d.path); err != nil {
		return fmt.Errorf("remove the run output directory: %w", err)
	}
	return nil
}

// Create makes run id's output file (see ports.OutputStore).
func (d *Dir) Create(id string) (io.WriteCloser, error) {
	if !ports.ValidRunID(id) {
		return nil, fmt.Errorf("create the output of run %q: %w", id, ports.ErrInvalidRunID)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil, fmt.Errorf("create the output of run %s: %w: the store is closed", id, ports.ErrUnavailable)
	}
	if d.runs[id] != nil {
		return nil, fmt.Errorf("create the output of run %s: %w", id, ports.ErrRunExists)
	}
	path := filepath.Join(d.path, id)
	w, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("create the output of run %s: %w", id, ports.ErrRunExists)
	}
	if err != nil {
		return nil, fmt.Errorf("create the output of run %s: %w", id, err)
	}
	f := &runFile{path: path, w: w}
	d.runs[id] = f
	return f, nil
}

// Open returns a reader of run id's output (see ports.OutputStore).
func (d *Dir) Open(id string) (ports.OutputReader, error) {
	d.mu.Lock()
	f := d.runs[id]
	d.mu.Unlock()
	if f == nil {
		return nil, fmt.Errorf("open the output of run %q: %w", id, ports.ErrRunNotFound)
	}
	r, err := os.Open(f.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("open the output of run %s: %w", id, ports.ErrRunNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("open the output of run %s: %w", id, err)
	}
	return r, nil
}

// Remove deletes run id's output (see ports.OutputStore).
func (d *Dir) Remove(id string) error {
	d.mu.Lock()
	f := d.runs[id]
	delete(d.runs, id)
	d.mu.Unlock()
	if f == nil {
		return fmt.Errorf("remove the output of run %q: %w", id, ports.ErrRunNotFound)
	}
	if err := f.remove(); err != nil {
		return fmt.Errorf("remove the output of run %s: %w", id, err)
	}
	return nil
}

// Write appends p to the run's file. A removed file refuses it: a
// descriptor of an unlinked file would take it and keep it from nobody.
func (f *runFile) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case f.removed:
		return 0, errors.New("write run output: it was removed")
	case f.w == nil:
		return 0, errors.New("write run output: its writer is closed")
	}
	return f.w.Write(p)
}

// Close ends the writer; the file stays.
func (f *runFile) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.w == nil {
		return nil
	}
	err := f.w.Close()
	f.w = nil
	return err
}

func (f *runFile) remove() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.removed = true
	if f.w != nil {
		f.w.Close()
		f.w = nil
	}
	if err := os.Remove(f.path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// sweep removes the directories under base that a process no longer
// running left behind: their names start with its pid and a dash.
func sweep(base string) {
	entries, err := os.ReadDir(base)
	if err != nil {
		return
	}
	for _, e := range entries {
		pidText, _, ok := strings.Cut(e.Name(), "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || !e.IsDir() || err != nil || pid <= 0 || pid == os.Getpid() || proc.Runs(pid) {
			continue
		}
		path := filepath.Join(base, e.Name())
		if fi, err := os.Lstat(path); err == nil && fi.IsDir() && proc.Mine(fi) {
			os.RemoveAll(path)
		}
	}
}
