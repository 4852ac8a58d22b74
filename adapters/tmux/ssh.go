package tmux

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unicode"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// Remote hosts
//
// With Options.SSH the tmux clients run on another host, through the
// system ssh, which reads the user's ~/.ssh/config (or Options.SSHConfig),
// agent and known_hosts as it always does. One connection serves every
// client: an OpenSSH master (ControlMaster) whose control socket lies in a
// directory this process makes, private to its user (0700), and removes on
// Close. Each tmux client is then an ssh process that asks the master for
// one more session on that connection, which costs no handshake.
//
// ssh hands the remote command to the remote user's login shell as one
// string ("$SHELL -c STRING"): there is no argv on the far side. So every
// argument, the tmux binary's name included, is written as a POSIX shell
// word in single quotes, inside which no byte is special, a single quote
// being written as '\'' (shellQuote); nothing a client sent ever reaches
// that shell unquoted. A shell that does not read single quotes the POSIX
// way (fish, csh, tcsh) would read such a string otherwise, so New checks
// the login shell with a probe first and refuses one that reads it wrong.
//
// The master runs in the background (ControlPersist) and ends by itself
// once no client has used it for sshPersist, should this process die
// without closing it. When it goes away (killed, or the network lost), the
// next command notices that its socket does not answer and connects anew.
// ssh options given here win over the configuration: BatchMode (no
// password or passphrase prompt, no question about an unknown host key:
// such a failure is an error at once), a connect timeout, keep-alives, and
// no forwarding of ports, agent or X11 on this connection.

// Timings of the connection to a remote host.
const (
	sshConnectTimeout = 10 * time.Second // ssh's ConnectTimeout
	sshAliveInterval  = 15               // ServerAliveInterval in seconds, with ServerAliveCountMax 3
	sshPersist        = 10 * time.Minute // how long an unused master outlives its last client
	sshRetryAfter     = 2 * time.Second  // a failed connect is not retried sooner
)

// An SSHError is a failure of ssh itself rather than of tmux: the remote
// host could not be reached, its host key could not be verified, ssh could
// not log in without asking, or the connection was lost. It wraps
// ports.ErrUnavailable.
type SSHError struct {
	Destination string // the ssh destination, as Options.SSH gives it
	Message     string // what ssh printed on standard error
}

func (e *SSHError) Error() string {
	msg := fmt.Sprintf("ssh %s: %s", e.Destination, e.Message)
	if advice := sshAdvice(e.Destination, e.Message); advice != "" {
		msg += "; " + advice
	}
	return msg
}

func (e *SSHError) Unwrap() error { return ports.ErrUnavailable }

// sshAdvice says what to do about what ssh printed, or nothing when the
// message is not one it knows.
func sshAdvice(dest, msg string) string {
	has := func(subs ...string) bool {
		for _, s := range subs {
			if strings.Contains(msg, s) {
				return true
			}
		}
		return false
	}
	switch {
	case has("Host key verification failed", "IDENTIFICATION HAS CHANGED", "host key is known", "Host key for", "No matching host key"):
		return fmt.Sprintf("the host key of %s is unknown or has changed: connect once with \"ssh %s\" to check and accept it (tmux-mcp runs ssh in batch mode, which never asks)", dest, dest)
	case has("Permission denied", "Too many authentication failures", "no more authentication methods"):
		return fmt.Sprintf("ssh cannot log in to %s without asking: load a key into ssh-agent, or name one with IdentityFile in the ssh configuration (tmux-mcp runs ssh in batch mode: no passwords or passphrases)", dest)
	case has("Could not resolve hostname", "Name or service not known", "Connection refused", "timed out", "No route to host", "Network is unreachable"):
		return fmt.Sprintf("%s cannot be reached: check its name, port and network (\"ssh -v %s\" tells more)", dest, dest)
	case has("open failed", "Session open refused", "administratively prohibited"):
		return fmt.Sprintf("the ssh server of %s refused one more session on the shared connection: its MaxSessions (10 by default) must exceed the number of tmux sessions followed at once, plus one for the remote reader", dest)
	case has("Broken pipe", "Connection closed", "Connection reset", "closed by remote host", "mux_client", "Control socket", "master"):
		return "the connection was lost; the next call connects again"
	}
	return ""
}

// sshLink is the connection to a remote host: the master's control socket
// and how to start ssh processes on it.
type sshLink struct {
	bin    string   // the local ssh binary
	dest   string   // the destination
	config string   // ssh -F, or empty for the user's configuration
	dir    string   // the private directory of the control socket
	ctl    string   // the control socket
	env    []string // ssh's environment
	logger Logger   // nil for none

	mu        sync.Mutex // serializes connecting; guards the fields below
	closed    bool
	pid       int // the master's process id, for logs and tests
	failedAt  time.Time
	failedErr error

	connects atomic.Int64 // masters started, for tests
}

// CheckDestination reports whether dest can be given to ssh as a
// destination: it refuses what ssh would read as an option (a leading "-")
// and what has no place in one (spaces, control characters). It does not
// resolve the host.
func CheckDestination(dest string) error {
	return checkDestination(dest)
}

func checkDestination(dest string) error {
	switch {
	case dest == "":
		return errors.New("tmux: the ssh destination is empty")
	case strings.HasPrefix(dest, "-"):
		return fmt.Errorf("tmux: ssh destination %q starts with \"-\"", dest)
	case strings.IndexFunc(dest, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0:
		return fmt.Errorf("tmux: ssh destination %q holds a space or a control character", dest)
	}
	return nil
}

// dialSSH makes the private directory and connects the master. An
// unreachable host, an unknown host key or a failed login is an *SSHError.
func dialSSH(ctx context.Context, opts Options, env []string) (*sshLink, error) {
	if err := checkDestination(opts.SSH); err != nil {
		return nil, err
	}
	bin := opts.SSHBin
	if bin == "" {
		bin = "ssh"
	}
	bin, err := exec.LookPath(bin)
	if err != nil {
		return nil, fmt.Errorf("ssh binary %q: %w: %w", opts.SSHBin, err, ports.ErrUnavailable)
	}
	// MkdirTemp makes the directory 0700: only this user can reach the
	// socket, and with it the remote account.
	dir, err := os.MkdirTemp("", "tmux-mcp-ssh-")
	if err != nil {
		return nil, fmt.Errorf("ssh control directory: %w", err)
	}
	s := &sshLink{bin: bin, dest: opts.SSH, config: opts.SSHConfig, dir: dir, ctl: filepath.Join(dir, "ctl"), env: env, logger: opts.Logger}
	if err := s.connect(ctx); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return s, nil
}

// commonArgs are the options of every ssh process: the configuration
// file, the control socket, and the settings that keep ssh from asking,
// waiting long or forwarding anything.
func (s *sshLink) commonArgs() []string {
	var args []string
	if s.config != "" {
		args = append(args, "-F", s.config)
	}
	return append(args,
		// ssh expands %-tokens in the path.
		"-S", strings.ReplaceAll(s.ctl, "%", "%%"),
		"-o", "BatchMode=yes",
		"-o", "ConnectTimeout="+strconv.Itoa(int(sshConnectTimeout/time.Second)),
		"-o", "ServerAliveInterval="+strconv.Itoa(sshAliveInterval),
		"-o", "ServerAliveCountMax=3",
		"-o", "ClearAllForwardings=yes",
		"-o", "ForwardAgent=no",
		"-o", "ForwardX11=no",
		"-o", "PermitLocalCommand=no",
		"-o", "LogLevel=ERROR",
	)
}

// masterArgs start the master: no command (-N), in the background once it
// has logged in and listens on the control socket, so that the process
// ssh first started exits then, 0 on success.
func (s *sshLink) masterArgs() []string {
	return append(s.commonArgs(),
		"-o", "ControlMaster=yes",
		"-o", "ControlPersist="+strconv.Itoa(int(sshPersist/time.Second)),
		"-N", "-T", "--", s.dest)
}

// clientArgs run line, a command for the remote login shell, in a session
// of the master's connection: no tty (-T), no escape character (a line
// starting with "~." on standard input must not end the connection). Were
// the master gone, ssh would connect by itself with the same options.
func (s *sshLink) clientArgs(line string) []string {
	return append(s.commonArgs(),
		"-o", "ControlMaster=no",
		"-T", "-e", "none", "--", s.dest, line)
}

// connect starts a master and waits until it serves. s.mu is held, or s
// is not shared yet.
func (s *sshLink) connect(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, sshConnectTimeout+5*time.Second)
	defer cancel()
	// A master that died leaves its socket behind.
	os.Remove(s.ctl)
	s.connects.Add(1)
	cmd := exec.CommandContext(ctx, s.bin, s.masterArgs()...)
	cmd.Env = s.env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	// The backgrounded master lets go of the pipe; this only bounds the
	// wait should it not.
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	if err != nil {
		if ctx.Err() != nil {
			return &SSHError{Destination: s.dest, Message: fmt.Sprintf("no connection within %v (%v)", sshConnectTimeout+5*time.Second, ctx.Err())}
		}
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return &SSHError{Destination: s.dest, Message: msg}
	}
	if !s.listening() {
		return &SSHError{Destination: s.dest, Message: "the ssh master exited without serving its control socket"}
	}
	s.pid = s.masterPID(ctx)
	s.debug("ssh master connected", "destination", s.dest, "pid", s.pid, "socket", s.ctl)
	return nil
}

// debug logs when a Logger was given.
func (s *sshLink) debug(msg string, kv ...any) {
	if s.logger != nil {
		s.logger.Debug(msg, kv...)
	}
}

// listening reports whether a master accepts connections on the control
// socket. Connecting and closing at once costs the master nothing but a
// debug line.
func (s *sshLink) listening() bool {
	c, err := net.DialTimeout("unix", s.ctl, time.Second)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// gone reports whether no master serves the control socket: the socket is
// missing or refuses connections. A master too busy to accept at once
// (a full backlog) is not gone, and must not be replaced, which would
// remove the socket its clients still use.
func (s *sshLink) gone() bool {
	c, err := net.DialTimeout("unix", s.ctl, time.Second)
	if err == nil {
		c.Close()
		return false
	}
	return errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ENOTSOCK)
}

var masterPIDPattern = regexp.MustCompile(`\(pid=(\d+)\)`)

// masterPID asks the master for its process id ("ssh -O check"), or
// returns 0.
func (s *sshLink) masterPID(ctx context.Context) int {
	cmd := exec.CommandContext(ctx, s.bin, append(s.commonArgs(), "-O", "check", "--", s.dest)...)
	cmd.Env = s.env
	out, _ := cmd.CombinedOutput()
	if m := masterPIDPattern.FindSubmatch(out); m != nil {
		pid, _ := strconv.Atoi(string(m[1]))
		return pid
	}
	return 0
}

// ensure makes sure a master serves, connecting one if the last is gone.
// A connect that failed is not tried again for sshRetryAfter: calls fail
// at once with its error meanwhile, rather than each waiting for ssh's
// timeout.
func (s *sshLink) ensure(ctx context.Context) error {
	if !s.gone() {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return fmt.Errorf("%w: %w", ErrTerminalClosed, ports.ErrUnavailable)
	}
	if !s.gone() {
		return nil
	}
	if s.failedErr != nil && time.Since(s.failedAt) < sshRetryAfter {
		return s.failedErr
	}
	s.debug("ssh master gone, connecting again", "destination", s.dest, "last pid", s.pid)
	if err := s.connect(ctx); err != nil {
		s.failedAt, s.failedErr = time.Now(), err
		return err
	}
	s.failedErr = nil
	return nil
}

// command returns the ssh process that runs argv on the remote host, not
// yet started, once a master serves.
func (s *sshLink) command(ctx context.Context, argv []string) (*exec.Cmd, error) {
	line, err := remoteCommand(argv)
	if err != nil {
		return nil, err
	}
	if err := s.ensure(ctx); err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, s.bin, s.clientArgs(line)...)
	cmd.Env = s.env
	return cmd, nil
}

// failure is the error of an ssh process that exited with status 255:
// ssh's own failure, whose message is on standard error.
func (s *sshLink) failure(stderr string) error {
	msg := strings.TrimSpace(stderr)
	if msg == "" {
		msg = "ssh exited with status 255"
	}
	return &SSHError{Destination: s.dest, Message: msg}
}

// close stops the master and removes the private directory. Calling it
// again does nothing.
func (s *sshLink) close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	if s.listening() {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		cmd := exec.CommandContext(ctx, s.bin, append(s.commonArgs(), "-O", "exit", "--", s.dest)...)
		cmd.Env = s.env
		cmd.Run() // a master that does not answer ends by itself (ControlPersist)
		cancel()
	}
	if err := os.RemoveAll(s.dir); err != nil {
		return fmt.Errorf("remove the ssh control directory: %w", err)
	}
	return nil
}

// remoteCommand writes argv as a command line for a POSIX shell: "exec"
// and every argument quoted by shellQuote, so that the shell runs argv[0]
// with exactly the arguments given, in its place. A NUL byte cannot be
// passed: the remote shell gets the line as a C string.
func remoteCommand(argv []string) (string, error) {
	var b strings.Builder
	b.WriteString("exec")
	for _, arg := range argv {
		if strings.IndexByte(arg, 0) >= 0 {
			return "", fmt.Errorf("tmux: an argument holds a NUL byte, which no remote command can: %q", arg)
		}
		b.WriteByte(' ')
		b.WriteString(shellQuote(arg))
	}
	return b.String(), nil
}

// shellQuote writes s as one word of a POSIX shell in single quotes, inside
// which every byte stands for itself (line feeds, "$", "`", "\", "!" and
// bytes that are not UTF-8 included). A single quote cannot appear inside
// them, so each one becomes the four bytes quote, backslash, quote, quote:
// the quoted text ends, an escaped quote follows, and quoting starts again.
// The empty string becomes two quotes.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// shellProbe is a word with what a login shell must read the POSIX way for
// shellQuote to be safe: quotes of both kinds, backslashes (fish reads
// "\\" and "\'" inside single quotes), a line feed (csh refuses one there),
// and what a shell would expand outside quotes. ASCII only, so that the
// shell's character count is its byte count whatever the locale.
const shellProbe = "a'b\\\\c\\'d\ne $HOME `x` \"q\" ;|&*?!#~%"

// probeCommand is a command line that prints "ok N", N being the length
// of shellProbe as the remote shell read it; a shell that reads quotes
// otherwise prints another length, or fails on the assignment (fish, csh).
func probeCommand() string {
	return "tmux_mcp_probe=" + shellQuote(shellProbe) + ` && echo "ok ${#tmux_mcp_probe}"`
}

// probeShell checks that the remote login shell reads shellQuote's words
// as written (see probeCommand).
func (s *sshLink) probeShell(ctx context.Context) error {
	if err := s.ensure(ctx); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, s.bin, s.clientArgs(probeCommand())...)
	cmd.Env = s.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) && exitErr.ExitCode() == 255 {
		return s.failure(stderr.String())
	}
	if err := checkProbe(stdout.String()); err != nil {
		return fmt.Errorf("the login shell on %s: %w (%s): %w", s.dest, err, firstLine(stderr.String()), ports.ErrUnavailable)
	}
	return nil
}

// checkProbe reads what probeCommand printed: its last line must be
// "ok N" with N the length of shellProbe. Lines before it are what a
// login shell's start-up files printed, which this check tolerates.
func checkProbe(out string) error {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	want := "ok " + strconv.Itoa(len(shellProbe))
	if last != want {
		return fmt.Errorf("it does not read POSIX shell quoting (printed %q, want %q); tmux-mcp -ssh needs a POSIX login shell there (sh, bash, dash, zsh, ksh), not fish or csh", last, want)
	}
	return nil
}
