package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
	"unicode"

	"go.uber.org/fx"

	"github.com/tmux-mcp/tmux-mcp/adapters/clock"
	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
	"github.com/tmux-mcp/tmux-mcp/adapters/mcp"
	"github.com/tmux-mcp/tmux-mcp/adapters/mcp/audit"
	"github.com/tmux-mcp/tmux-mcp/adapters/multihost"
	"github.com/tmux-mcp/tmux-mcp/adapters/outputstore"
	"github.com/tmux-mcp/tmux-mcp/adapters/random"
	"github.com/tmux-mcp/tmux-mcp/adapters/screen"
	"github.com/tmux-mcp/tmux-mcp/adapters/tmux"
	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/domain/lifecycle"
	"github.com/tmux-mcp/tmux-mcp/domain/runlog"
	"github.com/tmux-mcp/tmux-mcp/domain/writers"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// Each module below wires one concern. Its constructors are plain
// functions, usable without fx: they take what they need and return what
// they made, with a Close where it must be closed; the modules only
// compose them, binding them to the ports and closing them on stop.

// ConfigModule supplies the settings and the domain's share of them.
func ConfigModule(cfg Config) fx.Option {
	return fx.Module("config",
		fx.Supply(cfg),
		fx.Provide(DomainConfig),
	)
}

// Undo holds the Close of what the constructors opened (a tmux client and
// its private server, a screen session, the audit log), so that a failed
// build can close it: when building the application fails, fx runs no
// stop hook at all. New runs it then; after a successful build the stop
// hooks do the work.
type Undo struct {
	mu  sync.Mutex
	fns []func() error
}

// Add registers f.
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

// closing is open, a plain constructor of something that must be closed,
// as fx provides it: closed when the application stops, or by the Undo
// when building the application fails.
func closing[T interface{ Close() error }](open func(Config, *Logger) (T, error)) func(fx.Lifecycle, *Undo, Config, *Logger) (T, error) {
	return func(lc fx.Lifecycle, undo *Undo, cfg Config, log *Logger) (T, error) {
		v, err := open(cfg, log)
		if err != nil {
			return v, err
		}
		undo.Add(v.Close)
		lc.Append(fx.StopHook(v.Close))
		return v, nil
	}
}

// DomainModule provides what carries out the calls: the writers.Pool of
// the process (one writer per pane: its reservations, and its leases when
// the backend has a ports.Leaser), the pane tools' *domain.Service on it
// and, when the backend has a ports.Manager, the lifecycle tools'
// *lifecycle.Service on the same pool. There must be one of each per
// process, since the pool holds the reservations.
//
// The pool is constructed before the Services, so stopped after them:
// their last releases still reach the leaser. The Services' output
// streams are stopped before the backend that serves them (fx stops in
// reverse order of construction).
var DomainModule = fx.Module("domain",
	fx.Provide(
		fx.Annotate(random.New, fx.As(new(ports.IDSource))),
		fx.Annotate(NewProcessPool, fx.ParamTags(`optional:"true"`), fx.OnStop((*writers.Pool).Close)),
		closing(NewOutputStore),
		fx.Annotate(NewService, fx.ParamTags("", "", "", "", "", "", "", `optional:"true"`, `group:"startingPanes"`), fx.OnStop((*domain.Service).Close)),
		fx.Annotate(NewLifecycle, fx.ParamTags(`optional:"true"`)),
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

// NewProcessPool is NewPool for the process: its leases, when there is a
// leaser, are taken under a fresh NewLeaseOwner, which log is told.
func NewProcessPool(l ports.Leaser, clk ports.Clock, log *Logger) *writers.Pool {
	owner := NewLeaseOwner()
	if l != nil {
		log.Info("leasing panes so that other tmux-mcp processes on the same server do not write into them at once",
			"owner", owner)
	}
	return NewPool(l, clk, owner)
}

// NewService returns the pane tools' Service on the given terminal, clock
// and ids, holding panes in pool, which the lifecycle tools must share.
// Its events are logged to log, when not nil, as warnings: what an
// operator wants to hear of (see domain.Event). The whole output of runs
// is kept in outputs, when it holds a store. The backend's Manager, when
// it has one, tells where a pane's cursor is (a far shell's prompt). The
// panes in starting are waited for before the Service first types into
// them.
func NewService(term ports.Terminal, clk ports.Clock, ids ports.IDSource, cfg domain.Config, pool *writers.Pool, log *Logger, outputs *OutputStore, m ports.Manager, starting ...ports.PaneID) *domain.Service {
	opts := []domain.Option{domain.WithWriters(pool)}
	if m != nil {
		opts = append(opts, domain.WithLister(m))
	}
	if outputs != nil && outputs.Store != nil {
		opts = append(opts, domain.WithOutputStore(outputs.Store))
	}
	if log != nil {
		opts = append(opts, domain.WithEvents(func(e domain.Event) {
			log.Warn(e.Message, "event", e.Kind, "pane", string(e.Pane))
		}))
	}
	s := domain.NewService(term, clk, ids, cfg, opts...)
	for _, pane := range starting {
		s.ExpectStartingShell(pane)
	}
	return s
}

// OutputStore is where the whole output of runs is kept, for
// read_output; Store is nil when nothing is kept.
type OutputStore struct {
	Store ports.OutputStore
	close func() error
}

// Close removes what the store keeps on disk, if anything. Calls after
// the first return the first's error.
func (o *OutputStore) Close() error { return o.close() }

// NewOutputStore returns where the whole output of runs is kept: in
// memory for the fake backend, which touches no disk, else a private
// directory under the user's state directory (adapters/outputstore),
// removed by Close. A budget of 0 keeps nothing: Store is nil. So is it
// when the directory cannot be made, with a warning: the tools serve all
// the same, and read_output says that nothing was kept.
func NewOutputStore(cfg Config, log *Logger) (*OutputStore, error) {
	none := &OutputStore{close: func() error { return nil }}
	switch {
	case cfg.OutputBudget == 0:
		log.Info("keeping no run output (-output-budget 0): read_output has nothing to read")
		return none, nil
	case cfg.Backend == BackendFake:
		return &OutputStore{Store: fake.NewOutputStore(), close: func() error { return nil }}, nil
	}
	d, err := outputstore.Open("")
	if err != nil {
		log.Warn("keeping no run output: read_output will have nothing to read", "error", err)
		return none, nil
	}
	log.Info("keeping the output of runs for read_output", "dir", d.Path(), "budget", runlog.Size(cfg.OutputBudget))
	return &OutputStore{Store: d, close: sync.OnceValue(d.Close)}, nil
}

// StartingPanes are panes a backend has just made, whose shells may not
// read input yet: the pane tools wait for them before they first type
// (see domain.Service.ExpectStartingShell). A backend module hands them
// to NewService in the value group "startingPanes".
type StartingPanes []ports.PaneID

// NewLifecycle returns the lifecycle tools' Service on the backend's
// Manager m, describing panes through term and holding them in pool; the
// panes it creates are waited for by svc before it types into them. It
// returns nil when m is nil, a backend that cannot list and shape
// sessions: the inspect and lifecycle tools are then not offered.
func NewLifecycle(m ports.Manager, term ports.Terminal, pool *writers.Pool, svc *domain.Service) *lifecycle.Service {
	if m == nil {
		return nil
	}
	return lifecycle.New(lifecycle.FromManager(m), term, pool, svc.ExpectStartingShell)
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
	if len(cfg.Hosts) > 0 {
		return fx.Options(HostsBackendModule, SystemClockModule)
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
		closing(NewTmuxBackend),
		fx.Annotate((*TmuxBackend).terminal,
			fx.As(new(ports.Terminal)), fx.As(new(ports.Manager)), fx.As(new(ports.Leaser))),
		(*TmuxBackend).workspace,
		fx.Annotate((*TmuxBackend).starting, fx.ResultTags(`group:"startingPanes,flatten"`)),
	),
)

// TmuxBackend is the tmux terminal and the server it works on.
type TmuxBackend struct {
	Terminal *tmux.Terminal
	Target   TmuxTarget
	// Starting are the panes of a private server's session, whose shell
	// was started with the server and may not read input yet.
	Starting StartingPanes

	close func() error
}

// Close closes the terminal and stops the private server it started, if
// any. Calls after the first return the first's error.
func (b *TmuxBackend) Close() error { return b.close() }

func (b *TmuxBackend) starting() []ports.PaneID { return b.Starting }

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

// NewTmuxBackend returns the tmux terminal cfg selects. When cfg names no
// socket it starts a private tmux server with one session, which Close
// kills, so that the server never writes into panes of a tmux server
// nobody named; the log says how to attach to it.
//
// With cfg.SSH the tmux server is on that host, reached through ssh, and
// without a socket setting it is the remote user's default server: a
// private server there would outlive a crash of this process with nothing
// to remove it. ssh failing to connect or log in fails the start; a
// remote host with no tmux server running yet is only logged, since
// create_session starts one.
func NewTmuxBackend(cfg Config, log *Logger) (*TmuxBackend, error) {
	target := TmuxTarget{Bin: cfg.TmuxBin, SocketName: cfg.SocketName, SocketPath: cfg.SocketPath, SSH: cfg.SSH}
	if cfg.SSH != "" {
		t, err := tmux.New(tmux.Options{Bin: cfg.TmuxBin, SocketName: cfg.SocketName, SocketPath: cfg.SocketPath, Logger: log,
			SSH: cfg.SSH, SSHConfig: cfg.SSHConfig})
		if err != nil {
			return nil, err
		}
		log.Info("driving tmux on a remote host over ssh", "ssh", cfg.SSH, "socket", target.Workspace().Panes, "version", t.Version())
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := t.Ping(ctx); err != nil {
			log.Warn("no tmux server answers on the remote host yet", "ssh", cfg.SSH, "error", err)
		}
		return &TmuxBackend{Terminal: t, Target: target, close: sync.OnceValue(t.Close)}, nil
	}
	if err := checkLocalPrograms(cfg); err != nil {
		return nil, err
	}
	stopPrivate := func() error { return nil }
	if cfg.SocketName == "" && cfg.SocketPath == "" {
		name, session, stop, err := tmux.StartPrivate(tmux.Options{Bin: cfg.TmuxBin, Shell: cfg.Shell, Logger: log, ShellIntegration: cfg.ShellIntegration})
		if err != nil {
			return nil, unavailable(err)
		}
		target.SocketName, target.Session, stopPrivate = name, session, stop
		log.Info("started a private tmux server; name a socket with -socket-name or -socket-path to use another",
			"socket", name, "session", session, "attach", target.Workspace().Attach)
	}
	t, err := tmux.New(tmux.Options{Bin: target.Bin, SocketName: target.SocketName, SocketPath: target.SocketPath, Logger: log,
		ShellIntegration: cfg.ShellIntegration})
	if err != nil {
		return nil, unavailable(errors.Join(err, stopPrivate()))
	}
	b := &TmuxBackend{Terminal: t, Target: target, close: sync.OnceValue(func() error { return errors.Join(t.Close(), stopPrivate()) })}
	if target.Session != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		panes, err := t.ListPanes(ctx, ports.PaneFilter{Session: target.Session})
		if err != nil {
			return nil, errors.Join(fmt.Errorf("list the panes of the private session: %w", err), b.Close())
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

// HostsBackendModule binds adapters/multihost's router over the tmux
// server of each of cfg.Hosts, each reached through its own ssh
// connection, to ports.Terminal, ports.Manager, ports.HostLister and,
// when every host leases panes, ports.Leaser.
var HostsBackendModule = fx.Module("backend-hosts",
	fx.Provide(
		closing(NewHostsBackend),
		fx.Annotate((*HostsBackend).router,
			fx.As(new(ports.Terminal)), fx.As(new(ports.Manager)), fx.As(new(ports.HostLister))),
		(*HostsBackend).leaser,
		(*HostsBackend).workspace,
	),
)

// HostsBackend is the router over the hosts' tmux terminals.
type HostsBackend struct {
	Router *multihost.Terminal
	Hosts  []HostSpec
}

// Close closes every host's terminal. Calls after the first close
// nothing more.
func (b *HostsBackend) Close() error { return b.Router.Close() }

func (b *HostsBackend) router() *multihost.Terminal { return b.Router }

// leaser is the router's, or nil (no leases) when a host keeps none.
func (b *HostsBackend) leaser() ports.Leaser { return b.Router.Leaser() }

func (b *HostsBackend) workspace() Workspace {
	where := make([]string, len(b.Hosts))
	for i, h := range b.Hosts {
		where[i] = h.Name + " (" + h.Destination + ")"
	}
	return Workspace{Panes: fmt.Sprintf("the tmux servers of %d hosts, each reached through ssh: %s; ids carry their host, as web1:%%3", len(b.Hosts), strings.Join(where, ", "))}
}

// NewHostsBackend connects to the tmux server of every host of cfg.Hosts
// at once, each as NewTmuxBackend does for one -ssh (without a socket
// setting, the remote user's default server), and returns the router
// over them. A host that cannot be reached is logged and left to be
// dialed again when a call needs it (list_hosts reports it meanwhile);
// only when no host can be reached does the start fail.
func NewHostsBackend(cfg Config, log *Logger) (*HostsBackend, error) {
	dial := func(h HostSpec) (*tmux.Terminal, error) {
		t, err := tmux.New(tmux.Options{Bin: cfg.TmuxBin, SocketName: cfg.SocketName, SocketPath: cfg.SocketPath, Logger: log,
			SSH: h.Destination, SSHConfig: cfg.SSHConfig})
		if err != nil {
			return nil, err
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := t.Ping(ctx); err != nil {
			log.Warn("no tmux server answers on the host yet", "host", h.Name, "ssh", h.Destination, "error", err)
		}
		return t, nil
	}
	asHost := func(t *tmux.Terminal) multihost.Host {
		return multihost.Host{Terminal: t, Manager: t, Leaser: t, Close: sync.OnceValue(t.Close)}
	}
	terms := make([]*tmux.Terminal, len(cfg.Hosts))
	errs := make([]error, len(cfg.Hosts))
	var wg sync.WaitGroup
	for i, h := range cfg.Hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			terms[i], errs[i] = dial(h)
		}()
	}
	wg.Wait()
	hosts := make([]multihost.Host, len(cfg.Hosts))
	reached := 0
	for i, h := range cfg.Hosts {
		if errs[i] != nil {
			log.Warn("cannot reach a host; it is tried again when a call needs it", "host", h.Name, "ssh", h.Destination, "error", errs[i])
			hosts[i] = multihost.Host{Dial: func(context.Context) (multihost.Host, error) {
				t, err := dial(h)
				if err != nil {
					return multihost.Host{}, err
				}
				log.Info("reached a host that could not be reached before", "host", h.Name, "ssh", h.Destination, "version", t.Version())
				return asHost(t), nil
			}}
		} else {
			reached++
			log.Info("driving tmux on a host over ssh", "host", h.Name, "ssh", h.Destination, "version", terms[i].Version())
			hosts[i] = asHost(terms[i])
		}
		hosts[i].Name, hosts[i].Destination = h.Name, h.Destination
	}
	closeAll := func() error {
		var errs []error
		for _, t := range terms {
			if t != nil {
				errs = append(errs, t.Close())
			}
		}
		return errors.Join(errs...)
	}
	if reached == 0 {
		why := make([]string, len(errs))
		for i, err := range errs {
			why[i] = cfg.Hosts[i].Name + ": " + err.Error()
		}
		return nil, &StartError{Cause: "no host can be reached (" + strings.Join(why, "; ") + ")",
			Fix: "check each with ssh DESTINATION; the server starts once one answers", Err: errors.Join(errs...)}
	}
	r, err := multihost.New(hosts, multihost.Options{})
	if err != nil {
		return nil, errors.Join(err, closeAll())
	}
	return &HostsBackend{Router: r, Hosts: cfg.Hosts}, nil
}

// ScreenBackendModule binds the GNU screen adapter to ports.Terminal. It
// has no Manager nor Leaser: the inspect and lifecycle tools are not
// offered, and one writer per pane holds within this process only.
var ScreenBackendModule = fx.Module("backend-screen",
	fx.Provide(
		closing(NewScreenBackend),
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

	close func() error
}

// Close closes the terminal and quits the private session it started, if
// any. Calls after the first return the first's error.
func (b *ScreenBackend) Close() error { return b.close() }

func (b *ScreenBackend) terminal() *screen.Terminal { return b.Terminal }

func (b *ScreenBackend) workspace() Workspace {
	ids := "Pane %N is window number N of the GNU screen session " + b.Session
	if b.Private {
		return Workspace{Panes: "a private GNU screen session of its own, quit when it exits",
			Attach: shellJoin("screen", "-r", b.Session), PaneIDs: ids + ", which the server started with one window, %0."}
	}
	return Workspace{Panes: "the GNU screen session " + b.Session, Attach: shellJoin("screen", "-x", b.Session), PaneIDs: ids + "."}
}

// NewScreenBackend returns the screen terminal for the session cfg names.
// When cfg names none it starts a private screen session with one
// window, which Close quits, so that the server never writes into a
// session nobody named; the log says how to attach to it.
func NewScreenBackend(cfg Config, log *Logger) (*ScreenBackend, error) {
	if _, err := exec.LookPath("screen"); err != nil {
		return nil, &StartError{Cause: "GNU screen not found on PATH", Fix: "install it (apt-get install screen, brew install screen), or use -backend tmux", Err: err}
	}
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
		b.Session, b.Private = session, true
		log.Info("started a private screen session; name one with -screen-session to use another",
			"session", session, "attach", b.workspace().Attach)
	}
	t, err := screen.New(opts)
	if err != nil {
		return nil, errors.Join(err, stopPrivate())
	}
	b.Terminal, b.close = t, sync.OnceValue(func() error { return errors.Join(t.Close(), stopPrivate()) })
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
	fx.Provide(closing(NewAuditLog)),
)

// NewAuditLog opens the audit log at cfg.AuditPath for appending, or
// returns nil when cfg names none (a nil *audit.Log records nothing, and
// closes). A file that cannot be opened fails the start: a server asked
// to audit must not serve unaudited.
func NewAuditLog(cfg Config, log *Logger) (*audit.Log, error) {
	if cfg.AuditPath == "" {
		return nil, nil
	}
	a, err := audit.Open(cfg.AuditPath)
	if err != nil {
		return nil, &StartError{Cause: fmt.Sprintf("-audit %s: %v", cfg.AuditPath, rootOf(err)),
			Fix: "name a file you may create or append to, in a directory that exists", Setting: true, Err: err}
	}
	log.Info("writing an audit line per tool call", "path", cfg.AuditPath)
	return a, nil
}

// MCPModule provides the MCP server on the domain service.
var MCPModule = fx.Module("mcp",
	fx.Provide(fx.Annotate(NewMCPServer, fx.ParamTags("", "", "", "", "", `optional:"true"`, "", `optional:"true"`))),
)

// NewMCPServer returns the MCP server whose pane tools call s and whose
// inspect and lifecycle tools call life, at cfg's safety tier and with
// only the tools cfg names (all of the tier's when it names none),
// recording each call in auditLog (nil for none) and sending the log
// lines published to logs (nil for none) to the clients that ask. A nil
// life is a backend that cannot list and shape sessions: those tools,
// which would only fail, are not offered, and the instructions tell
// clients how ws's pane ids are found instead. hosts, when not nil, is a
// backend of several hosts: the server then offers list_hosts and takes
// and gives ids with their host.
func NewMCPServer(s *domain.Service, life *lifecycle.Service, cfg Config, auditLog *audit.Log, log *Logger, logs *mcp.LogBridge, ws Workspace, hosts ports.HostLister) *mcp.Server {
	opts := mcp.Options{Version: Version(), Logger: log, Safety: mcp.Tier(cfg.Safety), Tools: cfg.Tools, Audit: auditLog, Logs: logs, PanesNote: ws.PaneIDs, Attach: ws.Attach, Hosts: hosts}
	if life != nil {
		opts.Manage = life
	}
	return mcp.NewServer(s, opts)
}
