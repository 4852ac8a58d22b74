package doctor

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/app"
	"github.com/tmux-mcp/tmux-mcp/cmd/tmux-mcp/internal/clients"
	"github.com/tmux-mcp/tmux-mcp/test/gate"
)

// stubs makes a directory of executable scripts, name → body (sh), and
// makes it the whole PATH.
func stubs(t *testing.T, scripts map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range scripts {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir)
	return dir
}

// tmuxStub answers -V with version and starts and lists as a tmux that
// works; listing a named socket says no server runs there.
func tmuxStub(version string) string {
	return `case "$1" in
-V) echo "tmux ` + version + `";;
-L) case "$3" in list-sessions) echo "no server running on /tmp/tmux-0/$2" >&2; exit 1;; esac;;
esac
exit 0`
}

func doctor(t *testing.T, env map[string]string, args ...string) Doctor {
	t.Helper()
	getenv := func(k string) string { return env[k] }
	cfg, err := app.ParseConfig(args, getenv, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	return Doctor{Config: cfg, Getenv: getenv, Exe: "/nonexistent/tmux-mcp", Clients: clients.Env{Home: t.TempDir(), OS: "linux"}, Timeout: 5 * time.Second}
}

// find returns the result of the check named name.
func find(t *testing.T, rs []Result, name string) Result {
	t.Helper()
	for _, r := range rs {
		if r.Name == name {
			return r
		}
	}
	t.Fatalf("no %q check in %v", name, rs)
	return Result{}
}

func TestDoctorSaysTmuxIsMissingAndHowToGetIt(t *testing.T) {
	gate.Real(t, "stub programs")
	stubs(t, map[string]string{"bash": "exit 0"})
	r := find(t, doctor(t, nil).Run(), "tmux")
	if r.Status != Fail || !strings.Contains(r.String(), "not found on PATH — fix: install it (apt-get install tmux, brew install tmux) or pass -tmux-bin PATH") {
		t.Errorf("%v", r)
	}
	r = find(t, doctor(t, nil, "-tmux-bin", "/opt/nope/tmux").Run(), "tmux")
	if r.Status != Fail || !strings.Contains(r.String(), `-tmux-bin "/opt/nope/tmux"`) {
		t.Errorf("%v", r)
	}
}

func TestDoctorChecksTmuxIsAtLeast32(t *testing.T) {
	gate.Real(t, "stub programs")
	for version, want := range map[string]Status{"3.1c": Fail, "2.9": Fail, "3.2": OK, "3.3a": OK, "next-3.6": OK, "4.0": OK, "master": Warn} {
		stubs(t, map[string]string{"tmux": tmuxStub(version), "bash": "exit 0"})
		r := find(t, doctor(t, nil).Run(), "tmux")
		if r.Status != want {
			t.Errorf("tmux %s: %v; want %s", version, r, want)
		}
	}
}

func TestDoctorChecksTheSocketTheSettingsName(t *testing.T) {
	gate.Real(t, "stub programs")
	stubs(t, map[string]string{"tmux": tmuxStub("3.4"), "bash": "exit 0"})
	r := find(t, doctor(t, nil, "-socket-name", "agents").Run(), "tmux server")
	if r.Status != Warn || !strings.Contains(r.Fix, "tmux -L agents new-session -d") {
		t.Errorf("no server on the socket: %v", r)
	}
	r = find(t, doctor(t, nil).Run(), "tmux server")
	if r.Status != OK || !strings.Contains(r.Detail, "private tmux server") {
		t.Errorf("private server: %v", r)
	}
	stubs(t, map[string]string{"tmux": `[ "$1" = -V ] && echo "tmux 3.4" && exit 0; echo "server exited unexpectedly" >&2; exit 1`, "bash": "exit 0"})
	r = find(t, doctor(t, nil).Run(), "tmux server")
	if r.Status != Fail || !strings.Contains(r.Detail, "server exited unexpectedly") {
		t.Errorf("a tmux that cannot start a server: %v", r)
	}
}

func TestDoctorListsTheShellsAndWarnsOfALoginShellItCannotUse(t *testing.T) {
	gate.Real(t, "stub programs")
	stubs(t, map[string]string{"tmux": tmuxStub("3.4"), "bash": "exit 0", "fish": "exit 0"})
	r := find(t, doctor(t, map[string]string{"SHELL": "/usr/bin/bash"}).Run(), "shells")
	if r.Status != OK || !strings.HasPrefix(r.Detail, "bash, fish;") {
		t.Errorf("%v", r)
	}
	r = find(t, doctor(t, map[string]string{"SHELL": "/bin/tcsh"}).Run(), "shells")
	if r.Status != Warn || !strings.Contains(r.Fix, "-shell bash") {
		t.Errorf("tcsh: %v", r)
	}
	stubs(t, map[string]string{"tmux": tmuxStub("3.4")})
	if r := find(t, doctor(t, nil).Run(), "shells"); r.Status != Fail {
		t.Errorf("no shell at all: %v", r)
	}
}

func TestDoctorChecksTheSSHDestinationInBatchMode(t *testing.T) {
	gate.Real(t, "stub programs")
	log := filepath.Join(t.TempDir(), "ssh.log")
	stubs(t, map[string]string{"ssh": `echo "$@" >> ` + log + `; echo "Host key verification failed." >&2; exit 255`})
	rs := doctor(t, nil, "-ssh", "build-box").Run()
	r := find(t, rs, "ssh build-box")
	if r.Status != Fail || !strings.Contains(r.String(), "Host key verification failed.") || !strings.Contains(r.Fix, "ssh build-box") {
		t.Errorf("%v", r)
	}
	if got, _ := os.ReadFile(log); !strings.Contains(string(got), "BatchMode=yes") {
		t.Errorf("ssh was run as %q, not in batch mode", got)
	}
	stubs(t, map[string]string{"ssh": `for a; do last="$a"; done; [ "$last" = -V ] && echo "tmux 3.3a"; exit 0`})
	rs = doctor(t, nil, "-ssh", "build-box").Run()
	if r := find(t, rs, "ssh build-box"); r.Status != OK {
		t.Errorf("%v", r)
	}
	if r := find(t, rs, "tmux on build-box"); r.Status != OK || r.Detail != "tmux 3.3a" {
		t.Errorf("%v", r)
	}
}

// With several hosts, each destination is checked.
func TestDoctorChecksEveryHost(t *testing.T) {
	gate.Real(t, "stub programs")
	stubs(t, map[string]string{"ssh": `for a; do last="$a"; done; [ "$last" = -V ] && echo "tmux 3.3a"; exit 0`})
	rs := doctor(t, nil, "-ssh", "deploy@web1", "-ssh", "deploy@web2").Run()
	for _, dest := range []string{"deploy@web1", "deploy@web2"} {
		if r := find(t, rs, "ssh "+dest); r.Status != OK {
			t.Errorf("%v", r)
		}
		if r := find(t, rs, "tmux on "+dest); r.Status != OK || r.Detail != "tmux 3.3a" {
			t.Errorf("%v", r)
		}
	}
}

func TestDoctorFindsThePrivateDirectory(t *testing.T) {
	dir := t.TempDir()
	r := doctor(t, map[string]string{"XDG_RUNTIME_DIR": dir}).stateDir()
	if r.Status != OK || !strings.Contains(r.Detail, dir) {
		t.Errorf("%v", r)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
}

func TestDoctorReportsWhichClientsRunWhichBinary(t *testing.T) {
	d := doctor(t, nil)
	exe := filepath.Join(t.TempDir(), "tmux-mcp")
	other := filepath.Join(t.TempDir(), "tmux-mcp")
	for _, f := range []string{exe, other} {
		os.WriteFile(f, []byte("#!/bin/sh\n"), 0o755)
	}
	d.Exe = exe
	write := func(rel, text string) {
		p := filepath.Join(d.Clients.Home, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(text), 0o600)
	}
	write(".claude.json", `{"mcpServers": {"tmux": {"type": "stdio", "command": "`+exe+`", "args": []}}}`)
	write(".cursor/mcp.json", `{"mcpServers": {"tmux": {"command": "/gone/tmux-mcp"}}}`)
	write(".config/Code/User/mcp.json", `{"servers": {"tmux": {"type": "stdio", "command": "`+other+`"}}}`)
	write(".codex/config.toml", "[mcp_servers.tmux]\nurl = \"http://127.0.0.1:8808/mcp\"\n")
	write(".config/Claude/claude_desktop_config.json", `{"mcpServers": {`)
	rs := d.clients()
	for name, want := range map[string]struct {
		status Status
		has    string
	}{
		"Claude Code":    {OK, "runs " + exe},
		"Cursor":         {Fail, "/gone/tmux-mcp, which is not there"},
		"VS Code":        {Warn, "not this binary"},
		"Codex":          {OK, "reaches http://127.0.0.1:8808/mcp"},
		"Claude Desktop": {Warn, "claude_desktop_config.json"},
	} {
		r := find(t, rs, name)
		if r.Status != want.status || !strings.Contains(r.String(), want.has) {
			t.Errorf("%s: %v; want %s and %q", name, r, want.status, want.has)
		}
	}
	d.Clients.Home = t.TempDir()
	if r := find(t, d.clients(), "Cursor"); r.Status != Note || r.Fix != "tmux-mcp setup cursor" {
		t.Errorf("not configured: %v", r)
	}
}

func TestDoctorExitsZeroOnlyWhenAllItNeedsHolds(t *testing.T) {
	gate.Real(t, "stub programs")
	home := t.TempDir()
	getenv := func(k string) string {
		if k == "XDG_RUNTIME_DIR" {
			return home
		}
		return ""
	}
	var out bytes.Buffer
	stubs(t, map[string]string{"tmux": tmuxStub("3.4"), "bash": "exit 0"})
	if code := Main([]string{"--home", home}, getenv, "/x/tmux-mcp", &out, &out); code != 0 || !strings.Contains(out.String(), "Everything the server needs holds.") {
		t.Errorf("all there: %d\n%s", code, out.String())
	}
	out.Reset()
	stubs(t, map[string]string{"tmux": tmuxStub("3.0"), "bash": "exit 0"})
	if code := Main([]string{"--home", home}, getenv, "/x/tmux-mcp", &out, &out); code != 1 || !strings.Contains(out.String(), "FAIL") {
		t.Errorf("tmux too old: %d\n%s", code, out.String())
	}
	out.Reset()
	if code := Main([]string{"--home", home, "-safety", "all"}, getenv, "/x/tmux-mcp", &out, &out); code != 2 {
		t.Errorf("a bad flag: %d\n%s", code, out.String())
	}
}

// On this machine's own tmux: found, recent enough, and a private
// server starts and is gone again.
func TestDoctorOnTheRealTmux(t *testing.T) {
	gate.Real(t, "tmux")
	gate.Need(t, "tmux")
	rs := doctor(t, nil).Run()
	for _, name := range []string{"tmux", "tmux server", "private directory"} {
		if r := find(t, rs, name); r.Status != OK {
			t.Errorf("%v", r)
		}
	}
}

func TestDoctorChecksScreenForTheScreenBackend(t *testing.T) {
	stubs(t, map[string]string{})
	if r := find(t, doctor(t, nil, "-backend", "screen").Run(), "GNU screen"); r.Status != Fail || !strings.Contains(r.Fix, "apt-get install screen") {
		t.Errorf("%v", r)
	}
	dir := stubs(t, map[string]string{"screen": "exit 0"})
	if r := find(t, doctor(t, nil, "-backend", "screen").Run(), "GNU screen"); r.Status != OK || r.Detail != filepath.Join(dir, "screen") {
		t.Errorf("%v", r)
	}
}
