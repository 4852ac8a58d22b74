package test

import (
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/adapters/screen"
	"github.com/tmux-mcp/tmux-mcp/test/gate"
)

// The built binary on GNU screen: a private screen session that the test
// starts and ends, served with -backend screen, through a real MCP client
// over stdio. The pane tools work unchanged on the second backend.
func TestBinaryServesAScreenSession(t *testing.T) {
	gate.Real(t, "GNU screen and the built binary")
	gate.Need(t, "screen")
	t.Parallel()
	session, stop, err := screen.StartPrivate(screen.Options{})
	if err != nil {
		t.Fatalf("start a screen session: %v", err)
	}
	t.Cleanup(func() {
		if err := stop(); err != nil {
			t.Errorf("stop the screen session: %v", err)
		}
	})
	// Nobody attaches to the test's session, so the test can vouch that
	// no window is in copy mode, which screen cannot report itself.
	b := startBinary(t, nil, "-backend", "screen", "-screen-session", session, "-screen-no-copy-mode")
	const pane = "%0"

	run := decodeRun(t, b.call(t, "run_shell_command", map[string]any{"paneId": pane, "command": "echo hello from screen; exit 7"}))
	if run.Outcome != "completed" || run.ExitStatus == nil || *run.ExitStatus != 7 || run.Output != "hello from screen" || !run.OutputComplete {
		t.Fatalf("run_shell_command = %+v", run)
	}

	seed := decodeSince(t, b.call(t, "capture_since", map[string]any{"paneId": pane}))
	if !seed.Seeded || seed.Cursor == nil {
		t.Fatalf("capture_since without a cursor = %+v, want the screen and a cursor", seed)
	}

	var paste pasteOutput
	decode(t, b.call(t, "paste_text", map[string]any{"paneId": pane, "text": "echo pasted-$((6*7))", "enter": true}),
		[]string{"bytes", "paneId"}, &paste)
	if paste != (pasteOutput{Bytes: 20, PaneID: pane}) {
		t.Errorf("paste_text = %+v, want 20 bytes to %s", paste, pane)
	}
	wait := decodeWait(t, b.call(t, "wait_for_text", map[string]any{"paneId": pane, "patterns": []string{"pasted-42"},
		"cursor": *seed.Cursor, "timeoutMs": 10000}))
	if wait.Outcome != "matched" || derefS(wait.Matched) != "pasted-42" {
		t.Fatalf("wait_for_text for the pasted command's output = %+v", wait)
	}

	since := decodeSince(t, b.call(t, "capture_since", map[string]any{"paneId": pane, "cursor": *seed.Cursor}))
	if since.Cursor == nil || !strings.Contains(since.Text, "pasted-42") || strings.Contains(since.Text, "hello from screen") {
		t.Errorf("capture_since from the seed = %+v; want only what came after it", since)
	}

	var capture captureOutput
	decode(t, b.call(t, "capture_pane", map[string]any{"paneId": pane}), captureFields, &capture)
	if !strings.Contains(capture.Text, "pasted-42") || capture.TotalLines < 2 {
		t.Errorf("capture_pane = %d lines %q; want the screen with the pasted command's output", capture.TotalLines, capture.Text)
	}
}
