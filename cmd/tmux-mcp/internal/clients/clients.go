// Package clients knows where each MCP client keeps its configuration
// of servers, and writes this server's entry into it: merged with what
// the file holds (other servers and settings kept, JSON keys in their
// order, a TOML file edited only in the server's own table), with a
// backup of the file it changes, and not at all when the entry is
// already there. It is what `tmux-mcp setup` and `tmux-mcp doctor` read
// and write; it starts no process.
package clients

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// ServerName is the name the server is configured under.
const ServerName = "tmux"

// Env is where a client's files are: the user's home and the variables
// that move them.
type Env struct {
	Home          string // $HOME
	XDGConfigHome string // $XDG_CONFIG_HOME; empty for Home/.config
	CodexHome     string // $CODEX_HOME; empty for Home/.codex
	OS            string // runtime.GOOS: "linux" or "darwin"
}

// format is how a client's file holds its servers.
type format int

const (
	jsonMCPServers format = iota // a JSON object whose "mcpServers" key holds them
	jsonServers                  // VS Code: the "servers" key, each with a "type"
	codexTOML                    // Codex: a TOML table [mcp_servers.NAME] each
)

// Client is one MCP client: its name for setup, its configuration file
// and how that file holds servers.
type Client struct {
	Name  string // as `tmux-mcp setup` takes it
	Title string // as people call it
	// HTTP says the file can name a server by URL with a bearer header.
	HTTP   bool
	format format
	// typed says each entry names its transport ("type": "stdio").
	typed bool
	path  func(Env) string
	// Logs says where the client keeps its logs of MCP servers.
	Logs func(Env) string
	// Reload says what makes the client read the file again.
	Reload string
	// app says the client is a desktop app, which macOS starts with
	// launchd's PATH rather than the user's shell's.
	app bool
}

func (e Env) config() string {
	if e.XDGConfigHome != "" {
		return e.XDGConfigHome
	}
	return filepath.Join(e.Home, ".config")
}

// appSupport is where a desktop app keeps its files: on macOS under
// ~/Library/Application Support, on Linux under the XDG config home.
func (e Env) appSupport(app string) string {
	if e.OS == "darwin" {
		return filepath.Join(e.Home, "Library", "Application Support", app)
	}
	return filepath.Join(e.config(), app)
}

// All is every client setup knows, in the order it lists them.
var All = []Client{
	{Name: "claude-code", Title: "Claude Code", HTTP: true, format: jsonMCPServers, typed: true,
		path: func(e Env) string { return filepath.Join(e.Home, ".claude.json") },
		Logs: func(e Env) string {
			cache := filepath.Join(e.Home, ".cache")
			if e.OS == "darwin" {
				cache = filepath.Join(e.Home, "Library", "Caches")
			}
			return filepath.Join(cache, "claude-cli-nodejs") + " (a mcp-logs-tmux directory per project); `claude --debug` prints them, `/mcp` shows each server's status"
		},
		Reload: "start a new Claude Code session (`claude mcp list` shows it)"},
	{Name: "claude-desktop", Title: "Claude Desktop", format: jsonMCPServers, app: true,
		path: func(e Env) string { return filepath.Join(e.appSupport("Claude"), "claude_desktop_config.json") },
		Logs: func(e Env) string {
			if e.OS == "darwin" {
				return filepath.Join(e.Home, "Library", "Logs", "Claude", "mcp-server-tmux.log")
			}
			return filepath.Join(e.appSupport("Claude"), "logs", "mcp-server-tmux.log")
		},
		Reload: "quit Claude Desktop and open it again"},
	{Name: "cursor", Title: "Cursor", HTTP: true, format: jsonMCPServers, app: true,
		path: func(e Env) string { return filepath.Join(e.Home, ".cursor", "mcp.json") },
		Logs: func(Env) string {
			return "the Output panel, channel \"MCP Logs\" (Cursor Settings → MCP shows each server's status)"
		},
		Reload: "reload Cursor's window, or toggle the server in Cursor Settings → MCP"},
	{Name: "vscode", Title: "VS Code", HTTP: true, format: jsonServers, typed: true, app: true,
		path: func(e Env) string { return filepath.Join(e.appSupport("Code"), "User", "mcp.json") },
		Logs: func(Env) string {
			return "the command \"MCP: List Servers\", then the server's \"Show Output\""
		},
		Reload: "run \"MCP: List Servers\" and start the server, or reload the window"},
	{Name: "codex", Title: "Codex", HTTP: true, format: codexTOML,
		path: func(e Env) string {
			if e.CodexHome != "" {
				return filepath.Join(e.CodexHome, "config.toml")
			}
			return filepath.Join(e.Home, ".codex", "config.toml")
		},
		Logs: func(e Env) string {
			home := e.CodexHome
			if home == "" {
				home = filepath.Join(e.Home, ".codex")
			}
			return filepath.Join(home, "log", "codex-tui.log")
		},
		Reload: "start a new Codex session (`codex mcp list` shows it)"},
}

// Names returns the names of All.
func Names() []string {
	var names []string
	for _, c := range All {
		names = append(names, c.Name)
	}
	return names
}

// ErrUnknownClient is a client name that is none of All's.
var ErrUnknownClient = errors.New("unknown client")

// Find returns the client named name.
func Find(name string) (Client, error) {
	i := slices.IndexFunc(All, func(c Client) bool { return c.Name == name })
	if i < 0 {
		return Client{}, fmt.Errorf("%w %q: want one of %s", ErrUnknownClient, name, strings.Join(Names(), ", "))
	}
	return All[i], nil
}

// Path is the client's user configuration file in env.
func (c Client) Path(env Env) string { return c.path(env) }

// Entry is the server as a client is to start or reach it: a command
// with its arguments (stdio), or a URL with the bearer token to send
// (HTTP; Token empty for none).
type Entry struct {
	Command string
	Args    []string
	URL     string
	Token   string
}

// HTTPEntry says whether e is reached over HTTP.
func (e Entry) HTTPEntry() bool { return e.URL != "" }
