package fake_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
	"github.com/tmux-mcp/tmux-mcp/domain/frame"
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

// idsFor returns the frame ids of the call named callID.
func idsFor(callID string) frame.IDs {
	return frame.IDs{ID: callID, Secret: callID + "-secret", Unread: callID + "-unread"}
}

// typeFramed stages command framed for the pane's shell and types its
// line, as the domain does.
func typeFramed(t *testing.T, term *fake.Terminal, id ports.PaneID, callID, command string) {
	t.Helper()
	info, err := term.Pane(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	sh, ok := frame.ShellFor(info.Command)
	if !ok {
		t.Fatalf("pane %s runs %q, not a shell", id, info.Command)
	}
	typeFramedFor(t, term, id, sh, callID, command)
}

// typeFramedFor is typeFramed for a shell family of the caller's choice.
func typeFramedFor(t *testing.T, term *fake.Terminal, id ports.PaneID, sh frame.Shell, callID, command string) {
	t.Helper()
	cmd := frame.Command{Shell: sh, IDs: idsFor(callID), Text: command}
	files, err := cmd.Stage(func(build func(string) []byte) (string, error) { return term.PutScript(ctx, id, build) })
	if err != nil {
		t.Fatalf("stage: %v", err)
	}
	if err := term.SendText(ctx, id, cmd.Line(files)); err != nil {
		t.Fatalf("SendText: %v", err)
	}
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

// framed finds the framed command callID in what the stream received and
// returns the output between its markers ("\r\n" read as "\n"), its
// status, and whether it has ended.
func framed(t *testing.T, s ports.OutputStream, callID string) (output string, status int, ended bool) {
	t.Helper()
	data := everything(s)
	var out bytes.Buffer
	sc := frame.NewScanner(idsFor(callID), &out)
	sc.Write(data)
	if !sc.Started() {
		t.Fatalf("no start marker for %s in %q", callID, data)
	}
	status, ended = sc.Ended()
	return normalize(out.Bytes()), status, ended
}

// between is framed's output alone, for a command that has ended.
func between(t *testing.T, s ports.OutputStream, callID string) string {
	t.Helper()
	out, _, ended := framed(t, s, callID)
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
