package tmux

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tmux-mcp/tmux-mcp/adapters/internal/scripts"
	"github.com/tmux-mcp/tmux-mcp/adapters/internal/shellinit"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// Defaults for the zero values of Options.
const (
	DefaultRingSize     = 1 << 20
	DefaultIdleTimeout  = 30 * time.Second
	DefaultPollInterval = 500 * time.Millisecond
	// DefaultCommandTimeout bounds each command: ample for the largest
	// capture or paste, and an end for a call on a tmux server that is
	// stopped or stuck.
	DefaultCommandTimeout = 30 * time.Second
)

// A Logger receives messages as a message and key-value pairs; a
// *slog.Logger is one. The adapter logs at debug level what helps
// diagnose a stream, and warns of what an operator wants to know: the
// tmux server gone.
type Logger interface {
	Debug(msg string, kv ...any)
	Warn(msg string, kv ...any)
}

// Options configure a Terminal. The zero value talks to tmux's default
// server with the defaults below.
type Options struct {
	// Bin is the tmux binary, a name looked up on PATH or a path. Default
	// "tmux". With SSH it names the binary on the remote host, looked up
	// on the PATH of a command run there by ssh.
	Bin string

	// Shell is the shell a private server (StartPrivate) runs in its
	// panes, its first pane and every pane made later: a name looked up
	// on PATH or a path. Empty: tmux's default, the login shell ($SHELL,
	// else the user's shell in the password database). New ignores it.
	Shell string

	// SocketName selects a server by socket name (tmux -L); SocketPath by
	// socket path (tmux -S). Set at most one. With neither, the server is
	// the one this process runs inside (from TMUX) or else tmux's default;
	// with SSH, the remote user's default server.
	SocketName string
	SocketPath string

	// SSH, when set, is an ssh destination ("host", "user@host", an alias
	// of the ssh configuration, or "ssh://user@host:port"): the tmux
	// server is on that host, and every tmux client runs there through
	// the system ssh over one shared connection (see ssh.go). TMUX and
	// TMUX_PANE are then ignored: the pane this process runs in, if any,
	// is not on that host.
	SSH string

	// SSHConfig is the ssh client configuration file (ssh -F) to read
	// instead of ~/.ssh/config; empty for the user's own. SSHBin is the
	// ssh binary, default "ssh" on PATH.
	SSHConfig string
	SSHBin    string

	// Env looks up this process's environment variables TMUX and
	// TMUX_PANE, which tell the pane the server runs in (PaneInfo.Self).
	// Nil means os.Getenv; tests inject their own.
	Env func(key string) string

	// RingSize is how many of each pane's newest output bytes are
	// retained for its streams. Default DefaultRingSize (1 MiB).
	RingSize int

	// IdleTimeout is how long a control-mode client stays attached to a
	// session after the last stream on its panes closed, and, with SSH,
	// how long the remote reader (remoteproc.go) stays after its last
	// question. Default DefaultIdleTimeout.
	IdleTimeout time.Duration

	// PollInterval is how often the panes of open streams are checked for
	// death when tmux sends no notification of it (a dead pane kept by
	// remain-on-exit). Default DefaultPollInterval.
	PollInterval time.Duration

	// CommandTimeout is how long a command waits for tmux's answer, over a
	// control client or as a process, before it fails with an error
	// wrapping ports.ErrNoAnswer; a process that reads a paste's text is
	// given the time to read it too (see commandTimeout). With SSH it
	// bounds the remote reader's answers and its start alike. Default
	// DefaultCommandTimeout.
	CommandTimeout time.Duration

	// Logger, if not nil, receives debug messages.
	Logger Logger

	// ScriptDir is the directory under which the Terminal makes the
	// private directory of its scripts (see PutScript); "" means
	// $XDG_RUNTIME_DIR, else the system's temporary directory.
	ScriptDir string

	// ShellIntegration makes the panes the Terminal creates (and the
	// first pane of StartPrivate's session) start their shell, when tmux
	// would start its default shell and that is bash, zsh or fish, so
	// that it reads the user's start-up files and then marks its prompt
	// (OSC 133; see integration.go). Off with SSH: the files it reads are
	// on this machine. ShellIntegrationDir is where they are written
	// (see shellinit.Install); "" for the user's cache directory.
	ShellIntegration    bool
	ShellIntegrationDir string
}

// Terminal is the tmux implementation of ports.Terminal. It reaches tmux
// through long-lived control-mode clients, one per session whose panes are
// listened to (see OpenOutput) or that a call was about (see doc.go), and
// through short-lived tmux processes run with argv only, never through a
// shell, for what a control client cannot carry.
//
// A Terminal is safe for concurrent use. Close it to stop the control-mode
// clients it started.
//
// Its roles beyond ports.Terminal are types of their own that it embeds,
// each over the same core (terminal): the Manager (manage.go), the Leaser
// (lease.go), and the ScriptStore, JobControl and process ports that a
// shell's framed commands use (shell.go, signal.go, left.go).
type Terminal struct {
	*terminal
	manager
	leaser
	shellSupport
}

// manager is the Terminal's ports.Manager.
type manager struct{ *terminal }

// leaser is the Terminal's ports.Leaser and ports.DescribingLeaser.
type leaser struct{ *terminal }

// shellSupport is what the domain's framed commands use of a pane's
// shell and processes: the Terminal's ports.ScriptStore, JobControl,
// Signaler, ProcessChecker and ProcessWatcher.
type shellSupport struct{ *terminal }

// terminal is what a Terminal's roles share: the way to tmux (command
// lists, control clients and processes; see command.go and control.go)
// and the panes' output (output.go).
type terminal struct {
	launch  launcher // makes every tmux process (see launch.go)
	version string
	sockArg []string // the flags of every tmux client: "-L name", "-S path" or nothing, and -u when needed
	env     []string // environment of the tmux (or ssh) processes
	opts    Options
	self    selfPane

	// life ends when Close has stopped the clients; every goroutine of
	// the Terminal's (a client's reader and watcher, what they start, an
	// idle client's stop) runs under it and is counted in work, which
	// Close waits for. See track.
	life    context.Context
	endLife context.CancelFunc
	work    sync.WaitGroup

	mu     sync.Mutex
	closed bool
	// rmu is the recorder's lock: the panes' output (see paneRecord).
	rmu     sync.Mutex
	clients map[string]*controlClient // by session id, e.g. "$3"
	// panes are the panes' output records, written under mu and rmu, read
	// under either (see paneRecord).
	panes map[ports.PaneID]*paneRecord
	ttys  map[ports.PaneID]ttyOf
	// attaching counts the clients being started (clientFor): commands
	// do not wait behind them (commandClient).
	attaching int

	// scripts keeps the ScriptStore's files (scripts.go): on this
	// machine, or on the remote host.
	scripts scriptStore

	// proc reads the remote host's processes and terminals
	// (remoteproc.go); nil when tmux runs here.
	proc *procReader

	// integ holds the shell integration's files (integration.go); nil
	// when the panes the Terminal makes start as tmux starts them.
	integ *shellinit.Dir

	// clientCfg is what its control clients see of the Terminal, with
	// the Terminal itself as their sink (see control.go).
	clientCfg *clientConfig

	// attachGate keeps the Terminal from making tmux 3.3a crash while one
	// of its control clients attaches (see control.go).
	attachGate sync.RWMutex

	// processes counts the tmux processes run has started, so that tests
	// can tell which path a command took.
	processes atomic.Int64
	// controlLines counts the writes of command lines to control clients
	// (one write may carry several, answered together), so that tests can
	// count round trips.
	controlLines atomic.Int64
}

var _ ports.Terminal = (*Terminal)(nil)

// ErrTerminalClosed is returned by the methods of a closed Terminal, wrapped
// together with ports.ErrUnavailable.
var ErrTerminalClosed = errors.New("tmux terminal closed")

// New checks that the tmux binary exists and is at least version 3.2, and
// returns a Terminal for the server that opts select. It does not require
// the server to run yet: each call reports ports.ErrUnavailable while no
// server answers. A missing or too old binary is an error wrapping
// ports.ErrUnavailable.
//
// With opts.SSH it first connects to the host, which fails with an
// *SSHError when the host cannot be reached, its key is unknown or ssh
// cannot log in without asking, then checks the login shell (see ssh.go)
// and the remote tmux.
func New(opts Options) (*Terminal, error) {
	if opts.SocketName != "" && opts.SocketPath != "" {
		return nil, errors.New("tmux: set SocketName or SocketPath, not both")
	}
	if opts.Bin == "" {
		opts.Bin = "tmux"
	}
	if opts.Env == nil {
		opts.Env = os.Getenv
	}
	if opts.RingSize <= 0 {
		opts.RingSize = DefaultRingSize
	}
	if opts.IdleTimeout <= 0 {
		opts.IdleTimeout = DefaultIdleTimeout
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = DefaultPollInterval
	}
	if opts.CommandTimeout <= 0 {
		opts.CommandTimeout = DefaultCommandTimeout
	}
	env := childEnv(os.Environ())
	launch, err := newLauncher(opts, env)
	if err != nil {
		return nil, err
	}
	version, err := checkVersion(launch)
	if err != nil {
		launch.close()
		return nil, err
	}
	life, endLife := context.WithCancel(context.Background())
	t := &terminal{
		life:    life,
		endLife: endLife,
		launch:  launch,
		version: version,
		env:     env,
		opts:    opts,
		clients: make(map[string]*controlClient),
		panes:   make(map[ports.PaneID]*paneRecord),
		ttys:    make(map[ports.PaneID]ttyOf),
	}
	if launch.remote() {
		t.scripts = newRemoteScripts(t)
		t.proc = &procReader{
			start: func(ctx context.Context) (*procSession, error) {
				return launch.startProcReader(ctx, opts.CommandTimeout, procCommand())
			},
			timeout: opts.CommandTimeout,
			idle:    opts.IdleTimeout,
		}
	} else {
		dir, err := scripts.Open(opts.ScriptDir)
		if err != nil {
			launch.close()
			return nil, fmt.Errorf("tmux: %w", err)
		}
		t.scripts = localScripts{dir}
	}
	if !launch.remote() {
		t.self = parseSelf(opts.Env("TMUX"), opts.Env("TMUX_PANE"))
		t.integ = installIntegration(opts)
	}
	switch {
	case opts.SocketPath != "":
		t.sockArg = []string{"-S", opts.SocketPath}
	case opts.SocketName != "":
		t.sockArg = []string{"-L", opts.SocketName}
	case t.self.socket != "":
		// tmux itself would pick this socket from TMUX; naming it lets
		// the children run without TMUX in their environment.
		t.sockArg = []string{"-S", t.self.socket}
	}
	if launch.remote() {
		// The remote locale is not this one: -u makes tmux write UTF-8
		// whatever it is.
		t.sockArg = append(t.sockArg, "-u")
	} else {
		t.sockArg = append(t.sockArg, utf8Flag(t.env)...)
	}
	t.clientCfg = &clientConfig{
		launch:         launch,
		sockArg:        t.sockArg,
		commandTimeout: opts.CommandTimeout,
		pollInterval:   opts.PollInterval,
		gate:           &t.attachGate,
		life:           life,
		work:           &t.work,
		lines:          &t.controlLines,
		logger:         opts.Logger,
		ping:           t.ping,
	}
	return &Terminal{terminal: t, manager: manager{t}, leaser: leaser{t}, shellSupport: shellSupport{t}}, nil
}

// Version returns the version tmux reported, such as "3.3a".
func (t *Terminal) Version() string { return t.version }

// Ping checks that a tmux server answers on the socket. It returns an error
// wrapping ports.ErrUnavailable when none does.
func (t *Terminal) Ping(ctx context.Context) error { return t.ping(ctx) }

func (t *terminal) ping(ctx context.Context) error {
	_, err := t.exec(ctx, route{}, tmuxCmd("display-message", "-p", "#{pid}"))
	return err
}

// Close stops every control-mode client the Terminal started and ends the
// open streams with an error wrapping ErrTerminalClosed. Later calls fail
// with that error. It does not stop the tmux server. Closing twice is
// harmless.
func (t *Terminal) Close() error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil
	}
	t.closed = true
	clients := make([]*controlClient, 0, len(t.clients))
	for _, c := range t.clients {
		c.closing = true
		clients = append(clients, c)
	}
	clear(t.clients)
	t.rmu.Lock()
	for _, rec := range t.panes {
		rec.out.EndStreams(ErrTerminalClosed)
	}
	t.rmu.Unlock()
	t.mu.Unlock()

	var wg sync.WaitGroup
	for _, c := range clients {
		wg.Go(func() { c.stop() })
	}
	wg.Wait()
	// What the clients started, and clients stopped as idle, end now.
	t.endLife()
	t.work.Wait()
	if t.proc != nil {
		t.proc.close()
	}
	// The clients and the reader were the connection's last users.
	return errors.Join(t.scripts.Close(), t.launch.close())
}

// track counts one piece of work that Close is to wait for, started
// where no counted goroutine runs (a call of the port's, an idle timer),
// and reports false once the Terminal is closed, when the work is not to
// start. The caller calls t.work.Done when it ends. t.mu is held. A
// goroutine started by counted work is counted with t.work.Go.
func (t *terminal) track() bool {
	if t.closed {
		return false
	}
	t.work.Add(1)
	return true
}

// checkPaneID rejects ids that are not "%" and digits before they reach
// tmux, which would read "s:1" or "=x" as other kinds of target.
func checkPaneID(id ports.PaneID) error {
	s := string(id)
	if len(s) < 2 || s[0] != '%' {
		return fmt.Errorf("pane %q: not a pane id: %w", s, ports.ErrPaneNotFound)
	}
	for i := 1; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return fmt.Errorf("pane %q: not a pane id: %w", s, ports.ErrPaneNotFound)
		}
	}
	return nil
}

// probeCmd is a list-panes command that prints "1" when the pane is dead
// and "0" when it is alive, and fails with "can't find pane" when there is
// no such pane, so that the commands after it in the same invocation do
// not run.
func probeCmd(id ports.PaneID) cmdList {
	return tmuxCmd("list-panes", "-t", string(id), "-f", "#{==:#{pane_id},"+string(id)+"}", "-F", "#{pane_dead}")
}

// debug logs when a Logger was given.
func (t *terminal) debug(msg string, kv ...any) {
	if t.opts.Logger != nil {
		t.opts.Logger.Debug(msg, kv...)
	}
}
