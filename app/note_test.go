package app_test

import (
	"io"
	"os"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/app"
)

func TestTerminalNoteSaysWhatTheServerIsAndHowToConnectWatchAndStopIt(t *testing.T) {
	ws := app.TmuxTarget{SocketName: "tmux-mcp-42-abc", Session: "tmux-mcp"}.Workspace()
	note := app.TerminalNote(ws)
	for _, want := range []string{
		"MCP server", "stdin", "stdout", "not JSON-RPC gets an error reply",
		`"Connect a client" in README.md`, "tmux-mcp setup claude-code", "tmux-mcp doctor",
		"a private tmux server of its own",
		"tmux -L tmux-mcp-42-abc attach -t tmux-mcp",
		"Ctrl-D", "Ctrl-C",
	} {
		if !strings.Contains(note, want) {
			t.Errorf("the note lacks %q:\n%s", want, note)
		}
	}
	if lines := strings.Count(strings.TrimSpace(note), "\n") + 1; lines > 8 {
		t.Errorf("the note has %d lines; want a short one:\n%s", lines, note)
	}
	if fake := app.TerminalNote(app.FakeWorkspace); strings.Contains(fake, "Watch them") || !strings.Contains(fake, "in-memory") {
		t.Errorf("the fake backend's note should say its pane is in memory, with nothing to attach to:\n%s", fake)
	}
}

func TestWorkspacesNameTheCommandThatShowsThePanes(t *testing.T) {
	for _, tc := range []struct {
		target     app.TmuxTarget
		panes, cmd string
	}{
		{app.TmuxTarget{SocketName: "work"}, "the tmux server on socket work", "tmux -L work attach"},
		{app.TmuxTarget{SocketPath: "/tmp/my socket"}, "the tmux server at /tmp/my socket", "tmux -S '/tmp/my socket' attach"},
		{app.TmuxTarget{Bin: "/opt/tmux/bin/tmux", SocketName: "p", Session: "tmux-mcp"}, "a private tmux server of its own, removed when it exits",
			"/opt/tmux/bin/tmux -L p attach -t tmux-mcp"},
		{app.TmuxTarget{SocketName: "it's"}, "the tmux server on socket it's", `tmux -L 'it'\''s' attach`},
	} {
		if ws := tc.target.Workspace(); ws.Panes != tc.panes || ws.Attach != tc.cmd {
			t.Errorf("%+v: %+v, want %q and %q", tc.target, ws, tc.panes, tc.cmd)
		}
	}
}

func TestIsTerminalOnlyForATerminal(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	file, err := os.CreateTemp(t.TempDir(), "stdin")
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	for name, in := range map[string]io.Reader{"a pipe": r, os.DevNull: null, "a file": file, "a reader": strings.NewReader("")} {
		if app.IsTerminal(in) {
			t.Errorf("IsTerminal(%s) = true", name)
		}
	}
	tty, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal to check the true case: %v", err)
	}
	defer tty.Close()
	if !app.IsTerminal(tty) {
		t.Error("IsTerminal(a pseudo-terminal) = false")
	}
}
