package tmux

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tmux-mcp/tmux-mcp/adapters/internal/proc"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// PrivateSession is the name of the session StartPrivate creates.
const PrivateSession = "tmux-mcp"

// StartPrivate starts a tmux server of its own, without reading any tmux
// configuration, with one detached session (named PrivateSession, 200x50)
// running opts.Shell, or tmux's default shell (the login shell) when that
// is empty; every pane made later runs the same shell. With
// opts.ShellIntegration, the first pane's shell starts with the shell
// integration (integration.go) when it is bash, zsh or fish. The server listens
// on opts.SocketName, or on a fresh socket name when that is empty;
// opts.Bin selects the binary and the other options are ignored. Pass the returned socket name to New.
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
	var shell []string // the commands that make opts.Shell the server's
	if opts.Shell != "" {
		path, err := exec.LookPath(opts.Shell)
		if err == nil {
			path, err = filepath.Abs(path)
		}
		if err != nil {
			return "", "", nil, fmt.Errorf("start private tmux server: shell %q: %w", opts.Shell, err)
		}
		// tmux takes the default shell only as an absolute path.
		shell = []string{"set-option", "-g", "default-shell", path, ";"}
	}
	socketName = opts.SocketName
	if socketName == "" {
		b := make([]byte, 6)
		rand.Read(b)
		socketName = fmt.Sprintf("%s%d-%s", privatePrefix, os.Getpid(), hex.EncodeToString(b))
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
	// One command list, so that the first pane already runs the shell.
	first := append(shell, "new-session", "-d", "-s", PrivateSession, "-x", "200", "-y", "50", "-P", "-F", "#{socket_path}")
	first = append(first, privateStart(opts, env)...)
	socketPath, err := tmux(first...)
	if err != nil {
		return "", "", nil, fmt.Errorf("start private tmux server %s: %w", socketName, err)
	}
	// The server must not outlive this process, however it ends: a
	// lifeline client stays attached for as long as the process lives
	// (the kernel kills it with the process), and the server exits once
	// no client is attached. A person who attached meanwhile keeps it
	// until they detach.
	lifeline, err := attachLifeline(l, append(append([]string{"-L", socketName, "-f", os.DevNull}, utf8Flag(env)...), "-C", "attach-session", "-t", PrivateSession, "-f", "ignore-size,no-output"))
	if err == nil {
		_, err = tmux("set-option", "-s", "exit-unattached", "on")
	}
	if err != nil {
		tmux("kill-server")
		os.Remove(socketPath)
		return "", "", nil, fmt.Errorf("start private tmux server %s: %w", socketName, err)
	}
	if opts.SocketName == "" {
		sweepSockets(filepath.Dir(socketPath))
	}
	var once sync.Once
	var stopErr error
	stop = func() error {
		once.Do(func() {
			defer lifeline.close()
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

// lifeline is a control client that does nothing but stay attached.
type lifeline struct {
	cmd   *exec.Cmd
	stdin io.Closer
	done  chan struct{}
}

// attachLifeline starts a control client with args and returns once tmux
// has attached it.
func attachLifeline(l launcher, args []string) (*lifeline, error) {
	cmd, err := l.command(context.Background(), args...)
	if err != nil {
		return nil, err
	}
	dieWithParent(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("attach a lifeline client: %w", err)
	}
	lf := &lifeline{cmd: cmd, stdin: stdin, done: make(chan struct{})}
	attached := make(chan struct{})
	go func() {
		defer close(lf.done)
		// tmux tells a control client which session it is in once it
		// has attached it; what follows is read and dropped so that tmux
		// never waits on the client.
		sc := bufio.NewScanner(stdout)
		told := false
		for sc.Scan() {
			if !told && strings.HasPrefix(sc.Text(), "%session-changed ") {
				told = true
				close(attached)
			}
		}
		cmd.Wait()
	}()
	select {
	case <-attached:
		return lf, nil
	case <-lf.done:
		return nil, errors.New("attach a lifeline client: it exited before tmux attached it")
	case <-time.After(10 * time.Second):
		lf.close()
		return nil, errors.New("attach a lifeline client: tmux did not attach it within 10s")
	}
}

// close detaches the lifeline and waits for it to exit.
func (lf *lifeline) close() {
	lf.stdin.Close()
	select {
	case <-lf.done:
	case <-time.After(2 * time.Second):
		lf.cmd.Process.Kill()
		<-lf.done
	}
}

// privatePrefix starts the socket name of every private server: the
// process's pid and 12 hex digits follow.
const privatePrefix = "tmux-mcp-"

// sweepSockets removes, from dir (tmux's socket directory), the socket
// files that private servers of processes no longer running left behind:
// tmux leaves its socket file when it exits, and a process killed before
// its stop ran (SIGKILL, a crash) never removes it. A file is removed only
// when its name is exactly a private server's, the process named there
// does not run, this user owns it, it is a socket, and connecting to it
// is refused.
func sweepSockets(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		pid, ok := privatePID(e.Name())
		if !ok || pid == os.Getpid() || proc.Runs(pid) || e.Type()&fs.ModeSocket == 0 {
			continue
		}
		path := filepath.Join(dir, e.Name())
		if fi, err := os.Lstat(path); err != nil || !proc.Mine(fi) {
			continue
		}
		c, err := net.DialTimeout("unix", path, time.Second)
		if err == nil {
			c.Close() // a server answers: it is not left behind
			continue
		}
		// Only a refusal says that nothing listens; a timeout or a full
		// queue may be a server too busy to answer.
		if errors.Is(err, syscall.ECONNREFUSED) {
			os.Remove(path)
		}
	}
}

// privatePID returns the pid in a private server's socket name, and
// whether name is one.
func privatePID(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, privatePrefix)
	if !ok {
		return 0, false
	}
	pidText, suffix, ok := strings.Cut(rest, "-")
	pid, err := strconv.Atoi(pidText)
	if !ok || err != nil || pid <= 0 || strconv.Itoa(pid) != pidText || len(suffix) != 12 {
		return 0, false
	}
	if _, err := hex.DecodeString(suffix); err != nil || strings.ToLower(suffix) != suffix {
		return 0, false
	}
	return pid, true
}
