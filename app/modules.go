package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"
	"unicode"

	"go.uber.org/fx"

	"github.com/tmux-mcp/tmux-mcp/adapters/audit"
	"github.com/tmux-mcp/tmux-mcp/adapters/clock"
	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
	"github.com/tmux-mcp/tmux-mcp/adapters/mcp"
	"github.com/tmux-mcp/tmux-mcp/adapters/random"
	"github.com/tmux-mcp/tmux-mcp/adapters/screen"
	"github.com/tmux-mcp/tmux-mcp/adapters/tmux"
	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/domain/lifecycle"
	"github.com/tmux-mcp/tmux-mcp/domain/writers"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// Each module below wires one concern. Its constructors are plain
// functions, usable without fx.

// ConfigModule supplies the settings and the domain's share of them.
func ConfigModule(cfg Config) fx.Option {
	return fx.Module("config",
		fx.Supply(cfg),
		fx.Provide(DomainConfig),
	)
}

// Undo holds what the constructors started outside the process (a private
// tmux server, a private screen session), so that a failed start can end
// it: when building the application fails, fx runs no stop hook at all.
// New runs it then; after a successful build the stop hooks do the work.
type Undo struct {
	mu  sync.Mutex
	fns []func() error
}

// Add registers f, which must be safe to call after its stop hook ran.
func (u *Undo) Add(f func() error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.fns = append(u.fns, f)
}

// Run calls the registered functions, the last first, and forgets them.
func (u *Undo) Run() error {
	u.mu.Lock()
	fns := u.fns
	u.fns = nil
	u.mu.Unlock()
	var errs []error
	for i := len(fns) - 1; i >= 0; i-- {
		errs = append(errs, fns[i]())
	}
	return errors.Join(errs...)
}

// DomainModule provides what carries out the calls: the writers.Pool of
// the process (one writer per pane: its reservations, and its leases when
// the backend has a ports.Leaser), the pane tools' *domain.Service on it
// and, when the backend has a ports.Manager, the lifecycle tools'
// *lifecycle.Service on the same pool. There must be one of each per
// process, since the pool holds the reservations.
var DomainModule = fx.Module("domain",
	fx.Provide(
		fx.Annotate(random.New, fx.As(new(ports.IDSource))),
		providePool,
		provideService,
		provideLifecycle,
	),
)

// NewPool returns the pane writers of a process that leases panes through
// l as owner, or takes no leases when l is nil: one writer per pane then
// holds within this process only.
func NewPool(l ports.Leaser, clk ports.Clock, owner string) *writers.Pool {
	if l == nil {
		return writers.NewPool(nil)
	}
	return writers.NewPool(writers.NewLeases(l, clk, owner, 0))
}

type poolParams struct {
	fx.In
	Lifecycle fx.Lifecycle
	Clock     ports.Clock
	Leaser    ports.Leaser `optional:"true"`
	Logger    *slog.Logger
}

func providePool(p poolParams) *writers.Pool {
	owner := NewLeaseOwner()
	pool := NewPool(p.Leaser, p.Clock, owner)
	if p.Leaser != nil {
		p.Logger.Info("leasing panes so that other tmux-mcp processes on the same server do not write into them at once",
			"owner", owner)
	}
	// Constructed before the Services, so stopped after them: their last
	// releases still reach the leaser.
	p.Lifecycle.Append(fx.StopHook(pool.Close))
	return pool
}

// NewService returns the pane tools' Service on the given terminal, clock
// and ids, holding panes in pool, which the lifecycle tools must share.
// Its events are logged to log, when not nil, as warnings: what an
// operator wants to hear of (see domain.Event).
func NewService(term ports.Terminal, clk ports.Clock, ids ports.IDSource, cfg domain.Config, pool *writers.Pool, log *slog.Logger) *domain.Service {
	opts := []domain.Option{domain.WithWriters(pool)}
	if log != nil {
		opts = append(opts, domain.WithEvents(func(e domain.Event) {
			log.Warn(e.Message, "event", e.Kind, "pane", string(e.Pane))
		}))
	}
	return domain.NewService(term, clk, ids, cfg, opts...)
}

type serviceParams struct {
	fx.In
	Lifecycle fx.Lifecycle
	Terminal  ports.Terminal
	Clock     ports.Clock
	IDs       ports.IDSource
	Config    domain.Config
	Pool      *writers.Pool
	Starting  StartingPanes `optional:"true"`
	Logger    *slog.Logger
}

func provideService(p serviceParams) *domain.Service {
	s := NewService(p.Terminal, p.Clock, p.IDs, p.Config, p.Pool, p.Logger)
	for _, pane := range p.Starting {
		s.ExpectStartingShell(pane)
	}
	// The Service's output streams are stopped before the backend that
	// serves them (fx stops in reverse order of construction).
	p.Lifecycle.Append(fx.StopHook(s.Close))
	return s
}

// StartingPanes are panes a backend has just made, whose shells may not
// read input yet: the pane tools wait for them before they first type
// (see domain.Service.ExpectStartingShell).
type StartingPanes []ports.PaneID

// NewLifecycle returns the lifecycle tools' Service on the backend's
// Manager m, describing panes through term and holding them in pool; the
// panes it creates are waited for by svc before it types into them.
func NewLifecycle(m ports.Manager, term ports.Terminal, pool *writers.Pool, svc *domain.Service) *lifecycle.Service {
	return lifecycle.New(lifecycle.FromManager(m), term, pool, svc.ExpectStartingShell)
}

type lifecycleParams struct {
	fx.In
	Manager  ports.Manager `optional:"true"`
	Terminal ports.Terminal
	Pool     *writers.Pool
	Service  *domain.Service
}

// provideLifecycle returns nil when the backend has no Manager: the
// inspect and lifecycle tools are then not offered.
func provideLifecycle(p lifecycleParams) *lifecycle.Service {
	if p.Manager == nil {
		return nil
	}
	return NewLifecycle(p.Manager, p.Terminal, p.Pool, p.Service)
}

// NewLeaseOwner returns a fresh id for this process's pane leases:
// hostname-pid-randomhex, so that a person reading a refusal can tell
// which process on which machine holds a pane, and two processes never
// share an id.
func NewLeaseOwner() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "localhost"
	}
	// The lease is stored as "OWNER EXPIRY": keep the owner one clean word.
	host = strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			return '_'
		}
		return r
	}, host)
	b := make([]byte, 4)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return fmt.Sprintf("%s-%d-%s", host, os.Getpid(), hex.EncodeToString(b))
}

// SystemClockModule binds the system clock to ports.Clock.
var SystemClockModule = fx.Module("clock",
	fx.Provide(fx.Annotate(clock.New, fx.As(new(ports.Clock)))),
)

// BackendModule returns the terminal backend cfg names, with its clock.
func BackendModule(cfg Config) fx.Option {
	switch cfg.Backend {
	case BackendFake:
		return FakeBackendModule
	case BackendScreen:
		return fx.Options(ScreenBackendModule, SystemClockModule)
	}
	return fx.Options(TmuxBackendModule, SystemClockModule)
}

// FakeBackendModule binds adapters/fake's in-memory terminal, manager,
// leaser and clock to the ports. The terminal has one pane, %0, running
// the fake's scripted bash (a small subset of sh: echo, printf, sleep,
// exit, ...), in session $0; the lifecycle tools make more. Its clock is
// moved along with the system clock, so that a sleep takes real time; the
// domain reads the same clock, so the two never disagree. Nothing runs
// outside the process.
var FakeBackendModule = fx.Module("backend-fake",
	fx.Supply(FakeWorkspace),
	fx.Provide(
		fx.Annotate(newDrivenFakeClock, fx.As(fx.Self()), fx.As(new(ports.Clock))),
		fx.Annotate(NewFakeTerminal, fx.As(fx.Self()), fx.As(new(ports.Terminal))),
		fx.Annotate(fake.NewManager, fx.As(new(ports.Manager))),
		fx.Annotate(NewFakeLeaser, fx.As(new(ports.Leaser))),
	),
)

// FakeWorkspace is where the fake backend's panes are.
var FakeWorkspace = Workspace{Panes: "an in-memory demo terminal with one scripted bash pane, %0 (no tmux; nothing to attach to)"}

// NewFakeLeaser returns an in-memory leaser on c. It is the process's own,
// so it keeps apart only the writers that share it; that is all a fake
// terminal, which lives in one process, needs.
func NewFakeLeaser(c *fake.Clock) *fake.Leaser { return fake.NewLeaser(c) }

// DemoPane is the pane the fake backend starts with.
const DemoPane ports.PaneID = "%0"

// NewFakeTerminal returns an in-memory terminal on c with one shell pane,
// DemoPane.
func NewFakeTerminal(c *fake.Clock) *fake.Terminal {
	t := fake.New(fake.WithClock(c))
	t.AddPane(fake.PaneSpec{Command: "bash"})
	return t
}

// clockTick is how often a driven fake clock catches up with the system
// clock: finer than a person notices, coarse enough to cost nothing.
const clockTick = 10 * time.Millisecond

func newDrivenFakeClock(lc fx.Lifecycle) *fake.Clock {
	c := fake.NewClock(time.Now())
	var stop func()
	lc.Append(fx.StartStopHook(
		func() { stop = DriveClock(c, clockTick) },
		func() { stop() },
	))
	return c
}

// DriveClock moves c to the system time every tick, firing its timers as
// they fall due, until the returned stop function is called. stop waits
// for the last move to finish.
func DriveClock(c *fake.Clock, tick time.Duration) (stop func()) {
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(tick)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				if now := time.Now(); now.After(c.Now()) {
					c.Set(now)
				}
			case <-quit:
				return
			}
		}
	}()
	return func() {
		close(quit)
		<-done
	}
}

// Workspace tells a person where the server's panes are and how to watch
// them; the note the server prints when started at a terminal says it.
type Workspace struct {
	// Panes says what the server works in, as a phrase: "a private tmux
	// server of its own, removed when it exits".
	Panes string
	// Attach is the shell command that shows the panes to a person; empty
	// when there is none.
	Attach string
	// PaneIDs says how pane ids are found, as a sentence, for a backend
	// whose panes no tool can list (the MCP server's instructions say it
	// then); empty when a tool lists them.
	PaneIDs string
}

// TmuxBackendModule binds the tmux adapter to ports.Terminal, and to
// ports.Manager and ports.Leaser: the one tmux client serves all three,
// and the leases live in the tmux server, shared by every process on its
// socket.
var TmuxBackendModule = fx.Module("backend-tmux",
	fx.Provide(
		NewTmuxBackend,
		fx.Annotate((*TmuxBackend).terminal,
			fx.As(new(ports.Terminal)), fx.As(new(ports.Manager)), fx.As(new(ports.Leaser))),
		(*TmuxBackend).workspace,
		(*TmuxBackend).starting,
	),
)

// TmuxBackend is the tmux terminal and the server it works on.
type TmuxBackend struct {
	Terminal *tmux.Terminal
	Target   TmuxTarget
	// Starting are the panes of a private server's session, whose shell
	// was started with the server and may not read input yet.
	Starting StartingPanes
}

func (b *TmuxBackend) starting() StartingPanes { return b.Starting }

func (b *TmuxBackend) terminal() *tmux.Terminal { return b.Terminal }
func (b *TmuxBackend) workspace() Workspace     { return b.Target.Workspace() }

// TmuxTarget is the tmux server the tmux backend works on.
type TmuxTarget struct {
	Bin        string // the tmux binary; empty for "tmux" on PATH
	SocketName string // tmux -L
	SocketPath string // tmux -S
	// Session is the session of a private server; empty for a server the
	// settings named.
	Session string
	// SSH is the host the server is on, reached through ssh; empty for
	// this machine.
	SSH string
}

// NewTmuxBackend returns the tmux terminal cfg selects, closed when the
// application stops. When cfg names no socket it starts a private tmux
// server with one session and kills it when the application stops, so that
// the server never writes into panes of a tmux server nobody named; the
// log says how to attach to it.
//
// With cfg.SSH the tmux server is on that host, reached through ssh, and
// without a socket setting it is the remote user's default server: a
// private server there would outlive a crash of this process with nothing
// to remove it. ssh failing to connect or log in fails the start; a
// remote host with no tmux server running yet is only logged, since
// create_session starts one.
func NewTmuxBackend(lc fx.Lifecycle, cfg Config, log *slog.Logger, undo *Undo) (*TmuxBackend, error) {
	target := TmuxTarget{Bin: cfg.TmuxBin, SocketName: cfg.SocketName, SocketPath: cfg.SocketPath, SSH: cfg.SSH}
	if cfg.SSH != "" {
		t, err := tmux.New(tmux.Options{Bin: cfg.TmuxBin, SocketName: cfg.SocketName, SocketPath: cfg.SocketPath, Logger: log,
			SSH: cfg.SSH, SSHConfig: cfg.SSHConfig})
		if err != nil {
			return nil, err
		}
		lc.Append(fx.StopHook(t.Close))
		log.Info("driving tmux on a remote host over ssh", "ssh", cfg.SSH, "socket", target.Workspace().Panes, "version", t.Version())
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := t.Ping(ctx); err != nil {
			log.Warn("no tmux server answers on the remote host yet", "ssh", cfg.SSH, "error", err)
		}
		return &TmuxBackend{Terminal: t, Target: target}, nil
	}
	stopPrivate := func() error { return nil }
	if cfg.SocketName == "" && cfg.SocketPath == "" {
		name, session, stop, err := tmux.StartPrivate(tmux.Options{Bin: cfg.TmuxBin, Shell: cfg.Shell, Logger: log})
		if err != nil {
			return nil, err
		}
		target.SocketName, target.Session, stopPrivate = name, session, stop
		undo.Add(stop)
		log.Info("started a private tmux server; name a socket with -socket-name or -socket-path to use another",
			"socket", name, "session", session, "attach", target.Workspace().Attach)
	}
	t, err := tmux.New(tmux.Options{Bin: target.Bin, SocketName: target.SocketName, SocketPath: target.SocketPath, Logger: log})
	if err != nil {
		return nil, errors.Join(err, stopPrivate())
	}
	lc.Append(fx.StopHook(func() error { return errors.Join(t.Close(), stopPrivate()) }))
	b := &TmuxBackend{Terminal: t, Target: target}
	if target.Session != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		panes, err := t.ListPanes(ctx, ports.PaneFilter{Session: target.Session})
		if err != nil {
			return nil, errors.Join(fmt.Errorf("list the panes of the private session: %w", err), t.Close(), stopPrivate())
		}
		for _, p := range panes {
			b.Starting = append(b.Starting, p.ID)
		}
	}
	return b, nil
}

// Workspace says where the target's panes are.
func (t TmuxTarget) Workspace() Workspace {
	bin := t.Bin
	if bin == "" {
		bin = "tmux"
	}
	var socket []string
	switch {
	case t.SocketPath != "":
		socket = []string{"-S", t.SocketPath}
	case t.SocketName != "":
		socket = []string{"-L", t.SocketName}
	}
	switch {
	case t.SSH != "":
		where := "the default tmux server"
		if socket != nil {
			where = "the tmux server on " + strings.Join(socket, " ")
		}
		attach := append(append([]string{bin}, socket...), "attach")
		return Workspace{Panes: where + " of " + t.SSH + ", reached through ssh",
			Attach: shellJoin("ssh", "-t", t.SSH, shellJoin(attach...))}
	case t.Session != "":
		return Workspace{Panes: "a private tmux server of its own, removed when it exits",
			Attach: shellJoin(bin, "-L", t.SocketName, "attach", "-t", t.Session)}
	case t.SocketPath != "":
		return Workspace{Panes: "the tmux server at " + t.SocketPath, Attach: shellJoin(bin, "-S", t.SocketPath, "attach")}
	default:
		return Workspace{Panes: "the tmux server on socket " + t.SocketName, Attach: shellJoin(bin, "-L", t.SocketName, "attach")}
	}
}

// ScreenBackendModule binds the GNU screen adapter to ports.Terminal. It
// has no Manager nor Leaser: the inspect and lifecycle tools are not
// offered, and one writer per pane holds within this process only.
var ScreenBackendModule = fx.Module("backend-screen",
	fx.Provide(
		NewScreenBackend,
		fx.Annotate((*ScreenBackend).terminal, fx.As(new(ports.Terminal))),
		(*ScreenBackend).workspace,
	),
)

// ScreenBackend is the screen terminal and the session it works on.
type ScreenBackend struct {
	Terminal *screen.Terminal
	// Session is the session's name; Private says the server started it
	// and quits it on exit.
	Session string
	Private bool
}

func (b *ScreenBackend) terminal() *screen.Terminal { return b.Terminal }

func (b *ScreenBackend) workspace() Workspace {
	ids := "Pane %N is window number N of the GNU screen session " + b.Session
	if b.Private {
		return Workspace{Panes: "a private GNU screen session of its own, quit when it exits",
			Attach: shellJoin("screen", "-r", b.Session), PaneIDs: ids + ", which the server started with one window, %0."}
	}
	return Workspace{Panes: "the GNU screen session " + b.Session, Attach: shellJoin("screen", "-x", b.Session), PaneIDs: ids + "."}
}

// NewScreenBackend returns the screen terminal for the session cfg names,
// closed when the application stops. When cfg names none it starts a
// private screen session with one window and quits it when the
// application stops, so that the server never writes into a session
// nobody named; the log says how to attach to it.
func NewScreenBackend(lc fx.Lifecycle, cfg Config, log *slog.Logger, undo *Undo) (*ScreenBackend, error) {
	opts := screen.Options{Session: cfg.ScreenSession, AssumeNoCopyMode: cfg.ScreenNoCopyMode}
	b := &ScreenBackend{Session: cfg.ScreenSession}
	stopPrivate := func() error { return nil }
	if opts.Session == "" {
		session, stop, err := screen.StartPrivate(screen.Options{})
		if err != nil {
			return nil, err
		}
		// screen cannot tell whether a window is in copy mode, and without
		// this vouching every write is refused. A fresh private session has
		// no window in it, as the screen adapter advises for such sessions;
		// a person who attaches to it and enters copy mode defeats it.
		opts.Session, opts.HistoryLimit, opts.AssumeNoCopyMode, stopPrivate = session, screen.PrivateHistoryLimit, true, stop
		undo.Add(stop)
		b.Session, b.Private = session, true
		log.Info("started a private screen session; name one with -screen-session to use another",
			"session", session, "attach", b.workspace().Attach)
	}
	t, err := screen.New(opts)
	if err != nil {
		return nil, errors.Join(err, stopPrivate())
	}
	lc.Append(fx.StopHook(func() error { return errors.Join(t.Close(), stopPrivate()) }))
	b.Terminal = t
	return b, nil
}

// shellJoin returns the command line a person types to run args, each
// quoted for a POSIX shell where it needs it.
func shellJoin(args ...string) string {
	quoted := make([]string, len(args))
	for i, a := range args {
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./%@:+=,") == "" {
			quoted[i] = a
		} else {
			quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(quoted, " ")
}

// AuditModule provides the audit log cfg asks for, or a nil *audit.Log,
// which records nothing.
var AuditModule = fx.Module("audit",
	fx.Provide(NewAuditLog),
)

// NewAuditLog opens the audit log at cfg.AuditPath for appending, closed
// when the application stops, or returns nil when cfg names none. A file
// that cannot be opened fails the start: a server asked to audit must not
// serve unaudited.
func NewAuditLog(lc fx.Lifecycle, cfg Config, log *slog.Logger) (*audit.Log, error) {
	if cfg.AuditPath == "" {
		return nil, nil
	}
	a, err := audit.Open(cfg.AuditPath)
	if err != nil {
		return nil, err
	}
	log.Info("writing an audit line per tool call", "path", cfg.AuditPath)
	lc.Append(fx.StopHook(a.Close))
	return a, nil
}

// MCPModule provides the MCP server on the domain service.
var MCPModule = fx.Module("mcp",
	fx.Provide(provideMCPServer),
)

// NewMCPServer returns the MCP server whose pane tools call s and whose
// inspect and lifecycle tools call life, at the given safety tier and
// with only the tools named (all of the tier's when tools is empty),
// recording each call in auditLog (nil for none) and sending the log
// lines published to logs (nil for none) to the clients that ask. A nil
// life is a backend that cannot list and shape sessions: those tools,
// which would only fail, are not offered, and the instructions tell
// clients how ws's pane ids are found instead.
func NewMCPServer(s *domain.Service, life *lifecycle.Service, safety Safety, tools []string, auditLog *audit.Log, log *slog.Logger, logs *mcp.LogBridge, ws Workspace) *mcp.Server {
	opts := mcp.Options{Version: Version(), Logger: log, Safety: mcp.Tier(safety), Tools: tools, Audit: auditLog, Logs: logs, PanesNote: ws.PaneIDs, Attach: ws.Attach}
	if life != nil {
		opts.Manage = life
	}
	return mcp.NewServer(s, opts)
}

type mcpServerParams struct {
	fx.In
	Service   *domain.Service
	Lifecycle *lifecycle.Service
	Config    Config
	Audit     *audit.Log
	Logger    *slog.Logger
	Logs      *mcp.LogBridge `optional:"true"`
	Workspace Workspace
}

func provideMCPServer(p mcpServerParams) *mcp.Server {
	return NewMCPServer(p.Service, p.Lifecycle, p.Config.Safety, p.Config.Tools, p.Audit, p.Logger, p.Logs, p.Workspace)
}
