package app

import (
	"errors"
	"log/slog"
	"time"

	"go.uber.org/fx"

	"github.com/tmux-mcp/tmux-mcp/adapters/clock"
	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
	mcpadapter "github.com/tmux-mcp/tmux-mcp/adapters/mcp"
	"github.com/tmux-mcp/tmux-mcp/adapters/tmux"
	"github.com/tmux-mcp/tmux-mcp/domain"
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

// DomainModule provides the Service that carries out every call. There
// must be one per process: it holds the pane reservations.
var DomainModule = fx.Module("domain",
	fx.Provide(NewService),
)

// NewService returns the domain service on the given terminal and clock.
func NewService(term ports.Terminal, clk ports.Clock, cfg domain.Config) *domain.Service {
	return domain.NewService(term, clk, cfg)
}

// SystemClockModule binds the system clock to ports.Clock.
var SystemClockModule = fx.Module("clock",
	fx.Provide(fx.Annotate(clock.New, fx.As(new(ports.Clock)))),
)

// BackendModule returns the terminal backend cfg names, with its clock.
func BackendModule(cfg Config) fx.Option {
	if cfg.Backend == BackendFake {
		return FakeBackendModule
	}
	return fx.Options(TmuxBackendModule, SystemClockModule)
}

// FakeBackendModule binds adapters/fake's in-memory terminal and clock to
// the ports. The terminal has one pane, %0, running the fake's scripted
// bash (a small subset of sh: echo, printf, sleep, exit, ...). Its clock is
// moved along with the system clock, so that a sleep takes real time; the
// domain reads the same clock, so the two never disagree. Nothing runs
// outside the process.
var FakeBackendModule = fx.Module("backend-fake",
	fx.Provide(
		fx.Annotate(newDrivenFakeClock, fx.As(fx.Self()), fx.As(new(ports.Clock))),
		fx.Annotate(NewFakeTerminal, fx.As(new(ports.Terminal))),
	),
)

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

// TmuxBackendModule binds the tmux adapter to ports.Terminal.
var TmuxBackendModule = fx.Module("backend-tmux",
	fx.Provide(fx.Annotate(NewTmuxTerminal, fx.As(new(ports.Terminal)))),
)

// NewTmuxTerminal returns the tmux terminal cfg selects, closed when the
// application stops. When cfg names no socket it starts a private tmux
// server with one session and kills it when the application stops, so that
// the server never writes into panes of a tmux server nobody named; the
// log says how to attach to it.
func NewTmuxTerminal(lc fx.Lifecycle, cfg Config, log *slog.Logger) (*tmux.Terminal, error) {
	opts := tmux.Options{Bin: cfg.TmuxBin, SocketName: cfg.SocketName, SocketPath: cfg.SocketPath, Logger: log}
	stopPrivate := func() error { return nil }
	if cfg.SocketName == "" && cfg.SocketPath == "" {
		name, session, stop, err := tmux.StartPrivate(opts)
		if err != nil {
			return nil, err
		}
		opts.SocketName, stopPrivate = name, stop
		log.Info("started a private tmux server; name a socket with -socket-name or -socket-path to use another",
			"socket", name, "session", session, "attach", "tmux -L "+name+" attach -t "+session)
	}
	t, err := tmux.New(opts)
	if err != nil {
		return nil, errors.Join(err, stopPrivate())
	}
	lc.Append(fx.StopHook(func() error { return errors.Join(t.Close(), stopPrivate()) }))
	return t, nil
}

// MCPModule provides the MCP server on the domain service.
var MCPModule = fx.Module("mcp",
	fx.Provide(NewMCPServer),
)

// NewMCPServer returns the MCP server whose tools call s.
func NewMCPServer(s *domain.Service, log *slog.Logger) *mcpadapter.Server {
	return mcpadapter.NewServer(s, mcpadapter.Options{Version: Version(), Logger: log})
}
