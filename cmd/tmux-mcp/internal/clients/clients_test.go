package clients

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var (
	stdio = Entry{Command: "/opt/tmux-mcp/bin/tmux-mcp", Args: []string{"-socket-name", "agents"}}
	web   = Entry{URL: "http://127.0.0.1:8808/mcp", Token: "0123456789abcdef0123"}
	now   = time.Date(2026, 12, 2, 10, 30, 0, 0, time.UTC)
)

// existing is a configuration of each client as a person might have it:
// another server, other settings, a layout of their own.
var existing = map[string]string{
	"claude-code": `{
    "numStartups": 12,
    "theme": "dark",
    "mcpServers": {
        "github": {"type": "stdio", "command": "npx", "args": ["-y", "gh-mcp"], "env": {}}
    },
    "projects": {"/src/x": {"mcpServers": {}}},
    "autoUpdates": false
}
`,
	"claude-desktop": `{"globalShortcut": "Alt+Space", "mcpServers": {"fs": {"command": "npx", "args": ["fs-mcp", "/tmp"]}}}`,
	"cursor":         "{\n\t\"mcpServers\": {\n\t\t\"linear\": {\"url\": \"https://mcp.linear.app/mcp\"}\n\t}\n}\n",
	"vscode":         `{"inputs": [], "servers": {"memory": {"type": "stdio", "command": "npx", "args": ["mem"]}}}`,
	"codex": `# Codex settings
model = "gpt-5"
approval_policy = "on-request"

[mcp_servers.docs]
command = "docs-mcp"
args = ["--port", "0"]

[profiles.fast]
model = "gpt-5-mini"
`,
}

// malformed is a file of each client that is not in its format.
var malformed = map[string]string{
	"claude-code":    `{"mcpServers": {"github": {"command": "npx",}}}`,
	"claude-desktop": `{"mcpServers": `,
	"cursor":         `["not", "an", "object"]`,
	"vscode":         "{\n  // my servers\n  \"servers\": {}\n}\n",
	"codex":          "model = \"gpt-5\"\n[mcp_servers.docs\ncommand = \"x\"\n",
}

// home makes a home directory holding the client's file with text.
func home(t *testing.T, c Client, text string) Env {
	t.Helper()
	env := Env{Home: t.TempDir(), OS: "linux"}
	path := c.Path(env)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return env
}

func backups(t *testing.T, path string) []string {
	t.Helper()
	m, err := filepath.Glob(path + ".bak-*")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func apply(t *testing.T, c Client, env Env, e Entry) Result {
	t.Helper()
	ch, err := Plan(c, env, e)
	if err != nil {
		t.Fatalf("Plan: %v", err)
	}
	r, err := Apply(ch, now)
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	return r
}

func TestSetupMergesIntoEachClientsFileKeepingWhatIsThere(t *testing.T) {
	for _, c := range All {
		t.Run(c.Name, func(t *testing.T) {
			env := home(t, c, existing[c.Name])
			path := c.Path(env)
			r := apply(t, c, env, stdio)
			if !r.Changed || r.Backup == "" {
				t.Fatalf("Result = %+v; want a change and a backup", r)
			}
			if got, _ := os.ReadFile(r.Backup); string(got) != existing[c.Name] {
				t.Errorf("the backup holds %q, not the file as it was", got)
			}
			after, _ := os.ReadFile(path)
			target, ok, err := Configured(c, env)
			if err != nil || !ok || target != stdio.Command {
				t.Errorf("Configured = %q, %v, %v; want %q\n%s", target, ok, err, stdio.Command, after)
			}
			// What was there is there still, in its order.
			var keep []string
			switch c.Name {
			case "claude-code":
				keep = []string{`"numStartups": 12`, `"theme": "dark"`, `"github"`, `"gh-mcp"`, `"projects"`, `"autoUpdates": false`}
			case "claude-desktop":
				keep = []string{`"globalShortcut": "Alt+Space"`, `"fs"`, `"/tmp"`}
			case "cursor":
				keep = []string{`"linear"`, `"https://mcp.linear.app/mcp"`}
			case "vscode":
				keep = []string{`"inputs": []`, `"memory"`}
			case "codex":
				keep = strings.Split(strings.TrimSpace(existing["codex"]), "\n")
			}
			last := -1
			for _, k := range keep {
				if k == "" {
					continue
				}
				i := bytes.Index(after, []byte(k))
				if i < 0 {
					t.Errorf("%q is gone:\n%s", k, after)
				} else if i < last {
					t.Errorf("%q moved before what came before it:\n%s", k, after)
				}
				last = i
			}
			for _, want := range []string{`"-socket-name"`, `"agents"`} {
				if !bytes.Contains(after, []byte(want)) {
					t.Errorf("the file lacks %s:\n%s", want, after)
				}
			}
			if c.Name == "codex" && !bytes.HasPrefix(after, []byte(existing["codex"])) {
				t.Errorf("Codex's file was changed outside the server's table:\n%s", after)
			}
			if c.Name == "cursor" && !bytes.Contains(after, []byte("\n\t\t\"linear\"")) {
				t.Errorf("the file's tab indentation was not kept:\n%s", after)
			}

			// Again: already configured, nothing written, no backup.
			again := apply(t, c, env, stdio)
			if again.Changed || again.Backup != "" {
				t.Errorf("second run: %+v; want nothing changed", again)
			}
			if got, _ := os.ReadFile(path); !bytes.Equal(got, after) {
				t.Errorf("second run changed the file")
			}
			if b := backups(t, path); len(b) != 1 {
				t.Errorf("backups after two runs: %v; want one", b)
			}
		})
	}
}

func TestSetupMakesAFileThatIsNotThereForOnlyItsUser(t *testing.T) {
	for _, c := range All {
		t.Run(c.Name, func(t *testing.T) {
			env := Env{Home: t.TempDir(), OS: "darwin"}
			r := apply(t, c, env, stdio)
			if !r.Changed || r.Exists || r.Backup != "" {
				t.Errorf("Result = %+v; want a new file and no backup", r)
			}
			fi, err := os.Stat(c.Path(env))
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != 0o600 {
				t.Errorf("mode %v, want 0600", fi.Mode().Perm())
			}
			if _, ok, err := Configured(c, env); !ok || err != nil {
				t.Errorf("Configured = %v, %v after setup", ok, err)
			}
		})
	}
}

func TestSetupRefusesAMalformedFileAndWritesNothing(t *testing.T) {
	for _, c := range All {
		t.Run(c.Name, func(t *testing.T) {
			env := home(t, c, malformed[c.Name])
			_, err := Plan(c, env, stdio)
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("Plan = %v; want a *ConfigError", err)
			}
			if !strings.Contains(err.Error(), c.Path(env)) || !strings.Contains(err.Error(), "nothing was written") {
				t.Errorf("the error does not name the file and say nothing was written: %v", err)
			}
			if got, _ := os.ReadFile(c.Path(env)); string(got) != malformed[c.Name] {
				t.Errorf("the file changed")
			}
			if b := backups(t, c.Path(env)); len(b) != 0 {
				t.Errorf("backups made: %v", b)
			}
			if _, _, err := Configured(c, env); err == nil {
				t.Errorf("Configured read the malformed file without an error")
			}
		})
	}
	// Where it can, the error says where the file is wrong.
	env := home(t, All[0], malformed["claude-code"])
	if _, err := Plan(All[0], env, stdio); !strings.Contains(err.Error(), "line 1, column") {
		t.Errorf("no place in %v", err)
	}
}

func TestSetupUpdatesTheServersEntryInPlaceKeepingItsOtherSettings(t *testing.T) {
	c, _ := Find("claude-desktop")
	env := home(t, c, `{"mcpServers": {"a": {"command": "a"}, "tmux": {"command": "/old/tmux-mcp", "args": [], "env": {"TMUX_TMPDIR": "/run/x"}}, "z": {"command": "z"}}}`)
	apply(t, c, env, stdio)
	after, _ := os.ReadFile(c.Path(env))
	s := string(after)
	if !strings.Contains(s, `"TMUX_TMPDIR": "/run/x"`) || strings.Contains(s, "/old/tmux-mcp") {
		t.Errorf("the entry was not updated in place:\n%s", s)
	}
	if !(strings.Index(s, `"a"`) < strings.Index(s, `"tmux"`) && strings.Index(s, `"tmux"`) < strings.Index(s, `"z"`)) {
		t.Errorf("the servers' order changed:\n%s", s)
	}

	codex, _ := Find("codex")
	env = home(t, codex, "[mcp_servers.tmux]\ncommand = \"/old\"\nargs = [\n  \"-x\",\n  \"y\",\n]\ntool_timeout_sec = 600 # mine\n\n[mcp_servers.tmux.env]\nA = \"1\"\n")
	apply(t, codex, env, stdio)
	after, _ = os.ReadFile(codex.Path(env))
	want := "[mcp_servers.tmux]\ncommand = \"/opt/tmux-mcp/bin/tmux-mcp\"\nargs = [\"-socket-name\", \"agents\"]\ntool_timeout_sec = 600 # mine\n\n[mcp_servers.tmux.env]\nA = \"1\"\n"
	if string(after) != want {
		t.Errorf("Codex's table:\n%s\nwant:\n%s", after, want)
	}
}

func TestSetupOverHTTPWritesTheURLAndTheBearerHeader(t *testing.T) {
	for _, c := range All {
		t.Run(c.Name, func(t *testing.T) {
			env := home(t, c, existing[c.Name])
			ch, err := Plan(c, env, web)
			if !c.HTTP {
				if err == nil || !strings.Contains(err.Error(), "without --http") {
					t.Errorf("Plan = %v; want %s refused over HTTP", err, c.Title)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Apply(ch, now); err != nil {
				t.Fatal(err)
			}
			after, _ := os.ReadFile(c.Path(env))
			for _, want := range []string{web.URL, "Bearer " + web.Token} {
				if !bytes.Contains(after, []byte(want)) {
					t.Errorf("the file lacks %q:\n%s", want, after)
				}
			}
			if target, ok, _ := Configured(c, env); !ok || target != web.URL {
				t.Errorf("Configured = %q, %v; want the URL", target, ok)
			}
			// From HTTP back to stdio: no URL left behind.
			apply(t, c, env, stdio)
			after, _ = os.ReadFile(c.Path(env))
			if bytes.Contains(after, []byte(web.URL)) || bytes.Contains(after, []byte(web.Token)) {
				t.Errorf("the URL or token is left after setting up stdio:\n%s", after)
			}
		})
	}
}

func TestCodexServerDefinedOtherwiseIsRefused(t *testing.T) {
	codex, _ := Find("codex")
	for _, text := range []string{
		"mcp_servers = { tmux = { command = \"x\" } }\n",
		"[mcp_servers]\ntmux.command = \"x\"\n",
	} {
		env := home(t, codex, text)
		if _, err := Plan(codex, env, stdio); err == nil || !strings.Contains(err.Error(), "dotted keys or inline") {
			t.Errorf("Plan on %q = %v; want it refused", text, err)
		}
	}
}

func TestSetupWritesThroughASymbolicLink(t *testing.T) {
	c, _ := Find("cursor")
	env := Env{Home: t.TempDir(), OS: "linux"}
	real := filepath.Join(t.TempDir(), "dotfiles-mcp.json")
	if err := os.WriteFile(real, []byte(`{"mcpServers": {}}`), 0o640); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Dir(c.Path(env)), 0o755)
	if err := os.Symlink(real, c.Path(env)); err != nil {
		t.Fatal(err)
	}
	apply(t, c, env, stdio)
	if fi, err := os.Lstat(c.Path(env)); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", fi.Mode(), err)
	}
	fi, _ := os.Stat(real)
	if got, _ := os.ReadFile(real); !bytes.Contains(got, []byte(stdio.Command)) || fi.Mode().Perm() != 0o640 {
		t.Errorf("the link's target is %q, mode %v; want the entry, mode 0640", got, fi.Mode().Perm())
	}
}

func TestEachClientsFileIsWhereItsDocumentationSays(t *testing.T) {
	mac := Env{Home: "/Users/me", OS: "darwin"}
	linux := Env{Home: "/home/me", OS: "linux"}
	moved := Env{Home: "/home/me", OS: "linux", XDGConfigHome: "/cfg", CodexHome: "/codex"}
	tests := []struct {
		client string
		env    Env
		want   string
	}{
		{"claude-code", mac, "/Users/me/.claude.json"},
		{"claude-code", linux, "/home/me/.claude.json"},
		{"claude-desktop", mac, "/Users/me/Library/Application Support/Claude/claude_desktop_config.json"},
		{"claude-desktop", linux, "/home/me/.config/Claude/claude_desktop_config.json"},
		{"claude-desktop", moved, "/cfg/Claude/claude_desktop_config.json"},
		{"cursor", mac, "/Users/me/.cursor/mcp.json"},
		{"vscode", mac, "/Users/me/Library/Application Support/Code/User/mcp.json"},
		{"vscode", linux, "/home/me/.config/Code/User/mcp.json"},
		{"vscode", moved, "/cfg/Code/User/mcp.json"},
		{"codex", linux, "/home/me/.codex/config.toml"},
		{"codex", moved, "/codex/config.toml"},
	}
	for _, tt := range tests {
		c, err := Find(tt.client)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Path(tt.env); got != tt.want {
			t.Errorf("%s on %s: %s, want %s", tt.client, tt.env.OS, got, tt.want)
		}
	}
	if _, err := Find("emacs"); !errors.Is(err, ErrUnknownClient) || !strings.Contains(err.Error(), "claude-code") {
		t.Errorf("Find(emacs) = %v", err)
	}
}
