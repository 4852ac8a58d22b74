package mcp

//lint:file-ignore SA1019 MCP logging (logging/setLevel, notifications/message) is deprecated from protocol version 2026-07-28 (SEP-2577), not removed: the earlier versions this server also speaks have it, and their clients ask for it.

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// MCP logging: the lines the server logs, sent to the clients that asked
// for them (logging/setLevel) as notifications/message.
//
// A LogBridge is where the process's logging hands every line it writes;
// it fans each line out to the sessions whose level it meets, each through
// a queue of its own that one goroutine per session empties. Nothing that
// logs ever waits for a client: a line that finds a session's queue full
// is dropped and counted, and the next line that session gets says how
// many it lost. Nothing the bridge does is logged through it: its own
// trouble goes to a logger that does not lead back to it (see
// NewLogBridge), a line logged while the bridge sends (a context marked by
// the send) is not sent again, and a session whose send fails gets nothing
// more, so a failure to send cannot feed on itself.
//
// A session gets nothing before it asks, as the protocol has it. The
// bridge learns the level a session asks for from the logging/setLevel
// requests the Servers it is attached to answer (Options.Logs).
type LogBridge struct {
	errs  Logger
	queue int

	mu      sync.Mutex
	clients map[*sdk.ServerSession]*logClient
	closed  bool

	// min is the lowest level any client asked for, or math.MaxInt64
	// when none did: Wants answers from it without the lock.
	min     atomic.Int64
	dropped atomic.Uint64
}

// LoggerName is the logger the notifications name.
const LoggerName = Name

// LogQueue is how many lines wait, at most, for one client.
const LogQueue = 256

// logSendTimeout bounds the sending of one line to one client.
const logSendTimeout = 10 * time.Second

// NewLogBridge returns a bridge with no clients. errs receives what goes
// wrong with the bridge itself (a client that stopped taking lines); it
// must not write to the bridge, and nil discards it.
func NewLogBridge(errs Logger) *LogBridge {
	errs = orDiscard(errs)
	b := &LogBridge{errs: errs, queue: LogQueue, clients: map[*sdk.ServerSession]*logClient{}}
	b.min.Store(math.MaxInt64)
	return b
}

// A logClient is one session that asked for log lines.
type logClient struct {
	session *sdk.ServerSession
	level   slog.Level
	lines   chan logLine
	// dropped counts the lines lost since the last one queued; the
	// bridge's lock guards it.
	dropped uint64
	gone    chan struct{} // closed when the session ends or the bridge closes
	once    sync.Once
}

type logLine struct {
	level slog.Level
	text  string
	// after is how many lines the client lost just before this one.
	after uint64
}

func (c *logClient) stop() { c.once.Do(func() { close(c.gone) }) }

// Wants reports whether any client would take a line at level: the
// caller may skip formatting the line when none would.
func (b *LogBridge) Wants(level slog.Level) bool { return int64(level) >= b.min.Load() }

// Publish hands one line, at level, to every client whose level it meets.
// It never waits: a client whose queue is full loses the line.
func (b *LogBridge) Publish(level slog.Level, text string) {
	if !b.Wants(level) {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, c := range b.clients {
		if level < c.level {
			continue
		}
		select {
		case c.lines <- logLine{level: level, text: text, after: c.dropped}:
			c.dropped = 0
		default:
			c.dropped++
			b.dropped.Add(1)
		}
	}
}

// Dropped returns how many lines were dropped, over every client, because
// a client did not take them fast enough.
func (b *LogBridge) Dropped() uint64 { return b.dropped.Load() }

// Close stops sending to every client; lines published afterwards go
// nowhere. It does not wait for a send under way.
func (b *LogBridge) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	for s, c := range b.clients {
		c.stop()
		delete(b.clients, s)
	}
	b.min.Store(math.MaxInt64)
}

// attach makes srv tell the bridge the levels its sessions ask for.
func (b *LogBridge) attach(srv *sdk.Server) {
	srv.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			res, err := next(ctx, method, req)
			if method != "logging/setLevel" || err != nil {
				return res, err
			}
			ss, _ := req.GetSession().(*sdk.ServerSession)
			p, _ := req.GetParams().(*sdk.SetLoggingLevelParams)
			if ss != nil && p != nil {
				b.setLevel(ss, p.Level)
			}
			return res, err
		}
	})
}

// setLevel records the level a session asked for, starting its feed the
// first time.
func (b *LogBridge) setLevel(ss *sdk.ServerSession, level sdk.LoggingLevel) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return
	}
	c := b.clients[ss]
	if c == nil {
		c = &logClient{session: ss, lines: make(chan logLine, b.queue), gone: make(chan struct{})}
		b.clients[ss] = c
		go func() {
			_ = ss.Wait()
			b.remove(ss, c)
		}()
		go b.feed(c)
	}
	c.level = slogLevel(level)
	b.recomputeLocked()
}

func (b *LogBridge) recomputeLocked() {
	lowest := int64(math.MaxInt64)
	for _, c := range b.clients {
		lowest = min(lowest, int64(c.level))
	}
	b.min.Store(lowest)
}

// remove forgets a client and stops its feed.
func (b *LogBridge) remove(ss *sdk.ServerSession, c *logClient) {
	c.stop()
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.clients[ss] == c {
		delete(b.clients, ss)
		b.recomputeLocked()
	}
}

// sendingKey marks the context of a send, so that a line logged in the
// course of it is not sent again.
type sendingKey struct{}

// feed sends a client its lines, in order, until it goes.
func (b *LogBridge) feed(c *logClient) {
	for {
		select {
		case <-c.gone:
			return
		case l := <-c.lines:
			if l.after > 0 {
				note := logLine{level: slog.LevelWarn, text: fmt.Sprintf("%s: the %d log lines before this one were not sent to this client, which did not take them fast enough",
					Name, l.after)}
				if !b.send(c, note) {
					return
				}
			}
			if !b.send(c, l) {
				return
			}
		}
	}
}

// send sends one line, and reports whether the client still takes lines.
func (b *LogBridge) send(c *logClient, l logLine) bool {
	ctx, cancel := context.WithTimeout(context.WithValue(context.Background(), sendingKey{}, true), logSendTimeout)
	defer cancel()
	err := c.session.Log(ctx, &sdk.LoggingMessageParams{Logger: LoggerName, Level: mcpLevel(l.level), Data: l.text})
	if err == nil {
		return true
	}
	// Told to the bridge's own logger, never to the bridge.
	b.errs.Info("stopped sending log lines to an MCP client that does not take them", "session", c.session.ID(), "error", err)
	b.remove(c.session, c)
	return false
}

// Handler returns a slog.Handler that publishes each record as one line:
// its message, then its attributes as key=value. The application's
// logging hands the bridge its lines as they are written instead (see
// Publish), so that a client reads what stderr does.
func (b *LogBridge) Handler() slog.Handler { return &bridgeHandler{b: b} }

type bridgeHandler struct {
	b      *LogBridge
	attrs  string // formatted, each with a leading space
	prefix string // of keys, from WithGroup
}

func (h *bridgeHandler) Enabled(ctx context.Context, level slog.Level) bool {
	return ctx.Value(sendingKey{}) == nil && h.b.Wants(level)
}

func (h *bridgeHandler) Handle(ctx context.Context, r slog.Record) error {
	if ctx.Value(sendingKey{}) != nil {
		return nil // logged while sending: never sent again
	}
	var text strings.Builder
	text.WriteString(r.Message)
	text.WriteString(h.attrs)
	r.Attrs(func(a slog.Attr) bool {
		appendAttr(&text, h.prefix, a)
		return true
	})
	h.b.Publish(r.Level, text.String())
	return nil
}

func (h *bridgeHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	var text strings.Builder
	text.WriteString(h.attrs)
	for _, a := range attrs {
		appendAttr(&text, h.prefix, a)
	}
	return &bridgeHandler{b: h.b, attrs: text.String(), prefix: h.prefix}
}

func (h *bridgeHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	return &bridgeHandler{b: h.b, attrs: h.attrs, prefix: h.prefix + name + "."}
}

func appendAttr(b *strings.Builder, prefix string, a slog.Attr) {
	v := a.Value.Resolve()
	if a.Equal(slog.Attr{}) {
		return
	}
	if v.Kind() == slog.KindGroup {
		p := prefix
		if a.Key != "" {
			p += a.Key + "."
		}
		for _, g := range v.Group() {
			appendAttr(b, p, g)
		}
		return
	}
	fmt.Fprintf(b, " %s%s=%s", prefix, a.Key, v)
}

// The MCP levels, as slog levels: those of the protocol (RFC 5424's),
// between slog's four.
var mcpLevels = []struct {
	mcp  sdk.LoggingLevel
	slog slog.Level
}{
	{"debug", slog.LevelDebug},
	{"info", slog.LevelInfo},
	{"notice", (slog.LevelInfo + slog.LevelWarn) / 2},
	{"warning", slog.LevelWarn},
	{"error", slog.LevelError},
	{"critical", slog.LevelError + 4},
	{"alert", slog.LevelError + 8},
	{"emergency", slog.LevelError + 12},
}

// slogLevel is the slog level of an MCP level; an unknown level counts as
// debug, the most a client can ask for.
func slogLevel(l sdk.LoggingLevel) slog.Level {
	for _, m := range mcpLevels {
		if m.mcp == l {
			return m.slog
		}
	}
	return slog.LevelDebug
}

// mcpLevel is the MCP level of a slog level: the most severe one it
// reaches (slog's Warn is warning, its Error error); below debug, debug.
func mcpLevel(l slog.Level) sdk.LoggingLevel {
	out := mcpLevels[0].mcp
	for _, m := range mcpLevels {
		if l >= m.slog {
			out = m.mcp
		}
	}
	return out
}
