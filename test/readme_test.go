package test

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/app"
)

// The README, read as a user reads it: what it links to is in the
// repository, and every client configuration it shows starts the server
// with settings the server accepts.

func readme(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// codeBlocks returns the README's fenced code blocks of a language.
func codeBlocks(text, lang string) []string {
	re := regexp.MustCompile("(?s)```" + lang + "\n(.*?)```")
	var out []string
	for _, m := range re.FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	return out
}

// acceptsArgs fails the test unless the server's settings take args.
func acceptsArgs(t *testing.T, where string, args []string) {
	t.Helper()
	if _, err := app.ParseConfig(args, func(string) string { return "" }, io.Discard); err != nil {
		t.Errorf("%s: the server refuses the args %q: %v", where, args, err)
	}
}

func isServerCommand(cmd string) bool {
	return filepath.Base(cmd) == "tmux-mcp"
}

func TestReadmeLinksAreInTheRepository(t *testing.T) {
	text := readme(t)
	for _, m := range regexp.MustCompile(`\]\(([^)#]+)(#[^)]*)?\)`).FindAllStringSubmatch(text, -1) {
		target := m[1]
		if strings.Contains(target, "://") {
			continue
		}
		if _, err := os.Stat(filepath.Join("..", target)); err != nil {
			t.Errorf("README links to %s, which a clone does not have: %v", target, err)
		}
	}
	if strings.Contains(text, "../") {
		t.Error("README points outside the repository (../)")
	}
}

// Each client's configuration, as the README shows it, in the shape that
// client reads, naming the binary with args the server accepts.
func TestReadmeClientConfigurationsStartTheServerWithSettingsItAccepts(t *testing.T) {
	text := readme(t)
	seen := map[string]bool{}

	for _, block := range codeBlocks(text, "json") {
		var doc map[string]map[string]struct {
			Type    string            `json:"type"`
			Command string            `json:"command"`
			Args    []string          `json:"args"`
			URL     string            `json:"url"`
			Headers map[string]string `json:"headers"`
		}
		if err := json.Unmarshal([]byte(block), &doc); err != nil {
			t.Errorf("a JSON block of the README is not valid JSON (%v):\n%s", err, block)
			continue
		}
		for key, servers := range doc {
			for name, s := range servers {
				if s.URL != "" {
					// A server over HTTP, reached with the bearer header.
					checkHTTPEntry(t, key+"."+name, s.URL, s.Headers["Authorization"])
					if key == "servers" && s.Type != "http" {
						t.Errorf("VS Code's servers.%s has a url and type %q; VS Code wants \"http\"", name, s.Type)
					}
					seen[key+" http"] = true
					continue
				}
				if !isServerCommand(s.Command) {
					t.Errorf("%s.%s runs %q, not tmux-mcp", key, name, s.Command)
				}
				switch key {
				case "mcpServers": // Claude Desktop, Cursor, .mcp.json
				case "servers": // VS Code
					if s.Type != "stdio" {
						t.Errorf("VS Code's servers.%s has type %q; VS Code wants \"stdio\" for a local server", name, s.Type)
					}
				default:
					t.Errorf("a JSON block has the key %q, which no client in the README reads", key)
				}
				seen[key] = true
				acceptsArgs(t, key+"."+name, s.Args)
			}
		}
	}

	for _, block := range codeBlocks(text, "toml") {
		table := regexp.MustCompile(`(?m)^\s*\[mcp_servers\.([a-z_-]+)\]$`).FindStringSubmatch(block)
		if url := regexp.MustCompile(`(?m)^\s*url = "([^"]*)"$`).FindStringSubmatch(block); table != nil && url != nil {
			auth := regexp.MustCompile(`(?m)^\s*http_headers = \{ Authorization = "([^"]*)" \}$`).FindStringSubmatch(block)
			if auth == nil {
				t.Errorf("the TOML table over HTTP has no http_headers Authorization:\n%s", block)
				continue
			}
			checkHTTPEntry(t, "mcp_servers."+table[1], url[1], auth[1])
			seen["mcp_servers http"] = true
			continue
		}
		command := regexp.MustCompile(`(?m)^command = ("[^"]*")$`).FindStringSubmatch(block)
		args := regexp.MustCompile(`(?m)^args = (\[.*\])$`).FindStringSubmatch(block)
		if table == nil || command == nil || args == nil {
			t.Errorf("the TOML block is not a Codex [mcp_servers.NAME] table with command and args:\n%s", block)
			continue
		}
		var cmd string
		var argv []string
		// Basic TOML strings and arrays of them, as written here, read as JSON.
		if json.Unmarshal([]byte(command[1]), &cmd) != nil || json.Unmarshal([]byte(args[1]), &argv) != nil {
			t.Errorf("cannot read command %s and args %s", command[1], args[1])
			continue
		}
		if !isServerCommand(cmd) {
			t.Errorf("mcp_servers.%s runs %q, not tmux-mcp", table[1], cmd)
		}
		seen["mcp_servers"] = true
		acceptsArgs(t, "mcp_servers."+table[1], argv)
	}

	// Command lines: claude mcp add and codex mcp add, the Inspector, and
	// the HTTP transport, each with the server's args after its path.
	joined := strings.ReplaceAll(text, "\\\n", " ")
	for _, m := range regexp.MustCompile("(?m)(?:^\\s*|`)((?:claude|codex) mcp add [^\n`]*|npx -y @modelcontextprotocol/inspector [^\n`]*|bin/tmux-mcp -transport[^\n`]*)").FindAllStringSubmatch(joined, -1) {
		line := m[1]
		fields := strings.Fields(line)
		if strings.Contains(line, " mcp add ") && (strings.Contains(line, "--url ") || strings.Contains(line, "--transport http")) {
			// A client reaching a server over HTTP: the URL the
			// README's server serves, and the header when it is sent.
			url := regexp.MustCompile(`http://\S+`).FindString(line)
			auth := ""
			if h := regexp.MustCompile(`--header "Authorization: (Bearer [^"]*)"`).FindStringSubmatch(line); h != nil {
				auth = h[1]
			} else if strings.Contains(line, "--bearer-token-env-var "+app.EnvToken) {
				auth = "Bearer from " + app.EnvToken
			}
			checkHTTPEntry(t, line, url, auth)
			seen[fields[0]+" mcp http"] = true
			continue
		}
		i := 0
		for i < len(fields) && !isServerCommand(fields[i]) {
			i++
		}
		if i == len(fields) {
			t.Errorf("%q runs no tmux-mcp", line)
			continue
		}
		var argv []string
		for _, f := range fields[i+1:] {
			if strings.HasPrefix(f, "--") || f == "#" || f == "`" {
				break // the Inspector's own flags, or a comment
			}
			argv = append(argv, strings.Trim(f, "`"))
		}
		seen[fields[0]+" "+fields[1]] = true
		acceptsArgs(t, line, argv)
	}

	for _, want := range []string{"mcpServers", "servers", "mcp_servers", "claude mcp", "codex mcp", "npx -y",
		"mcpServers http", "servers http", "mcp_servers http", "claude mcp http", "codex mcp http"} {
		if !seen[want] {
			t.Errorf("the README shows no %s configuration", want)
		}
	}
	// npx without -y asks before it installs, and gives up with no
	// terminal to ask on.
	if regexp.MustCompile(`npx @modelcontextprotocol`).MatchString(text) {
		t.Error("the README runs the Inspector with npx but without -y")
	}
	for _, client := range []string{"Claude Code", "Claude Desktop", "Cursor", "VS Code", "Codex", "MCP Inspector"} {
		if !strings.Contains(text, "**"+client+"**") {
			t.Errorf("the README has no section for %s", client)
		}
	}
}

// checkHTTPEntry fails the test unless a client's entry reaches the
// server over HTTP at the address the README serves it on, with a bearer
// token.
func checkHTTPEntry(t *testing.T, where, url, auth string) {
	t.Helper()
	if url != "http://127.0.0.1:8808/mcp" {
		t.Errorf("%s reaches %q, not the server the README starts (http://127.0.0.1:8808/mcp)", where, url)
	}
	if !strings.HasPrefix(auth, "Bearer ") {
		t.Errorf("%s sends no bearer token (%q), which the README's server requires", where, auth)
	}
}
