package test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmux-mcp/tmux-mcp/adapters/clock"
	"github.com/tmux-mcp/tmux-mcp/adapters/mcp"
	"github.com/tmux-mcp/tmux-mcp/adapters/tmux"
	"github.com/tmux-mcp/tmux-mcp/app"
	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/test/sshtest"
)

// The server over ssh (-ssh), end to end: the built binary, or the real
// domain and MCP server, driving a tmux server on "another host" through a
// private sshd on loopback (test/sshtest). The tmux servers are started
// here, as in the other tests, and reached only through ssh.

// newSSHD starts a private sshd whose sessions find the tests' tmux
// servers (and any variables in env), or skips the test where none can
// run.
func newSSHD(t *testing.T, env ...string) *sshtest.Server {
	t.Helper()
	if d := os.Getenv("TMUX_TMPDIR"); d != "" {
		env = append([]string{"TMUX_TMPDIR=" + d}, env...)
	}
	return sshtest.New(t, sshtest.Options{Env: env})
}

// sshArgs are the binary's flags that reach d's host.
func sshArgs(d *sshtest.Server) []string {
	return []string{"-ssh", sshtest.Host, "-ssh-config", d.ClientConfig}
}

// The three seed tools and the waiting tools, through the binary, on a
// pane of a tmux server that the binary reaches over ssh.
func TestBinaryServesTheSeedToolsOverSSH(t *testing.T) {
	t.Parallel()
	srv, p := newTmuxServer(t, bash)
	d := newSSHD(t)
	b := startBinary(t, nil, append(sshArgs(d), "-socket-name", srv.sock)...)
	pane := string(p)

	run := decodeRun(t, b.call(t, "run_shell_command", map[string]any{"paneId": pane, "command": "echo \"it's $((6*7))\"; exit 7"}))
	checkRun(t, run, runOutput{Outcome: "completed", ExitStatus: status(7), Output: "it's 42", ReturnedBytes: 7,
		OutputComplete: true, PaneID: pane, EffectiveTimeoutMs: 30000})

	seed := decodeSince(t, b.call(t, "capture_since", map[string]any{"paneId": pane}))
	if !seed.Seeded || seed.Cursor == nil {
		t.Fatalf("capture_since without a cursor = %+v, want the screen, seeded, and a cursor", seed)
	}
	pasteAndSeeItRun(t, b, srv, pane, *seed.Cursor, "echo 'pasted'-$((6*7))")
	if !strings.Contains(b.stderr.String(), "driving tmux on a remote host over ssh") {
		t.Errorf("the log does not say that the server drives a remote host:\n%s", b.stderr)
	}
}

// Without a socket setting the binary drives the remote user's default
// tmux server, not a private one. With none running there, a call says
// how to start one, and create_session starts it.
func TestBinaryOverSSHDrivesTheRemoteDefaultServer(t *testing.T) {
	t.Parallel()
	bin := needTmux(t)
	// The "remote" default server is the one in this directory, so that
	// the test never meets the machine's own.
	tmpdir, err := os.MkdirTemp("", "tmcp-remote-tmpdir-")
	if err != nil {
		t.Fatal(err)
	}
	remoteTmux := func(args ...string) (string, error) {
		cmd := exec.Command(bin, args...)
		cmd.Env = append(cleanEnv(os.Environ()), "TMUX_TMPDIR="+tmpdir)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	t.Cleanup(func() {
		remoteTmux("kill-server")
		os.RemoveAll(tmpdir)
	})
	d := newSSHD(t, "TMUX_TMPDIR="+tmpdir)
	b := startBinary(t, nil, sshArgs(d)...)

	if strings.Contains(b.stderr.String(), "started a private tmux server") {
		t.Errorf("the binary started a private server with -ssh:\n%s", b.stderr)
	}
	msg := errorText(t, b.call(t, "list_sessions", nil))
	for _, want := range []string{"no tmux server", "create_session", "new-session"} {
		if !strings.Contains(msg, want) {
			t.Errorf("list_sessions without a remote server: %q; want it to say %q", msg, want)
		}
	}
	res := b.call(t, "create_session", map[string]any{"name": "remote", "command": "bash --norc --noprofile"})
	if res.IsError {
		t.Fatalf("create_session: %s", errorText(t, res))
	}
	pane := regexp.MustCompile(`"paneId":"(%\d+)"`).FindStringSubmatch(mustMarshal(res.StructuredContent))
	if pane == nil {
		t.Fatalf("create_session = %v, want a paneId", res.StructuredContent)
	}
	if out, err := remoteTmux("list-sessions", "-F", "#{session_name}"); err != nil || strings.TrimSpace(out) != "remote" {
		t.Fatalf("the default server in the remote TMUX_TMPDIR lists %q (%v), want the new session", out, err)
	}
	eventually(t, 10*time.Second, "a prompt in the new pane", func() bool {
		out, _ := remoteTmux("capture-pane", "-p", "-t", pane[1])
		return strings.ContainsAny(out, "$#") // bash's default prompt ends in # for root
	})
	run := decodeRun(t, b.call(t, "run_shell_command", map[string]any{"paneId": pane[1], "command": "echo remote-$((40+2))"}))
	if run.Outcome != "completed" || run.Output != "remote-42" {
		t.Errorf("run_shell_command in the session create_session made = %+v", run)
	}
}

// A host key that is not known ends the binary at start-up with an error
// that says so, at once.
func TestBinaryOverSSHRefusesToStartOnAnUnknownHostKey(t *testing.T) {
	t.Parallel()
	bin := serverBinary(t)
	d := newSSHD(t)
	empty := filepath.Join(d.Dir, "no_known_hosts")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := d.WriteClientConfig("unknown_host_key", "UserKnownHostsFile "+empty)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-ssh", sshtest.Host, "-ssh-config", cfg)
	cmd.Env = cleanEnv(os.Environ())
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("the binary still ran after 30s: %s", out)
	}
	if err == nil || !strings.Contains(string(out), "host key") || !strings.Contains(string(out), "ssh "+sshtest.Host) {
		t.Errorf("the binary with an unknown host key: %v\n%s\nwant it to fail naming the host key", err, out)
	}
}

// No tool lets a client pass a tmux format or command that tmux would
// run, over ssh either, where every argument also crosses the remote login
// shell.
func TestManageNoToolRunsAClientsFormatOrCommandOverSSH(t *testing.T) {
	srv, _ := newTmuxServer(t, bash)
	d := newSSHD(t)
	term, err := tmux.New(tmux.Options{SocketName: srv.sock, SSH: sshtest.Host, SSHConfig: d.ClientConfig})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { term.Close() })
	p := newProcess(term, term, clock.New(), term, app.NewLeaseOwner(), domain.Config{WaitMax: 10 * time.Second})
	mcpSrv := mcp.NewServer(p.svc, mcp.Options{Version: "e2e", Manage: p.life, Safety: mcp.TierDestructive, CheckResults: true})
	st, ct := sdk.NewInMemoryTransports()
	ss, err := mcpSrv.SDK().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "e2e", Version: "0"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		mcpSrv.Close()
		cs.Close()
		ss.Wait()
		p.close()
	})
	e := &inmem{t: t, cs: cs}
	dir := t.TempDir()
	fresh := func() (injectionTarget, func()) {
		made := toolOK(e, "create_session", map[string]any{"command": "sh"})
		id := made["sessionId"].(string)
		return injectionTarget{pane: made["paneId"].(string), window: made["windowId"].(string), session: id},
			func() { _ = term.KillSession(context.Background(), id) } // gone already if the call killed it
	}
	if n := tryInjections(t, cs, dir, fresh); n == 0 {
		t.Fatal("no text fields found")
	}
	checkNoPayloadRan(t, dir)
}

// A command that replaced itself with exec and then got C-c dies of a
// signal the frame does not catch, and its shell drops the rest of the
// frame: over ssh as on this host, wait_for_command then returns it
// completed with its status unknown (the remote reader sees the shell
// back at its prompt with no status written), and the pane takes the
// next command. Before the reader, such a pane stayed busy until the
// server restarted.
func TestBinaryOverSSHFreesAPaneWhoseShellGaveUpTheFrame(t *testing.T) {
	t.Parallel()
	srv, p := newTmuxServer(t, bash)
	d := newSSHD(t)
	b := startBinary(t, nil, append(sshArgs(d), "-socket-name", srv.sock)...)
	pane := string(p)

	run := decodeRun(t, b.call(t, "run_shell_command", map[string]any{"paneId": pane, "command": "echo started; exec sleep 30", "timeoutMs": 1000}))
	if run.Outcome != "timed_out" || !run.StillRunning {
		t.Fatalf("exec sleep 30 with timeoutMs 1000 = %+v; want timed_out, still running", run)
	}
	srv.waitProcess(t, p, "sleep")
	srv.tmux(t, "send-keys", "-t", pane, "C-c")
	run = decodeRun(t, b.call(t, "wait_for_command", map[string]any{"paneId": pane, "timeoutMs": 15000}))
	if run.Outcome != "completed" || run.ExitStatus != nil || run.StillRunning || run.OutputComplete || !strings.HasPrefix(run.Output, "started") {
		t.Fatalf("wait_for_command after C-c = %+v; want completed, exitStatus null, the pane free", run)
	}
	eventually(t, 10*time.Second, "the prompt back", func() bool {
		return strings.HasSuffix(strings.TrimRight(srv.screen(t, p), "\n"), "$")
	})
	run = decodeRun(t, b.call(t, "run_shell_command", map[string]any{"paneId": pane, "command": "echo next"}))
	if run.Outcome != "completed" || run.Output != "next" {
		t.Errorf("the next run_shell_command = %+v; want completed with its output", run)
	}
}
