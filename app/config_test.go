package app_test

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/app"
	"github.com/tmux-mcp/tmux-mcp/domain"
)

func envOf(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func defaults() app.Config {
	return app.Config{
		Safety:           app.SafetyMutating,
		Transport:        app.TransportStdio,
		Listen:           "127.0.0.1:8808",
		Backend:          app.BackendTmux,
		WaitMax:          300 * time.Second,
		MaxResultLines:   200,
		OutputBudget:     256 << 20,
		ShellIntegration: true,
	}
}

func TestParseConfig(t *testing.T) {
	tests := []struct {
		name string
		args []string
		env  map[string]string
		edit func(*app.Config) // from defaults()
	}{
		{name: "defaults", edit: func(*app.Config) {}},
		{name: "agent env off", args: []string{"-agent-env=false"}, edit: func(c *app.Config) { c.NoAgentEnv = true }},
		{name: "agent env on", args: []string{"-agent-env"}, edit: func(*app.Config) {}},
		{
			name: "every flag",
			args: []string{"-socket-name", "work", "-tmux-bin", "/opt/tmux", "-safety", "readonly",
				"-transport", "http", "-listen", "127.0.0.1:9000", "-backend", "fake", "-version"},
			edit: func(c *app.Config) {
				c.SocketName, c.TmuxBin, c.Safety = "work", "/opt/tmux", app.SafetyReadonly
				c.Transport, c.Listen, c.Backend, c.Version = "http", "127.0.0.1:9000", "fake", true
			},
		},
		{
			name: "an output budget in MiB",
			args: []string{"-output-budget", "64MiB"},
			edit: func(c *app.Config) { c.OutputBudget = 64 << 20 },
		},
		{
			name: "an output budget in bytes",
			args: []string{"-output-budget", "1000"},
			edit: func(c *app.Config) { c.OutputBudget = 1000 },
		},
		{
			name: "an output budget in G, with a space",
			args: []string{"-output-budget", "2 G"},
			edit: func(c *app.Config) { c.OutputBudget = 2 << 30 },
		},
		{
			name: "no output kept",
			args: []string{"-output-budget", "0"},
			edit: func(c *app.Config) { c.OutputBudget = 0 },
		},
		{
			name: "every variable",
			env: map[string]string{"LIBTMUX_SOCKET_PATH": "/tmp/s", "LIBTMUX_TMUX_BIN": "tmux3", "LIBTMUX_SAFETY": "destructive",
				"LIBTMUX_MCP_WAIT_MAX_SECONDS": "12.5", "LIBTMUX_MCP_MAX_RESULT_LINES": "40"},
			edit: func(c *app.Config) {
				c.SocketPath, c.TmuxBin, c.Safety = "/tmp/s", "tmux3", app.SafetyDestructive
				c.WaitMax, c.MaxResultLines = 12500*time.Millisecond, 40
			},
		},
		{
			name: "flags win over variables",
			args: []string{"-socket-name", "flag", "-tmux-bin", "flagbin", "-safety", "readonly"},
			env:  map[string]string{"LIBTMUX_SOCKET": "env", "LIBTMUX_TMUX_BIN": "envbin", "LIBTMUX_SAFETY": "destructive"},
			edit: func(c *app.Config) { c.SocketName, c.TmuxBin, c.Safety = "flag", "flagbin", app.SafetyReadonly },
		},
		{
			name: "a socket flag overrides both socket variables",
			args: []string{"-socket-path", "/run/flag.sock"},
			env:  map[string]string{"LIBTMUX_SOCKET": "env"},
			edit: func(c *app.Config) { c.SocketPath = "/run/flag.sock" },
		},
		{
			name: "the audit log, the screen backend and a token file",
			args: []string{"-audit", "/var/log/tmux-mcp.jsonl", "-backend", "screen", "-screen-session", "work", "-token-file", "/run/token"},
			edit: func(c *app.Config) {
				c.AuditPath, c.Backend, c.ScreenSession, c.TokenFile = "/var/log/tmux-mcp.jsonl", "screen", "work", "/run/token"
			},
		},
		{
			name: "a screen session vouched free of copy mode",
			args: []string{"-backend", "screen", "-screen-session", "work", "-screen-no-copy-mode"},
			edit: func(c *app.Config) { c.Backend, c.ScreenSession, c.ScreenNoCopyMode = "screen", "work", true },
		},
		{
			name: "the private server's shell",
			args: []string{"-shell", "zsh"},
			edit: func(c *app.Config) { c.Shell = "zsh" },
		},
		{
			name: "the token from the environment",
			env:  map[string]string{"TMUX_MCP_TOKEN": "s3cr3t"},
			edit: func(c *app.Config) { c.Token = "s3cr3t" },
		},
		{
			name: "a token file wins over the token variable",
			args: []string{"-token-file", "/run/token"},
			env:  map[string]string{"TMUX_MCP_TOKEN": "s3cr3t"},
			edit: func(c *app.Config) { c.TokenFile = "/run/token" },
		},
		{
			name: "screen without a session: a private one",
			args: []string{"-backend", "screen"},
			edit: func(c *app.Config) { c.Backend = "screen" },
		},
		{
			name: "a remote host and its ssh configuration",
			args: []string{"-ssh", "me@build-box", "-ssh-config", "/etc/tmux-mcp/ssh_config", "-socket-name", "agents"},
			edit: func(c *app.Config) {
				c.SSH, c.SSHConfig, c.SocketName = "me@build-box", "/etc/tmux-mcp/ssh_config", "agents"
			},
		},
		{
			name: "the remote host from the environment, the flag winning",
			args: []string{"-ssh", "flag-box"},
			env:  map[string]string{"TMUX_MCP_SSH": "env-box", "TMUX_MCP_SSH_CONFIG": "/env/ssh_config"},
			edit: func(c *app.Config) { c.SSH, c.SSHConfig = "flag-box", "/env/ssh_config" },
		},
		{
			name: "empty variables count as unset",
			env: map[string]string{"LIBTMUX_SAFETY": "", "LIBTMUX_MCP_WAIT_MAX_SECONDS": "", "LIBTMUX_MCP_MAX_RESULT_LINES": "",
				"TMUX_MCP_TOOLS": ""},
			edit: func(*app.Config) {},
		},
		{
			name: "a tool allowlist, spaces, repeats and a trailing comma ignored",
			args: []string{"-tools", "run_shell_command, capture_pane,run_shell_command,"},
			edit: func(c *app.Config) { c.Tools = []string{"run_shell_command", "capture_pane"} },
		},
		{
			name: "a tool allowlist from the environment, the flag winning",
			args: []string{"-tools", "list_panes"},
			env:  map[string]string{"TMUX_MCP_TOOLS": "capture_pane"},
			edit: func(c *app.Config) { c.Tools = []string{"list_panes"} },
		},
		{
			name: "a tool allowlist from the environment",
			env:  map[string]string{"TMUX_MCP_TOOLS": "wait_for_command,kill_pane"},
			edit: func(c *app.Config) { c.Tools = []string{"wait_for_command", "kill_pane"} },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := app.ParseConfig(tt.args, envOf(tt.env), &bytes.Buffer{})
			if err != nil {
				t.Fatalf("ParseConfig: %v", err)
			}
			want := defaults()
			tt.edit(&want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("ParseConfig =\n %+v\nwant\n %+v", got, want)
			}
		})
	}
}

func TestParseConfigRefusesToStartOnABadSetting(t *testing.T) {
	tests := []struct {
		name string
		args []string
		env  map[string]string
		says string
	}{
		{"unknown safety flag", []string{"-safety", "yolo"}, nil, `-safety "yolo"`},
		{"an output budget with a fraction", []string{"-output-budget", "1.5GiB"}, nil, `-output-budget "1.5GiB": want a number of bytes`},
		{"an output budget in an unknown unit", []string{"-output-budget", "5MB"}, nil, `-output-budget "5MB"`},
		{"a negative output budget", []string{"-output-budget", "-1"}, nil, `-output-budget "-1"`},
		{"an output budget too large", []string{"-output-budget", "9999999999GiB"}, nil, "too large"},
		{"unknown safety variable", nil, map[string]string{"LIBTMUX_SAFETY": "Mutating"}, `LIBTMUX_SAFETY "Mutating"`},
		{"unknown transport", []string{"-transport", "sse"}, nil, `-transport "sse"`},
		{"unknown backend", []string{"-backend", "wezterm"}, nil, `-backend "wezterm"`},
		{"screen session for another backend", []string{"-screen-session", "work"}, nil, "-screen-session is for -backend screen"},
		{"vouching without a screen session", []string{"-backend", "screen", "-screen-no-copy-mode"}, nil, "-screen-no-copy-mode vouches for a -screen-session"},
		{"empty token file", []string{"-token-file", ""}, nil, "-token-file is empty"},
		{"a shell for a server named by socket", []string{"-shell", "zsh", "-socket-name", "work"}, nil, "-shell chooses the shell of the server's private tmux server"},
		{"a shell for a server named by a variable", []string{"-shell", "zsh"}, map[string]string{"LIBTMUX_SOCKET": "work"}, "-shell chooses"},
		{"a shell for a remote server", []string{"-shell", "zsh", "-ssh", "box"}, nil, "-shell chooses"},
		{"a shell for screen", []string{"-shell", "zsh", "-backend", "screen"}, nil, "it is for -backend tmux, not screen"},
		{"a shell for the fake", []string{"-shell", "zsh", "-backend", "fake"}, nil, "it is for -backend tmux, not fake"},
		{"ssh with another backend", []string{"-ssh", "box", "-backend", "screen"}, nil, "-ssh and -hosts-file drive remote tmux servers"},
		{"several hosts with another backend", []string{"-ssh", "a", "-ssh", "b", "-backend", "fake"}, nil, "they are for -backend tmux, not fake"},
		{"a shell for several hosts", []string{"-shell", "zsh", "-ssh", "a", "-ssh", "b"}, nil, "-shell chooses"},
		{"two destinations of one host name", []string{"-ssh", "deploy@web1", "-ssh", "root@web1"}, nil, `host "web1" is named twice`},
		{"a destination whose host cannot name it", []string{"-ssh", "web1", "-ssh", "[::1]"}, nil, `-ssh "[::1]": its host "[::1]" cannot name the host`},
		{"one of several destinations an option", []string{"-ssh", "web1", "-ssh", "-oProxyCommand=sh"}, nil, `-ssh "-oProxyCommand=sh"`},
		{"a hosts file that is not there", []string{"-hosts-file", "/nonexistent/hosts"}, nil, "-hosts-file: open /nonexistent/hosts"},
		{"an empty hosts file flag", []string{"-hosts-file", ""}, nil, "-hosts-file is empty"},
		{"ssh destination that is an option", []string{"-ssh", "-oProxyCommand=sh"}, nil, `-ssh "-oProxyCommand=sh"`},
		{"ssh destination with a space", nil, map[string]string{"TMUX_MCP_SSH": "box other"}, "space"},
		{"ssh configuration without a destination", []string{"-ssh-config", "/etc/ssh_config"}, nil, "-ssh-config is for -ssh"},
		{"empty audit path", []string{"-audit", ""}, nil, "-audit is empty"},
		{"both socket flags", []string{"-socket-name", "a", "-socket-path", "/b"}, nil, "both"},
		{"both socket variables", nil, map[string]string{"LIBTMUX_SOCKET": "a", "LIBTMUX_SOCKET_PATH": "/b"}, "both"},
		{"wait ceiling not a number", nil, map[string]string{"LIBTMUX_MCP_WAIT_MAX_SECONDS": "5m"}, "LIBTMUX_MCP_WAIT_MAX_SECONDS"},
		{"wait ceiling zero", nil, map[string]string{"LIBTMUX_MCP_WAIT_MAX_SECONDS": "0"}, "positive"},
		{"wait ceiling negative", nil, map[string]string{"LIBTMUX_MCP_WAIT_MAX_SECONDS": "-3"}, "positive"},
		{"wait ceiling NaN", nil, map[string]string{"LIBTMUX_MCP_WAIT_MAX_SECONDS": "NaN"}, "positive"},
		{"wait ceiling beyond a Duration", nil, map[string]string{"LIBTMUX_MCP_WAIT_MAX_SECONDS": "1e300"}, "positive"},
		{"result lines zero", nil, map[string]string{"LIBTMUX_MCP_MAX_RESULT_LINES": "0"}, "LIBTMUX_MCP_MAX_RESULT_LINES"},
		{"result lines fractional", nil, map[string]string{"LIBTMUX_MCP_MAX_RESULT_LINES": "2.5"}, "whole number"},
		{"unknown tool in the allowlist", []string{"-tools", "capture_pane,run_command"}, nil, `-tools: "run_command" is not a tool of this server`},
		{"unknown tool in the allowlist variable", nil, map[string]string{"TMUX_MCP_TOOLS": "Capture_Pane"}, `TMUX_MCP_TOOLS: "Capture_Pane"`},
		{"an allowlist naming nothing", []string{"-tools", " , "}, nil, "-tools names no tool"},
		{"an empty allowlist flag", []string{"-tools", ""}, nil, "-tools names no tool"},
		{"a listen address that is no address", []string{"-transport", "http", "-listen", "nonsense"}, nil, `-listen "nonsense": bad address`},
		{"a listen address without a port", []string{"-listen", "127.0.0.1"}, nil, `-listen "127.0.0.1": bad address`},
		{"a listen port out of range", []string{"-transport", "http", "-listen", "127.0.0.1:99999"}, nil, `-listen "127.0.0.1:99999": bad address`},
		{"unknown flag", []string{"-verbose"}, nil, "-verbose"},
		{"positional argument", []string{"serve"}, nil, `"serve"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var usage bytes.Buffer
			_, err := app.ParseConfig(tt.args, envOf(tt.env), &usage)
			if !errors.Is(err, app.ErrInvalidSetting) {
				t.Fatalf("ParseConfig error = %v, want ErrInvalidSetting", err)
			}
			if !strings.Contains(err.Error(), tt.says) {
				t.Errorf("error %q does not name %q", err, tt.says)
			}
			if usage.Len() != 0 {
				t.Errorf("usage written on an error: %q", usage.String())
			}
		})
	}
}

// -ssh given more than once drives every destination, each named after
// its host; one -ssh keeps today's single server, whose ids carry no host.
func TestParseConfigSeveralHosts(t *testing.T) {
	cfg, err := app.ParseConfig([]string{"-ssh", "deploy@web1", "-ssh", "ssh://root@db.prod:2222", "-ssh", "build"}, envOf(nil), &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	want := []app.HostSpec{{Name: "web1", Destination: "deploy@web1"}, {Name: "db.prod", Destination: "ssh://root@db.prod:2222"}, {Name: "build", Destination: "build"}}
	if !reflect.DeepEqual(cfg.Hosts, want) || cfg.SSH != "" {
		t.Errorf("Hosts = %+v, SSH = %q; want %+v and no single SSH", cfg.Hosts, cfg.SSH, want)
	}
	one, err := app.ParseConfig([]string{"-ssh", "deploy@web1"}, envOf(nil), &bytes.Buffer{})
	if err != nil || one.SSH != "deploy@web1" || one.Hosts != nil {
		t.Errorf("one -ssh: SSH %q, Hosts %+v, %v; want the single server as before", one.SSH, one.Hosts, err)
	}
}

func TestParseConfigHostsFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		path := dir + "/" + name
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	hosts := write("hosts", "# the fleet\nweb1 deploy@web1.example.com\n\n  db   ssh://root@db:2222  # the database\n")
	cfg, err := app.ParseConfig([]string{"-ssh", "build", "-hosts-file", hosts}, envOf(nil), &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	want := []app.HostSpec{{Name: "build", Destination: "build"}, {Name: "web1", Destination: "deploy@web1.example.com"}, {Name: "db", Destination: "ssh://root@db:2222"}}
	if !reflect.DeepEqual(cfg.Hosts, want) {
		t.Errorf("Hosts = %+v, want %+v: the -ssh hosts, then the file's", cfg.Hosts, want)
	}
	fromEnv, err := app.ParseConfig(nil, envOf(map[string]string{"TMUX_MCP_HOSTS_FILE": hosts}), &bytes.Buffer{})
	if err != nil || len(fromEnv.Hosts) != 2 {
		t.Errorf("hosts file from the environment: %+v, %v", fromEnv.Hosts, err)
	}
	single := write("single", "web1 web1.example.com\n")
	one, err := app.ParseConfig([]string{"-hosts-file", single}, envOf(nil), &bytes.Buffer{})
	if err != nil || len(one.Hosts) != 1 || one.SSH != "" {
		t.Errorf("a hosts file of one host: Hosts %+v, SSH %q, %v; want the host named, its ids carrying it", one.Hosts, one.SSH, err)
	}
	for name, tt := range map[string]struct{ text, says string }{
		"three words":   {"web1 a b\n", "line 1: want NAME DESTINATION"},
		"one word":      {"\n\nweb1\n", "line 3: want NAME DESTINATION"},
		"a bad name":    {"web:1 box\n", `host name "web:1"`},
		"an option":     {"web1 -oProxyCommand=sh\n", "line 1"},
		"a name twice":  {"web1 a\nweb1 b\n", `host "web1" is named twice`},
		"nothing named": {"# nobody\n", "names no host"},
	} {
		_, err := app.ParseConfig([]string{"-hosts-file", write(strings.ReplaceAll(name, " ", "_"), tt.text)}, envOf(nil), &bytes.Buffer{})
		if !errors.Is(err, app.ErrInvalidSetting) || !strings.Contains(err.Error(), tt.says) {
			t.Errorf("%s: %v, want ErrInvalidSetting saying %q", name, err, tt.says)
		}
	}
}

func TestParseConfigHelpWritesUsage(t *testing.T) {
	var usage bytes.Buffer
	_, err := app.ParseConfig([]string{"-help"}, envOf(nil), &usage)
	if !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("error = %v, want flag.ErrHelp", err)
	}
	for _, s := range []string{"-socket-name", "LIBTMUX_SOCKET", "-safety", "LIBTMUX_MCP_WAIT_MAX_SECONDS", "LIBTMUX_MCP_MAX_RESULT_LINES", "/mcp",
		"-audit", "-token-file", "TMUX_MCP_TOKEN", "-screen-session", "screen", "-ssh", "TMUX_MCP_SSH", "-hosts-file", "TMUX_MCP_HOSTS_FILE", "-ssh-config", "-tools", "TMUX_MCP_TOOLS", "-agent-env"} {
		if !strings.Contains(usage.String(), s) {
			t.Errorf("usage lacks %q:\n%s", s, usage.String())
		}
	}
}

func TestDomainConfigCarriesTheLimits(t *testing.T) {
	cfg := defaults()
	cfg.WaitMax, cfg.MaxResultLines, cfg.OutputBudget = 7*time.Second, 33, 1<<20
	got := app.DomainConfig(cfg)
	if got.WaitMax != 7*time.Second || got.MaxResultLines != 33 || got.MaxResultBytes != domain.MaxResultBytes || got.OutputBudget != 1<<20 {
		t.Errorf("DomainConfig = %+v", got)
	}
	if got.NoAgentEnv {
		t.Error("DomainConfig turns the agent's environment off by default")
	}
	cfg.NoAgentEnv = true
	if !app.DomainConfig(cfg).NoAgentEnv {
		t.Error("DomainConfig does not carry -agent-env=false")
	}
}
