package mcp

//lint:file-ignore SA1019 MCP logging (logging/setLevel, notifications/message) is deprecated from protocol version 2026-07-28 (SEP-2577), not removed: the earlier versions this server also speaks have it, and their clients ask for it.

import (
	"context"
	"log/slog"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestLevelsMapBetweenSlogAndMCP(t *testing.T) {
	for l, want := range map[slog.Level]sdk.LoggingLevel{
		slog.LevelDebug - 4:  "debug",
		slog.LevelDebug:      "debug",
		slog.LevelInfo:       "info",
		slog.LevelInfo + 1:   "info",
		slog.LevelInfo + 2:   "notice",
		slog.LevelWarn:       "warning",
		slog.LevelError:      "error",
		slog.LevelError + 4:  "critical",
		slog.LevelError + 8:  "alert",
		slog.LevelError + 9:  "alert",
		slog.LevelError + 12: "emergency",
	} {
		if got := mcpLevel(l); got != want {
			t.Errorf("mcpLevel(%v) = %s, want %s", l, got, want)
		}
	}
	for _, m := range mcpLevels {
		if got := mcpLevel(slogLevel(m.mcp)); got != m.mcp {
			t.Errorf("%s does not come back as itself: %s", m.mcp, got)
		}
	}
	if slogLevel("verbose") != slog.LevelDebug {
		t.Error("an unknown level does not count as debug")
	}
}

// A line logged in the course of a send is not sent again: the context
// of a send is marked, and the handler drops what carries the mark.
func TestALineLoggedWhileSendingIsNotSentAgain(t *testing.T) {
	b := NewLogBridge(nil)
	c := &logClient{level: slog.LevelDebug, lines: make(chan logLine, 4), gone: make(chan struct{})}
	b.clients[nil] = c
	b.recomputeLocked()
	h := b.Handler()
	sending := context.WithValue(context.Background(), sendingKey{}, true)
	if h.Enabled(sending, slog.LevelError) {
		t.Error("the handler is enabled within a send")
	}
	_ = h.Handle(sending, slog.NewRecord(time.Time{}, slog.LevelError, "log.Log failed", 0))
	_ = h.Handle(context.Background(), slog.NewRecord(time.Time{}, slog.LevelError, "an ordinary line", 0))
	if len(c.lines) != 1 {
		t.Fatalf("%d lines queued, want the ordinary one alone", len(c.lines))
	}
	if l := <-c.lines; l.text != "an ordinary line" {
		t.Errorf("queued %q", l.text)
	}
}
