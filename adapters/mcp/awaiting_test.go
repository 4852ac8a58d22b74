package mcp_test

import (
	"context"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmux-mcp/tmux-mcp/adapters/clock"
	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
	"github.com/tmux-mcp/tmux-mcp/adapters/mcp"
	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/domain/input"
)

// A command that asks for input, through the transport: the result says
// awaiting_input and what it asks, its text says what to do (for a
// secret: ask the person, never guess), the session that ran it answers
// it and no other session may, and wait_for_command goes on to the end.
// The domain runs on the fake terminal and the system clock, with short
// quiet times.

// twoSessions connects two clients to one server on tools.
func twoSessions(t *testing.T, tools mcp.Tools, opts mcp.Options) (a, b *sdk.ClientSession) {
	t.Helper()
	srv := mcp.NewServer(tools, opts)
	var sessions []*sdk.ClientSession
	for range 2 {
		st, ct := sdk.NewInMemoryTransports()
		ss, err := srv.SDK().Connect(context.Background(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "test-client", Version: "0"}, nil).Connect(context.Background(), ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			cs.Close()
			ss.Wait()
		})
		sessions = append(sessions, cs)
	}
	return sessions[0], sessions[1]
}

func askingService(t *testing.T) *domain.Service {
	t.Helper()
	term := fake.New()
	term.AddPane(fake.PaneSpec{})
	cfg := domain.DefaultConfig()
	cfg.LivenessInterval, cfg.InputQuiet = 10*time.Millisecond, 30*time.Millisecond
	svc := domain.NewService(term, clock.New(), fake.NewIDs(), cfg)
	t.Cleanup(func() { svc.Close() })
	return svc
}

func TestACommandAskingForASecretIsAnsweredByItsOwnSession(t *testing.T) {
	a, b := twoSessions(t, askingService(t), mcp.Options{Attach: "tmux -L work attach"})
	res := call(t, a, "run_shell_command", map[string]any{"paneId": "%0", "command": "read -s -p 'Password: ' pw; echo done", "timeoutMs": 20_000})
	got := structured(t, res)
	if got["outcome"] != "awaiting_input" || got["stillRunning"] != true || got["exitStatus"] != nil {
		t.Fatalf("result = %v; want awaiting_input, still running, no exit status", got)
	}
	if want := map[string]any{"kind": "secret", "prompt": "Password:"}; !jsonEqual(got["input"], want) {
		t.Errorf("input = %v, want %v", got["input"], want)
	}
	txt := strings.Join(texts(t, res), "\n")
	for _, want := range []string{"secret", "Do not guess", "ask the person to type it themselves", "`tmux -L work attach`", "pane %0",
		"only this session's paste_text and send_keys", "wait_for_command with paneId %0"} {
		if !strings.Contains(txt, want) {
			t.Errorf("the text does not say %q:\n%s", want, txt)
		}
	}

	// Another session is refused; nothing reaches the command.
	if res := call(t, b, "paste_text", map[string]any{"paneId": "%0", "text": "guess", "enter": true}); !res.IsError ||
		!strings.Contains(toolErrorText(t, res), "busy") || !strings.Contains(toolErrorText(t, res), "only the MCP session that started it") {
		t.Fatalf("another session's paste = %v; want a busy tool error", texts(t, res))
	}
	if res := call(t, b, "send_keys", map[string]any{"paneId": "%0", "keys": "y"}); !res.IsError {
		t.Fatalf("another session's keys = %v; want a tool error", texts(t, res))
	}
	if res := call(t, a, "paste_text", map[string]any{"paneId": "%0", "text": "hunter2", "enter": true}); res.IsError {
		t.Fatalf("the session's own answer = %v", texts(t, res))
	}
	end := structured(t, call(t, a, "wait_for_command", map[string]any{"paneId": "%0", "timeoutMs": 20_000}))
	if end["outcome"] != "completed" || end["exitStatus"] != float64(0) || end["output"] != "Password: \ndone" || end["input"] != nil {
		t.Errorf("wait = %v; want completed, exit 0, the prompt and done", end)
	}
}

func TestAwaitInputFalseWaitsToTheDeadline(t *testing.T) {
	a, _ := twoSessions(t, askingService(t), mcp.Options{})
	got := structured(t, call(t, a, "run_shell_command", map[string]any{"paneId": "%0", "command": "read -p 'Name: ' x", "timeoutMs": 300, "awaitInput": false}))
	if got["outcome"] != "timed_out" || got["stillRunning"] != true || got["input"] != nil {
		t.Fatalf("result = %v; want timed_out, still running, input null", got)
	}
	// The wait that awaits input reports the ask at once.
	got = structured(t, call(t, a, "wait_for_command", map[string]any{"paneId": "%0", "timeoutMs": 20_000}))
	if want := map[string]any{"kind": "line", "prompt": "Name:"}; got["outcome"] != "awaiting_input" || !jsonEqual(got["input"], want) {
		t.Fatalf("wait = %v; want awaiting_input, %v", got, want)
	}
}

// Each kind's text tells the agent what to do with it.
func TestEachKindOfAskSaysWhatToDo(t *testing.T) {
	for kind, want := range map[string]string{
		"secret":  "ask the person",
		"confirm": "yes-or-no",
		"pager":   `keys "q"`,
		"editor":  "Escape : q !",
		"repl":    "interactive interpreter",
		"line":    "line of input",
		"unknown": "capture_pane",
	} {
		stub := &stubTools{t: t, run: func(context.Context, domain.RunRequest) (domain.RunResult, error) {
			return domain.RunResult{PaneID: "%2", Outcome: domain.OutcomeAwaitingInput, StillRunning: true, OutputComplete: true,
				Input: &domain.InputAsk{Kind: inputKind(kind), Prompt: "> "}}, nil
		}}
		cs, _ := connect(t, stub)
		res := call(t, cs, "run_shell_command", map[string]any{"paneId": "%2", "command": "x"})
		if got := structured(t, res); !jsonEqual(got["input"], map[string]any{"kind": kind, "prompt": "> "}) {
			t.Errorf("%s: input = %v", kind, got["input"])
		}
		if txt := strings.Join(texts(t, res), "\n"); !strings.Contains(txt, want) || !strings.Contains(txt, "wait_for_command") {
			t.Errorf("%s: the text does not say %q and to wait for the command:\n%s", kind, want, txt)
		}
	}
}

func inputKind(s string) input.Kind { return input.Kind(s) }
