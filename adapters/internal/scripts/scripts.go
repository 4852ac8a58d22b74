// Package scripts is the ScriptStore of the backends whose panes run on
// this machine: a private directory of short-lived script files.
package scripts

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/tmux-mcp/tmux-mcp/adapters/internal/proc"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// prefix starts the name of every directory a Dir makes, followed by the
// pid of the process that made it.
const prefix = "tmux-mcp-"

// A Dir is a directory, readable by its user alone, that holds the scripts
// put there until they are removed or the Dir is closed. The zero value is
// not usable; call Open.
type Dir struct {
	path string

	mu     sync.Mutex
	next   int
	closed bool
	put    map[string]int64 // the size of what was put at each path
}

// Open makes a new Dir under base. An empty base means the first of
// $XDG_RUNTIME_DIR, /dev/shm and the system's temporary directory that
// will take it: a file every command writes, reads and removes costs a
// third as much in memory (tmpfs) as on a disk's /tmp. It first removes
// the directories that processes no longer running left there, so that a
// server killed before it could clean up leaves nothing for long.
func Open(base string) (*Dir, error) {
	bases := []string{base}
	if base == "" {
		bases = []string{os.Getenv("XDG_RUNTIME_DIR"), "/dev/shm", os.TempDir()}
	}
	var path string
	err := errors.New("no directory to make it in")
	for _, b := range bases {
		if b == "" {
			continue
		}
		if fi, statErr := os.Stat(b); base == "" && (statErr != nil || !fi.IsDir()) {
			continue
		}
		sweep(b)
		if path, err = os.MkdirTemp(b, prefix+strconv.Itoa(os.Getpid())+"-"); err == nil {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("make a directory for scripts: %w", err)
	}
	// MkdirTemp makes it 0700 already; say so in case of an odd umask.
	if err := os.Chmod(path, 0o700); err != nil {
		os.Remove(path)
		return nil, fmt.Errorf("make a directory for scripts: %w", err)
	}
	return &Dir{path: path, put: make(map[string]int64)}, nil
}

// Path returns the directory's path.
func (d *Dir) Path() string { return d.path }

// Put writes a new script, readable by its user alone, and returns its
// path. build gets the path and returns the contents.
func (d *Dir) Put(build func(path string) []byte) (string, error) {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return "", fmt.Errorf("put a script: %w: the script directory is closed", ports.ErrUnavailable)
	}
	d.next++
	path := filepath.Join(d.path, strconv.Itoa(d.next))
	d.mu.Unlock()
	content := build(path)
	if err := os.WriteFile(path, content, 0o600); err != nil {
		return "", fmt.Errorf("put a script: %w", err)
	}
	d.mu.Lock()
	d.put[path] = int64(len(content))
	d.mu.Unlock()
	return path, nil
}

// Read returns what the script's file holds now; ok is false when it is
// gone or not one of the Dir's.
func (d *Dir) Read(path string) ([]byte, bool, error) {
	if filepath.Dir(path) != d.path {
		return nil, false, nil
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read the script %s: %w", path, err)
	}
	return b, true, nil
}

// Remove deletes a script that Put wrote and tells whether its file no
// longer held what was put there (ScriptTaken: it was emptied, or written
// anew) or still did (ScriptUntouched). A script that is gone already,
// or that is not one of the Dir's, is left alone: ScriptUnknown, and no
// error.
func (d *Dir) Remove(path string) (ports.ScriptState, error) {
	if filepath.Dir(path) != d.path {
		return ports.ScriptUnknown, nil
	}
	d.mu.Lock()
	size, known := d.put[path]
	delete(d.put, path)
	d.mu.Unlock()
	fi, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return ports.ScriptUnknown, nil
	}
	if err != nil {
		return ports.ScriptUnknown, fmt.Errorf("remove the script %s: %w", path, err)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return ports.ScriptUnknown, fmt.Errorf("remove the script %s: %w", path, err)
	}
	if !known || fi.Size() != size {
		return ports.ScriptTaken, nil
	}
	return ports.ScriptUntouched, nil
}

// Close removes the directory and every script in it. Closing twice is
// harmless.
func (d *Dir) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil
	}
	d.closed = true
	return os.RemoveAll(d.path)
}

// sweep removes the directories under base that a Dir of a process that no
// longer runs left behind.
func sweep(base string) {
	entries, err := os.ReadDir(base)
	if err != nil {
		return
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || !e.IsDir() {
			continue
		}
		pidText, _, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 || pid == os.Getpid() || proc.Runs(pid) {
			continue
		}
		path := filepath.Join(base, e.Name())
		if fi, err := os.Lstat(path); err == nil && proc.Mine(fi) {
			os.RemoveAll(path)
		}
	}
}
