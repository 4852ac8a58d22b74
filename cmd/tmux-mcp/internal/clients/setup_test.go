package clients

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// setup runs Setup in a home of its own and returns its exit status and
// what it printed.
func setup(t *testing.T, home string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Setup(append([]string{"--home", home}, args...), func(string) string { return "" }, "/opt/bin/tmux-mcp", now, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestSetupSaysWhatItDidAndThenThatItIsDone(t *testing.T) {
	home := t.TempDir()
	code, out, _ := setup(t, home, "claude-code", "--", "-socket-name", "agents")
	if code != 0 || !strings.Contains(out, "created "+filepath.Join(home, ".claude.json")) || !strings.Contains(out, "/opt/bin/tmux-mcp -socket-name agents") {
		t.Errorf("first run: %d\n%s", code, out)
	}
	code, out, _ = setup(t, home, "claude-code", "--", "-socket-name", "agents")
	if code != 0 || !strings.Contains(out, "already configured") {
		t.Errorf("second run: %d\n%s", code, out)
	}
	code, out, _ = setup(t, home, "claude-code")
	if code != 0 || !strings.Contains(out, "the file as it was: "+filepath.Join(home, ".claude.json.bak-20261202-103000")) {
		t.Errorf("a run with other flags: %d\n%s", code, out)
	}
}

func TestSetupPrintWritesNothing(t *testing.T) {
	home := t.TempDir()
	code, out, _ := setup(t, home, "--print", "codex", "--", "-safety", "readonly")
	if code != 0 || !strings.Contains(out, "[mcp_servers.tmux]") || !strings.Contains(out, `args = ["-safety", "readonly"]`) || !strings.Contains(out, "nothing written") {
		t.Errorf("--print: %d\n%s", code, out)
	}
	if entries, _ := os.ReadDir(home); len(entries) != 0 {
		t.Errorf("--print wrote %v", entries)
	}
	code, _, _ = setup(t, home, "--print", "vscode", "--http", "http://127.0.0.1:8808/mcp", "--token-file", filepath.Join(home, "token"))
	if entries, _ := os.ReadDir(home); code != 0 || len(entries) != 0 {
		t.Errorf("--print with a new token file: %d, wrote %v", code, entries)
	}
}

func TestSetupRefusesWhatIsWrongWithStatus2(t *testing.T) {
	home := t.TempDir()
	short := filepath.Join(home, "short")
	os.WriteFile(short, []byte("hunter2\n"), 0o600)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{nil, "name one client"},
		{[]string{"emacs"}, `unknown client "emacs"`},
		{[]string{"cursor", "vscode"}, "name one client"},
		{[]string{"cursor", "--", "-safety", "all"}, `-safety "all"`},
		{[]string{"cursor", "--frobnicate"}, "frobnicate"},
		{[]string{"claude-desktop", "--http", "http://127.0.0.1:8808/mcp"}, "without --http"},
		{[]string{"cursor", "--http", "127.0.0.1:8808"}, "want an http:// or https:// URL"},
		{[]string{"cursor", "--token-file", short}, "--token-file is for --http"},
		{[]string{"cursor", "--http", "http://127.0.0.1:8808/mcp", "--token-file", short}, "is 7 characters long"},
		{[]string{"cursor", "--http", "http://127.0.0.1:8808/mcp", "--", "-safety", "readonly"}, "give them to the server you start"},
	} {
		code, _, errOut := setup(t, home, tt.args...)
		if code != 2 || !strings.Contains(errOut, tt.want) {
			t.Errorf("setup %q = %d, %q; want 2 and %q", tt.args, code, errOut, tt.want)
		}
	}
	if entries, _ := os.ReadDir(home); len(entries) != 1 {
		t.Errorf("a refused setup wrote %v", entries)
	}
}

func TestSetupOverHTTPMakesATokenFileOrReadsTheOneThere(t *testing.T) {
	home := t.TempDir()
	tokenFile := filepath.Join(home, "tmux-mcp", "token")
	code, out, errOut := setup(t, home, "cursor", "--http", "http://127.0.0.1:8808/mcp", "--token-file", tokenFile)
	if code != 0 || !strings.Contains(out, "Wrote a new bearer token to "+tokenFile) || !strings.Contains(out, "-token-file "+tokenFile) {
		t.Fatalf("setup = %d\n%s%s", code, out, errOut)
	}
	fi, err := os.Stat(tokenFile)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v, %v", fi, err)
	}
	token, _ := os.ReadFile(tokenFile)
	cfg, _ := os.ReadFile(filepath.Join(home, ".cursor", "mcp.json"))
	if len(strings.TrimSpace(string(token))) < 32 || !strings.Contains(string(cfg), "Bearer "+strings.TrimSpace(string(token))) {
		t.Errorf("token %q, config:\n%s", token, cfg)
	}
	// The file there is read, not replaced; so the second run is a no-op.
	code, out, _ = setup(t, home, "cursor", "--http", "http://127.0.0.1:8808/mcp", "--token-file", tokenFile)
	if again, _ := os.ReadFile(tokenFile); code != 0 || !bytes.Equal(again, token) || !strings.Contains(out, "already configured") {
		t.Errorf("second run: %d, token changed %v:\n%s", code, !bytes.Equal(again, token), out)
	}
}

func TestSetupRefusesAMalformedFileShowingTheEntryToAddByHand(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, ".cursor", "mcp.json")
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, []byte(`{"mcpServers": {`), 0o644)
	code, _, errOut := setup(t, home, "cursor")
	if code != 2 || !strings.Contains(errOut, path) || !strings.Contains(errOut, `"command": "/opt/bin/tmux-mcp"`) {
		t.Errorf("setup = %d\n%s", code, errOut)
	}
}

// On macOS a desktop app does not see Homebrew's tmux on its PATH: setup
// names it with -tmux-bin, unless told which tmux already; elsewhere, and
// for the CLIs, it adds nothing.
func TestSetupNamesHomebrewsTmuxForADesktopAppOnMacOS(t *testing.T) {
	defer func(g string, l func(string) (string, error)) { goos, lookPath = g, l }(goos, lookPath)
	lookPath = func(string) (string, error) { return "/opt/homebrew/bin/tmux", nil }
	for _, tt := range []struct {
		os, client string
		args       []string
		want       bool
	}{
		{"darwin", "claude-desktop", nil, true},
		{"darwin", "cursor", []string{"-socket-name", "agents"}, true},
		{"darwin", "vscode", nil, true},
		{"darwin", "claude-code", nil, false},
		{"darwin", "codex", nil, false},
		{"darwin", "cursor", []string{"-tmux-bin", "/usr/local/bin/tmux"}, false},
		{"linux", "claude-desktop", nil, false},
	} {
		goos = tt.os
		home := t.TempDir()
		code, out, errOut := setup(t, home, append([]string{"--print", tt.client, "--"}, tt.args...)...)
		if code != 0 {
			t.Fatalf("%+v: %d %s", tt, code, errOut)
		}
		if got := strings.Contains(out, `"/opt/homebrew/bin/tmux"`); got != tt.want {
			t.Errorf("%s on %s with %q: -tmux-bin added = %v, want %v\n%s", tt.client, tt.os, tt.args, got, tt.want, out)
		}
	}
	goos = "darwin"
	lookPath = func(string) (string, error) { return "/usr/bin/tmux", nil }
	if _, out, _ := setup(t, t.TempDir(), "--print", "cursor"); strings.Contains(out, "-tmux-bin") {
		t.Errorf("a tmux on launchd's PATH needs no -tmux-bin:\n%s", out)
	}
}
