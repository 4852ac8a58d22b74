package mcp

import (
	"context"
	"log/slog"
)

// A Logger receives what the server logs: a message and its context as
// key-value pairs, keys first ("tool", name, "error", err). A
// *slog.Logger is one; the application hands the server its zap logger
// through one. It must not write to the stdio transport's output.
type Logger interface {
	Debug(msg string, kv ...any)
	Info(msg string, kv ...any)
	Warn(msg string, kv ...any)
	Error(msg string, kv ...any)
}

// orDiscard is l, or a Logger that discards everything when l is nil
// (a nil *slog.Logger too).
func orDiscard(l Logger) Logger {
	if sl, ok := l.(*slog.Logger); l == nil || ok && sl == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l
}

// sdkLogger is l as the go-sdk takes a logger, so that the SDK's lines
// take the same way out as the server's own: l itself when it is a
// *slog.Logger, else a slog.Logger that hands each record to l, its
// attributes as key-value pairs (a group's keys prefixed with its name
// and a dot).
func sdkLogger(l Logger) *slog.Logger {
	if sl, ok := l.(*slog.Logger); ok {
		return sl
	}
	return slog.New(&kvHandler{l: l})
}

// kvHandler is a slog.Handler writing to a Logger.
type kvHandler struct {
	l      Logger
	kv     []any  // from WithAttrs
	prefix string // of keys, from WithGroup
}

// Enabled is true: the Logger decides what it writes.
func (h *kvHandler) Enabled(context.Context, slog.Level) bool { return true }

func (h *kvHandler) Handle(_ context.Context, r slog.Record) error {
	kv := make([]any, len(h.kv), len(h.kv)+2*r.NumAttrs())
	copy(kv, h.kv)
	r.Attrs(func(a slog.Attr) bool {
		kv = appendKV(kv, h.prefix, a)
		return true
	})
	switch {
	case r.Level >= slog.LevelError:
		h.l.Error(r.Message, kv...)
	case r.Level >= slog.LevelWarn:
		h.l.Warn(r.Message, kv...)
	case r.Level >= slog.LevelInfo:
		h.l.Info(r.Message, kv...)
	default:
		h.l.Debug(r.Message, kv...)
	}
	return nil
}

func (h *kvHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	kv := append([]any(nil), h.kv...)
	for _, a := range attrs {
		kv = appendKV(kv, h.prefix, a)
	}
	return &kvHandler{l: h.l, kv: kv, prefix: h.prefix}
}

func (h *kvHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	return &kvHandler{l: h.l, kv: h.kv, prefix: h.prefix + name + "."}
}

func appendKV(kv []any, prefix string, a slog.Attr) []any {
	v := a.Value.Resolve()
	if a.Equal(slog.Attr{}) {
		return kv // slog's rule: empty attributes are ignored
	}
	if v.Kind() == slog.KindGroup {
		p := prefix
		if a.Key != "" {
			p += a.Key + "."
		}
		for _, g := range v.Group() {
			kv = appendKV(kv, p, g)
		}
		return kv
	}
	return append(kv, prefix+a.Key, v.Any())
}
