package test

import (
	"fmt"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmux-mcp/tmux-mcp/domain"
)

// Output that a result's text cannot carry, printed by real programs into
// real panes: an escape sequence that never ends, which tmux too lets hide
// everything after it, and bytes that are not UTF-8 or are controls that
// show nothing. The result keeps what it can, counts the rest, and does
// not say outputComplete.

func TestTmuxOutputTheTextCannotCarryIsCounted(t *testing.T) {
	t.Parallel()
	r := newRig(t, bash)
	for _, c := range []struct {
		name, command, output  string
		replaced, unterminated int64
	}{
		// The tty's line ends are "\r\n": 2 + 5×3 + 6 bytes after the
		// ESC ] that never ends.
		{"an OSC that never ends", `printf '\033]'; seq 1 5; echo tail`, "", 0, 23},
		{"bytes that are not UTF-8, and NUL", `printf 'a\377\376b\000c\n'`, "a\uFFFD\uFFFDbc", 3, 0},
		{"a character cut short at the end", `printf 'ok\342\202'`, "ok", 0, 2},
		{"an OSC that ends", `printf '\033]0;title\007ok\n'`, "ok", 0, 0},
		{"an OSC that CAN cancels", `printf '\033]0;ti\030ok\n'`, "ok", 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := r.run(t, domain.RunRequest{Command: c.command})
			exact := c.replaced == 0 && c.unterminated == 0
			if res.Outcome != domain.OutcomeCompleted || deref(res.ExitStatus) != any(0) || res.Output != c.output ||
				res.ReplacedBytes != c.replaced || res.UnterminatedBytes != c.unterminated || res.OutputComplete != exact {
				t.Errorf("%s: outcome %s, exit %v, output %q, replaced %d, unterminated %d, complete %v; want completed, 0, %q, %d, %d, %v",
					c.command, res.Outcome, deref(res.ExitStatus), res.Output, res.ReplacedBytes, res.UnterminatedBytes, res.OutputComplete,
					c.output, c.replaced, c.unterminated, exact)
			}
			// The sequence hid nothing of the next command's: the frame
			// ends it, as its markers begin with ESC.
			r.settle(t, r.pane)
			wantCompleted(t, r.run(t, domain.RunRequest{Command: "echo next"}), "next", 0)
			r.settle(t, r.pane)
		})
	}
}

// What the client reads, through the built binary: the JSON carries the
// counts and the notice says what is missing.
func TestBinaryCountsOutputTheTextCannotCarry(t *testing.T) {
	t.Parallel()
	srv, p := newTmuxServer(t, bash)
	b := startBinary(t, nil, "-socket-name", srv.sock)
	pane := string(p)

	res := b.call(t, "run_shell_command", map[string]any{"paneId": pane, "command": `printf '\033]'; seq 1 5; echo tail`})
	run := decodeRun(t, res)
	if run.Outcome != "completed" || run.Output != "" || run.UnterminatedBytes != 23 || run.OutputComplete {
		t.Errorf("an OSC that never ends = %+v; want completed, no output, 23 bytes unterminated, not complete", run)
	}
	wantNotice(t, res, "last 23 bytes", "escape sequence that never ended")
	srv.waitCommand(t, p, bash.name)

	res = b.call(t, "run_shell_command", map[string]any{"paneId": pane, "command": `printf 'a\377\376b\000c\n'`})
	run = decodeRun(t, res)
	if run.Output != "a\uFFFD\uFFFDbc" || run.ReplacedBytes != 3 || run.UnterminatedBytes != 0 || run.OutputComplete {
		t.Errorf("bytes that are not UTF-8, and NUL = %+v; want \"a\\uFFFD\\uFFFDbc\", 3 bytes replaced, not complete", run)
	}
	wantNotice(t, res, "3 bytes that text cannot carry", "od -c")
}

// wantNotice checks that a result's text half is the JSON and then a
// notice holding every one of parts.
func wantNotice(t *testing.T, res *sdk.CallToolResult, parts ...string) {
	t.Helper()
	if len(res.Content) != 2 {
		t.Errorf("the result has %d content blocks, want the JSON and a notice", len(res.Content))
		return
	}
	notice := res.Content[1].(*sdk.TextContent).Text
	for _, p := range parts {
		if !strings.Contains(notice, p) {
			t.Errorf("notice %q lacks %q", notice, p)
		}
	}
}

// A request line whose text would be read altered is refused over stdio
// with the call's id, and nothing reaches the pane: the shell is not typed
// into, and the next call runs as sent.
func TestBinaryRefusesARequestWhoseTextWouldBeAltered(t *testing.T) {
	t.Parallel()
	srv, p := newTmuxServer(t, bash)
	s := startLineServer(t, "-socket-name", srv.sock)
	call := func(id int, command string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"run_shell_command","arguments":{"paneId":%q,"command":"%s"}}}`,
			id, p, command)
	}
	s.send(rpcInitialize(1), rpcInitialized, call(2, "echo typed-\xff\xfe"), call(3, `echo typed-\ud800x`))
	for _, id := range []string{"2", "3"} {
		if r := s.reply(id, 0); r.Error == nil || r.Error.Code != -32600 || !strings.Contains(r.Error.Message, "nothing was done") {
			t.Errorf("call %s: %+v %s; want an invalid request error saying nothing was done", id, r.Error, r.Result)
		}
	}
	s.send(call(4, `echo sent-\u00e9`))
	if outcome, output := runReply(t, s.reply("4", 0)); outcome != "completed" || output != "sent-é" {
		t.Errorf("the call after the refusals: %s %q", outcome, output)
	}
	if screen := srv.tmux(t, "capture-pane", "-p", "-t", string(p)); strings.Contains(screen, "typed-") {
		t.Errorf("a refused command reached the pane:\n%s", screen)
	}
}
