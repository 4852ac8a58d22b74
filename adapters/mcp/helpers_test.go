package mcp_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmux-mcp/tmux-mcp/adapters/mcp"
	"github.com/tmux-mcp/tmux-mcp/domain"
)

// stubTools answers each call with the function set for it and records the
// requests it saw. A call whose function is unset fails the test.
type stubTools struct {
	t       *testing.T
	run     func(context.Context, domain.RunRequest) (domain.RunResult, error)
	paste   func(context.Context, domain.PasteRequest) (domain.PasteResult, error)
	capture func(context.Context, domain.CaptureRequest) (domain.CaptureResult, error)
	since   func(context.Context, domain.CaptureSinceRequest) (domain.CaptureSinceResult, error)
	wait    func(context.Context, domain.WaitForTextRequest) (domain.WaitForTextResult, error)
	keys    func(context.Context, domain.SendKeysRequest) (domain.SendKeysResult, error)
	waitCmd func(context.Context, domain.WaitCommandRequest) (domain.RunResult, error)
	readOut func(context.Context, domain.ReadOutputRequest) (domain.ReadOutputResult, error)
	signal  func(context.Context, domain.SignalRequest) (domain.SignalResult, error)

	mu       sync.Mutex
	runs     []domain.RunRequest
	pastes   []domain.PasteRequest
	captures []domain.CaptureRequest
	sinces   []domain.CaptureSinceRequest
	waits    []domain.WaitForTextRequest
	keyCalls []domain.SendKeysRequest
	waitCmds []domain.WaitCommandRequest
	readOuts []domain.ReadOutputRequest
	signals  []domain.SignalRequest
}

func (s *stubTools) RunShellCommand(ctx context.Context, req domain.RunRequest) (domain.RunResult, error) {
	s.mu.Lock()
	s.runs = append(s.runs, req)
	s.mu.Unlock()
	if s.run == nil {
		s.t.Errorf("unexpected RunShellCommand(%+v)", req)
		return domain.RunResult{}, nil
	}
	return s.run(ctx, req)
}

func (s *stubTools) PasteText(ctx context.Context, req domain.PasteRequest) (domain.PasteResult, error) {
	s.mu.Lock()
	s.pastes = append(s.pastes, req)
	s.mu.Unlock()
	if s.paste == nil {
		s.t.Errorf("unexpected PasteText(%+v)", req)
		return domain.PasteResult{}, nil
	}
	return s.paste(ctx, req)
}

func (s *stubTools) CapturePane(ctx context.Context, req domain.CaptureRequest) (domain.CaptureResult, error) {
	s.mu.Lock()
	s.captures = append(s.captures, req)
	s.mu.Unlock()
	if s.capture == nil {
		s.t.Errorf("unexpected CapturePane(%+v)", req)
		return domain.CaptureResult{}, nil
	}
	return s.capture(ctx, req)
}

func (s *stubTools) CaptureSince(ctx context.Context, req domain.CaptureSinceRequest) (domain.CaptureSinceResult, error) {
	s.mu.Lock()
	s.sinces = append(s.sinces, req)
	s.mu.Unlock()
	if s.since == nil {
		s.t.Errorf("unexpected CaptureSince(%+v)", req)
		return domain.CaptureSinceResult{}, nil
	}
	return s.since(ctx, req)
}

func (s *stubTools) WaitForText(ctx context.Context, req domain.WaitForTextRequest) (domain.WaitForTextResult, error) {
	s.mu.Lock()
	s.waits = append(s.waits, req)
	s.mu.Unlock()
	if s.wait == nil {
		s.t.Errorf("unexpected WaitForText(%+v)", req)
		return domain.WaitForTextResult{}, nil
	}
	return s.wait(ctx, req)
}

func (s *stubTools) SendKeys(ctx context.Context, req domain.SendKeysRequest) (domain.SendKeysResult, error) {
	s.mu.Lock()
	s.keyCalls = append(s.keyCalls, req)
	s.mu.Unlock()
	if s.keys == nil {
		s.t.Errorf("unexpected SendKeys(%+v)", req)
		return domain.SendKeysResult{}, nil
	}
	return s.keys(ctx, req)
}

func (s *stubTools) WaitForCommand(ctx context.Context, req domain.WaitCommandRequest) (domain.RunResult, error) {
	s.mu.Lock()
	s.waitCmds = append(s.waitCmds, req)
	s.mu.Unlock()
	if s.waitCmd == nil {
		s.t.Errorf("unexpected WaitForCommand(%+v)", req)
		return domain.RunResult{}, nil
	}
	return s.waitCmd(ctx, req)
}

func (s *stubTools) ReadOutput(ctx context.Context, req domain.ReadOutputRequest) (domain.ReadOutputResult, error) {
	s.mu.Lock()
	s.readOuts = append(s.readOuts, req)
	s.mu.Unlock()
	if s.readOut == nil {
		s.t.Errorf("unexpected ReadOutput(%+v)", req)
		return domain.ReadOutputResult{}, nil
	}
	return s.readOut(ctx, req)
}

func (s *stubTools) SignalCommand(ctx context.Context, req domain.SignalRequest) (domain.SignalResult, error) {
	s.mu.Lock()
	s.signals = append(s.signals, req)
	s.mu.Unlock()
	if s.signal == nil {
		s.t.Errorf("unexpected SignalCommand(%+v)", req)
		return domain.SignalResult{}, nil
	}
	return s.signal(ctx, req)
}

func (s *stubTools) calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.runs) + len(s.pastes) + len(s.captures) + len(s.sinces) + len(s.waits) + len(s.keyCalls) + len(s.waitCmds) + len(s.readOuts) + len(s.signals)
}

// connect serves tools over the SDK's in-memory transport and returns a
// real client session on it, closed at the end of the test.
func connect(t *testing.T, tools mcp.Tools) (*sdk.ClientSession, *mcp.Server) {
	t.Helper()
	return connectWith(t, tools, mcp.Options{Version: "1.2.3"})
}

// connectWith is connect with options.
func connectWith(t *testing.T, tools mcp.Tools, opts mcp.Options) (*sdk.ClientSession, *mcp.Server) {
	t.Helper()
	ctx := context.Background()
	srv := mcp.NewServer(tools, opts)
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.SDK().Connect(ctx, st, nil)
	if err != nil {
		t.Fatalf("server connect: %v", err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test-client", Version: "0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatalf("client connect: %v", err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs, srv
}

func call(t *testing.T, cs *sdk.ClientSession, tool string, args any) *sdk.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("CallTool(%s): protocol error %v", tool, err)
	}
	return res
}

// texts returns the text of each content block.
func texts(t *testing.T, res *sdk.CallToolResult) []string {
	t.Helper()
	var out []string
	for _, c := range res.Content {
		tc, ok := c.(*sdk.TextContent)
		if !ok {
			t.Fatalf("content block %T, want *mcp.TextContent", c)
		}
		out = append(out, tc.Text)
	}
	return out
}

// structured returns the structured content as a JSON object, after
// checking that the first text block is the same JSON.
func structured(t *testing.T, res *sdk.CallToolResult) map[string]any {
	t.Helper()
	if res.IsError {
		t.Fatalf("tool error: %q", texts(t, res))
	}
	m, ok := res.StructuredContent.(map[string]any)
	if !ok {
		t.Fatalf("structuredContent = %#v, want a JSON object", res.StructuredContent)
	}
	txt := texts(t, res)
	if len(txt) == 0 {
		t.Fatal("no text content")
	}
	var fromText map[string]any
	if err := json.Unmarshal([]byte(txt[0]), &fromText); err != nil {
		t.Fatalf("first text block is not JSON: %v\n%s", err, txt[0])
	}
	if !jsonEqual(fromText, m) {
		t.Errorf("text block and structured content differ:\ntext: %s\nstructured: %v", txt[0], m)
	}
	return m
}

// toolErrorText returns the text of a tool error, failing the test if res
// is not one.
func toolErrorText(t *testing.T, res *sdk.CallToolResult) string {
	t.Helper()
	if !res.IsError {
		t.Fatalf("IsError = false, want a tool error; content %q", texts(t, res))
	}
	if res.StructuredContent != nil {
		t.Errorf("tool error has structured content %v", res.StructuredContent)
	}
	return strings.Join(texts(t, res), "\n")
}

// jsonEqual reports whether a and b encode the same JSON value.
func jsonEqual(a, b any) bool {
	na, ok1 := normalize(a)
	nb, ok2 := normalize(b)
	return ok1 && ok2 && reflect.DeepEqual(na, nb)
}

func normalize(v any) (any, bool) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, false
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, false
	}
	return out, true
}
