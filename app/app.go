// Package app wires the server together with go.uber.org/fx: one module
// per concern (config, logging, backend, clock, domain, MCP, transport),
// adapters bound to the ports with fx.As. It is, with cmd/, the only
// package that knows fx; every constructor here is a plain function too.
package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime/debug"

	"go.uber.org/fx"
	"go.uber.org/zap"
)

// version is the server's version when set at link time, as make build
// does: -ldflags "-X github.com/tmux-mcp/tmux-mcp/app.version=v1.2.3".
var version string

// Version returns the server's version, which -version prints and the MCP
// initialize reply carries (serverInfo.version): the one set at link time;
// else the module version Go recorded in the binary (go install
// module@v1.2.3, or a pseudo-version Go derives from the repository);
// else "devel-" and the commit Go recorded (with "-dirty" when the tree
// had changes); else "devel".
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = nil
	}
	return versionOf(version, bi)
}

// versionOf is Version for a link-time version and build information
// (nil when the binary has none).
func versionOf(linked string, bi *debug.BuildInfo) string {
	if linked != "" {
		return linked
	}
	if bi == nil {
		return "devel"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev string
	var dirty bool
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "devel"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "-dirty"
	}
	return "devel-" + rev
}

// Stdio is the process's standard streams. With the stdio transport, Out
// carries nothing but JSON-RPC; logs go to Err.
type Stdio struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer
}

// New returns the application for cfg, not started. When building it
// fails (app.Err), whatever it had started outside the process, such as a
// private tmux server, has been stopped again.
func New(cfg Config, std Stdio) *fx.App {
	stopTimeout := fx.DefaultTimeout
	if cfg.Transport == TransportStdio {
		stopTimeout = StopTimeoutStdio
	}
	undo := &Undo{}
	app := fx.New(
		fx.WithLogger(NewFxLogger),
		fx.StopTimeout(stopTimeout),
		fx.Supply(undo),
		LoggingModule(std.Err),
		ConfigModule(cfg),
		BackendModule(cfg),
		DomainModule,
		AuditModule,
		MCPModule,
		TransportModule(cfg, std),
	)
	if app.Err() != nil {
		if err := undo.Run(); err != nil {
			fmt.Fprintf(std.Err, "tmux-mcp: %v\n", err)
		}
	}
	return app
}

// Exit codes of Main.
const (
	ExitOK      = 0
	ExitFailure = 1 // the server could not start or its transport failed
	ExitUsage   = 2 // a setting is wrong; the server did not start
)

// Main runs the server as the tmux-mcp binary does, with the given
// arguments (without the program name), environment and standard streams,
// until stdin ends (stdio), a signal arrives or the transport fails. It
// returns the process's exit code.
func Main(args []string, env func(string) string, std Stdio) int {
	cfg, err := ParseConfig(args, env, std.Err)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return ExitOK
	case err != nil:
		fmt.Fprintf(std.Err, "tmux-mcp: %v\n", err)
		return ExitUsage
	case cfg.Version:
		fmt.Fprintf(std.Out, "tmux-mcp %s\n", Version())
		return ExitOK
	}

	early := catchEarlySignals()
	app := New(cfg, std)
	if err := app.Err(); err != nil {
		early.stop()
		msg, code := Explain(err)
		fmt.Fprintf(std.Err, "tmux-mcp: %s\n", msg)
		return code
	}
	// fx listens for signals from Wait on; a signal during the start
	// stops the server as soon as it has started.
	done := app.Wait()
	caught := early.stop()
	log := NewLogger(std.Err)
	log.Info("starting tmux-mcp", zap.String("version", Version()), zap.String("backend", cfg.Backend),
		zap.Bool("audit", cfg.AuditPath != ""),
		zap.String("transport", cfg.Transport), zap.String("safety", string(cfg.Safety)), zap.Strings("tools", cfg.Tools),
		zap.Duration("waitMax", cfg.WaitMax), zap.Int("maxResultLines", cfg.MaxResultLines))

	startCtx, cancel := context.WithTimeout(context.Background(), app.StartTimeout())
	defer cancel()
	if err := app.Start(startCtx); err != nil {
		// A setting found wrong only as the server started (an unusable
		// bearer token, an address it cannot listen on) exits as a wrong
		// setting all the same.
		msg, code := Explain(err)
		fmt.Fprintf(std.Err, "tmux-mcp: %s\n", msg)
		return code
	}
	var sig fx.ShutdownSignal
	if caught != nil {
		log.Info("stopping: a signal came while the server was starting", zap.String("signal", caught.String()))
		sig = fx.ShutdownSignal{Signal: caught}
	} else {
		sig = <-done
	}

	stopCtx, cancelStop := context.WithTimeout(context.Background(), app.StopTimeout())
	defer cancelStop()
	if err := app.Stop(stopCtx); err != nil {
		fmt.Fprintf(std.Err, "tmux-mcp: %v\n", err)
		if sig.ExitCode == ExitOK {
			return ExitFailure
		}
	}
	return sig.ExitCode
}
