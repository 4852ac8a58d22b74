package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/tmux-mcp/tmux-mcp/adapters/mcp"
)

// TransportModule serves the MCP server on the transport cfg names. It is
// the application's one invoke: it is what makes the server run. The
// transports themselves (StdioTransport, HTTPTransport) are plain values;
// fx only starts and stops them, and shuts the application down when one
// ends by itself.
func TransportModule(cfg Config, std Stdio) fx.Option {
	if cfg.Transport == TransportHTTP {
		return fx.Module("transport-http", fx.Invoke(func(lc fx.Lifecycle, sd fx.Shutdowner, srv *mcp.Server, log *zap.Logger, ws Workspace) {
			set := HTTPSettings{Listen: cfg.Listen, TokenFile: cfg.TokenFile, Token: cfg.Token}
			if IsTerminal(std.In) {
				set.Note, set.Workspace = std.Err, ws
			}
			runTransport(lc, sd, NewHTTPTransport(srv, log, set))
		}))
	}
	return fx.Module("transport-stdio", fx.Invoke(func(lc fx.Lifecycle, sd fx.Shutdowner, srv *mcp.Server, log *zap.Logger, ws Workspace) {
		if cfg.TokenFile != "" || cfg.Token != "" {
			// Said, not refused: a token in the environment is common to
			// every server a shell starts, whatever its transport.
			log.Warn("a bearer token is set, but only the http transport uses one; stdio needs none")
		}
		set := StdioSettings{}
		if IsTerminal(std.In) {
			set.Note = TerminalNote(ws)
		}
		runTransport(lc, sd, NewStdioTransport(srv, log, std.In, std.Out, std.Err, set))
	}))
}

// A transport serves the MCP server from Start until Stop, or until it
// ends by itself, which Ended tells with the exit code the process should
// end with.
type transport interface {
	Start(ctx context.Context) error
	Stop(ctx context.Context) error
	Ended() <-chan int
}

// runTransport starts t with the application and stops it with the
// application, which it shuts down when t ends by itself.
func runTransport(lc fx.Lifecycle, sd fx.Shutdowner, t transport) {
	stopped := make(chan struct{})
	lc.Append(fx.Hook{
		OnStart: func(ctx context.Context) error {
			if err := t.Start(ctx); err != nil {
				return err
			}
			go func() {
				select {
				case code := <-t.Ended():
					_ = sd.Shutdown(fx.ExitCode(code))
				case <-stopped:
				}
			}()
			return nil
		},
		OnStop: func(ctx context.Context) error {
			close(stopped)
			return t.Stop(ctx)
		},
	})
}

// releaseStartGarbage gives the garbage of the start back to the system,
// just before the transport serves (its hook is the last to start). The
// start makes a few megabytes of it (the MCP SDK encodes and decodes every
// tool's schemas again as it adds the tool), which a collection frees but
// leaves mapped, and a server that then idles, as most do most of the
// time, would keep them: 1.1 MB, or nothing, as the collections fell.
func releaseStartGarbage() { debug.FreeOSMemory() }

// StdioSettings are the settings of the stdio transport.
type StdioSettings struct {
	// Drain bounds how long the calls in flight may go on once stdin ends
	// or the server is stopped; 0 means mcp.DefaultDrain.
	Drain time.Duration
	// Note is written to stderr when serving starts; empty for none.
	Note string
}

// StopTimeoutStdio is how long the application may take to stop with the
// stdio transport: the drain of the calls in flight, the cancellation of
// those still running after it, and the backend's own stop.
const StopTimeoutStdio = mcp.DefaultDrain + 2*mcp.CancelGrace + 10*time.Second

// StdioTransport serves an MCP server over in and out (stdin and
// stdout): out is never closed, and nothing but JSON-RPC is written to
// it; set.Note goes to errOut once the session is ready. It ends by
// itself when in ends (exit code 0) or the transport fails (exit code 1).
//
// When in ends, or Stop is called (SIGTERM, Ctrl-C), the calls in flight
// finish and their replies are written, for up to set.Drain; the calls
// still running then are cancelled and their replies written too (see
// mcp.Server.ServeStdio). Another stop signal during that time, or stdin
// ending while a stop drains, cancels them at once.
type StdioTransport struct {
	srv         *mcp.Server
	log         *zap.Logger
	in          io.Reader
	out, errOut io.Writer
	set         StdioSettings

	cancel context.CancelFunc
	done   chan struct{} // closed when serving has returned
	ended  chan int
}

// NewStdioTransport returns the stdio transport of srv; it serves from
// Start.
func NewStdioTransport(srv *mcp.Server, log *zap.Logger, in io.Reader, out, errOut io.Writer, set StdioSettings) *StdioTransport {
	return &StdioTransport{srv: srv, log: log, in: in, out: out, errOut: errOut, set: set,
		cancel: func() {}, done: make(chan struct{}), ended: make(chan int, 1)}
}

// Ended delivers the exit code once serving has ended.
func (t *StdioTransport) Ended() <-chan int { return t.ended }

// Start serves in the background; it returns at once.
func (t *StdioTransport) Start(context.Context) error {
	releaseStartGarbage()
	ctx, cancel := context.WithCancel(context.Background())
	t.cancel = cancel
	t.log.Info("serving MCP on stdio")
	opts := mcp.StdioOptions{Drain: t.set.Drain}
	if t.set.Note != "" {
		opts.Serving = func() { fmt.Fprint(t.errOut, t.set.Note) }
	}
	go func() {
		defer close(t.done)
		err := t.srv.ServeStdio(ctx, t.in, t.out, opts)
		code := 0
		switch {
		case err != nil:
			t.log.Error("stdio transport failed", zap.Error(err))
			code = 1
		case ctx.Err() == nil:
			t.log.Info("stdin closed; shutting down")
		}
		t.ended <- code
	}()
	return nil
}

// Stop ends serving and waits for the calls in flight, as the type's
// documentation says, or until stopCtx ends (then they are cancelled).
func (t *StdioTransport) Stop(stopCtx context.Context) error {
	// A second Ctrl-C or SIGTERM while the calls drain cancels them.
	again := make(chan os.Signal, 1)
	signal.Notify(again, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(again)
	t.cancel()
	for {
		select {
		case <-t.done:
			return nil
		case <-again:
			t.log.Warn("asked again to stop: cancelling the calls in flight")
			t.srv.Close()
		case <-stopCtx.Done():
			t.srv.Close()
			return fmt.Errorf("stop stdio transport: %w", stopCtx.Err())
		}
	}
}

// IsTerminal reports whether r is a terminal, as stdin is when a person
// runs the server at a shell prompt: a character device other than the
// null device.
func IsTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	null, err := os.Stat(os.DevNull)
	return err != nil || !os.SameFile(fi, null)
}

// TerminalNote is what the server tells a person who started it at a
// terminal: what it is, how to connect a client, where its panes are and
// how to watch them, and how to stop it. It goes to stderr, never stdout.
func TerminalNote(ws Workspace) string {
	var b strings.Builder
	b.WriteString("\ntmux-mcp is an MCP server: it reads JSON-RPC messages from stdin and writes replies to stdout,\n" +
		"one per line. An MCP client starts it and speaks to it; a line that is not JSON-RPC gets an error reply.\n")
	b.WriteString("  Connect a client: tmux-mcp setup claude-code (or claude-desktop, cursor, vscode, codex);\n" +
		"    see \"Connect a client\" in README.md. tmux-mcp doctor checks what it needs.\n")
	fmt.Fprintf(&b, "  Its panes: %s.\n", ws.Panes)
	if ws.Attach != "" {
		fmt.Fprintf(&b, "    Watch them from another terminal: %s\n"+
			"    (a pane you watch is refused for writing).\n", ws.Attach)
	}
	b.WriteString("  Stop it: Ctrl-D (end of input) or Ctrl-C.\n\n")
	return b.String()
}

// HTTPSettings are the settings of the HTTP transport.
type HTTPSettings struct {
	// Listen is the address to listen on, host:port.
	Listen string
	// TokenFile names the file holding the bearer token; Token is the
	// token itself. TokenFile wins when both are set. With neither, no
	// token is asked of clients, and the address must be a loopback one.
	TokenFile string
	Token     string
	// Note, when not nil, is where a person who started the server at a
	// terminal is told, once it listens, where it serves, how to connect
	// and how to stop it (HTTPNote), and that it stopped; Workspace says
	// where its panes are.
	Note      io.Writer
	Workspace Workspace
}

// HTTPNote is what the server tells a person who started it over HTTP at
// a terminal: the URL to give a client, whether it wants a bearer token,
// where its panes are and how to stop it. It goes to stderr.
func HTTPNote(url string, token bool, ws Workspace) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\ntmux-mcp serves MCP over streamable HTTP at %s\n", url)
	if token {
		b.WriteString("  Clients must send the header \"Authorization: Bearer <token>\" with the token you set.\n")
	}
	b.WriteString("  Connect a client: tmux-mcp setup CLIENT --http " + url + " (see README.md).\n")
	if ws.Panes != "" {
		fmt.Fprintf(&b, "  Its panes: %s.\n", ws.Panes)
	}
	if ws.Attach != "" {
		fmt.Fprintf(&b, "    Watch them from another terminal: %s\n", ws.Attach)
	}
	b.WriteString("  Stop it: Ctrl-C (calls still running then end as cancelled).\n\n")
	return b.String()
}

// MinTokenLength is the fewest characters a bearer token may have: a
// token guards a server that runs commands as the user.
const MinTokenLength = 16

// ErrTokenRequired is returned (wrapped) when the HTTP transport would
// listen on an address other machines can reach without a bearer token.
var ErrTokenRequired = errors.New("a bearer token is required to listen on a non-loopback address")

// HTTPTransport serves an MCP server over streamable HTTP at
// set.Listen, path mcp.HTTPPath.
//
// Start reads the bearer token (see LoadToken) and binds the address, and
// fails when the token is unusable, when the address is taken, or when it
// is not a loopback address and there is no token (ErrTokenRequired): a
// server that runs commands as the user is not offered to the network
// unguarded. With a token, every request without it is refused with 401,
// on loopback too. If serving fails later, it ends by itself with exit
// code 1.
type HTTPTransport struct {
	srv   *mcp.Server
	log   *zap.Logger
	set   HTTPSettings
	hs    *http.Server
	url   string // where it serves, once it listens
	ended chan int
}

// NewHTTPTransport returns the HTTP transport of srv; it serves from
// Start.
func NewHTTPTransport(srv *mcp.Server, log *zap.Logger, set HTTPSettings) *HTTPTransport {
	return &HTTPTransport{srv: srv, log: log, set: set, hs: &http.Server{ReadHeaderTimeout: 10 * time.Second}, ended: make(chan int, 1)}
}

// Ended delivers exit code 1 if serving fails after Start.
func (t *HTTPTransport) Ended() <-chan int { return t.ended }

// Start binds the address and serves in the background.
func (t *HTTPTransport) Start(context.Context) error {
	releaseStartGarbage()
	set := t.set
	token, err := LoadToken(set.TokenFile, set.Token, t.log)
	if err != nil {
		return err
	}
	if token == "" && !LoopbackAddress(set.Listen) {
		return notGuarded(set.Listen)
	}
	ln, err := net.Listen("tcp", set.Listen)
	if err != nil {
		return listenError(set.Listen, err)
	}
	// A name that looked like loopback may have been bound to
	// another address: what counts is where the server listens.
	if token == "" && !loopbackIP(ln.Addr()) {
		ln.Close()
		return notGuarded(ln.Addr().String())
	}
	var opts []mcp.HTTPOption
	if token != "" {
		opts = append(opts, mcp.WithBearerToken(token))
	}
	t.hs.Handler = t.srv.HTTPHandler(opts...)
	t.url = "http://" + ln.Addr().String() + mcp.HTTPPath
	t.log.Info("serving MCP over HTTP", zap.String("url", t.url), zap.Bool("bearerToken", token != ""))
	if set.Note != nil {
		fmt.Fprint(set.Note, HTTPNote(t.url, token != "", set.Workspace))
	}
	go func() {
		if err := t.hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			t.log.Error("http transport failed", zap.Error(err))
			t.ended <- 1
		}
	}()
	return nil
}

// Stop closes the server's calls and shuts the listener down, cutting
// the streams still open when ctx ends.
func (t *HTTPTransport) Stop(ctx context.Context) error {
	t.srv.Close()
	if err := t.hs.Shutdown(ctx); err != nil {
		// Streams still open at the deadline are cut.
		_ = t.hs.Close()
		return fmt.Errorf("stop http transport: %w", err)
	}
	t.log.Info("stopped serving MCP over HTTP", zap.String("url", t.url))
	return nil
}

func notGuarded(addr string) error {
	return &StartError{Cause: fmt.Sprintf("refusing to serve on %s: %v; other machines could reach it and run commands as you", addr, ErrTokenRequired),
		Fix:     fmt.Sprintf("set -token-file PATH or %s, or listen on a loopback address such as %s", EnvToken, DefaultListen),
		Setting: true, Err: ErrTokenRequired}
}

// LoopbackAddress reports whether the host of addr (host:port) is a
// loopback address or "localhost". An empty host, an unspecified address
// (0.0.0.0, ::) and any other name are not: they may be reached from
// other machines.
func LoopbackAddress(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

func loopbackIP(a net.Addr) bool {
	tcp, ok := a.(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
}

// maxTokenFileBytes bounds what LoadToken reads: a token file holds one
// short line.
const maxTokenFileBytes = 4096

// LoadToken returns the bearer token of the HTTP transport: the contents
// of file, without the white space around it, when file is set; else
// token; "" when neither is set. A token must be at least MinTokenLength
// characters of visible ASCII (no spaces), which any HTTP client can send
// in a header. A token file that others may read is used, with a warning
// on log.
//
// Errors wrap ErrInvalidSetting; they say what is wrong with the token
// and never show it.
func LoadToken(file, token string, log *zap.Logger) (string, error) {
	source := EnvToken
	if file != "" {
		source = "the token file " + file
		f, err := os.Open(file)
		if err != nil {
			return "", fmt.Errorf("%w: -token-file: %v", ErrInvalidSetting, err)
		}
		defer f.Close()
		data, err := io.ReadAll(io.LimitReader(f, maxTokenFileBytes+1))
		if err != nil {
			return "", fmt.Errorf("%w: -token-file: %v", ErrInvalidSetting, err)
		}
		if len(data) > maxTokenFileBytes {
			return "", fmt.Errorf("%w: %s is longer than %d bytes; it should hold the token alone", ErrInvalidSetting, source, maxTokenFileBytes)
		}
		if fi, err := f.Stat(); err == nil && fi.Mode().Perm()&0o077 != 0 {
			log.Warn("the token file may be read by other users; make it private with chmod 600",
				zap.String("file", file), zap.String("mode", fi.Mode().Perm().String()))
		}
		token = string(data)
		if token = strings.TrimSpace(token); token == "" {
			return "", fmt.Errorf("%w: %s is empty", ErrInvalidSetting, source)
		}
	}
	if token == "" {
		return "", nil
	}
	for _, c := range []byte(token) {
		if c < 0x21 || c > 0x7e {
			return "", fmt.Errorf("%w: %s holds a space, control character or non-ASCII character, "+
				"which an Authorization header cannot carry; use letters, digits and punctuation only", ErrInvalidSetting, source)
		}
	}
	if len(token) < MinTokenLength {
		return "", fmt.Errorf("%w: %s is %d characters long; use at least %d (for example: openssl rand -hex 32)",
			ErrInvalidSetting, source, len(token), MinTokenLength)
	}
	return token, nil
}
