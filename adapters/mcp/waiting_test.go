package mcp_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmux-mcp/tmux-mcp/adapters/mcp"
	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// The transport side of capture_since, wait_for_text and send_keys, on a
// stub domain: what reaches the domain, what reaches the client, progress
// and cancellation. test/e2e_waiting_test.go runs them on the real domain.

func TestCaptureSincePassesArgumentsToTheDomain(t *testing.T) {
	tests := []struct {
		name string
		args map[string]any
		want domain.CaptureSinceRequest
	}{
		{
			name: "every argument",
			args: map[string]any{"paneId": "%2", "cursor": "Yzs", "maxLines": 40, "waitMs": 2500},
			want: domain.CaptureSinceRequest{PaneID: "%2", Cursor: "Yzs", MaxLines: 40, WaitMs: 2500},
		},
		{
			name: "no cursor: seed",
			args: map[string]any{"paneId": "%0"},
			want: domain.CaptureSinceRequest{PaneID: "%0"},
		},
		{
			name: "waitMs 0 means do not wait",
			args: map[string]any{"paneId": "%0", "cursor": "c", "waitMs": 0},
			want: domain.CaptureSinceRequest{PaneID: "%0", Cursor: "c"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stub := &stubTools{t: t, since: func(_ context.Context, req domain.CaptureSinceRequest) (domain.CaptureSinceResult, error) {
				return domain.CaptureSinceResult{PaneID: req.PaneID}, nil
			}}
			cs, _ := connect(t, stub)
			structured(t, call(t, cs, "capture_since", tt.args))
			if len(stub.sinces) != 1 {
				t.Fatalf("domain calls = %d, want 1", len(stub.sinces))
			}
			got := stub.sinces[0]
			if got.Progress != nil {
				t.Error("Progress set for a call without a progress token")
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("domain got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestCaptureSinceReportsEveryField(t *testing.T) {
	cur := "Yzx-next"
	tests := []struct {
		name   string
		result domain.CaptureSinceResult
		want   map[string]any
	}{
		{
			name: "new output after a cursor",
			result: domain.CaptureSinceResult{PaneID: "%1", Text: "a > b\n", Cursor: &cur, Streaming: true,
				ReturnedBytes: 6, EffectiveTimeoutMs: 2000},
			want: map[string]any{"byteClamped": false, "cursor": cur, "droppedLines": 0, "effectiveTimeoutMs": 2000,
				"missedBytes": 0, "omittedBytes": 0, "paneId": "%1", "rangeClamped": false, "replacedBytes": 0, "returnedBytes": 6,
				"seeded": false, "streaming": true, "text": "a > b\n", "unterminatedBytes": 0},
		},
		{
			name:   "a pane whose output cannot be followed: null cursor",
			result: domain.CaptureSinceResult{PaneID: "%1", Text: "$\n", Seeded: true, ReturnedBytes: 2},
			want: map[string]any{"byteClamped": false, "cursor": nil, "droppedLines": 0, "effectiveTimeoutMs": 0,
				"missedBytes": 0, "omittedBytes": 0, "paneId": "%1", "rangeClamped": false, "replacedBytes": 0, "returnedBytes": 2,
				"seeded": true, "streaming": false, "text": "$\n", "unterminatedBytes": 0},
		},
		{
			name: "every count and flag set",
			result: domain.CaptureSinceResult{PaneID: "%1", Text: "x", Cursor: &cur, Streaming: true, DroppedLines: 3,
				OmittedBytes: 4, MissedBytes: 5, ReturnedBytes: 1, RangeClamped: true, ByteClamped: true, EffectiveTimeoutMs: 7,
				ReplacedBytes: 8, UnterminatedBytes: 9},
			want: map[string]any{"byteClamped": true, "cursor": cur, "droppedLines": 3, "effectiveTimeoutMs": 7,
				"missedBytes": 5, "omittedBytes": 4, "paneId": "%1", "rangeClamped": true, "replacedBytes": 8, "returnedBytes": 1,
				"seeded": false, "streaming": true, "text": "x", "unterminatedBytes": 9},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stub := &stubTools{t: t, since: func(context.Context, domain.CaptureSinceRequest) (domain.CaptureSinceResult, error) {
				return tt.result, nil
			}}
			cs, _ := connect(t, stub)
			if got := structured(t, call(t, cs, "capture_since", map[string]any{"paneId": "%1"})); !jsonEqual(got, tt.want) {
				t.Errorf("structured content = %v\nwant %v", got, tt.want)
			}
		})
	}
}

func TestCaptureSinceTextCarriesANoticeWhenOutputIsIncomplete(t *testing.T) {
	cur := "c"
	tests := []struct {
		name     string
		result   domain.CaptureSinceResult
		contains []string // in the notice; none means no notice at all
	}{
		{"complete", domain.CaptureSinceResult{PaneID: "%1", Cursor: &cur, Text: "ok\n"}, nil},
		{"lost between reads", domain.CaptureSinceResult{PaneID: "%1", Cursor: &cur, MissedBytes: 4096},
			[]string{"text is incomplete", "4096 bytes lost", "partway"}},
		{"lines withheld", domain.CaptureSinceResult{PaneID: "%1", Cursor: &cur, DroppedLines: 9},
			[]string{"9 lines", "maxLines"}},
		{"bytes text cannot carry", domain.CaptureSinceResult{PaneID: "%1", Cursor: &cur, ReplacedBytes: 2},
			[]string{"text is incomplete", "2 bytes that text cannot carry", "U+FFFD", "od -c"}},
		{"an escape sequence that never ended", domain.CaptureSinceResult{PaneID: "%1", Cursor: &cur, UnterminatedBytes: 23},
			[]string{"text is incomplete", "last 23 bytes", "escape sequence that never ended", "od -c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stub := &stubTools{t: t, since: func(context.Context, domain.CaptureSinceRequest) (domain.CaptureSinceResult, error) {
				return tt.result, nil
			}}
			cs, _ := connect(t, stub)
			res := call(t, cs, "capture_since", map[string]any{"paneId": "%1", "cursor": "c"})
			structured(t, res)
			checkNotice(t, texts(t, res), tt.contains)
		})
	}
}

// checkNotice checks that content is the JSON alone (contains nil) or the
// JSON and then a notice holding every string of contains.
func checkNotice(t *testing.T, content []string, contains []string) {
	t.Helper()
	if contains == nil {
		if len(content) != 1 {
			t.Errorf("content = %q, want the JSON alone", content)
		}
		return
	}
	if len(content) != 2 {
		t.Fatalf("content = %q, want the JSON and then a notice", content)
	}
	for _, s := range contains {
		if !strings.Contains(content[1], s) {
			t.Errorf("notice %q lacks %q", content[1], s)
		}
	}
}

func TestWaitForTextPassesArgumentsToTheDomain(t *testing.T) {
	tests := []struct {
		name string
		args map[string]any
		want domain.WaitForTextRequest
	}{
		{
			name: "every argument",
			args: map[string]any{"paneId": "%3", "patterns": []string{"FAIL", "ok [0-9]+", "FAIL"}, "regex": true,
				"timeoutMs": 9000, "cursor": "Yzs", "maxLines": 12},
			want: domain.WaitForTextRequest{PaneID: "%3", Patterns: []string{"FAIL", "ok [0-9]+", "FAIL"}, Regex: true,
				TimeoutMs: 9000, Cursor: "Yzs", MaxLines: 12},
		},
		{
			name: "substrings from now, default timeout",
			args: map[string]any{"paneId": "%0", "patterns": []string{"$ "}},
			want: domain.WaitForTextRequest{PaneID: "%0", Patterns: []string{"$ "}},
		},
		{
			// The contract makes patterns optional; the domain says why a
			// call needs one.
			name: "no patterns reach the domain as none",
			args: map[string]any{"paneId": "%0"},
			want: domain.WaitForTextRequest{PaneID: "%0"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stub := &stubTools{t: t, wait: func(_ context.Context, req domain.WaitForTextRequest) (domain.WaitForTextResult, error) {
				return domain.WaitForTextResult{PaneID: req.PaneID, Outcome: domain.WaitTimedOut}, nil
			}}
			cs, _ := connect(t, stub)
			structured(t, call(t, cs, "wait_for_text", tt.args))
			if len(stub.waits) != 1 {
				t.Fatalf("domain calls = %d, want 1", len(stub.waits))
			}
			got := stub.waits[0]
			if got.Progress != nil {
				t.Error("Progress set for a call without a progress token")
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("domain got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestWaitForTextReportsEveryField(t *testing.T) {
	pattern, failure := "ok [0-9]+", "tmux control client exited"
	tests := []struct {
		name   string
		result domain.WaitForTextResult
		want   map[string]any
	}{
		{
			name: "matched",
			result: domain.WaitForTextResult{PaneID: "%1", Outcome: domain.WaitMatched, Matched: &pattern, AlreadyOnScreen: true,
				Output: "ok 42\n", Screen: "$ make\nok 42\n", Cursor: "cur", ReturnedBytes: 6, EffectiveTimeoutMs: 30000},
			want: map[string]any{"alreadyOnScreen": true, "cursor": "cur", "droppedLines": 0, "effectiveTimeoutMs": 30000,
				"matched": pattern, "missedBytes": 0, "omittedBytes": 0, "outcome": "matched", "output": "ok 42\n",
				"paneId": "%1", "replacedBytes": 0, "returnedBytes": 6, "screen": "$ make\nok 42\n", "screenClamped": false, "streamFailure": nil,
				"unterminatedBytes": 0},
		},
		{
			name: "the stream failed",
			result: domain.WaitForTextResult{PaneID: "%1", Outcome: domain.WaitOutputLost, StreamFailure: &failure,
				Cursor: "cur", Screen: "$\n", ScreenClamped: true, DroppedLines: 2, OmittedBytes: 3, MissedBytes: 4, ReplacedBytes: 5, UnterminatedBytes: 6},
			want: map[string]any{"alreadyOnScreen": false, "cursor": "cur", "droppedLines": 2, "effectiveTimeoutMs": 0,
				"matched": nil, "missedBytes": 4, "omittedBytes": 3, "outcome": "output_lost", "output": "",
				"paneId": "%1", "replacedBytes": 5, "returnedBytes": 0, "screen": "$\n", "screenClamped": true, "streamFailure": failure,
				"unterminatedBytes": 6},
		},
		{
			// A domain slip must not reach the client as a match.
			name:   "a pattern is reported only with outcome matched",
			result: domain.WaitForTextResult{PaneID: "%1", Outcome: domain.WaitTimedOut, Matched: &pattern, Cursor: "cur"},
			want: map[string]any{"alreadyOnScreen": false, "cursor": "cur", "droppedLines": 0, "effectiveTimeoutMs": 0,
				"matched": nil, "missedBytes": 0, "omittedBytes": 0, "outcome": "timed_out", "output": "",
				"paneId": "%1", "replacedBytes": 0, "returnedBytes": 0, "screen": "", "screenClamped": false, "streamFailure": nil,
				"unterminatedBytes": 0},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stub := &stubTools{t: t, wait: func(context.Context, domain.WaitForTextRequest) (domain.WaitForTextResult, error) {
				return tt.result, nil
			}}
			cs, _ := connect(t, stub)
			got := structured(t, call(t, cs, "wait_for_text", map[string]any{"paneId": "%1", "patterns": []string{"ok"}}))
			if !jsonEqual(got, tt.want) {
				t.Errorf("structured content = %v\nwant %v", got, tt.want)
			}
		})
	}
}

func TestAnUnknownOutcomeIsAToolError(t *testing.T) {
	stub := &stubTools{t: t, wait: func(context.Context, domain.WaitForTextRequest) (domain.WaitForTextResult, error) {
		return domain.WaitForTextResult{PaneID: "%1", Outcome: "gave_up", Cursor: "c"}, nil
	}}
	cs, _ := connect(t, stub)
	msg := toolErrorText(t, call(t, cs, "wait_for_text", map[string]any{"paneId": "%1", "patterns": []string{"x"}}))
	if !strings.Contains(msg, "output schema") {
		t.Errorf("error = %q, want it to name the output schema", msg)
	}
}

func TestSendKeysPassesArgumentsToTheDomain(t *testing.T) {
	tests := []struct {
		name string
		args map[string]any
		want domain.SendKeysRequest
	}{
		{
			name: "enter defaults to true",
			args: map[string]any{"paneId": "%1", "keys": "Escape : w q"},
			want: domain.SendKeysRequest{PaneID: "%1", Keys: "Escape : w q", Enter: true},
		},
		{
			name: "enter false",
			args: map[string]any{"paneId": "%1", "keys": "C-c", "enter": false},
			want: domain.SendKeysRequest{PaneID: "%1", Keys: "C-c"},
		},
		{
			name: "literal and force",
			args: map[string]any{"paneId": "%1", "keys": "C-c is text", "literal": true, "force": true, "enter": true},
			want: domain.SendKeysRequest{PaneID: "%1", Keys: "C-c is text", Literal: true, Force: true, Enter: true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stub := &stubTools{t: t, keys: func(_ context.Context, req domain.SendKeysRequest) (domain.SendKeysResult, error) {
				return domain.SendKeysResult{PaneID: req.PaneID, Sent: []string{"C-c"}, ResolvedPaneIDs: []ports.PaneID{req.PaneID}}, nil
			}}
			cs, _ := connect(t, stub)
			structured(t, call(t, cs, "send_keys", tt.args))
			if len(stub.keyCalls) == 1 {
				if stub.keyCalls[0].Caller == "" {
					t.Error("no caller: whether the keys may answer a command cannot be told")
				}
				stub.keyCalls[0].Caller = ""
			}
			if len(stub.keyCalls) != 1 || stub.keyCalls[0] != tt.want {
				t.Errorf("domain got %+v, want [%+v]", stub.keyCalls, tt.want)
			}
		})
	}
}

func TestSendKeysReportsEveryField(t *testing.T) {
	tests := []struct {
		name   string
		result domain.SendKeysResult
		want   map[string]any
	}{
		{
			name:   "keys and Enter",
			result: domain.SendKeysResult{PaneID: "%4", Sent: []string{"Escape", ":", "w", "q", "Enter"}, ResolvedPaneIDs: []ports.PaneID{"%4"}, Attended: true},
			want:   map[string]any{"attended": true, "paneId": "%4", "resolvedPaneIds": []string{"%4"}, "sent": []string{"Escape", ":", "w", "q", "Enter"}},
		},
		{
			// The schema says array: nothing is [], never null.
			name:   "nothing reported",
			result: domain.SendKeysResult{PaneID: "%4"},
			want:   map[string]any{"attended": false, "paneId": "%4", "resolvedPaneIds": []string{}, "sent": []string{}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stub := &stubTools{t: t, keys: func(context.Context, domain.SendKeysRequest) (domain.SendKeysResult, error) {
				return tt.result, nil
			}}
			cs, _ := connect(t, stub)
			if got := structured(t, call(t, cs, "send_keys", map[string]any{"paneId": "%4", "keys": "q"})); !jsonEqual(got, tt.want) {
				t.Errorf("structured content = %v\nwant %v", got, tt.want)
			}
		})
	}
}

func TestArgumentsOfTheWaitingAndInputToolsBreakingTheSchemaAreToolErrors(t *testing.T) {
	tests := []struct {
		tool     string
		args     any
		contains []string
	}{
		{"capture_since", map[string]any{"paneId": "%1", "waitMs": -1}, []string{"waitMs", "got -1", "at least 0"}},
		{"capture_since", map[string]any{"paneId": "%1", "waitMs": 0.5}, []string{"waitMs", "an integer"}},
		{"capture_since", map[string]any{"paneId": "%1", "maxLines": 0}, []string{"maxLines", "greater than 0"}},
		{"capture_since", map[string]any{"paneId": "%1", "cursor": 7}, []string{"cursor", "a string"}},
		{"capture_since", map[string]any{"paneId": "pane"}, []string{"paneId", `^%\d+$`}},
		{"wait_for_text", map[string]any{"paneId": "%1", "patterns": []string{}}, []string{"patterns", "got []", "an array of strings with at least 1 item"}},
		{"wait_for_text", map[string]any{"paneId": "%1", "patterns": "ready"}, []string{"patterns", `got "ready"`, "an array of strings"}},
		{"wait_for_text", map[string]any{"paneId": "%1", "patterns": []any{"ok", 3}}, []string{"patterns", "an array of strings"}},
		{"wait_for_text", map[string]any{"paneId": "%1", "patterns": []string{"ok"}, "timeoutMs": 0}, []string{"timeoutMs", "greater than 0"}},
		{"wait_for_text", map[string]any{"paneId": "%1", "patterns": []string{"ok"}, "regex": "yes"}, []string{"regex", "true or false"}},
		{"send_keys", map[string]any{"paneId": "%1"}, []string{"keys", "missing"}},
		{"send_keys", map[string]any{"paneId": "%1", "keys": []string{"C-c"}}, []string{"keys", "a string"}},
		{"send_keys", map[string]any{"paneId": "%1", "keys": "q", "enter": "no"}, []string{"enter", "true or false"}},
		{"send_keys", map[string]any{"keys": "q"}, []string{"paneId", "missing"}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s %v", tt.tool, tt.args), func(t *testing.T) {
			stub := &stubTools{t: t}
			cs, _ := connect(t, stub)
			msg := toolErrorText(t, call(t, cs, tt.tool, tt.args))
			for _, s := range append(tt.contains, "invalid") {
				if !strings.Contains(msg, s) {
					t.Errorf("error %q lacks %q", msg, s)
				}
			}
			if stub.calls() != 0 {
				t.Error("the domain was called with bad arguments")
			}
		})
	}
}

// progressClient connects a client that hands every progress notification
// it receives to the returned channel.
func progressClient(t *testing.T, tools mcp.Tools) (*sdk.ClientSession, <-chan *sdk.ProgressNotificationParams) {
	t.Helper()
	notes := make(chan *sdk.ProgressNotificationParams, 16)
	srv := mcp.NewServer(tools, mcp.Options{})
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.SDK().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "c", Version: "0"}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			notes <- req.Params
		},
	})
	cs, err := client.Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	return cs, notes
}

// waitingCalls returns a stub domain whose waiting calls hand the
// ProgressFunc of their request to report, and arguments for each waiting
// tool.
func waitingCalls(t *testing.T, report func(domain.ProgressFunc)) (*stubTools, map[string]map[string]any) {
	check := func(p domain.ProgressFunc) {
		if p == nil {
			t.Error("no Progress for a call with a progress token")
			return
		}
		report(p)
	}
	cur := "c"
	stub := &stubTools{t: t,
		run: func(_ context.Context, req domain.RunRequest) (domain.RunResult, error) {
			check(req.Progress)
			return completed(0), nil
		},
		since: func(_ context.Context, req domain.CaptureSinceRequest) (domain.CaptureSinceResult, error) {
			check(req.Progress)
			return domain.CaptureSinceResult{PaneID: req.PaneID, Cursor: &cur, Streaming: true}, nil
		},
		wait: func(_ context.Context, req domain.WaitForTextRequest) (domain.WaitForTextResult, error) {
			check(req.Progress)
			return domain.WaitForTextResult{PaneID: req.PaneID, Outcome: domain.WaitTimedOut, Cursor: cur}, nil
		},
		waitCmd: func(_ context.Context, req domain.WaitCommandRequest) (domain.RunResult, error) {
			check(req.Progress)
			return completed(0), nil
		},
	}
	return stub, map[string]map[string]any{
		"run_shell_command": {"paneId": "%1", "command": "make"},
		"wait_for_command":  {"paneId": "%1"},
		"capture_since":     {"paneId": "%1", "cursor": "c", "waitMs": 30000},
		"wait_for_text":     {"paneId": "%1", "patterns": []string{"done"}},
	}
}

func TestWaitingToolsReportProgressWhenAskedTo(t *testing.T) {
	stub, calls := waitingCalls(t, func(p domain.ProgressFunc) {
		p(domain.Progress{Elapsed: 1 * time.Second, Total: 30 * time.Second})
		p(domain.Progress{Elapsed: 2 * time.Second, Total: 30 * time.Second})
		p(domain.Progress{Elapsed: 2 * time.Second, Total: 30 * time.Second}) // no progress: not sent again
	})
	for tool, args := range calls {
		t.Run(tool, func(t *testing.T) {
			cs, notes := progressClient(t, stub)
			params := &sdk.CallToolParams{Name: tool, Arguments: args}
			params.SetProgressToken("tok-" + tool)
			res, err := cs.CallTool(context.Background(), params)
			if err != nil {
				t.Fatal(err)
			}
			structured(t, res)
			// Reports may coalesce, but the last one always arrives, and
			// progress only ever grows.
			var last float64 = -1
			for last != 2000 {
				n := <-notes
				if n.ProgressToken != "tok-"+tool || n.Total != 30000 || n.Progress <= last {
					t.Fatalf("notification %+v after progress %v, want token tok-%s, total 30000, growing progress", n, last, tool)
				}
				last = n.Progress
			}
		})
	}
}

func TestWaitingToolsWithoutAProgressTokenGetNoProgressFunc(t *testing.T) {
	var given []string
	cur := "c"
	stub := &stubTools{t: t,
		since: func(_ context.Context, req domain.CaptureSinceRequest) (domain.CaptureSinceResult, error) {
			if req.Progress != nil {
				given = append(given, "capture_since")
			}
			return domain.CaptureSinceResult{PaneID: req.PaneID, Cursor: &cur}, nil
		},
		wait: func(_ context.Context, req domain.WaitForTextRequest) (domain.WaitForTextResult, error) {
			if req.Progress != nil {
				given = append(given, "wait_for_text")
			}
			return domain.WaitForTextResult{PaneID: req.PaneID, Outcome: domain.WaitTimedOut, Cursor: cur}, nil
		},
	}
	cs, _ := connect(t, stub)
	structured(t, call(t, cs, "capture_since", map[string]any{"paneId": "%1", "cursor": "c", "waitMs": 5000}))
	structured(t, call(t, cs, "wait_for_text", map[string]any{"paneId": "%1", "patterns": []string{"x"}}))
	if len(given) != 0 {
		t.Errorf("Progress given to %v without a progress token; nobody would hear it", given)
	}
}

func TestClientCancellationReachesTheWaitingCalls(t *testing.T) {
	for _, tool := range []string{"capture_since", "wait_for_text", "wait_for_command"} {
		t.Run(tool, func(t *testing.T) {
			entered, sawCancel := make(chan struct{}), make(chan struct{})
			wait := func(ctx context.Context) {
				close(entered)
				<-ctx.Done()
				close(sawCancel)
			}
			stub := &stubTools{t: t,
				since: func(ctx context.Context, req domain.CaptureSinceRequest) (domain.CaptureSinceResult, error) {
					wait(ctx)
					return domain.CaptureSinceResult{PaneID: req.PaneID}, nil
				},
				wait: func(ctx context.Context, req domain.WaitForTextRequest) (domain.WaitForTextResult, error) {
					wait(ctx)
					return domain.WaitForTextResult{PaneID: req.PaneID, Outcome: domain.WaitCancelled, Cursor: "c"}, nil
				},
				waitCmd: func(ctx context.Context, req domain.WaitCommandRequest) (domain.RunResult, error) {
					wait(ctx)
					return domain.RunResult{PaneID: req.PaneID, Outcome: domain.OutcomeCancelled, StillRunning: true, OutputComplete: true}, nil
				},
			}
			cs, _ := connect(t, stub)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error)
			go func() {
				_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool,
					Arguments: map[string]any{"paneId": "%1", "cursor": "c", "waitMs": 60000, "patterns": []string{"x"}}})
				done <- err
			}()
			<-entered
			cancel()
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Errorf("CallTool error = %v, want context.Canceled", err)
			}
			<-sawCancel // the server cancelled the call's context; a hang here is the failure
		})
	}
}
