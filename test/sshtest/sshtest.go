// Package sshtest starts a private OpenSSH server for tests and
// benchmarks: sshd on a free loopback port, with a host key and a client
// key generated for it, a server configuration and a client configuration
// of its own, all in one temporary directory that Stop removes. Nothing
// outside that directory is read or written: clients use ssh -F with the
// client configuration (its own known_hosts, its own key, no agent), and
// the server lets in only the current user with that key.
//
// sshd runs every remote command with the user's login shell, which may
// read start-up files (Debian's bash reads ~/.bashrc for commands run by
// sshd, and a slow one stalls every command). The sessions therefore get
// HOME (and ZDOTDIR, XDG_CONFIG_HOME) pointing into the temporary
// directory, where there are no start-up files, and SHLVL=1, which keeps
// bash from reading any; PermitUserRC is off.
//
// sshd run as root needs its privilege-separation directory, /run/sshd.
// When it is missing, sshd is started in a mount namespace of its own
// (unshare -m) with a private, empty /run, so that nothing is created on
// the machine; where that cannot be done, Start fails with ErrMissing and
// tests skip. A missing program is a MissingError, which tests hand to
// the gate (gate.Missing): in CI, they fail.
package sshtest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/test/gate"
)

// ErrMissing is returned by Start when this machine cannot run a private
// sshd: a program is missing, or root's privilege-separation directory is
// missing and cannot be provided privately.
var ErrMissing = errors.New("sshtest: cannot run a private sshd here")

// A MissingError is ErrMissing for want of a program.
type MissingError struct {
	Program string // "sshd", "ssh", "ssh-keygen", "unshare"
	Why     string
}

func (e *MissingError) Error() string { return ErrMissing.Error() + ": " + e.Why }

// Is makes a MissingError match ErrMissing.
func (e *MissingError) Is(target error) bool { return target == ErrMissing }

// Host is the host alias the client configuration defines.
const Host = "tmcp-test"

// Options adjust the server.
type Options struct {
	// Env is set in every session (sshd's SetEnv), as NAME=value, after
	// the variables that keep start-up files out.
	Env []string
	// MaxSessions is sshd's MaxSessions: sessions per connection. 0 means
	// 64.
	MaxSessions int
}

// Server is a running private sshd.
type Server struct {
	Dir          string // the temporary directory holding everything
	Port         int    // the loopback port sshd listens on
	User         string // the user sshd lets in
	ClientConfig string // the client configuration, for ssh -F; it defines Host
	KnownHosts   string // the known_hosts file ClientConfig names
	ClientKey    string // the private key ClientConfig names
	HostKey      string // the server's private host key

	ssh  string // the ssh binary
	cmd  *exec.Cmd
	log  lockedBuffer
	done chan struct{}
	once sync.Once
	err  error
}

// New starts a server for the test, skipping it under -short (it starts
// processes) or when this machine cannot run one, and stops it when the
// test ends.
func New(t testing.TB, opts Options) *Server {
	t.Helper()
	gate.Real(t, "sshd")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := Start(ctx, opts)
	var missing *MissingError
	switch {
	case errors.As(err, &missing):
		gate.Missing(t, missing.Program, "ssh test: "+err.Error())
	case errors.Is(err, ErrMissing):
		t.Skipf("ssh test: %v", err) // the machine, not a program: no mount namespace to be had
	}
	if err != nil {
		t.Fatalf("start a private sshd: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Errorf("stop the private sshd: %v", err)
		}
	})
	return s
}

// Start starts a server. The caller must call Stop.
func Start(ctx context.Context, opts Options) (*Server, error) {
	sshd, err := findSSHD()
	if err != nil {
		return nil, err
	}
	ssh, err := exec.LookPath("ssh")
	if err != nil {
		return nil, &MissingError{"ssh", "ssh is not on PATH (install openssh-client)"}
	}
	keygen, err := exec.LookPath("ssh-keygen")
	if err != nil {
		return nil, &MissingError{"ssh-keygen", "ssh-keygen is not on PATH (install openssh-client)"}
	}
	var wrap []string
	if os.Geteuid() == 0 {
		if wrap, err = privsepWrapper(); err != nil {
			return nil, err
		}
	}
	me, err := user.Current()
	if err != nil {
		return nil, fmt.Errorf("sshtest: current user: %w", err)
	}
	dir, err := os.MkdirTemp("", "tmcp-sshd-")
	if err != nil {
		return nil, err
	}
	if dir, err = filepath.EvalSymlinks(dir); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	s := &Server{
		Dir:          dir,
		User:         me.Username,
		ClientConfig: filepath.Join(dir, "ssh_config"),
		KnownHosts:   filepath.Join(dir, "known_hosts"),
		ClientKey:    filepath.Join(dir, "client_key"),
		HostKey:      filepath.Join(dir, "host_key"),
		ssh:          ssh,
		done:         make(chan struct{}),
	}
	if err := s.prepare(ctx, keygen, opts); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	// The port is free a moment before sshd binds it; another process may
	// take it in between, so a failed bind is tried again on another.
	for attempt := 0; ; attempt++ {
		err = s.start(ctx, sshd, wrap)
		if err == nil || attempt == 2 || !strings.Contains(s.log.String(), "Bind to port") {
			break
		}
		s.done = make(chan struct{})
		s.log.reset()
	}
	if err != nil {
		err = fmt.Errorf("%w\nsshd log:\n%s", err, s.log.String())
		os.RemoveAll(dir)
		return nil, err
	}
	return s, nil
}

// findSSHD returns the absolute path of sshd, which refuses to run from a
// relative one.
func findSSHD() (string, error) {
	if p, err := exec.LookPath("sshd"); err == nil {
		return filepath.Abs(p)
	}
	for _, p := range []string{"/usr/sbin/sshd", "/usr/local/sbin/sshd"} {
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p, nil
		}
	}
	return "", &MissingError{"sshd", "sshd not found (install openssh-server)"}
}

// privsepWrapper returns what runs sshd as root: nothing when /run/sshd
// exists, else unshare and sh giving it a private /run.
func privsepWrapper() ([]string, error) {
	if fi, err := os.Stat("/run/sshd"); err == nil && fi.IsDir() {
		return nil, nil
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		return nil, &MissingError{"unshare", "sshd as root needs /run/sshd, which is missing, and unshare(1) is not on PATH to provide a private one"}
	}
	// Check that a mount namespace can be had (not in every container).
	if out, err := exec.Command(unshare, "-m", "true").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("%w: sshd as root needs /run/sshd, which is missing, and unshare -m fails (%v: %s)", ErrMissing, err, bytes.TrimSpace(out))
	}
	script := `mount -t tmpfs -o mode=755 tmcp-run /run && mkdir -m 755 /run/sshd && exec "$@"`
	return []string{unshare, "-m", "/bin/sh", "-c", script, "sh"}, nil
}

// prepare writes the keys and both configurations.
func (s *Server) prepare(ctx context.Context, keygen string, opts Options) error {
	home := filepath.Join(s.Dir, "home")
	if err := os.Mkdir(home, 0o700); err != nil {
		return err
	}
	for _, key := range []string{s.HostKey, s.ClientKey} {
		out, err := exec.CommandContext(ctx, keygen, "-q", "-t", "ed25519", "-N", "", "-C", "tmcp-test", "-f", key).CombinedOutput()
		if err != nil {
			return fmt.Errorf("ssh-keygen: %w: %s", err, out)
		}
	}
	clientPub, err := os.ReadFile(s.ClientKey + ".pub")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(s.Dir, "authorized_keys"), clientPub, 0o600); err != nil {
		return err
	}
	hostPub, err := os.ReadFile(s.HostKey + ".pub")
	if err != nil {
		return err
	}
	// The client configuration names the host key by alias, so the
	// known_hosts line does not depend on the port.
	if err := os.WriteFile(s.KnownHosts, append([]byte(Host+" "), hostPub...), 0o600); err != nil {
		return err
	}
	maxSessions := opts.MaxSessions
	if maxSessions <= 0 {
		maxSessions = 64
	}
	env := append([]string{
		"HOME=" + home, "ZDOTDIR=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "SHLVL=1",
	}, opts.Env...)
	var setenv []string
	for _, kv := range env {
		if strings.ContainsAny(kv, "\"\n") {
			return fmt.Errorf("sshtest: environment entry %q cannot be written in sshd_config", kv)
		}
		setenv = append(setenv, strconv.Quote(kv))
	}
	// sshd reads only the first SetEnv line: all variables go on one.
	server := strings.Join([]string{
		"ListenAddress 127.0.0.1",
		"Port PORT",
		"HostKey " + s.HostKey,
		"AuthorizedKeysFile " + filepath.Join(s.Dir, "authorized_keys"),
		"AllowUsers " + s.User,
		"PidFile none",
		// The directory is under /tmp, which is world-writable.
		"StrictModes no",
		"UsePAM no",
		"PubkeyAuthentication yes",
		"PasswordAuthentication no",
		"KbdInteractiveAuthentication no",
		"PermitRootLogin prohibit-password",
		"PermitUserRC no",
		"PermitUserEnvironment no",
		"AllowTcpForwarding no",
		"AllowAgentForwarding no",
		"X11Forwarding no",
		"PrintMotd no",
		"PrintLastLog no",
		"UseDNS no",
		"MaxSessions " + strconv.Itoa(maxSessions),
		"MaxStartups 100",
		"LogLevel INFO",
		"SetEnv " + strings.Join(setenv, " "),
		"",
	}, "\n")
	if err := os.WriteFile(filepath.Join(s.Dir, "sshd_config.in"), []byte(server), 0o600); err != nil {
		return err
	}
	return s.writeClientConfig(s.ClientConfig, nil)
}

// writeClientConfig writes a client configuration defining Host, in
// which each of settings ("Keyword value") replaces the line of the same
// keyword, or is added.
func (s *Server) writeClientConfig(path string, settings []string) error {
	lines := [][2]string{
		{"HostName", "127.0.0.1"},
		{"Port", strconv.Itoa(s.Port)},
		{"User", s.User},
		{"HostKeyAlias", Host},
		{"IdentityFile", s.ClientKey},
		{"IdentitiesOnly", "yes"},
		{"IdentityAgent", "none"},
		{"UserKnownHostsFile", s.KnownHosts},
		{"GlobalKnownHostsFile", "/dev/null"},
		{"StrictHostKeyChecking", "yes"},
		{"UpdateHostKeys", "no"},
		{"BatchMode", "yes"},
		{"SendEnv", "-*"},
	}
next:
	for _, set := range settings {
		key, value, _ := strings.Cut(set, " ")
		for i := range lines {
			if strings.EqualFold(lines[i][0], key) {
				lines[i][1] = value
				continue next
			}
		}
		lines = append(lines, [2]string{key, value})
	}
	text := "Host " + Host + "\n"
	for _, l := range lines {
		text += "  " + l[0] + " " + l[1] + "\n"
	}
	return os.WriteFile(path, []byte(text), 0o600)
}

// WriteClientConfig writes another client configuration for Host into the
// server's directory, named name, in which each of settings ("Keyword
// value", for example "IdentityFile /elsewhere") replaces the line of
// ClientConfig with that keyword, and returns its path.
func (s *Server) WriteClientConfig(name string, settings ...string) (string, error) {
	path := filepath.Join(s.Dir, name)
	return path, s.writeClientConfig(path, settings)
}

// start picks a port, writes the configurations for it and starts sshd,
// returning once it listens.
func (s *Server) start(ctx context.Context, sshd string, wrap []string) error {
	port, err := FreePort()
	if err != nil {
		return err
	}
	s.Port = port
	tmpl, err := os.ReadFile(filepath.Join(s.Dir, "sshd_config.in"))
	if err != nil {
		return err
	}
	cfg := filepath.Join(s.Dir, "sshd_config")
	if err := os.WriteFile(cfg, bytes.Replace(tmpl, []byte("PORT"), []byte(strconv.Itoa(port)), 1), 0o600); err != nil {
		return err
	}
	if err := s.writeClientConfig(s.ClientConfig, nil); err != nil {
		return err
	}
	argv := append(append([]string(nil), wrap...), sshd, "-D", "-e", "-f", cfg)
	s.cmd = exec.Command(argv[0], argv[1:]...)
	s.cmd.Dir = s.Dir
	s.cmd.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
	s.cmd.SysProcAttr = sysProcAttr()
	stderr, err := s.cmd.StderrPipe()
	if err != nil {
		return err
	}
	if err := s.cmd.Start(); err != nil {
		return fmt.Errorf("start sshd: %w", err)
	}
	listening := make(chan struct{})
	go func() {
		var once sync.Once
		br := bufio.NewReader(stderr)
		for {
			line, err := br.ReadString('\n')
			s.log.Write([]byte(line))
			if strings.Contains(line, "Server listening on") {
				once.Do(func() { close(listening) })
			}
			if err != nil {
				break
			}
		}
		s.err = s.cmd.Wait()
		close(s.done)
	}()
	select {
	case <-listening:
		return nil
	case <-s.done:
		return fmt.Errorf("sshd exited: %v", s.err)
	case <-ctx.Done():
		s.kill()
		return fmt.Errorf("sshd did not listen: %w", ctx.Err())
	case <-time.After(10 * time.Second):
		s.kill()
		return errors.New("sshd did not listen within 10s")
	}
}

// FreePort returns a loopback port that nobody listened on a moment ago.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// kill ends sshd and every process it started (its process group: the
// connections it serves) and waits for it.
func (s *Server) kill() {
	syscall.Kill(-s.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(5 * time.Second):
		syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-s.done
	}
}

// Stop ends sshd and the sessions it serves and removes the directory.
// Calling it again does nothing.
func (s *Server) Stop() error {
	var err error
	s.once.Do(func() {
		s.kill()
		err = os.RemoveAll(s.Dir)
	})
	return err
}

// Log returns what sshd has logged so far.
func (s *Server) Log() string { return s.log.String() }

// Command returns an ssh process that runs line on the server with the
// client configuration, not yet started.
func (s *Server) Command(ctx context.Context, line string) *exec.Cmd {
	return exec.CommandContext(ctx, s.ssh, "-F", s.ClientConfig, "-T", "--", Host, line)
}

// lockedBuffer is a bytes.Buffer safe for concurrent use.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) reset() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Reset()
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

var _ io.Writer = (*lockedBuffer)(nil)
