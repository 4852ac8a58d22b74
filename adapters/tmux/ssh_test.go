package tmux

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/ports"
	"github.com/tmux-mcp/tmux-mcp/test/contract"
	"github.com/tmux-mcp/tmux-mcp/test/sshtest"
)

// The tmux adapter over ssh, on real tmux and a private sshd on loopback
// (test/sshtest). The tmux server is started here, as in the other tests;
// the Terminal reaches it only through ssh, as it would on another host.

// newSSHD starts a private sshd whose sessions find the tests' tmux
// servers. It skips the test under -short or where no sshd can run.
func newSSHD(t testing.TB, opts sshtest.Options) *sshtest.Server {
	t.Helper()
	if d := os.Getenv("TMUX_TMPDIR"); d != "" {
		opts.Env = append(opts.Env, "TMUX_TMPDIR="+d)
	}
	return sshtest.New(t, opts)
}

// sshOptions are Options that reach the sshd's host.
func sshOptions(d *sshtest.Server, opts Options) Options {
	opts.SSH, opts.SSHConfig = sshtest.Host, d.ClientConfig
	return opts
}

// sshTerminal returns a Terminal on the server that reaches it through
// the sshd, closed when the test ends.
func (s *testServer) sshTerminal(d *sshtest.Server, opts Options) *Terminal {
	s.t.Helper()
	return s.terminal(sshOptions(d, opts))
}

// The Terminal contract suite passes over ssh as it does locally, with
// bash and with dash in the panes.
func TestContractOverSSH(t *testing.T) {
	d := newSSHD(t, sshtest.Options{})
	for name, shell := range map[string][]string{"bash": bashCmd, "dash": dashCmd} {
		t.Run(name, func(t *testing.T) {
			s := newTestServer(t)
			s.session("keep", []string{"sleep", "3600"})
			contract.Run(t, &harness{server: s, term: s.sshTerminal(d, Options{}), shell: shell})
		})
	}
}

// The server's own pane is on this host: whatever TMUX and TMUX_PANE say,
// no pane reached over ssh is the server's own, even when (as here) the
// remote host is this one and they name exactly that pane.
func TestSSHNoRemotePaneIsTheServersOwn(t *testing.T) {
	d := newSSHD(t, sshtest.Options{})
	s := newTestServer(t)
	p := s.session("main", bashCmd)
	tmuxVar := strings.TrimSpace(s.tmux("display-message", "-p", "-t", string(p), "#{socket_path},#{pid},0"))
	env := func(key string) string {
		return map[string]string{"TMUX": tmuxVar, "TMUX_PANE": string(p)}[key]
	}
	ctx := testContext(t)

	local, err := s.terminal(Options{Env: env}).Pane(ctx, p)
	if err != nil || !local.Self {
		t.Fatalf("locally, Pane(%s) = %+v, %v; want Self, or the test proves nothing", p, local, err)
	}
	remote := s.sshTerminal(d, Options{Env: env})
	info, err := remote.Pane(ctx, p)
	if err != nil || info.Self {
		t.Errorf("over ssh, Pane(%s) = %+v, %v; want Self false", p, info, err)
	}
	panes, err := remote.ListPanes(ctx, ports.PaneFilter{Pane: p})
	if err != nil || len(panes) != 1 || panes[0].Self {
		t.Errorf("over ssh, ListPanes = %+v, %v; want the pane, not Self", panes, err)
	}
}

// The control socket lies in a directory only this user can enter, which
// Close removes after stopping the master.
func TestSSHControlDirectoryIsPrivateAndRemovedOnClose(t *testing.T) {
	d := newSSHD(t, sshtest.Options{})
	s := newTestServer(t)
	s.session("main", bashCmd)
	term, err := New(sshOptions(d, Options{SocketName: s.sock, Env: func(string) string { return "" }}))
	if err != nil {
		t.Fatal(err)
	}
	defer term.Close()
	link := term.launch.ssh
	fi, err := os.Stat(link.dir)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("control directory %s: %v, %v; want mode 0700", link.dir, fi.Mode(), err)
	}
	if _, err := os.Stat(link.ctl); err != nil {
		t.Errorf("control socket: %v", err)
	}
	pid := link.pid
	if !running(pid) {
		t.Fatalf("master pid %d does not run", pid)
	}
	if err := term.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := os.Stat(link.dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("control directory left behind after Close (stat: %v)", err)
	}
	eventually(t, 5*time.Second, "the ssh master to exit", func() bool { return !running(pid) })
}

// A host key that is not known, a key the server does not take, or a
// port nobody listens on is an error from New that says what is wrong,
// never a prompt or a hang.
func TestSSHStartupFailuresAreClearErrors(t *testing.T) {
	d := newSSHD(t, sshtest.Options{})
	s := newTestServer(t)
	s.session("main", bashCmd)
	empty := filepath.Join(d.Dir, "empty_known_hosts")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	closed, err := sshtest.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		settings []string
		want     string
	}{
		{"unknown host key", []string{"UserKnownHostsFile " + empty}, "host key"},
		// The host key is a private key the server does not authorize.
		{"key not authorized", []string{"IdentityFile " + d.HostKey}, "cannot log in"},
		{"nobody listening", []string{"Port " + strconv.Itoa(closed)}, "cannot be reached"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := d.WriteClientConfig(strings.ReplaceAll(tc.name, " ", "_"), tc.settings...)
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() {
				term, err := New(Options{SocketName: s.sock, SSH: sshtest.Host, SSHConfig: cfg})
				if err == nil {
					term.Close()
				}
				done <- err
			}()
			select {
			case err = <-done:
			case <-time.After(2 * sshConnectTimeout):
				t.Fatalf("New still waits after %v", 2*sshConnectTimeout)
			}
			var se *SSHError
			if !errors.As(err, &se) || !errors.Is(err, ports.ErrUnavailable) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("New = %v; want an *SSHError wrapping ErrUnavailable that says %q", err, tc.want)
			}
		})
	}
}

// With no tmux server on the remote socket, every call says how to start
// one; create_session's command starts it there.
func TestSSHWithoutARemoteServerSaysHowToStartOne(t *testing.T) {
	d := newSSHD(t, sshtest.Options{})
	s := newTestServer(t) // never started: the Terminal must start it
	term := s.sshTerminal(d, Options{})
	ctx := testContext(t)
	err := term.Ping(ctx)
	if !errors.Is(err, ports.ErrUnavailable) || !strings.Contains(err.Error(), "create_session") || !strings.Contains(err.Error(), "new-session") {
		t.Fatalf("Ping = %v; want ErrUnavailable saying how to start a server", err)
	}
	created, err := term.CreateSession(ctx, ports.SessionSpec{Name: "started", Command: "sh"})
	if err != nil {
		t.Fatalf("CreateSession: %v", err)
	}
	if err := term.Ping(ctx); err != nil {
		t.Errorf("Ping after CreateSession: %v", err)
	}
	if got := strings.TrimSpace(s.tmux("display-message", "-p", "-t", string(created.Pane), "#{session_name}")); got != "started" {
		t.Errorf("the new pane is in session %q, want started", got)
	}
}

// Arguments reach tmux as they were given, whatever the remote login
// shell would make of them unquoted: names and option values with quotes,
// backslashes, "$(...)", ";" and line ends, through one-off commands.
func TestSSHArgumentsReachTmuxUnchanged(t *testing.T) {
	d := newSSHD(t, sshtest.Options{})
	s := newTestServer(t)
	p := s.session("main", bashCmd)
	term := s.sshTerminal(d, Options{})
	ctx := testContext(t)
	canary := filepath.Join(t.TempDir(), "ran")
	for i, v := range []string{
		"plain", "", "it's", `a\b\\c\'d`, "$(touch " + canary + ")", "`touch " + canary + "`",
		"'; touch " + canary + "; '", "x\ny", "tab\there", "semi;", "#{pane_id}", "ünï", "~root", "*",
	} {
		opt := fmt.Sprintf("@arg%d", i)
		// run is the subprocess path: every argument goes through the
		// remote login shell.
		if _, err := term.run(ctx, nil, "set-option", "-p", "-t", string(p), opt, escapeArg(v)); err != nil {
			t.Errorf("set-option %q: %v", v, err)
			continue
		}
		got, err := s.tmuxErr("show-options", "-p", "-v", "-t", string(p), opt)
		if err != nil || strings.TrimSuffix(got, "\n") != v {
			t.Errorf("the option set to %q reads %q (%v)", v, got, err)
		}
	}
	if _, err := os.Stat(canary); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a remote shell ran client text: %s exists", canary)
	}
}

// Large captures come back whole over ssh, in the reply of the control
// client that ssh carries: no process per capture.
func TestSSHCapturesLargeHistory(t *testing.T) {
	d := newSSHD(t, sshtest.Options{})
	s := newTestServer(t)
	s.session("keep", []string{"sleep", "3600"})
	// history-limit applies to panes made after it is set.
	s.tmux("set-option", "-g", "history-limit", "20000")
	p := s.session("main", dashCmd)
	s.waitPrompt(p)
	s.tmux("send-keys", "-t", string(p), "seq 1 12000", "Enter")
	eventually(t, 10*time.Second, "the history to fill", func() bool {
		n, _ := strconv.Atoi(strings.TrimSpace(s.tmux("display-message", "-p", "-t", string(p), "#{history_size}")))
		return n >= 11000
	})
	term := s.sshTerminal(d, Options{})
	ctx := testContext(t)
	if _, err := term.Pane(ctx, p); err != nil { // attaches a control client
		t.Fatal(err)
	}
	before := term.processes.Load()
	rows, err := term.Capture(ctx, p, ports.CaptureRange{Start: -10000, End: -1})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 10000 {
		t.Fatalf("captured %d rows, want 10000", len(rows))
	}
	want, _ := s.tmuxErr("capture-pane", "-p", "-t", string(p), "-S", "-10000", "-E", "-1")
	if strings.Join(rows, "\n")+"\n" != want {
		t.Errorf("the rows differ from what tmux captures itself")
	}
	if n := term.processes.Load() - before; n != 0 {
		t.Errorf("Capture ran %d processes, want none (the control client over ssh)", n)
	}
}

// A server reaching tmux over ssh and one reaching it locally keep out of
// each other's panes: the lease lives in tmux, on tmux's clock.
func TestSSHLeaseKeepsALocalAndARemoteServerApart(t *testing.T) {
	d := newSSHD(t, sshtest.Options{})
	s := newTestServer(t)
	p := s.session("main", bashCmd)
	local, remote := s.terminal(Options{}), s.sshTerminal(d, Options{})
	ctx := testContext(t)
	if ok, _, err := remote.TryAcquire(ctx, p, "remote-server", time.Minute); !ok || err != nil {
		t.Fatalf("remote.TryAcquire = %v, %v", ok, err)
	}
	if ok, holder, err := local.TryAcquire(ctx, p, "local-server", time.Minute); ok || holder != "remote-server" || err != nil {
		t.Errorf("local.TryAcquire = %v, %q, %v; want refused, held by remote-server", ok, holder, err)
	}
	if err := remote.Release(ctx, p, "remote-server"); err != nil {
		t.Fatal(err)
	}
	if ok, _, err := local.TryAcquire(ctx, p, "local-server", time.Minute); !ok || err != nil {
		t.Errorf("local.TryAcquire after the release = %v, %v", ok, err)
	}
}

// A connection lost in the middle of a command (the ssh master killed)
// ends the call with a definite outcome, the Terminal connects again by
// itself, and the pane is free for the next call.
func TestSSHLostConnectionMidCommandReconnects(t *testing.T) {
	d := newSSHD(t, sshtest.Options{})
	s := newTestServer(t)
	p := s.session("main", bashCmd)
	s.waitPrompt(p)
	term := s.sshTerminal(d, Options{})
	svc, _ := leasingService(t, term, "server-a")
	ctx := testContext(t)

	type result struct {
		res domain.RunResult
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := svc.RunShellCommand(ctx, domain.RunRequest{PaneID: p, Command: "echo started-$((20+22)); sleep 2; echo survived", TimeoutMs: 20000})
		done <- result{res, err}
	}()
	s.waitScreen(p, "the command to start", func(screen string) bool { return strings.Contains(screen, "started-42") })
	link := term.launch.ssh
	if err := syscall.Kill(link.pid, syscall.SIGKILL); err != nil {
		t.Fatalf("kill the ssh master %d: %v", link.pid, err)
	}

	r := <-done
	if r.err != nil {
		t.Fatalf("RunShellCommand: %v", r.err)
	}
	if r.res.Outcome != domain.OutcomeCompleted || r.res.ExitStatus == nil || *r.res.ExitStatus != 0 || !strings.Contains(r.res.Output, "survived") {
		t.Errorf("the run across the lost connection = %+v; want completed, status 0, with the output after the loss", r.res)
	}
	if r.res.MissedBytes > 0 && r.res.OutputComplete {
		t.Errorf("missedBytes %d with outputComplete true", r.res.MissedBytes)
	}
	if n := link.connects.Load(); n < 2 {
		t.Errorf("%d connections made, want a second one after the master was killed", n)
	}
	next, err := svc.RunShellCommand(ctx, domain.RunRequest{PaneID: p, Command: "echo again"})
	if err != nil || next.Outcome != domain.OutcomeCompleted || next.Output != "again" {
		t.Errorf("the next run = %+v, %v; want completed with its output", next, err)
	}
	// The lease is given back after the reply.
	select {
	case <-svc.Released(p):
	case <-ctx.Done():
		t.Fatal("the pane was never released")
	}
	if v := strings.TrimSpace(s.tmux("show-options", "-p", "-q", "-v", "-t", string(p), LeaseOwnerOption)); v != "" {
		t.Errorf("lease %q left on the pane after the runs", v)
	}
}

// A one-off command after the master died connects again rather than
// fail, and rather than make a connection of its own without the master.
func TestSSHOneOffCommandReconnects(t *testing.T) {
	d := newSSHD(t, sshtest.Options{})
	s := newTestServer(t)
	p := s.session("main", bashCmd)
	term := s.sshTerminal(d, Options{})
	link := term.launch.ssh
	if err := syscall.Kill(link.pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	eventually(t, 5*time.Second, "the master to die", func() bool { return !running(link.pid) })
	ctx := testContext(t)
	if _, err := term.SplitWindow(ctx, p, false, 0); err != nil {
		t.Fatalf("SplitWindow after the master died: %v", err)
	}
	if n := link.connects.Load(); n != 2 {
		t.Errorf("%d connections made, want 2", n)
	}
	if !link.listening() {
		t.Error("no master serves after the reconnect")
	}
}

// A remote sshd that refuses one more session on the shared connection
// (MaxSessions, 10 by default, is less than the sessions the Terminal
// follows at once plus one) does not stop the calls: ssh then makes a
// connection of its own for the command.
func TestSSHBeyondTheSessionLimitCommandsStillRun(t *testing.T) {
	d := newSSHD(t, sshtest.Options{MaxSessions: 1})
	s := newTestServer(t)
	p := s.session("main", bashCmd)
	term := s.sshTerminal(d, Options{})
	ctx := testContext(t)
	// Pane attaches a control client, which keeps the one session.
	if _, err := term.Pane(ctx, p); err != nil {
		t.Fatal(err)
	}
	if _, err := term.SplitWindow(ctx, p, false, 0); err != nil {
		t.Errorf("SplitWindow beyond MaxSessions: %v", err)
	}
	// And the remote reader, a long-lived session, on a connection of its
	// own.
	s.waitPrompt(p)
	if fg, err := term.Foreground(ctx, p); err != nil || fg.Group <= 0 {
		t.Errorf("Foreground beyond MaxSessions = %+v, %v", fg, err)
	}
	if !strings.Contains(d.Log(), "no more sessions") {
		t.Errorf("sshd never refused a session; the test proves nothing:\n%s", d.Log())
	}
}

// run_shell_command, paste_text and capture_pane through a domain Service
// on the Terminal over ssh, as the server runs them.
func TestSSHSeedToolsThroughTheDomain(t *testing.T) {
	d := newSSHD(t, sshtest.Options{})
	s := newTestServer(t)
	p := s.session("main", bashCmd)
	s.waitPrompt(p)
	term := s.sshTerminal(d, Options{})
	svc, _ := leasingService(t, term, "server-a")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	res, err := svc.RunShellCommand(ctx, domain.RunRequest{PaneID: p, Command: "printf 'a\\tb\\n'; echo \"it's $((6*7))\"; exit 3"})
	if err != nil || res.Outcome != domain.OutcomeCompleted || res.ExitStatus == nil || *res.ExitStatus != 3 || res.Output != "a\tb\nit's 42" {
		t.Fatalf("RunShellCommand = %+v, %v", res, err)
	}
	if _, err := svc.PasteText(ctx, domain.PasteRequest{PaneID: p, Text: "echo pasted-$((1+1))", Enter: true}); err != nil {
		t.Fatal(err)
	}
	s.waitScreen(p, "the pasted command's output", func(screen string) bool { return strings.Contains(screen, "\npasted-2") })
	capture, err := svc.CapturePane(ctx, domain.CaptureRequest{PaneID: p})
	if err != nil || !strings.Contains(capture.Text, "pasted-2") {
		t.Errorf("CapturePane = %+v, %v; want the screen with the pasted command's output", capture, err)
	}
}

// running reports whether process pid runs: it exists and, where /proc
// tells, is not a zombie (the master runs in the background, reaped by
// whoever adopted it, maybe late).
func running(pid int) bool {
	if pid <= 0 || syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	end := strings.LastIndexByte(string(stat), ')')
	return end < 0 || end+2 >= len(stat) || stat[end+2] != 'Z'
}

// Over ssh a script's file is read back through tmux's load-buffer, which
// makes no buffer of an empty file. A script empties its file as the shell
// takes it, and the file stays empty until the status is written before
// the end marker: read back, it is empty and there, and removed, it was
// taken, as the local store says. (Read as missing, the domain could never
// tell that a shell gave up its frame over ssh: no status is ever written
// then.)
func TestSSHAnEmptiedScriptReadsAsEmptyAndTaken(t *testing.T) {
	d := newSSHD(t, sshtest.Options{})
	s := newTestServer(t)
	p := s.session("main", bashCmd)
	term := s.sshTerminal(d, Options{})
	ctx := testContext(t)
	path, err := term.PutScript(ctx, p, func(string) []byte { return []byte("echo hi\n") })
	if err != nil {
		t.Fatal(err)
	}
	if b, ok, err := term.ReadScript(ctx, p, path); err != nil || !ok || string(b) != "echo hi\n" {
		t.Fatalf("ReadScript of the script = %q, %v, %v", b, ok, err)
	}
	// The "remote" host is this one: empty the file as the script does.
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	b, ok, err := term.ReadScript(ctx, p, path)
	if err != nil || !ok || len(b) != 0 {
		t.Errorf("ReadScript of the emptied script = %q, %v, %v; want it empty and there", b, ok, err)
	}
	if st, err := term.RemoveScript(ctx, p, path); err != nil || st != ports.ScriptTaken {
		t.Errorf("RemoveScript of the emptied script = %v, %v; want ScriptTaken", st, err)
	}
	if _, ok, err := term.ReadScript(ctx, p, "/nowhere/"+path); ok || err != nil {
		t.Errorf("ReadScript of no script of ours = %v, %v; want not there", ok, err)
	}
}
