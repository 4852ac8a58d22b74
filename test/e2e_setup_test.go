package test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// setup and doctor through the built binary, run as a user runs them: by
// a link on PATH (as npm and Homebrew install it), with HOME and
// XDG_CONFIG_HOME naming where the clients' files are.

func runWithEnv(t *testing.T, env []string, name string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), code
}

func TestSetupWritesTheBinarysOwnPathAndDoctorFindsIt(t *testing.T) {
	bin := serverBinary(t)
	real, err := filepath.EvalSymlinks(bin)
	if err != nil {
		t.Fatal(err)
	}
	linkDir := t.TempDir()
	link := filepath.Join(linkDir, "tmux-mcp")
	if err := os.Symlink(bin, link); err != nil {
		t.Fatal(err)
	}
	home, xdg := t.TempDir(), t.TempDir()
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + xdg, "PATH=" + linkDir + string(os.PathListSeparator) + os.Getenv("PATH")}

	desktop := filepath.Join(xdg, "Claude", "claude_desktop_config.json")
	os.MkdirAll(filepath.Dir(desktop), 0o755)
	os.WriteFile(desktop, []byte(`{"mcpServers": {"fs": {"command": "npx", "args": ["fs-mcp"]}}, "theme": "light"}`), 0o644)

	out, code := runWithEnv(t, env, link, "setup", "claude-desktop", "--", "-socket-name", "agents")
	if code != 0 || !strings.Contains(out, "the file as it was: "+desktop+".bak-") {
		t.Fatalf("setup = %d:\n%s", code, out)
	}
	var doc struct {
		MCPServers map[string]struct {
			Command string
			Args    []string
		} `json:"mcpServers"`
		Theme string `json:"theme"`
	}
	data, _ := os.ReadFile(desktop)
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	got := doc.MCPServers["tmux"]
	if got.Command != real || strings.Join(got.Args, " ") != "-socket-name agents" {
		t.Errorf("the entry runs %q %q; want the binary's own path %q, not the link, and the flags", got.Command, got.Args, real)
	}
	if doc.MCPServers["fs"].Command != "npx" || doc.Theme != "light" {
		t.Errorf("what the file held is gone:\n%s", data)
	}

	out, code = runWithEnv(t, env, link, "setup", "claude-desktop", "--", "-socket-name", "agents")
	if code != 0 || !strings.Contains(out, "already configured") {
		t.Errorf("second setup = %d:\n%s", code, out)
	}
	if b, _ := filepath.Glob(desktop + ".bak-*"); len(b) != 1 {
		t.Errorf("backups: %v; want one", b)
	}

	// doctor reads the same file, and names the path.
	out, _ = runWithEnv(t, env, link, "doctor")
	if !strings.Contains(out, "ok    Claude Desktop: runs "+real) {
		t.Errorf("doctor does not report the client:\n%s", out)
	}
	if !strings.Contains(out, "--    Cursor: not configured ("+filepath.Join(home, ".cursor", "mcp.json")+") — fix: tmux-mcp setup cursor") {
		t.Errorf("doctor does not say how to set up Cursor:\n%s", out)
	}
}
