package tmux

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"
	"sync"

	"github.com/tmux-mcp/tmux-mcp/adapters/internal/scripts"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// scriptStore is where the Terminal keeps the scripts of its ScriptStore:
// a private directory on this machine (internal/scripts) when tmux runs
// here, or, when it runs on another host, files that the tmux server there
// writes for it (remoteScripts).
type scriptStore interface {
	Put(ctx context.Context, pane ports.PaneID, build func(path string) []byte) (string, error)
	Read(ctx context.Context, pane ports.PaneID, path string) ([]byte, bool, error)
	Remove(ctx context.Context, pane ports.PaneID, path string) (ports.ScriptState, error)
	// Exposed is ports.ScriptWitness's ScriptExposed.
	Exposed(ctx context.Context, pane ports.PaneID, path string) (bool, error)
	Close() error
}

// localScripts is a scripts.Dir as a scriptStore.
type localScripts struct{ dir *scripts.Dir }

func (l localScripts) Put(_ context.Context, _ ports.PaneID, build func(string) []byte) (string, error) {
	return l.dir.Put(build)
}

func (l localScripts) Read(_ context.Context, _ ports.PaneID, path string) ([]byte, bool, error) {
	return l.dir.Read(path)
}

func (l localScripts) Remove(_ context.Context, _ ports.PaneID, path string) (ports.ScriptState, error) {
	return l.dir.Remove(path)
}

func (l localScripts) Exposed(_ context.Context, _ ports.PaneID, path string) (bool, error) {
	return l.dir.Exposed(path)
}

func (l localScripts) Close() error { return l.dir.Close() }

// remoteScripts keeps scripts on the host tmux runs on, with nothing there
// but tmux: a script is written by tmux's own save-buffer, through the
// control-mode client, into tmux's socket directory, which tmux made for
// its user alone (0700). tmux cannot delete a file, so removing a script
// overwrites it with a comment, which any shell that still sources it
// runs as nothing; Close deletes this Terminal's files with one rm over
// the connection. Reading a file back (ReadScript, after a gap in the
// stream) runs show-buffer as its own process, since a file's contents
// may not travel over a control client.
type remoteScripts struct {
	t   *terminal
	tag string // tells this Terminal's files from any other's

	mu    sync.Mutex
	dir   string           // tmux's socket directory on the host, once asked
	next  int              // numbers the files
	sizes map[string]int64 // what was put at each path
	made  []string         // every path written, for Close
}

func newRemoteScripts(t *terminal) *remoteScripts {
	b := make([]byte, 6)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return &remoteScripts{t: t, tag: hex.EncodeToString(b), sizes: make(map[string]int64)}
}

// remoteChunk bounds the bytes of one set-buffer argument: quoted for a
// control client, each may take four bytes.
const remoteChunk = 8 << 10

// inert is what a removed script is overwritten with: a comment, which
// every supported shell runs as nothing.
const inert = "# removed by tmux-mcp\n"

// directory returns tmux's socket directory on the host.
func (r *remoteScripts) directory(ctx context.Context, pane ports.PaneID) (string, error) {
	r.mu.Lock()
	dir := r.dir
	r.mu.Unlock()
	if dir != "" {
		return dir, nil
	}
	out, err := r.t.exec(ctx, route{pane: pane}, tmuxCmd("display-message", "-p", "D"+sep+clean("socket_path")))
	if err != nil {
		return "", err
	}
	l := tagged(out, "D", 1)
	if len(l) != 1 || !strings.HasPrefix(l[0][0], "/") {
		return "", fmt.Errorf("tmux printed %q, not its socket's path", out)
	}
	dir = path.Dir(l[0][0])
	// tmux reads the paths of save-buffer and load-buffer as formats.
	if strings.ContainsAny(dir, "#\n") {
		return "", fmt.Errorf("tmux's socket directory %q holds a character tmux would read as a format: %w", dir, ports.ErrUnsupported)
	}
	r.mu.Lock()
	r.dir = dir
	r.mu.Unlock()
	return dir, nil
}

func (r *remoteScripts) Put(ctx context.Context, pane ports.PaneID, build func(string) []byte) (string, error) {
	dir, err := r.directory(ctx, pane)
	if err != nil {
		return "", fmt.Errorf("put a script for pane %s: %w", pane, err)
	}
	r.mu.Lock()
	r.next++
	name := "tmux-mcp-" + r.tag + "-" + strconv.Itoa(r.next)
	p := dir + "/" + name
	r.made = append(r.made, p)
	r.mu.Unlock()
	content := build(p)
	if err := r.write(ctx, pane, name, p, content); err != nil {
		return "", fmt.Errorf("put a script for pane %s: %w", pane, err)
	}
	r.mu.Lock()
	r.sizes[p] = int64(len(content))
	r.mu.Unlock()
	return p, nil
}

// write has tmux write content into the file at p, through a buffer of
// that name, one command list at a time (writeLists).
func (r *remoteScripts) write(ctx context.Context, pane ports.PaneID, name, p string, content []byte) error {
	for _, l := range writeCmds(name, p, content) {
		if _, err := r.t.exec(ctx, route{pane: pane}, l); err != nil {
			// Deleting a buffer that is not there fails harmlessly.
			r.t.exec(context.WithoutCancel(ctx), route{}, tmuxCmd("delete-buffer", "-b", name))
			return err
		}
	}
	return nil
}

// writeLists are the command lists that write content into the file at
// p through the buffer name: each carries one chunk, so that none
// outgrows what tmux takes in one message should it have to go as a
// process (16 KiB); a script of one chunk, the usual, is one list.
func writeCmds(name, p string, content []byte) []cmdList {
	var lists []cmdList
	for first := true; ; first = false {
		n := min(len(content), remoteChunk)
		set := tmuxCmd("set-buffer", "-b", name, "--", string(content[:n]))
		if !first {
			set = tmuxCmd("set-buffer", "-a", "-b", name, "--", string(content[:n]))
		}
		content = content[n:]
		if len(content) == 0 {
			return append(lists, set.then("save-buffer", "-b", name, p).then("delete-buffer", "-b", name))
		}
		lists = append(lists, set)
	}
}

func (r *remoteScripts) Read(ctx context.Context, pane ports.PaneID, p string) ([]byte, bool, error) {
	if !r.mine(p) {
		return nil, false, nil
	}
	name := path.Base(p)
	out, err := r.t.exec(ctx, route{process: true},
		tmuxCmd("load-buffer", "-b", name, p).then("show-buffer", "-b", name).then("delete-buffer", "-b", name))
	if err != nil {
		if missingFile(err) {
			return nil, false, nil
		}
		if noBuffer(err, name) {
			// load-buffer read the file and made no buffer of it: the
			// file is empty, as a script leaves it once the shell has
			// taken it, until it writes its status there.
			return []byte{}, true, nil
		}
		return nil, false, fmt.Errorf("read the script %s: %w", p, err)
	}
	return []byte(out), true, nil
}

func (r *remoteScripts) Remove(ctx context.Context, pane ports.PaneID, p string) (ports.ScriptState, error) {
	if !r.mine(p) {
		return ports.ScriptUnknown, nil
	}
	r.mu.Lock()
	size, known := r.sizes[p]
	delete(r.sizes, p)
	r.mu.Unlock()
	if !known {
		return ports.ScriptUnknown, nil
	}
	name := path.Base(p)
	out, err := r.t.exec(ctx, route{pane: pane}, tmuxCmd("load-buffer", "-b", name, p).
		then("list-buffers", "-F", "B"+sep+"#{buffer_size}", "-f", "#{==:#{buffer_name},"+name+"}").
		then("set-buffer", "-b", name, "--", inert).
		then("save-buffer", "-b", name, p).
		then("delete-buffer", "-b", name))
	if err != nil {
		if missingFile(err) {
			return ports.ScriptUnknown, nil
		}
		return ports.ScriptUnknown, fmt.Errorf("remove the script %s: %w", p, err)
	}
	l := tagged(out, "B", 1)
	if len(l) == 0 && strings.TrimSpace(out) == "" {
		// load-buffer read the file and made no buffer of it: the
		// script emptied it.
		return ports.ScriptTaken, nil
	}
	if len(l) != 1 {
		return ports.ScriptUnknown, nil
	}
	if atoi(l[0][0]) == int(size) {
		return ports.ScriptUntouched, nil
	}
	return ports.ScriptTaken, nil
}

// Close deletes every file the Terminal had tmux write, with one rm over
// the connection; where that fails, they stay, overwritten or emptied, in
// tmux's private directory.
// Exposed cannot tell: nothing on the host watches tmux's socket
// directory for the adapter.
func (r *remoteScripts) Exposed(_ context.Context, _ ports.PaneID, p string) (bool, error) {
	return false, fmt.Errorf("tell who read the script %s on the remote host: %w", p, ports.ErrUnsupported)
}

func (r *remoteScripts) Close() error {
	r.mu.Lock()
	made := r.made
	r.made = nil
	r.mu.Unlock()
	if len(made) == 0 || r.t.launch.ssh == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), sshConnectTimeout)
	defer cancel()
	cmd, err := r.t.launch.ssh.command(ctx, append([]string{"rm", "-f", "--"}, made...))
	if err != nil {
		return nil
	}
	_ = cmd.Run()
	return nil
}

// mine reports whether p is a path this store wrote.
func (r *remoteScripts) mine(p string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.dir != "" && path.Dir(p) == r.dir && strings.HasPrefix(path.Base(p), "tmux-mcp-"+r.tag+"-")
}

// noBuffer reports whether tmux failed because the buffer name did not
// exist: after a load-buffer into it that succeeded, the file was empty.
func noBuffer(err error, name string) bool {
	var ce *CommandError
	return errors.As(err, &ce) && strings.Contains(ce.Message, "no buffer "+name)
}

// missingFile reports whether tmux failed because a file was not there.
func missingFile(err error) bool {
	return strings.Contains(err.Error(), "No such file") || strings.Contains(err.Error(), "no such file")
}
