package tmux

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// PrivateSession is the name of the session StartPrivate creates.
const PrivateSession = "tmux-mcp"

// StartPrivate starts a tmux server of its own, without reading any tmux
// configuration, with one detached session (named PrivateSession, 200x50)
// running tmux's default shell. The server listens on opts.SocketName, or
// on a fresh socket name when that is empty; opts.Bin selects the binary
// and the other options are ignored. Pass the returned socket name to New.
// The server is local: opts.SSH is refused, since a server of this
// process's own on another host would outlive a crash of this process
// with nothing to clean it up there.
//
// stop kills the server and removes its socket file; calling it again
// does nothing. Errors wrap ports.ErrUnavailable when tmux cannot be run.
func StartPrivate(opts Options) (socketName, session string, stop func() error, err error) {
	if opts.SSH != "" {
		return "", "", nil, errors.New("start private tmux server: a private server is local; with SSH, name the remote server's socket or use its default server")
	}
	bin := opts.Bin
	if bin == "" {
		bin = "tmux"
	}
	env := childEnv(os.Environ())
	l, err := newLauncher(Options{Bin: bin}, env)
	if err != nil {
		return "", "", nil, fmt.Errorf("start private tmux server: %w", err)
	}
	if _, err := checkVersion(l); err != nil {
		return "", "", nil, fmt.Errorf("start private tmux server: %w", err)
	}
	socketName = opts.SocketName
	if socketName == "" {
		b := make([]byte, 6)
		rand.Read(b)
		socketName = fmt.Sprintf("tmux-mcp-%d-%s", os.Getpid(), hex.EncodeToString(b))
	}
	tmux := func(args ...string) (string, error) {
		cmd, err := l.command(context.Background(), append(append([]string{"-L", socketName, "-f", os.DevNull}, utf8Flag(env)...), args...)...)
		if err != nil {
			return "", err
		}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return "", fmt.Errorf("tmux %s: %w: %s", args[0], err, strings.TrimSpace(stderr.String()))
		}
		return strings.TrimSpace(string(out)), nil
	}
	socketPath, err := tmux("new-session", "-d", "-s", PrivateSession, "-x", "200", "-y", "50", "-P", "-F", "#{socket_path}")
	if err != nil {
		return "", "", nil, fmt.Errorf("start private tmux server %s: %w", socketName, err)
	}
	var once sync.Once
	var stopErr error
	stop = func() error {
		once.Do(func() {
			_, err := tmux("kill-server")
			if err != nil && classify(err.Error()) != ports.ErrUnavailable {
				stopErr = fmt.Errorf("stop private tmux server %s: %w", socketName, err)
				return
			}
			// tmux leaves its socket file behind.
			if err := os.Remove(socketPath); err != nil && !errors.Is(err, fs.ErrNotExist) {
				stopErr = fmt.Errorf("stop private tmux server %s: %w", socketName, err)
			}
		})
		return stopErr
	}
	return socketName, PrivateSession, stop, nil
}
