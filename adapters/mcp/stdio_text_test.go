package mcp_test

import (
	"context"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/adapters/mcp"
	"github.com/tmux-mcp/tmux-mcp/domain"
)

// A line whose text Go's decoder would read altered — bytes that are not
// UTF-8, half a surrogate pair — is refused with an invalid request error
// under the call's id, and nothing of it runs: run as read, it would be
// another command than the one sent (echo ��). The session goes on.
func TestStdioRefusesALineWhoseTextWouldBeAltered(t *testing.T) {
	var ran []string
	stub := &stubTools{t: t, run: func(_ context.Context, req domain.RunRequest) (domain.RunResult, error) {
		ran = append(ran, req.Command)
		return completed(0), nil
	}}
	r := serveStdio(t, stub, mcp.StdioOptions{})
	r.send(initializeLine(1, "2025-06-18"), initializedLine)
	r.nextResult("1")
	raw := func(id, command string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"run_shell_command","arguments":{"paneId":"%1","command":"` + command + `"}}}`
	}
	for _, c := range []struct{ name, line, id, says string }{
		{"bytes that are not UTF-8", raw("2", "echo \xff\xfe"), "2", "0xff, is not UTF-8"},
		{"a lone surrogate", raw(`"three"`, `echo \ud800x`), `"three"`, `the escape \ud800`},
		{"a lone low surrogate", raw("4", `echo \udc00`), "4", "half of a UTF-16 surrogate pair"},
		{"a notification", "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":2,\"reason\":\"\xff\"}}", "null", "not UTF-8"},
	} {
		r.send(c.line)
		if m := r.nextError(-32600, c.id); !strings.Contains(m.Error.Message, c.says) || !strings.Contains(m.Error.Message, "nothing was done") {
			t.Errorf("%s: %q; want it to say %q and that nothing was done", c.name, m.Error.Message, c.says)
		}
	}
	r.send(raw("5", `echo \ud83c\udf89 é`))
	r.nextResult("5")
	if len(ran) != 1 || ran[0] != "echo 🎉 é" {
		t.Errorf("ran %q; want the last command alone, exactly", ran)
	}
	if err := r.end(); err != nil {
		t.Errorf("ServeStdio = %v", err)
	}
}

// A batch, where the protocol version has them, is refused whole: none
// of its calls runs (the stub fails the test on any run).
func TestStdioRefusesABatchWhoseTextWouldBeAltered(t *testing.T) {
	r := serveStdio(t, &stubTools{t: t}, mcp.StdioOptions{})
	r.send(initializeLine(1, "2025-03-26"), initializedLine)
	r.nextResult("1")
	r.send("[" + runLine(2, "echo fine") + `,{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"run_shell_command","arguments":{"paneId":"%1","command":"\udfff"}}}]`)
	if m := r.nextError(-32600, "null"); !strings.Contains(m.Error.Message, `\udfff`) {
		t.Errorf("the batch's refusal %q does not name the escape", m.Error.Message)
	}
	r.send(pingLine(4))
	r.nextResult("4")
	if err := r.end(); err != nil {
		t.Errorf("ServeStdio = %v", err)
	}
}
