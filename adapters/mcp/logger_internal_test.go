package mcp

import (
	"fmt"
	"log/slog"
	"reflect"
	"testing"
	"time"
)

// keptLines is a Logger that keeps what it is given.
type keptLines []string

func (l *keptLines) add(level, msg string, kv []any) {
	*l = append(*l, fmt.Sprint(level, " ", msg, " ", kv))
}
func (l *keptLines) Debug(msg string, kv ...any) { l.add("DEBUG", msg, kv) }
func (l *keptLines) Info(msg string, kv ...any)  { l.add("INFO", msg, kv) }
func (l *keptLines) Warn(msg string, kv ...any)  { l.add("WARN", msg, kv) }
func (l *keptLines) Error(msg string, kv ...any) { l.add("ERROR", msg, kv) }

// What the SDK logs through its *slog.Logger reaches a Logger that is
// not one at its level, with every attribute as a key and its value,
// groups as dotted prefixes.
func TestTheSDKLogsThroughTheServersLogger(t *testing.T) {
	var got keptLines
	log := sdkLogger(&got).With("session", "s1").WithGroup("call")
	log.Debug("debug")
	log.Info("tool call done", "tool", "capture_pane", "duration", 1500*time.Millisecond, slog.Group("pane", "id", "%1"), slog.Attr{})
	log.Warn("warn", slog.Group("", "bare", 1))
	log.Error("error", "n", 2)
	log.Log(t.Context(), slog.LevelError+4, "beyond error")
	want := keptLines{
		"DEBUG debug [session s1]",
		"INFO tool call done [session s1 call.tool capture_pane call.duration 1.5s call.pane.id %1]",
		"WARN warn [session s1 call.bare 1]",
		"ERROR error [session s1 call.n 2]",
		"ERROR beyond error [session s1]",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the Logger got\n%q\nwant\n%q", got, want)
	}
	var none *slog.Logger
	orDiscard(none).Info("a nil *slog.Logger discards")
	orDiscard(nil).Info("so does a nil Logger")
	if sl := slog.New(slog.DiscardHandler); sdkLogger(sl) != sl {
		t.Error("a *slog.Logger is not handed to the SDK as it is")
	}
}
