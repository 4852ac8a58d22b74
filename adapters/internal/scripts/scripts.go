// Package scripts is the ScriptStore of the backends whose panes run on
// this machine: a private directory of short-lived script files, and a
// witness of who read them.
package scripts

import (
	"crypto/rand"
	"encoding/hex"
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

// prefix starts the name of every directory a Dir makes, followed by the
// pid of the process that made it.
const prefix = "tmux-mcp-"

// dirMode is the mode of a Dir's directory once it is made: its user may
// enter it and make and remove files there, but not list it, so that a
// process of the same user that is not root cannot learn the names of the
// scripts, nor watch the directory with inotify (which needs read
// permission), without changing the mode first — which the witness sees
// (see Exposed).
const dirMode = 0o300

// A Dir is a directory, of its user alone, that holds the scripts put
// there until they are removed or the Dir is closed. Scripts have names
// nobody can guess. The zero value is not usable; call Open.
type Dir struct {
	base string

	mu      sync.Mutex
	path    string   // the directory new scripts go to
	old     []string // directories left because they were tampered with
	closed  bool
	put     map[string]*script // by path
	witness *witness           // nil where the system offers none
}

// A script is what Put wrote.
type script struct {
	size int64
	// file stays open for reading the script back: opening it again by
	// name would look, to the witness, like another reader.
	file *os.File
	// exposed is set once something other than the pane's shell may have
	// read the script while it held what was put there.
	exposed bool
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
	d := &Dir{put: make(map[string]*script)}
	err := errors.New("no directory to make it in")
	for _, b := range bases {
		if b == "" {
			continue
		}
		if fi, statErr := os.Stat(b); base == "" && (statErr != nil || !fi.IsDir()) {
			continue
		}
		sweep(b)
		d.base = b
		if err = d.makeDir(); err == nil {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("make a directory for scripts: %w", err)
	}
	return d, nil
}

// makeDir makes a fresh directory under d.base for the scripts to come,
// watched from before anything is put there.
func (d *Dir) makeDir() error {
	path, err := os.MkdirTemp(d.base, prefix+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return err
	}
	// Without a witness (no inotify instance left for this user, say)
	// the scripts are kept all the same, and Exposed cannot tell.
	w, _ := newWitness(path)
	// MkdirTemp makes it 0700; the watch is taken, so it may now lose
	// its read permission.
	if err := os.Chmod(path, dirMode); err != nil {
		if w != nil {
			w.close()
		}
		os.Remove(path)
		return err
	}
	if w != nil {
		w.settle()
	}
	if d.path != "" {
		d.old = append(d.old, d.path)
	}
	if d.witness != nil {
		d.witness.close()
	}
	d.path, d.witness = path, w
	return nil
}

// Path returns the directory that new scripts go to.
func (d *Dir) Path() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.path
}

// Put writes a new script, readable by its user alone, and returns its
// path. build gets the path and returns the contents. The file appears
// whole: nothing can open it before all of it is written.
func (d *Dir) Put(build func(path string) []byte) (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return "", fmt.Errorf("put a script: %w: the script directory is closed", ports.ErrUnavailable)
	}
	if d.witness != nil && d.witness.tampered() {
		// Someone changed or listed the directory: whatever watches it
		// now would see the new script's name. Move on to a new one.
		if err := d.makeDir(); err != nil {
			return "", fmt.Errorf("put a script: %w", err)
		}
	}
	path := filepath.Join(d.path, randomName())
	content := build(path)
	f, err := writeWhole(d.path, path, content, d.witness)
	if err != nil {
		return "", fmt.Errorf("put a script: %w", err)
	}
	d.put[path] = &script{size: int64(len(content)), file: f}
	return path, nil
}

// randomName returns a name nobody can guess: 128 random bits.
func randomName() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return hex.EncodeToString(b)
}

// mine reports whether path lies in one of the Dir's directories.
func (d *Dir) mine(path string) bool {
	dir := filepath.Dir(path)
	d.mu.Lock()
	defer d.mu.Unlock()
	return dir == d.path || containsString(d.old, dir)
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Read returns what the script's file holds now; ok is false when it is
// gone or not one of the Dir's.
func (d *Dir) Read(path string) ([]byte, bool, error) {
	d.mu.Lock()
	sc, ok := d.put[path]
	d.mu.Unlock()
	if !ok {
		return nil, false, nil
	}
	if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	// Read through the file Put kept open (the shell rewrites it in
	// place): no open that the witness would have to tell from another
	// process's.
	b, err := readAll(sc.file)
	if err != nil {
		return nil, false, fmt.Errorf("read the script %s: %w", path, err)
	}
	return b, true, nil
}

// readAll reads the whole of f from its start, without moving its offset.
func readAll(f *os.File) ([]byte, error) {
	var b []byte
	buf := make([]byte, 4096)
	for off := int64(0); ; {
		n, err := f.ReadAt(buf, off)
		b = append(b, buf[:n]...)
		off += int64(n)
		if errors.Is(err, io.EOF) {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// Exposed reports whether something other than the shell of the pane may
// have read the script at path while it still held what was put there —
// opened it besides the one shell that read and emptied it, or found its
// name by listing or watching the directory — so that what it holds (a
// frame's secret) may be known to another process. It returns an error
// wrapping ports.ErrUnsupported where the system offers no witness
// (inotify), and for a path that is not one of the Dir's.
//
// The witness is the kernel's inotify, which merges an event with an
// identical one queued just before it: a process that opens the file in
// the very instant the shell does may go unseen. A process that reads the
// shell's memory (ptrace) needs no file at all.
func (d *Dir) Exposed(path string) (bool, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	sc, ok := d.put[path]
	if !ok || d.witness == nil && !sc.exposed {
		return false, fmt.Errorf("tell who read the script %s: %w", path, ports.ErrUnsupported)
	}
	if sc.exposed {
		return true, nil
	}
	if filepath.Dir(path) != d.path {
		// Its directory was left because it was tampered with.
		sc.exposed = true
		return true, nil
	}
	if d.witness.exposed(path) {
		sc.exposed = true
	}
	return sc.exposed, nil
}

// Remove deletes a script that Put wrote and tells whether its file no
// longer held what was put there (ScriptTaken: it was emptied, or written
// anew) or still did (ScriptUntouched). A script that is gone already,
// or that is not one of the Dir's, is left alone: ScriptUnknown, and no
// error.
func (d *Dir) Remove(path string) (ports.ScriptState, error) {
	if !d.mine(path) {
		return ports.ScriptUnknown, nil
	}
	d.mu.Lock()
	sc, known := d.put[path]
	delete(d.put, path)
	if d.witness != nil {
		d.witness.forget(path)
	}
	d.mu.Unlock()
	if known {
		sc.file.Close()
	}
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
	if !known || fi.Size() != sc.size {
		return ports.ScriptTaken, nil
	}
	return ports.ScriptUntouched, nil
}

// Close removes the directories and every script in them. Closing twice
// is harmless.
func (d *Dir) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil
	}
	d.closed = true
	if d.witness != nil {
		d.witness.close()
	}
	for _, sc := range d.put {
		sc.file.Close()
	}
	var errs []error
	for _, p := range append(d.old, d.path) {
		errs = append(errs, removeDir(p))
	}
	return errors.Join(errs...)
}

// removeDir removes a directory of scripts, which its mode keeps from
// being listed until it is given read permission back.
func removeDir(path string) error {
	if err := os.Chmod(path, 0o700); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return os.RemoveAll(path)
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
			removeDir(path)
		}
	}
}
