package fake_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

var ctx = context.Background()

func openStream(t *testing.T, term *fake.Terminal, id ports.PaneID) ports.OutputStream {
	t.Helper()
	s, err := term.OpenOutput(ctx, id)
	if err != nil {
		t.Fatalf("OpenOutput(%s): %v", id, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// typeFramed types command framed for the pane's shell, and presses Enter.
func typeFramed(t *testing.T, term *fake.Terminal, id ports.PaneID, callID, command string) {
	t.Helper()
	info, err := term.Pane(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	sh, ok := domain.ShellFor(info.Command)
	if !ok {
		t.Fatalf("pane %s runs %q, not a shell", id, info.Command)
	}
	typeLine(t, term, id, domain.Frame(sh, callID, command))
}

// typeLine types text and presses Enter.
func typeLine(t *testing.T, term *fake.Terminal, id ports.PaneID, text string) {
	t.Helper()
	if err := term.SendText(ctx, id, text); err != nil {
		t.Fatalf("SendText: %v", err)
	}
	if err := term.SendKeys(ctx, id, []string{"Enter"}); err != nil {
		t.Fatalf("SendKeys: %v", err)
	}
}

func pressKeys(t *testing.T, term *fake.Terminal, id ports.PaneID, keys ...string) {
	t.Helper()
	if err := term.SendKeys(ctx, id, keys); err != nil {
		t.Fatalf("SendKeys(%q): %v", keys, err)
	}
}

// everything returns all the stream has received since it opened.
func everything(s ports.OutputStream) []byte {
	c := s.ReadFrom(0)
	return c.Data
}

// frame finds the framed command callID in what the stream received and
// returns the output between its markers ("\r\n" read as "\n"), its
// status, and whether it has ended.
func frame(t *testing.T, s ports.OutputStream, callID string) (output string, status int, ended bool) {
	t.Helper()
	data := everything(s)
	start := domain.StartMarker(callID)
	i := bytes.Index(data, start)
	if i < 0 {
		t.Fatalf("no start marker for %s in %q", callID, data)
	}
	rest := data[i+len(start):]
	for status := 0; status < 256; status++ {
		if j := bytes.Index(rest, domain.EndMarker(callID, status)); j >= 0 {
			return normalize(rest[:j]), status, true
		}
	}
	return normalize(rest), 0, false
}

// between is frame's output alone, for a command that has ended.
func between(t *testing.T, s ports.OutputStream, callID string) string {
	t.Helper()
	out, _, ended := frame(t, s, callID)
	if !ended {
		t.Fatalf("framed command %s has not ended; output so far %q", callID, out)
	}
	return out
}

func normalize(b []byte) string { return strings.ReplaceAll(string(b), "\r\n", "\n") }

// screen returns the pane's visible rows.
func screen(t *testing.T, term *fake.Terminal, id ports.PaneID) []string {
	t.Helper()
	info, err := term.Pane(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := term.Capture(ctx, id, ports.CaptureRange{Start: 0, End: info.Height - 1})
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func describe(t *testing.T, term *fake.Terminal, id ports.PaneID) ports.PaneInfo {
	t.Helper()
	info, err := term.Pane(ctx, id)
	if err != nil {
		t.Fatalf("Pane(%s): %v", id, err)
	}
	return info
}
