package screen

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// PrivateHistoryLimit is the scrollback of the windows of a session that
// StartPrivate starts; pass it as Options.HistoryLimit.
const PrivateHistoryLimit = 2000

// privateRC is the configuration of a private session. screen reads its
// system-wide file (/etc/screenrc) first; this one replaces the user's.
const privateRC = `startup_message off
defscrollback %d
deflog off
hardstatus off
zombie
`

// StartPrivate starts a detached screen session of its own, named
// "screen-mcp-<pid>-<random>", with one window (window 0) running
// opts.Shell, or "sh" when that is empty, with the prompt "$ " and no
// startup files. opts.Bin and opts.Dir select the binary and the socket
// directory; the other options are ignored. Its windows keep
// PrivateHistoryLimit rows of scrollback and vanish when their program
// exits. It returns once window 0's program runs (where /proc can tell),
// not merely once the session answers, so that the window is never taken
// for one whose program exited. Pass the session name (and opts.Dir) to
// New.
//
// stop quits the session, kills its server if it does not end within a few
// seconds, and removes its socket and configuration; calling it again does
// nothing. Errors wrap ports.ErrUnavailable when screen cannot be run.
func StartPrivate(opts Options) (session string, stop func() error, err error) {
	bin := opts.Bin
	if bin == "" {
		bin = "screen"
	}
	bin, err = exec.LookPath(bin)
	if err != nil {
		return "", nil, fmt.Errorf("start private screen session: %w: %w", err, ports.ErrUnavailable)
	}
	if _, err := checkVersion(bin); err != nil {
		return "", nil, fmt.Errorf("start private screen session: %w", err)
	}
	shell := opts.Shell
	if len(shell) == 0 {
		shell = []string{"sh"}
	}
	b := make([]byte, 6)
	rand.Read(b)
	session = fmt.Sprintf("screen-mcp-%d-%s", os.Getpid(), hex.EncodeToString(b))

	confDir, err := os.MkdirTemp("", "screen-mcp-rc-")
	if err != nil {
		return "", nil, fmt.Errorf("start private screen session: %w", err)
	}
	rc := filepath.Join(confDir, "screenrc")
	if err := os.WriteFile(rc, []byte(fmt.Sprintf(privateRC, PrivateHistoryLimit)), 0o600); err != nil {
		os.RemoveAll(confDir)
		return "", nil, fmt.Errorf("start private screen session: %w", err)
	}
	env := append(childEnv(os.Environ(), opts.Dir), "PS1=$ ", "ENV=", "HISTFILE=/dev/null")
	cmd := exec.Command(bin, append([]string{"-c", rc, "-dmS", session}, shell...)...)
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		os.RemoveAll(confDir)
		return "", nil, fmt.Errorf("start private screen session: %w: %s", err, strings.TrimSpace(string(out)))
	}

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ref, err := waitForSession(ctx, bin, env, session)
	if err != nil {
		os.RemoveAll(confDir)
		return "", nil, fmt.Errorf("start private screen session: %w", err)
	}
	if err := waitForWindow(ctx, ref, 0); err != nil {
		stopPrivate(bin, env, ref, confDir)
		return "", nil, fmt.Errorf("start private screen session: %w", err)
	}
	var once sync.Once
	var stopErr error
	stop = func() error {
		once.Do(func() { stopErr = stopPrivate(bin, env, ref, confDir) })
		return stopErr
	}
	return session, stop, nil
}

// waitForSession waits until the new session answers a query.
func waitForSession(ctx context.Context, bin string, env []string, name string) (sessionRef, error) {
	for {
		ref, err := findSession(ctx, bin, env, name)
		if err == nil {
			q := exec.CommandContext(ctx, bin, "-S", ref.name, "-Q", "echo", "up")
			q.Env = env
			if out, err := q.Output(); err == nil && strings.Contains(string(out), "up") {
				return ref, nil
			}
		}
		select {
		case <-ctx.Done():
			return sessionRef{}, fmt.Errorf("session %s does not answer: %w", name, ports.ErrUnavailable)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// waitForWindow waits until the program of window n of the session runs.
// The session answers queries as soon as it has forked the window's
// process, which may not have started the program yet; a lookup then would
// take the window for one whose program exited. Where /proc cannot be
// read, nothing can be told and it returns at once.
func waitForWindow(ctx context.Context, ref sessionRef, n int) error {
	if _, err := children(ref.pid); err != nil {
		return nil
	}
	for {
		if _, found, _ := findWindowProcess(ref.pid, ref.name, n); found {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the program of window %d of session %s did not start: %w", n, ref.name, ports.ErrUnavailable)
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// stopPrivate quits the session and cleans up after it.
func stopPrivate(bin string, env []string, ref sessionRef, confDir string) error {
	defer os.RemoveAll(confDir)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	quit := exec.CommandContext(ctx, bin, "-S", ref.name, "-X", "quit")
	quit.Env = env
	quit.Run()
	for processExists(ref.pid) {
		select {
		case <-ctx.Done():
			// The server is this process's own: a hung one is killed.
			syscall.Kill(ref.pid, syscall.SIGKILL)
			time.Sleep(50 * time.Millisecond)
			if processExists(ref.pid) {
				return fmt.Errorf("stop private screen session %s: server %d does not exit", ref.name, ref.pid)
			}
		case <-time.After(20 * time.Millisecond):
		}
	}
	for _, p := range []string{filepath.Join(ref.dir, ref.name), filepath.Join(ref.dir, ref.name) + "-queryA"} {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("stop private screen session %s: %w", ref.name, err)
		}
	}
	return nil
}

// processExists reports whether pid runs (and has not just exited
// unreaped).
func processExists(pid int) bool {
	st, err := readStat(pid)
	return err == nil && alive(pid, st.start)
}
