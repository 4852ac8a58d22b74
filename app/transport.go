package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"go.uber.org/fx"
	"go.uber.org/zap"

	mcpadapter "github.com/tmux-mcp/tmux-mcp/adapters/mcp"
)

// TransportModule serves the MCP server on the transport cfg names. It is
// the application's one invoke: it is what makes the server run.
func TransportModule(cfg Config, std Stdio) fx.Option {
	if cfg.Transport == TransportHTTP {
		return fx.Module("transport-http", fx.Invoke(func(lc fx.Lifecycle, sd fx.Shutdowner, srv *mcpadapter.Server, log *zap.Logger) {
			ServeHTTP(lc, sd, srv, log, cfg.Listen)
		}))
	}
	return fx.Module("transport-stdio", fx.Invoke(func(lc fx.Lifecycle, sd fx.Shutdowner, srv *mcpadapter.Server, log *zap.Logger) {
		ServeStdio(lc, sd, srv, log, std.In, std.Out)
	}))
}

// ServeStdio serves srv over in and out while the application runs, and
// shuts the application down when in ends (exit code 0) or the transport
// fails (exit code 1). Stopping the application cancels running calls and
// ends the session. out is never closed, and nothing but JSON-RPC is
// written to it.
func ServeStdio(lc fx.Lifecycle, sd fx.Shutdowner, srv *mcpadapter.Server, log *zap.Logger, in io.Reader, out io.Writer) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	rc, ok := in.(io.ReadCloser)
	if !ok {
		rc = io.NopCloser(in)
	}
	lc.Append(fx.Hook{
		OnStart: func(context.Context) error {
			log.Info("serving MCP on stdio")
			go func() {
				defer close(done)
				err := srv.ServeStdio(ctx, rc, nopWriteCloser{out})
				code := 0
				switch {
				case ctx.Err() != nil: // stopped by the application
				case err != nil:
					log.Error("stdio transport failed", zap.Error(err))
					code = 1
				default:
					log.Info("stdin closed; shutting down")
				}
				_ = sd.Shutdown(fx.ExitCode(code))
			}()
			return nil
		},
		OnStop: func(stopCtx context.Context) error {
			srv.Close()
			cancel()
			select {
			case <-done:
				return nil
			case <-stopCtx.Done():
				return fmt.Errorf("stop stdio transport: %w", stopCtx.Err())
			}
		},
	})
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// ServeHTTP serves srv over streamable HTTP at addr, path
// mcpadapter.HTTPPath, while the application runs. The address is bound at
// start, so a taken port fails the start. If serving fails later, the
// application shuts down with exit code 1.
func ServeHTTP(lc fx.Lifecycle, sd fx.Shutdowner, srv *mcpadapter.Server, log *zap.Logger, addr string) {
	hs := &http.Server{Handler: srv.HTTPHandler(), ReadHeaderTimeout: 10 * time.Second}
	lc.Append(fx.Hook{
		OnStart: func(context.Context) error {
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return fmt.Errorf("listen on %s: %w", addr, err)
			}
			log.Info("serving MCP over HTTP", zap.String("url", "http://"+ln.Addr().String()+mcpadapter.HTTPPath))
			go func() {
				if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
					log.Error("http transport failed", zap.Error(err))
					_ = sd.Shutdown(fx.ExitCode(1))
				}
			}()
			return nil
		},
		OnStop: func(ctx context.Context) error {
			srv.Close()
			if err := hs.Shutdown(ctx); err != nil {
				// Streams still open at the deadline are cut.
				_ = hs.Close()
				return fmt.Errorf("stop http transport: %w", err)
			}
			return nil
		},
	})
}
