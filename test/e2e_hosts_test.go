package test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/test/sshtest"
)

// One server, several hosts (-ssh given more than once), end to end: the
// built binary drives two "hosts", each a private sshd on its own
// loopback port whose sessions find their own tmux server (each its own
// TMUX_TMPDIR), through one ssh configuration that names them web1 and
// web2.

// remoteHost is one host of the test: its sshd, and its tmux server.
type remoteHost struct {
	name   string
	sshd   *sshtest.Server
	tmpdir string
	bin    string
}

// tmux runs tmux on the host's server, as its sessions would.
func (h *remoteHost) tmux(args ...string) (string, error) {
	cmd := exec.Command(h.bin, args...)
	cmd.Env = append(cleanEnv(os.Environ()), "TMUX_TMPDIR="+h.tmpdir)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// startServer starts the host's tmux server with one session, main,
// running a plain bash, and waits for its prompt.
func (h *remoteHost) startServer(t *testing.T) {
	t.Helper()
	if out, err := h.tmux("new-session", "-d", "-s", "main", "-x", "120", "-y", "30", "env PS1='$ ' bash --norc --noprofile"); err != nil {
		t.Fatalf("start the tmux server of %s: %v: %s", h.name, err, out)
	}
	eventually(t, 10*time.Second, "a prompt on "+h.name, func() bool {
		out, _ := h.tmux("capture-pane", "-p", "-t", "main")
		return strings.Contains(out, "$")
	})
}

func newRemoteHost(t *testing.T, name string) *remoteHost {
	t.Helper()
	bin := needTmux(t)
	tmpdir, err := os.MkdirTemp("", "tmcp-host-"+name+"-")
	if err != nil {
		t.Fatal(err)
	}
	h := &remoteHost{name: name, tmpdir: tmpdir, bin: bin}
	t.Cleanup(func() {
		h.tmux("kill-server")
		os.RemoveAll(tmpdir)
	})
	h.sshd = sshtest.New(t, sshtest.Options{Env: []string{"TMUX_TMPDIR=" + tmpdir}})
	h.startServer(t)
	return h
}

// hostsConfig writes one ssh client configuration naming each host's
// sshd by the host's name, and a host "gone" on a port nobody listens on,
// and returns its path.
func hostsConfig(t *testing.T, hosts ...*remoteHost) string {
	t.Helper()
	var text strings.Builder
	for _, h := range hosts {
		b, err := os.ReadFile(h.sshd.ClientConfig)
		if err != nil {
			t.Fatal(err)
		}
		text.WriteString(strings.Replace(string(b), "Host "+sshtest.Host+"\n", "Host "+h.name+"\n", 1))
	}
	port, err := sshtest.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(hosts[0].sshd.ClientConfig)
	gone := strings.Replace(string(b), "Host "+sshtest.Host+"\n", "Host gone\n", 1)
	gone = strings.Replace(gone, "Port "+strconv.Itoa(hosts[0].sshd.Port)+"\n", "Port "+strconv.Itoa(port)+"\n", 1)
	text.WriteString(gone)
	path := filepath.Join(t.TempDir(), "ssh_config")
	if err := os.WriteFile(path, []byte(text.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func objects(t *testing.T, v any) []map[string]any {
	t.Helper()
	list, ok := v.([]any)
	if !ok {
		t.Fatalf("%v is no list", v)
	}
	out := make([]map[string]any, len(list))
	for i, x := range list {
		out[i] = x.(map[string]any)
	}
	return out
}

func TestBinaryDrivesSeveralHostsOverSSH(t *testing.T) {
	t.Parallel()
	web1, web2 := newRemoteHost(t, "web1"), newRemoteHost(t, "web2")
	cfg := hostsConfig(t, web1, web2)
	b := startBinary(t, nil, "-ssh", "web1", "-ssh", "web2", "-ssh-config", cfg)

	hosts := objects(t, b.call(t, "list_hosts", nil).StructuredContent.(map[string]any)["hosts"])
	if len(hosts) != 2 || hosts[0]["name"] != "web1" || hosts[1]["name"] != "web2" {
		t.Fatalf("list_hosts = %v, want web1 and web2", hosts)
	}
	for _, h := range hosts {
		if h["reachable"] != true || h["panes"] != 1.0 || h["destination"] != h["name"] {
			t.Errorf("host %v, want reachable with its one pane", h)
		}
	}

	panes := objects(t, b.call(t, "list_panes", nil).StructuredContent.(map[string]any)["panes"])
	if len(panes) != 2 || panes[0]["host"] != "web1" || panes[1]["host"] != "web2" {
		t.Fatalf("list_panes = %v, want a pane of each host", panes)
	}
	for _, p := range panes {
		if !strings.HasPrefix(p["paneId"].(string), p["host"].(string)+":%") {
			t.Errorf("pane %v: its id does not carry its host", p)
		}
	}
	pane2 := panes[1]["paneId"].(string)
	run := decodeRun(t, b.call(t, "run_shell_command", map[string]any{"paneId": pane2, "command": "echo on-$((40+2)); exit 4"}))
	if run.Outcome != "completed" || run.Output != "on-42" || run.ExitStatus == nil || *run.ExitStatus != 4 {
		t.Errorf("run_shell_command on %s = %+v", pane2, run)
	}
	if out, _ := web2.tmux("capture-pane", "-p", "-t", "main"); !strings.Contains(out, "on-42") {
		t.Errorf("web2's pane shows %q, want the command's output", out)
	}
	if out, _ := web1.tmux("capture-pane", "-p", "-t", "main"); strings.Contains(out, "on-42") {
		t.Errorf("web1's pane shows %q: the command ran on the wrong host", out)
	}

	// web2's tmux server goes away: the listings go on with web1's and
	// say web2 could not be reached; once it runs again it is listed again.
	if out, err := web2.tmux("kill-server"); err != nil {
		t.Fatalf("kill web2's tmux server: %v: %s", err, out)
	}
	res := b.call(t, "list_panes", nil).StructuredContent.(map[string]any)
	if got := objects(t, res["panes"]); len(got) != 1 || got[0]["host"] != "web1" {
		t.Errorf("list_panes with web2 down = %v, want web1's pane", got)
	}
	if u := objects(t, res["unreachableHosts"]); len(u) != 1 || u[0]["name"] != "web2" {
		t.Errorf("unreachableHosts = %v, want web2", u)
	}
	web2.startServer(t)
	if got := objects(t, b.call(t, "list_panes", nil).StructuredContent.(map[string]any)["panes"]); len(got) != 2 {
		t.Errorf("list_panes once web2 runs again = %v, want both hosts' panes", got)
	}
}

// A host that cannot be reached at start-up is reported, and the server
// serves the others.
func TestBinaryStartsWhenOneHostIsUnreachable(t *testing.T) {
	t.Parallel()
	web1 := newRemoteHost(t, "web1")
	cfg := hostsConfig(t, web1)
	b := startBinary(t, nil, "-ssh", "web1", "-ssh", "gone", "-ssh-config", cfg)
	if !strings.Contains(b.stderr.String(), "cannot reach a host") {
		t.Errorf("the log does not report the unreachable host:\n%s", b.stderr)
	}
	hosts := objects(t, b.call(t, "list_hosts", nil).StructuredContent.(map[string]any)["hosts"])
	if len(hosts) != 2 || hosts[0]["reachable"] != true || hosts[1]["reachable"] != false || hosts[1]["error"] == nil {
		t.Errorf("list_hosts = %v, want web1 reachable and gone not, with why", hosts)
	}
	panes := objects(t, b.call(t, "list_panes", nil).StructuredContent.(map[string]any)["panes"])
	if len(panes) != 1 || panes[0]["host"] != "web1" {
		t.Errorf("list_panes = %v, want web1's pane", panes)
	}
}
