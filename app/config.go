package app

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tmux-mcp/tmux-mcp/adapters/mcp"
	"github.com/tmux-mcp/tmux-mcp/adapters/multihost"
	"github.com/tmux-mcp/tmux-mcp/adapters/tmux"
	"github.com/tmux-mcp/tmux-mcp/domain"
)

// Safety is the server's safety tier (CONTRACT.md, "Server settings"): the
// tools it offers. What each tier allows is decided by the MCP adapter
// (mcp.Tier), from the tools' annotations.
type Safety string

// Safety tiers.
const (
	SafetyReadonly    Safety = "readonly"
	SafetyMutating    Safety = "mutating"
	SafetyDestructive Safety = "destructive"
)

// Transports.
const (
	TransportStdio = "stdio"
	TransportHTTP  = "http"
)

// Backends.
const (
	BackendTmux   = "tmux"
	BackendFake   = "fake"
	BackendScreen = "screen"
)

// Config is the server's settings, from flags and the environment.
type Config struct {
	SocketName string // tmux -L; empty for none
	SocketPath string // tmux -S; empty for none
	TmuxBin    string // the tmux binary; empty for "tmux" on PATH (the remote PATH with SSH)
	// Shell is the shell of the private tmux server's panes; empty for
	// the login shell.
	Shell  string
	Safety Safety
	// Tools, if not empty, are the only tools offered (within Safety): an
	// allowlist of tool names, each one a tool of the server.
	Tools     []string
	Transport string // TransportStdio or TransportHTTP
	Listen    string // the address for TransportHTTP
	Backend   string // BackendTmux, BackendFake or BackendScreen

	// SSH is the ssh destination whose tmux server the tmux backend
	// drives; empty for this host. SSHConfig is the ssh client
	// configuration file (ssh -F) to read instead of ~/.ssh/config.
	SSH       string
	SSHConfig string

	// Hosts are the hosts of a server that drives several tmux servers,
	// each over ssh (-ssh given more than once, or -hosts-file): their
	// ids then carry their host ("web1:%3"). Empty for one server, whose
	// ids are tmux's own; SSH is then empty.
	Hosts []HostSpec

	// ScreenSession names the GNU screen session of BackendScreen; empty
	// for a private session of the server's own.
	ScreenSession string
	// ScreenNoCopyMode vouches that nobody uses copy mode in ScreenSession,
	// which screen cannot report: without it every write there is refused.
	ScreenNoCopyMode bool

	// AuditPath is the file the audit log is appended to; empty for no
	// audit log.
	AuditPath string

	// TokenFile is the file holding the bearer token the HTTP transport
	// requires (-token-file); Token is the token itself, from
	// TMUX_MCP_TOKEN, and is empty when TokenFile is given, since the flag
	// wins. ParseConfig does not read the file.
	TokenFile string
	Token     string

	// WaitMax is the ceiling on every wait; MaxResultLines the maxLines
	// of a call that gives none.
	WaitMax        time.Duration
	MaxResultLines int

	// OutputBudget is the bytes of output kept of all runs together, for
	// read_output (-output-budget); 0 keeps none.
	OutputBudget int64
	// NoAgentEnv turns off the agent's environment in the child shell of
	// run_shell_command (-agent-env=false; see domain.Config.NoAgentEnv).
	NoAgentEnv bool

	// ShellIntegration starts the shells of the panes the server makes
	// with the prompt marks (-shell-integration; see tmux.Options).
	ShellIntegration bool

	// Version asks for the version to be printed instead of serving.
	Version bool
}

// Defaults of the settings that have one.
const (
	DefaultListen = "127.0.0.1:8808"
)

// Environment variables (CONTRACT.md, "Server settings").
const (
	EnvSocketName     = "LIBTMUX_SOCKET"
	EnvSocketPath     = "LIBTMUX_SOCKET_PATH"
	EnvTmuxBin        = "LIBTMUX_TMUX_BIN"
	EnvSafety         = "LIBTMUX_SAFETY"
	EnvWaitMaxSeconds = "LIBTMUX_MCP_WAIT_MAX_SECONDS"
	EnvMaxResultLines = "LIBTMUX_MCP_MAX_RESULT_LINES"
	EnvToken          = "TMUX_MCP_TOKEN"
	EnvSSH            = "TMUX_MCP_SSH"
	EnvSSHConfig      = "TMUX_MCP_SSH_CONFIG"
	EnvHostsFile      = "TMUX_MCP_HOSTS_FILE"
	EnvTools          = "TMUX_MCP_TOOLS"

	EnvShellIntegration = "TMUX_MCP_SHELL_INTEGRATION"
)

// ErrInvalidSetting marks a configuration error: the server must not
// start. The error's message says which setting is wrong.
var ErrInvalidSetting = errors.New("invalid setting")

// ParseConfig reads the settings from the command-line arguments (without
// the program name) and from env, which returns "" for an unset variable.
// Flags win over the environment; an empty variable counts as unset.
//
// The two socket settings are taken together: a socket flag overrides both
// socket variables, so that "-socket-path" on the command line is not
// mixed with a LIBTMUX_SOCKET from the environment. Naming both a socket
// name and a socket path from the same source is an error.
//
// Errors wrap ErrInvalidSetting, or are flag.ErrHelp when help was asked
// for, after the usage text has been written to usage.
func ParseConfig(args []string, env func(string) string, usage io.Writer) (Config, error) {
	cfg := Config{}
	fs := flag.NewFlagSet("tmux-mcp", flag.ContinueOnError)
	// The flag package would print the usage on every error; the caller
	// reports errors itself, and the usage only on request.
	fs.SetOutput(io.Discard)
	fs.StringVar(&cfg.SocketName, "socket-name", "", "tmux socket name, as tmux -L (env "+EnvSocketName+")")
	fs.StringVar(&cfg.SocketPath, "socket-path", "", "tmux socket path, as tmux -S (env "+EnvSocketPath+")")
	fs.StringVar(&cfg.Shell, "shell", "", "the shell the private tmux server runs in its panes: bash, zsh, dash, ksh, fish, sh or a path (default: your login shell; a server you name with -socket-name or -socket-path runs what its default-shell and default-command say)")
	fs.StringVar(&cfg.TmuxBin, "tmux-bin", "", "tmux binary (env "+EnvTmuxBin+"; default: tmux on PATH, the remote one with -ssh)")
	var sshs repeated
	fs.Var(&sshs, "ssh", "drive the tmux server on this ssh destination (host, user@host or a Host of the ssh configuration) through the system ssh (env "+EnvSSH+"); without a socket setting, the remote default server. Given more than once, drive each: ids then carry their host, named after the destination's host (web1:%3)")
	hostsFile := fs.String("hosts-file", "", "drive the tmux server of every host this file names, one \"NAME DESTINATION\" per line (# starts a comment), each over its own ssh connection; ids carry their host (web1:%3) (env "+EnvHostsFile+")")
	fs.StringVar(&cfg.SSHConfig, "ssh-config", "", "ssh client configuration file for -ssh, as ssh -F (env "+EnvSSHConfig+"; default: ~/.ssh/config)")
	safety := fs.String("safety", "", "safety tier: readonly, mutating or destructive (env "+EnvSafety+"; default mutating)")
	tools := fs.String("tools", "", "offer only these tools, within the safety tier: tool names separated by commas, such as run_shell_command,capture_pane (env "+EnvTools+"; default every tool of the tier)")
	fs.StringVar(&cfg.Transport, "transport", TransportStdio, "transport: stdio or http")
	fs.StringVar(&cfg.Listen, "listen", DefaultListen, "address for the http transport, which serves MCP at /mcp")
	fs.StringVar(&cfg.Backend, "backend", BackendTmux, "terminal backend: tmux, screen (GNU screen), or fake (an in-memory terminal for demos and tests)")
	fs.StringVar(&cfg.ScreenSession, "screen-session", "", "GNU screen session for -backend screen (default: a private session of the server's own)")
	fs.BoolVar(&cfg.ScreenNoCopyMode, "screen-no-copy-mode", false, "vouch that nobody uses copy mode in the -screen-session, which screen cannot report; without it every write there is refused")
	fs.StringVar(&cfg.AuditPath, "audit", "", "append one JSON line per tool call to this file (commands and texts only as SHA-256 digests)")
	fs.StringVar(&cfg.TokenFile, "token-file", "", "file holding the bearer token the http transport requires (env "+EnvToken+" holds the token itself)")
	budget := fs.String("output-budget", "256MiB", "the output kept of all runs together, for read_output: bytes, or a number with KiB, MiB or GiB (K, M, G); the oldest runs are evicted first; 0 keeps none")
	agentEnv := fs.Bool("agent-env", true, "run each run_shell_command in a child shell with no pager (PAGER=cat, GIT_PAGER=cat, MANPAGER=cat, SYSTEMD_PAGER=) and no git prompt on the terminal (GIT_TERMINAL_PROMPT=0); -agent-env=false runs it with the shell's environment as it is (a persist command always does)")
	integration := fs.Bool("shell-integration", true, shellIntegrationUsage)
	fs.BoolVar(&cfg.Version, "version", false, "print the version and exit")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(usage)
			fmt.Fprintf(usage, "Usage: tmux-mcp [flags]\n\nAn MCP server for working in terminal panes. Flags win over environment variables.\n"+
				"tmux-mcp setup CLIENT writes it into an MCP client's configuration, and tmux-mcp doctor\n"+
				"checks what it needs (each says more with -h).\n\n")
			fs.PrintDefaults()
			fmt.Fprintf(usage, "\nEnvironment only:\n  %s\n    \twait ceiling in seconds (default %d)\n  %s\n    \tmaxLines of a call that gives none (default %d)\n  %s\n    \tthe bearer token the http transport requires (-token-file wins)\n",
				EnvWaitMaxSeconds, int(domain.DefaultWaitMax/time.Second), EnvMaxResultLines, domain.DefaultMaxResultLines, EnvToken)
			return Config{}, err
		}
		return Config{}, fmt.Errorf("%w: %v (see -help)", ErrInvalidSetting, err)
	}
	if fs.NArg() > 0 {
		return Config{}, fmt.Errorf("%w: unexpected argument %q; settings are flags (see -help)", ErrInvalidSetting, fs.Arg(0))
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	cfg.NoAgentEnv = !*agentEnv

	if !set["socket-name"] && !set["socket-path"] {
		cfg.SocketName, cfg.SocketPath = env(EnvSocketName), env(EnvSocketPath)
		if cfg.SocketName != "" && cfg.SocketPath != "" {
			return Config{}, fmt.Errorf("%w: %s and %s are both set; set one", ErrInvalidSetting, EnvSocketName, EnvSocketPath)
		}
	} else if cfg.SocketName != "" && cfg.SocketPath != "" {
		return Config{}, fmt.Errorf("%w: -socket-name and -socket-path are both given; give one", ErrInvalidSetting)
	}
	if !set["tmux-bin"] {
		cfg.TmuxBin = env(EnvTmuxBin)
	}
	if !set["ssh"] {
		if d := env(EnvSSH); d != "" {
			sshs = repeated{d}
		}
	}
	if !set["hosts-file"] {
		*hostsFile = env(EnvHostsFile)
	} else if *hostsFile == "" {
		return Config{}, fmt.Errorf("%w: -hosts-file is empty; name the file of hosts", ErrInvalidSetting)
	}
	if !set["ssh-config"] {
		cfg.SSHConfig = env(EnvSSHConfig)
	}
	if !set["safety"] {
		*safety = env(EnvSafety)
	}
	var err error
	if cfg.Safety, err = parseSafety(*safety, set["safety"]); err != nil {
		return Config{}, err
	}
	if cfg.ShellIntegration, err = parseShellIntegration(*integration, set["shell-integration"], env); err != nil {
		return Config{}, err
	}
	if !set["tools"] {
		*tools = env(EnvTools)
	}
	if cfg.Tools, err = parseTools(*tools, set["tools"]); err != nil {
		return Config{}, err
	}
	switch cfg.Transport {
	case TransportStdio, TransportHTTP:
	default:
		return Config{}, fmt.Errorf("%w: -transport %q: want stdio or http", ErrInvalidSetting, cfg.Transport)
	}
	if err := checkListen(cfg.Listen); err != nil {
		return Config{}, err
	}
	switch cfg.Backend {
	case BackendTmux, BackendFake, BackendScreen:
	default:
		return Config{}, fmt.Errorf("%w: -backend %q: want tmux, screen or fake", ErrInvalidSetting, cfg.Backend)
	}
	for _, d := range sshs {
		if err := tmux.CheckDestination(d); err != nil {
			return Config{}, fmt.Errorf("%w: -ssh %q: %v", ErrInvalidSetting, d, err)
		}
	}
	if len(sshs) == 1 && *hostsFile == "" {
		cfg.SSH = sshs[0]
	} else if len(sshs) > 0 || *hostsFile != "" {
		if cfg.Hosts, err = hostsOf(sshs, *hostsFile); err != nil {
			return Config{}, err
		}
	}
	if cfg.SSH != "" || cfg.Hosts != nil {
		if cfg.Backend != BackendTmux {
			return Config{}, fmt.Errorf("%w: -ssh and -hosts-file drive remote tmux servers; they are for -backend tmux, not %s", ErrInvalidSetting, cfg.Backend)
		}
	} else if cfg.SSHConfig != "" {
		return Config{}, fmt.Errorf("%w: -ssh-config is for -ssh; name the destination too", ErrInvalidSetting)
	}
	switch {
	case cfg.Shell != "" && cfg.Backend != BackendTmux:
		return Config{}, fmt.Errorf("%w: -shell chooses the shell of the server's private tmux server; it is for -backend tmux, not %s", ErrInvalidSetting, cfg.Backend)
	case cfg.Shell != "" && (cfg.SocketName != "" || cfg.SocketPath != "" || cfg.SSH != "" || cfg.Hosts != nil):
		return Config{}, fmt.Errorf("%w: -shell chooses the shell of the server's private tmux server; a server you name runs what its own default-shell and default-command options say", ErrInvalidSetting)
	}
	if set["screen-no-copy-mode"] && !set["screen-session"] {
		return Config{}, fmt.Errorf("%w: -screen-no-copy-mode vouches for a -screen-session; the server's private session needs no vouching", ErrInvalidSetting)
	}
	if set["screen-session"] && cfg.Backend != BackendScreen {
		return Config{}, fmt.Errorf("%w: -screen-session is for -backend screen, not %s", ErrInvalidSetting, cfg.Backend)
	}
	if set["token-file"] {
		if cfg.TokenFile == "" {
			return Config{}, fmt.Errorf("%w: -token-file is empty; name the file that holds the token", ErrInvalidSetting)
		}
	} else {
		cfg.Token = env(EnvToken)
	}
	if set["audit"] && cfg.AuditPath == "" {
		return Config{}, fmt.Errorf("%w: -audit is empty; name the file to append the audit log to", ErrInvalidSetting)
	}
	if cfg.OutputBudget, err = parseSize(*budget); err != nil {
		return Config{}, fmt.Errorf("%w: -output-budget %q: %v", ErrInvalidSetting, *budget, err)
	}
	if cfg.WaitMax, err = parseWaitMax(env(EnvWaitMaxSeconds)); err != nil {
		return Config{}, err
	}
	if cfg.MaxResultLines, err = parseMaxResultLines(env(EnvMaxResultLines)); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// HostSpec is one host of a server that drives several: what its ids
// carry, and the ssh destination of its tmux server.
type HostSpec struct {
	Name        string
	Destination string
}

// repeated is a flag that may be given more than once: each value, in
// order.
type repeated []string

func (r *repeated) String() string { return strings.Join(*r, " ") }

func (r *repeated) Set(v string) error {
	*r = append(*r, v)
	return nil
}

// hostsOf returns the hosts of the -ssh destinations (each named after
// its host, HostName) and then of the hosts file, if named. Errors wrap
// ErrInvalidSetting: a file that cannot be read or has a line of another
// form, a destination of no host name, a name given twice.
func hostsOf(sshs []string, file string) ([]HostSpec, error) {
	var hosts []HostSpec
	for _, d := range sshs {
		name := HostName(d)
		if !multihost.ValidHostName(name) {
			return nil, fmt.Errorf("%w: -ssh %q: its host %q cannot name the host in ids (1 to 64 of A-Z a-z 0-9 . _ -): name it in a -hosts-file", ErrInvalidSetting, d, name)
		}
		hosts = append(hosts, HostSpec{Name: name, Destination: d})
	}
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("%w: -hosts-file: %v", ErrInvalidSetting, err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if c := strings.IndexByte(line, '#'); c >= 0 {
				line = line[:c]
			}
			f := strings.Fields(line)
			switch {
			case len(f) == 0:
				continue
			case len(f) != 2:
				return nil, fmt.Errorf("%w: -hosts-file %s, line %d: want NAME DESTINATION", ErrInvalidSetting, file, i+1)
			case !multihost.ValidHostName(f[0]):
				return nil, fmt.Errorf("%w: -hosts-file %s, line %d: host name %q: want 1 to 64 of A-Z a-z 0-9 . _ -", ErrInvalidSetting, file, i+1, f[0])
			}
			if err := tmux.CheckDestination(f[1]); err != nil {
				return nil, fmt.Errorf("%w: -hosts-file %s, line %d: %v", ErrInvalidSetting, file, i+1, err)
			}
			hosts = append(hosts, HostSpec{Name: f[0], Destination: f[1]})
		}
		if len(hosts) == len(sshs) {
			return nil, fmt.Errorf("%w: -hosts-file %s names no host", ErrInvalidSetting, file)
		}
	}
	seen := map[string]bool{}
	for _, h := range hosts {
		if seen[h.Name] {
			return nil, fmt.Errorf("%w: host %q is named twice; give each host its own name (a -hosts-file names them)", ErrInvalidSetting, h.Name)
		}
		seen[h.Name] = true
	}
	return hosts, nil
}

// HostName is the name a host of destination d is given by default: its
// host, without a user ("deploy@web1" is web1), nor, in the URI form, a
// port ("ssh://deploy@web1:2222" is web1).
func HostName(d string) string {
	uri := strings.HasPrefix(d, "ssh://")
	d = strings.TrimPrefix(d, "ssh://")
	if at := strings.LastIndexByte(d, '@'); at >= 0 {
		d = d[at+1:]
	}
	if uri {
		if h, _, err := net.SplitHostPort(d); err == nil {
			d = h
		}
	}
	return d
}

// checkListen refuses a -listen that is no address to listen on, before
// anything asks whether it is a loopback one (which "nonsense" is not
// either, and was refused for wanting a token).
func checkListen(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err == nil {
		_, err = net.LookupPort("tcp", port)
	}
	if err != nil {
		return fmt.Errorf("%w: -listen %q: bad address (%v); want host:port, such as %s", ErrInvalidSetting, addr, err, DefaultListen)
	}
	return nil
}

func parseSafety(s string, fromFlag bool) (Safety, error) {
	switch Safety(s) {
	case "":
		return SafetyMutating, nil
	case SafetyReadonly, SafetyMutating, SafetyDestructive:
		return Safety(s), nil
	}
	source := EnvSafety
	if fromFlag {
		source = "-safety"
	}
	return "", fmt.Errorf("%w: %s %q: want readonly, mutating or destructive", ErrInvalidSetting, source, s)
}

// parseTools reads a tool allowlist: names separated by commas, with
// white space around them ignored. "" from the environment is no list; a
// flag given empty, a list that names nothing, and a name that is no
// tool's are errors.
func parseTools(s string, fromFlag bool) ([]string, error) {
	source := EnvTools
	if fromFlag {
		source = "-tools"
	}
	if s == "" && !fromFlag {
		return nil, nil
	}
	known := mcp.ToolNames()
	var names []string
	for _, f := range strings.Split(s, ",") {
		name := strings.TrimSpace(f)
		if name == "" {
			continue
		}
		if !slices.Contains(known, name) {
			return nil, fmt.Errorf("%w: %s: %q is not a tool of this server; the tools are %s",
				ErrInvalidSetting, source, name, strings.Join(known, ", "))
		}
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%w: %s names no tool; list tool names separated by commas, or leave it out to offer every tool of the tier",
			ErrInvalidSetting, source)
	}
	return names, nil
}

func parseWaitMax(s string) (time.Duration, error) {
	if s == "" {
		return domain.DefaultWaitMax, nil
	}
	secs, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	// The ceiling must be a positive number of seconds that a Duration
	// can hold (some 292 years).
	if err != nil || !(secs > 0) || secs > math.MaxInt64/float64(time.Second) {
		return 0, fmt.Errorf("%w: %s=%q: want a positive number of seconds", ErrInvalidSetting, EnvWaitMaxSeconds, s)
	}
	d := time.Duration(secs * float64(time.Second))
	if d < time.Millisecond {
		return 0, fmt.Errorf("%w: %s=%q: want at least 0.001 seconds", ErrInvalidSetting, EnvWaitMaxSeconds, s)
	}
	return d, nil
}

func parseMaxResultLines(s string) (int, error) {
	if s == "" {
		return domain.DefaultMaxResultLines, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%w: %s=%q: want a positive whole number of lines", ErrInvalidSetting, EnvMaxResultLines, s)
	}
	return n, nil
}

// DomainConfig returns the domain's settings for cfg.
func DomainConfig(cfg Config) domain.Config {
	d := domain.DefaultConfig()
	d.WaitMax = cfg.WaitMax
	d.MaxResultLines = cfg.MaxResultLines
	if cfg.OutputBudget > 0 {
		d.OutputBudget = cfg.OutputBudget
	}
	d.NoAgentEnv = cfg.NoAgentEnv
	return d
}

// parseSize reads a number of bytes: digits, optionally followed by a
// unit, KiB, MiB or GiB (or K, M, G, the same, or B), with or without a
// space between.
func parseSize(s string) (int64, error) {
	s = strings.TrimSpace(s)
	num := strings.TrimRightFunc(s, func(r rune) bool { return r < '0' || r > '9' })
	unit := strings.TrimSpace(s[len(num):])
	shift := map[string]uint{"": 0, "B": 0, "K": 10, "KiB": 10, "M": 20, "MiB": 20, "G": 30, "GiB": 30}
	sh, ok := shift[unit]
	n, err := strconv.ParseInt(num, 10, 64)
	if !ok || err != nil || n < 0 {
		return 0, errors.New("want a number of bytes, such as 268435456, 256MiB or 1GiB")
	}
	if n > math.MaxInt64>>sh {
		return 0, errors.New("too large")
	}
	return n << sh, nil
}
