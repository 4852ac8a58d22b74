package mcp

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
	"github.com/tmux-mcp/tmux-mcp/domain"
)

// A message whose text Go's decoder would read as something other than
// what its client wrote is found, and where: bytes that are not UTF-8,
// escapes of half a surrogate pair. What JSON spells otherwise is text.
func TestTextProblemFindsWhatTheDecoderWouldAlter(t *testing.T) {
	for _, c := range []struct {
		name, msg string
		problem   string // "" for none; else in the problem
	}{
		{"ASCII", `{"command":"echo hi"}`, ""},
		{"UTF-8", `{"command":"echo 日本 🎉"}`, ""},
		{"escapes", `{"command":"a\"b\\c\n\t\u00e9\u0000"}`, ""},
		{"a surrogate pair", `{"command":"\ud83c\udf89"}`, ""},
		{"a surrogate pair in capitals", `{"command":"\uD83C\uDF89"}`, ""},
		{"an escaped backslash before u", `{"command":"\\ud800"}`, ""},
		{"U+FFFD itself", `{"command":"\ufffd �"}`, ""},
		{"a byte that is not UTF-8", "{\"command\":\"echo \xff\xfe\"}", "byte 17 of the message, 0xff, is not UTF-8"},
		{"a character cut short", "{\"command\":\"\xe2\x82\"}", "byte 12 of the message, 0xe2"},
		{"an encoded surrogate", "{\"command\":\"\xed\xa0\x80\"}", "byte 12 of the message, 0xed"},
		{"a lone high surrogate", `{"command":"\ud800x"}`, `the escape \ud800 at byte 12 of the message is half of a UTF-16 surrogate pair`},
		{"a high surrogate at the end of a string", `{"command":"x\uD83C"}`, `\uD83C at byte 13`},
		{"two high surrogates", `{"command":"\ud83c\ud83c\udf89"}`, `\ud83c at byte 12`},
		{"a lone low surrogate", `{"command":"\udf89"}`, `\udf89 at byte 12`},
		{"a surrogate in a key", `{"\udc00":1}`, `\udc00 at byte 2`},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := textProblem([]byte(c.msg))
			if c.problem == "" && got != "" || c.problem != "" && !strings.Contains(got, c.problem) {
				t.Errorf("textProblem(%q) = %q, want %q", c.msg, got, c.problem)
			}
		})
	}
}

// runRecorder is a Tools that records the commands it is asked to run.
type runRecorder struct {
	Tools
	mu   sync.Mutex
	runs []string
}

func (r *runRecorder) RunShellCommand(_ context.Context, req domain.RunRequest) (domain.RunResult, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.runs = append(r.runs, req.Command)
	return domain.RunResult{PaneID: req.PaneID, Outcome: domain.OutcomeCompleted, OutputComplete: true}, nil
}

func (r *runRecorder) commands() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.runs...)
}

// Over streamable HTTP, a call whose text would be read altered is
// refused with 400 and a JSON-RPC error under its id, as the SDK refuses
// calls it cannot take, and nothing runs; the session goes on.
func TestHTTPRefusesAMessageWhoseTextWouldBeAltered(t *testing.T) {
	tools := &runRecorder{}
	srv := NewServer(tools, Options{Clock: fake.NewClock(time.Unix(0, 0)), Logger: slog.New(slog.DiscardHandler)})
	t.Cleanup(srv.Close)
	hs := httptest.NewServer(srv.HTTPHandler())
	t.Cleanup(hs.Close)

	session := ""
	send := func(body string) *http.Response {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, hs.URL+HTTPPath, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		}
		resp, err := hs.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	resp := send(initializeBody)
	if session = resp.Header.Get("Mcp-Session-Id"); resp.StatusCode != http.StatusOK || session == "" {
		t.Fatalf("initialize: %s, session %q", resp.Status, session)
	}
	io.Copy(io.Discard, resp.Body)
	if resp := send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("initialized: %s", resp.Status)
	}

	call := func(id int, command string) string {
		return `{"jsonrpc":"2.0","id":` + string(rune('0'+id)) + `,"method":"tools/call","params":{"name":"run_shell_command",` +
			`"arguments":{"paneId":"%1","command":"` + command + `"}}}`
	}
	for _, c := range []struct {
		name, body, id, says string
	}{
		{"bytes that are not UTF-8", call(2, "echo \xff\xfe"), "2", "is not UTF-8"},
		{"half a surrogate pair", call(3, `echo \ud800x`), "3", "half of a UTF-16 surrogate pair"},
		{"a notification", "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":9,\"reason\":\"\xff\"}}", "null", "not UTF-8"},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp := send(c.body)
			var reply struct {
				ID    json.RawMessage `json:"id"`
				Error *struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			body, _ := io.ReadAll(resp.Body)
			if err := json.Unmarshal(body, &reply); err != nil || resp.StatusCode != http.StatusBadRequest ||
				resp.Header.Get("Content-Type") != "application/json" || string(reply.ID) != c.id || reply.Error == nil ||
				reply.Error.Code != -32600 || !strings.Contains(reply.Error.Message, c.says) || !strings.Contains(reply.Error.Message, "nothing was done") {
				t.Errorf("%s %s: %s; want 400, a JSON-RPC invalid request error under id %s saying %q", resp.Status, resp.Header.Get("Content-Type"), body, c.id, c.says)
			}
		})
	}
	if resp := send(call(4, `echo \ud83c\udf89`)); resp.StatusCode != http.StatusOK {
		t.Errorf("a call after the refusals: %s", resp.Status)
	}
	if got := tools.commands(); len(got) != 1 || got[0] != "echo 🎉" {
		t.Errorf("commands run %q, want the last call's alone", got)
	}
}
