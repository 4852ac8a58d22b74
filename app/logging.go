package app

import (
	"context"
	"io"
	"log/slog"
	"strings"

	"go.uber.org/fx"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/tmux-mcp/tmux-mcp/adapters/mcp"
)

// NewLogger returns a zap logger that writes human-readable lines to w at
// info level and above. The server gives it stderr: with the stdio
// transport, stdout carries nothing but JSON-RPC.
func NewLogger(w io.Writer) *zap.Logger { return NewBridgedLogger(w, nil) }

// logLevel is the least level the process logs at.
const logLevel = zapcore.InfoLevel

func consoleEncoder() zapcore.Encoder {
	enc := zap.NewDevelopmentEncoderConfig()
	enc.EncodeLevel = zapcore.CapitalLevelEncoder
	return zapcore.NewConsoleEncoder(enc)
}

// NewBridgedLogger is NewLogger that also hands every line it writes to
// bridge, when bridge is not nil, for the MCP clients that asked for log
// lines: the same text, without the line break, at the same level.
func NewBridgedLogger(w io.Writer, bridge *mcp.LogBridge) *zap.Logger {
	core := zapcore.NewCore(consoleEncoder(), zapcore.Lock(zapcore.AddSync(w)), logLevel)
	if bridge != nil {
		core = zapcore.NewTee(core, &bridgeCore{enc: consoleEncoder(), bridge: bridge})
	}
	return zap.New(core, zap.ErrorOutput(zapcore.Lock(zapcore.AddSync(w))))
}

// bridgeCore is a zap core that encodes each entry as the stderr core
// does and publishes the line to the MCP log bridge, which never waits.
// It is enabled only while some client wants the level, so that no line
// is encoded twice for nobody.
type bridgeCore struct {
	enc    zapcore.Encoder
	bridge *mcp.LogBridge
}

func (c *bridgeCore) Enabled(l zapcore.Level) bool {
	return logLevel.Enabled(l) && c.bridge.Wants(slogLevelOf(l))
}

func (c *bridgeCore) With(fields []zapcore.Field) zapcore.Core {
	enc := c.enc.Clone()
	for _, f := range fields {
		f.AddTo(enc)
	}
	return &bridgeCore{enc: enc, bridge: c.bridge}
}

func (c *bridgeCore) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if c.Enabled(e.Level) {
		return ce.AddCore(e, c)
	}
	return ce
}

func (c *bridgeCore) Write(e zapcore.Entry, fields []zapcore.Field) error {
	buf, err := c.enc.EncodeEntry(e, fields)
	if err != nil {
		return err
	}
	c.bridge.Publish(slogLevelOf(e.Level), strings.TrimSuffix(buf.String(), "\n"))
	buf.Free()
	return nil
}

func (c *bridgeCore) Sync() error { return nil }

// slogLevelOf is the slog level of a zap level; zap's levels above error
// (dpanic, panic, fatal) are slog's error and beyond, as MCP's critical,
// alert and emergency are.
func slogLevelOf(l zapcore.Level) slog.Level {
	switch {
	case l >= zapcore.FatalLevel:
		return slog.LevelError + 12
	case l >= zapcore.DPanicLevel:
		return slog.LevelError + 4
	case l >= zapcore.ErrorLevel:
		return slog.LevelError
	case l >= zapcore.WarnLevel:
		return slog.LevelWarn
	case l >= zapcore.InfoLevel:
		return slog.LevelInfo
	default:
		return slog.LevelDebug
	}
}

// NewSlogLogger returns a log/slog logger that writes through z, for the
// parts that log with the standard library's interface (the MCP adapter
// and the SDK), so that every log line takes the same way out.
func NewSlogLogger(z *zap.Logger) *slog.Logger {
	return slog.New(&zapHandler{core: z.Core()})
}

// LoggingModule provides the process's loggers, all writing to stderr,
// and the MCP log bridge, to which they hand every line too: the MCP
// server sends it on to the clients that ask for log lines. The bridge's
// own trouble is logged to stderr alone, never through itself.
func LoggingModule(stderr io.Writer) fx.Option {
	return fx.Module("logging",
		fx.Provide(
			func(lc fx.Lifecycle) *mcp.LogBridge {
				b := mcp.NewLogBridge(NewSlogLogger(NewLogger(stderr)))
				// Made first, so stopped last: clients hear of the stop.
				lc.Append(fx.StopHook(b.Close))
				return b
			},
			func(b *mcp.LogBridge) *zap.Logger { return NewBridgedLogger(stderr, b) },
			NewSlogLogger,
		),
	)
}

// zapHandler is a slog.Handler writing to a zap core. Groups become dotted
// key prefixes.
type zapHandler struct {
	core   zapcore.Core
	prefix string // of keys, from WithGroup
}

func (h *zapHandler) Enabled(_ context.Context, l slog.Level) bool {
	return h.core.Enabled(zapLevel(l))
}

func (h *zapHandler) Handle(_ context.Context, r slog.Record) error {
	ce := h.core.Check(zapcore.Entry{Level: zapLevel(r.Level), Time: r.Time, Message: r.Message}, nil)
	if ce == nil {
		return nil
	}
	fields := make([]zap.Field, 0, r.NumAttrs())
	r.Attrs(func(a slog.Attr) bool {
		fields = appendFields(fields, h.prefix, a)
		return true
	})
	ce.Write(fields...)
	return nil
}

func (h *zapHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	var fields []zap.Field
	for _, a := range attrs {
		fields = appendFields(fields, h.prefix, a)
	}
	return &zapHandler{core: h.core.With(fields), prefix: h.prefix}
}

func (h *zapHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	return &zapHandler{core: h.core, prefix: h.prefix + name + "."}
}

func appendFields(fields []zap.Field, prefix string, a slog.Attr) []zap.Field {
	v := a.Value.Resolve()
	if a.Equal(slog.Attr{}) {
		return fields // slog's rule: empty attributes are ignored
	}
	switch v.Kind() {
	case slog.KindGroup:
		p := prefix
		if a.Key != "" {
			p += a.Key + "."
		}
		for _, g := range v.Group() {
			fields = appendFields(fields, p, g)
		}
		return fields
	case slog.KindDuration:
		return append(fields, zap.Duration(prefix+a.Key, v.Duration()))
	case slog.KindTime:
		return append(fields, zap.Time(prefix+a.Key, v.Time()))
	default:
		return append(fields, zap.Any(prefix+a.Key, v.Any()))
	}
}

func zapLevel(l slog.Level) zapcore.Level {
	switch {
	case l >= slog.LevelError:
		return zapcore.ErrorLevel
	case l >= slog.LevelWarn:
		return zapcore.WarnLevel
	case l >= slog.LevelInfo:
		return zapcore.InfoLevel
	default:
		return zapcore.DebugLevel
	}
}
