package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmux-mcp/tmux-mcp/adapters/mcp"
	"github.com/tmux-mcp/tmux-mcp/adapters/mcp/audit"
	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// lockedBuffer is a bytes.Buffer safe for concurrent use.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// auditLine is one line of the audit log.
type auditLine struct {
	Time       string            `json:"time"`
	Tool       string            `json:"tool"`
	PaneID     string            `json:"paneId"`
	Outcome    string            `json:"outcome"`
	ErrorKind  string            `json:"errorKind"`
	DurationMs *int64            `json:"durationMs"`
	SHA256     map[string]string `json:"sha256"`
}

// auditLines decodes the log, one entry per line.
func auditLines(t *testing.T, log string) []auditLine {
	t.Helper()
	var out []auditLine
	for line := range strings.Lines(log) {
		var l auditLine
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatalf("audit line is not JSON: %q", line)
		}
		if l.Time == "" || l.DurationMs == nil {
			t.Errorf("audit line lacks its time or duration: %q", line)
		}
		out = append(out, l)
	}
	return out
}

// connectAudited serves stub with an audit log and returns the log's
// buffer.
func connectAudited(t *testing.T, stub *manageStub) (*mcpClient, *lockedBuffer) {
	t.Helper()
	var buf lockedBuffer
	cs, _ := connectWith(t, stub, mcp.Options{Manage: stub, Safety: mcp.TierDestructive, Audit: audit.New(&buf)})
	return &mcpClient{t: t, cs: cs}, &buf
}

func TestAuditedRunShellCommandRecordsADigestNotTheCommand(t *testing.T) {
	const command = "curl -H 'Authorization: Bearer s3cr3t' https://example.com"
	stub := newManageStub(t)
	stub.run = func(context.Context, domain.RunRequest) (domain.RunResult, error) {
		r := completed(0)
		r.PaneID = "%5"
		return r, nil
	}
	c, log := connectAudited(t, stub)
	c.ok("run_shell_command", map[string]any{"paneId": "%5", "command": command})

	if strings.Contains(log.String(), "s3cr3t") || strings.Contains(log.String(), "curl") {
		t.Fatalf("the audit log holds the command's text:\n%s", log)
	}
	lines := auditLines(t, log.String())
	if len(lines) != 1 {
		t.Fatalf("audit log has %d lines, want 1:\n%s", len(lines), log)
	}
	l := lines[0]
	if l.Tool != "run_shell_command" || l.PaneID != "%5" || l.Outcome != "completed" || l.ErrorKind != "" {
		t.Errorf("audit line = %+v, want run_shell_command on %%5, completed", l)
	}
	if want := audit.Digest(command); l.SHA256["command"] != want || len(l.SHA256) != 1 {
		t.Errorf("sha256 = %v, want command %s", l.SHA256, want)
	}
}

func TestAuditRecordsEveryCallOnce(t *testing.T) {
	stub := newManageStub(t)
	stub.results = validResults()
	stub.errs["KillPane"] = &fault.RefusalError{Pane: "%3", Reason: "a person is watching it"}
	stub.paste = func(_ context.Context, req domain.PasteRequest) (domain.PasteResult, error) {
		return domain.PasteResult{PaneID: req.PaneID, Bytes: int64(len(req.Text))}, nil
	}
	stub.keys = func(_ context.Context, req domain.SendKeysRequest) (domain.SendKeysResult, error) {
		return domain.SendKeysResult{}, fmt.Errorf("send keys to pane %s: %w", req.PaneID, ports.ErrPaneDead)
	}
	stub.wait = func(_ context.Context, req domain.WaitForTextRequest) (domain.WaitForTextResult, error) {
		return domain.WaitForTextResult{PaneID: req.PaneID, Outcome: domain.WaitTimedOut, Cursor: "c"}, nil
	}
	c, log := connectAudited(t, stub)

	c.ok("paste_text", map[string]any{"paneId": "%3", "text": "hunter2"})
	c.toolError("send_keys", map[string]any{"paneId": "%3", "keys": "C-c"})
	c.ok("wait_for_text", map[string]any{"paneId": "%3", "patterns": []string{"$ "}})
	c.ok("create_session", map[string]any{"command": "top"})
	c.ok("list_sessions", nil)
	c.toolError("kill_pane", map[string]any{"paneId": "%3"})
	// Refused by the schema, before the domain: audited all the same.
	c.toolError("run_shell_command", map[string]any{"paneId": "3", "command": "rm -rf /"})
	// Not a call the server could serve: a protocol error, with nothing
	// run; it is not a call of any tool, so there is nothing to record.
	if _, err := c.cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "no_such_tool", Arguments: map[string]any{}}); err == nil {
		t.Error("unknown tool: no protocol error")
	}

	for _, secret := range []string{"hunter2", "C-c", "top", "rm -rf"} {
		if strings.Contains(log.String(), secret) {
			t.Errorf("the audit log holds %q:\n%s", secret, log)
		}
	}
	want := []auditLine{
		{Tool: "paste_text", PaneID: "%3", Outcome: "ok", SHA256: map[string]string{"text": audit.Digest("hunter2")}},
		{Tool: "send_keys", PaneID: "%3", Outcome: "error", ErrorKind: "pane_dead", SHA256: map[string]string{"keys": audit.Digest("C-c")}},
		{Tool: "wait_for_text", PaneID: "%3", Outcome: "timed_out"},
		// The pane a call made is the pane of its line.
		{Tool: "create_session", PaneID: "%7", Outcome: "ok", SHA256: map[string]string{"command": audit.Digest("top")}},
		{Tool: "list_sessions", Outcome: "ok"},
		{Tool: "kill_pane", PaneID: "%3", Outcome: "error", ErrorKind: "refused"},
		{Tool: "run_shell_command", PaneID: "3", Outcome: "error", ErrorKind: "invalid_argument",
			SHA256: map[string]string{"command": audit.Digest("rm -rf /")}},
	}
	got := auditLines(t, log.String())
	if len(got) != len(want) {
		t.Fatalf("audit log has %d lines, want %d:\n%s", len(got), len(want), log)
	}
	for i := range want {
		g := got[i]
		g.Time, g.DurationMs = "", nil
		if !jsonEqual(g, want[i]) {
			t.Errorf("line %d = %+v\nwant %+v", i, g, want[i])
		}
	}
}

func TestWithoutAnAuditLogNothingIsRecorded(t *testing.T) {
	// The server must work with no log at all: a nil *audit.Log records
	// nothing, and no call fails for want of one.
	stub := newManageStub(t)
	stub.results = validResults()
	cs, _ := connectWith(t, stub, mcp.Options{Manage: stub})
	(&mcpClient{t: t, cs: cs}).ok("list_sessions", nil)
}

// failingWriter fails every write.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestAFailedAuditWriteIsLoggedAndTheResultStillReturned(t *testing.T) {
	stub := newManageStub(t)
	stub.results = validResults()
	var logs lockedBuffer
	cs, _ := connectWith(t, stub, mcp.Options{
		Manage: stub,
		Audit:  audit.New(failingWriter{}),
		Logger: newTextLogger(&logs),
	})
	(&mcpClient{t: t, cs: cs}).ok("list_sessions", nil)
	if !strings.Contains(logs.String(), "audit log write failed") || !strings.Contains(logs.String(), "disk full") {
		t.Errorf("server log = %q, want the failed audit write", logs.String())
	}
}

func newTextLogger(w *lockedBuffer) *slog.Logger { return slog.New(slog.NewTextHandler(w, nil)) }
