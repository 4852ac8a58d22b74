package test

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/test/gate"
)

// Every start-up failure the README lists ("The server does not start"),
// made for real with the built binary: its stderr says the cause and the
// fix in a line or two, never fx's chain of constructors, and it exits 2
// for a wrong setting and 1 for what it needs being missing or out of
// reach.

// startupFailure is one row of the README's table: row is a piece of
// the row's first cell, want a piece of what the binary prints.
type startupFailure struct {
	name string
	row  string
	args []string
	env  map[string]string
	want string
	code int
	need string // a program the case needs
}

// stubDir makes a directory holding executable sh scripts.
func stubDir(t *testing.T, scripts map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range scripts {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func startupFailures(t *testing.T) []startupFailure {
	empty := t.TempDir() // a PATH with nothing on it
	oldTmux := stubDir(t, map[string]string{"tmux": `echo "tmux 3.1"`})
	newTmux := stubDir(t, map[string]string{"tmux": `echo "tmux 3.4"`})
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { taken.Close() })
	return []startupFailure{
		{name: "tmux missing", row: "tmux not found on PATH", env: map[string]string{"PATH": empty},
			want: "tmux-mcp: tmux not found on PATH: install it (apt-get install tmux, brew install tmux) or pass -tmux-bin PATH", code: 1},
		{name: "bad -tmux-bin", row: `-tmux-bin "/opt/tmux": no such file or directory`, args: []string{"-tmux-bin", "/opt/nonexistent/tmux"},
			want: `tmux-mcp: -tmux-bin "/opt/nonexistent/tmux": no such file or directory: `, code: 1},
		{name: "tmux too old", row: "3.2 or newer is required", args: []string{"-tmux-bin", filepath.Join(oldTmux, "tmux")},
			want: "is version 3.1; 3.2 or newer is required", code: 1},
		{name: "bad -shell", row: `-shell "fsh": executable file not found in $PATH`, args: []string{"-tmux-bin", filepath.Join(newTmux, "tmux"), "-shell", "fsh"},
			want: `tmux-mcp: -shell "fsh": executable file not found in $PATH: name an installed shell`, code: 2},
		{name: "ssh host out of reach", row: "cannot be reached", args: []string{"-ssh", "nohost.invalid", "-ssh-config", os.DevNull},
			want: "tmux-mcp: ssh nohost.invalid: ", code: 1, need: "ssh"},
		{name: "no token off loopback", row: "refusing to serve on 0.0.0.0:8808: a bearer token is required", args: []string{"-backend", "fake", "-transport", "http", "-listen", "0.0.0.0:0"},
			want: "tmux-mcp: refusing to serve on 0.0.0.0:0: a bearer token is required", code: 2},
		{name: "address taken", row: "address already in use", args: []string{"-backend", "fake", "-transport", "http", "-listen", taken.Addr().String()},
			want: "tmux-mcp: -listen " + taken.Addr().String() + ": address already in use: another program listens there", code: 2},
		{name: "short token", row: "TMUX_MCP_TOKEN is 7 characters long", args: []string{"-backend", "fake", "-transport", "http", "-listen", "127.0.0.1:0"},
			env: map[string]string{"TMUX_MCP_TOKEN": "hunter2"}, want: "tmux-mcp: invalid setting: TMUX_MCP_TOKEN is 7 characters long", code: 2},
		{name: "audit file", row: "tmux-mcp: -audit ", args: []string{"-backend", "fake", "-audit", filepath.Join(empty, "no", "such", "audit.jsonl")},
			want: "no such file or directory: name a file you may create or append to", code: 2},
		{name: "bad flag value", row: `-safety "all": want readonly, mutating or destructive`, args: []string{"-safety", "all"},
			want: `tmux-mcp: invalid setting: -safety "all": want readonly, mutating or destructive`, code: 2},
		{name: "screen missing", row: "GNU screen not found on PATH", args: []string{"-backend", "screen"}, env: map[string]string{"PATH": empty},
			want: "tmux-mcp: GNU screen not found on PATH: install it", code: 1},
	}
}

// readmeStartupRows returns the first cells of the README's table of
// start-up failures.
func readmeStartupRows(t *testing.T) []string {
	t.Helper()
	text := readme(t)
	i := strings.Index(text, "### The server does not start")
	if i < 0 {
		t.Fatal("the README has no section \"The server does not start\"")
	}
	text = text[i:]
	if j := strings.Index(text[4:], "\n### "); j >= 0 {
		text = text[:j+4]
	}
	var rows []string
	for _, m := range regexp.MustCompile("(?m)^\\| `([^`]+)`").FindAllStringSubmatch(text, -1) {
		rows = append(rows, m[1])
	}
	if len(rows) == 0 {
		t.Fatal("no rows in the README's table of start-up failures")
	}
	return rows
}

func TestEveryStartupFailureTheReadmeListsIsTested(t *testing.T) {
	rows := readmeStartupRows(t)
	cases := startupFailures(t)
	for _, row := range rows {
		found := false
		for _, c := range cases {
			found = found || strings.Contains(row, c.row)
		}
		if !found {
			t.Errorf("the README lists %q, which no case here makes", row)
		}
	}
	for _, c := range cases {
		found := false
		for _, row := range rows {
			found = found || strings.Contains(row, c.row)
		}
		if !found {
			t.Errorf("case %q: the README lists no %q", c.name, c.row)
		}
	}
}

func TestStartupFailuresSayTheCauseAndTheFixInALineOrTwo(t *testing.T) {
	bin := serverBinary(t)
	for _, c := range startupFailures(t) {
		t.Run(c.name, func(t *testing.T) {
			if c.need != "" {
				gate.Need(t, c.need)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, c.args...)
			env := []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH"), "SHELL=/bin/sh", "TMUX_TMPDIR=" + t.TempDir()}
			for k, v := range c.env {
				env = append(env, k+"="+v)
			}
			cmd.Env = env
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != c.code {
				t.Fatalf("exit: %v; want status %d\nstderr:\n%s", err, c.code, stderr.String())
			}
			out := stderr.String()
			if !strings.Contains(out, c.want) {
				t.Errorf("stderr lacks %q:\n%s", c.want, out)
			}
			for _, chain := range []string{"could not build", "failed to build", "received non-nil error", "fx.", ".func"} {
				if strings.Contains(out, chain) {
					t.Errorf("stderr shows fx's chain (%q):\n%s", chain, out)
				}
			}
			var said []string
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				if strings.HasPrefix(line, "tmux-mcp: ") {
					said = append(said, line)
				} else if strings.Contains(line, "\tERROR\t") {
					t.Errorf("an error logged besides the one said: %s", line)
				}
			}
			if len(said) != 1 || len(said[0]) > 400 {
				t.Errorf("want the failure said once, in a line or two; stderr:\n%s", out)
			}
		})
	}
}
