package tmux

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
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
//
// stop kills the server and removes its socket file; calling it again
// does nothing. Errors wrap ports.ErrUnavailable when tmux cannot be run.
func StartPrivate(opts Options) (socketName, session string, stop func() error, err error) {
	bin := opts.Bin
	if bin == "" {
		bin = "tmux"
	}
	bin, err = exec.LookPath(bin)
	if err != nil {
		return "", "", nil, fmt.Errorf("start private tmux server: %w: %w", err, ports.ErrUnavailable)
	}
	if _, err := checkVersion(bin); err != nil {
		return "", "", nil, fmt.Errorf("start private tmux server: %w", err)
	}
	socketName = opts.SocketName
	if socketName == "" {
		b := make([]byte, 6)
		rand.Read(b)
		socketName = fmt.Sprintf("tmux-mcp-%d-%s", os.Getpid(), hex.EncodeToString(b))
	}
	env := childEnv(os.Environ())
	tmux := func(args ...string) (string, error) {
		cmd := exec.Command(bin, append(append([]string{"-L", socketName, "-f", os.DevNull}, utf8Flag(env)...), args...)...)
		cmd.Env = env
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
