package app

import (
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

// Logger is the process's zap logger as the adapters take one
// (mcp.Logger, tmux.Logger): a message and key-value pairs, which become
// the entry's message and fields, so that every line takes the same way
// out.
type Logger struct{ s *zap.SugaredLogger }

// NewAdapterLogger returns z as a Logger.
func NewAdapterLogger(z *zap.Logger) *Logger { return &Logger{s: z.Sugar()} }

// Debug logs at debug level.
func (l *Logger) Debug(msg string, kv ...any) { l.s.Debugw(msg, kv...) }

// Info logs at info level.
func (l *Logger) Info(msg string, kv ...any) { l.s.Infow(msg, kv...) }

// Warn logs at warn level.
func (l *Logger) Warn(msg string, kv ...any) { l.s.Warnw(msg, kv...) }

// Error logs at error level.
func (l *Logger) Error(msg string, kv ...any) { l.s.Errorw(msg, kv...) }

// LoggingModule provides the process's loggers, all writing to stderr,
// and the MCP log bridge, to which they hand every line too: the MCP
// server sends it on to the clients that ask for log lines. The bridge's
// own trouble is logged to stderr alone, never through itself.
func LoggingModule(stderr io.Writer) fx.Option {
	return fx.Module("logging",
		fx.Provide(
			func(lc fx.Lifecycle) *mcp.LogBridge {
				b := mcp.NewLogBridge(NewAdapterLogger(NewLogger(stderr)))
				// Made first, so stopped last: clients hear of the stop.
				lc.Append(fx.StopHook(b.Close))
				return b
			},
			func(b *mcp.LogBridge) *zap.Logger { return NewBridgedLogger(stderr, b) },
			NewAdapterLogger,
		),
	)
}
