package app

import (
	"context"
	"io"
	"log/slog"

	"go.uber.org/fx"
	"go.uber.org/fx/fxevent"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// NewLogger returns a zap logger that writes human-readable lines to w at
// info level and above. The server gives it stderr: with the stdio
// transport, stdout carries nothing but JSON-RPC.
func NewLogger(w io.Writer) *zap.Logger {
	enc := zap.NewDevelopmentEncoderConfig()
	enc.EncodeLevel = zapcore.CapitalLevelEncoder
	core := zapcore.NewCore(zapcore.NewConsoleEncoder(enc), zapcore.Lock(zapcore.AddSync(w)), zapcore.InfoLevel)
	return zap.New(core, zap.ErrorOutput(zapcore.Lock(zapcore.AddSync(w))))
}

// NewSlogLogger returns a log/slog logger that writes through z, for the
// parts that log with the standard library's interface (the MCP adapter
// and the SDK), so that every log line takes the same way out.
func NewSlogLogger(z *zap.Logger) *slog.Logger {
	return slog.New(&zapHandler{core: z.Core()})
}

// NewFxLogger returns fx's event logger on z. fx's own chatter (every
// provide and invoke) goes out at debug level, below what NewLogger
// writes; its errors still show.
func NewFxLogger(z *zap.Logger) fxevent.Logger {
	l := &fxevent.ZapLogger{Logger: z}
	l.UseLogLevel(zapcore.DebugLevel)
	return l
}

// LoggingModule provides the process's loggers, all writing to stderr.
func LoggingModule(stderr io.Writer) fx.Option {
	return fx.Module("logging",
		fx.Provide(
			func() *zap.Logger { return NewLogger(stderr) },
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
