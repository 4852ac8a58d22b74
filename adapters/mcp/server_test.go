package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmux-mcp/tmux-mcp/adapters/mcp"
	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

func completed(status int) domain.RunResult {
	return domain.RunResult{
		PaneID:             "%1",
		Outcome:            domain.OutcomeCompleted,
		ExitStatus:         &status,
		Output:             "hello\n",
		ReturnedBytes:      6,
		OutputComplete:     true,
		EffectiveTimeoutMs: 30000,
	}
}

func TestRunShellCommandPassesArgumentsToTheDomain(t *testing.T) {
	tests := []struct {
		name string
		args map[string]any
		want domain.RunRequest
	}{
		{
			name: "every argument",
			args: map[string]any{"paneId": "%12", "command": "make test", "timeoutMs": 1500, "maxLines": 40, "force": true},
			want: domain.RunRequest{PaneID: "%12", Command: "make test", TimeoutMs: 1500, MaxLines: 40, Force: true, AwaitInput: true},
		},
		{
			name: "awaitInput false",
			args: map[string]any{"paneId": "%0", "command": "ls", "awaitInput": false},
			want: domain.RunRequest{PaneID: "%0", Command: "ls"},
		},
		{
			name: "optional arguments absent mean not given",
			args: map[string]any{"paneId": "%0", "command": "ls"},
			want: domain.RunRequest{PaneID: "%0", Command: "ls", AwaitInput: true},
		},
		{
			name: "the largest integers the schema allows",
			args: map[string]any{"paneId": "%0", "command": "ls", "timeoutMs": int64(9007199254740991), "maxLines": int64(9007199254740991)},
			want: domain.RunRequest{PaneID: "%0", Command: "ls", TimeoutMs: 9007199254740991, MaxLines: 9007199254740991, AwaitInput: true},
		},
		{
			// The schemas do not forbid other properties; names are exact,
			// so "TimeoutMs" is not timeoutMs.
			name: "unknown properties are ignored",
			args: map[string]any{"paneId": "%0", "command": "ls", "TimeoutMs": 0, "Force": true, "shell": "zsh"},
			want: domain.RunRequest{PaneID: "%0", Command: "ls", AwaitInput: true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stub := &stubTools{t: t, run: func(context.Context, domain.RunRequest) (domain.RunResult, error) {
				return completed(0), nil
			}}
			cs, _ := connect(t, stub)
			structured(t, call(t, cs, "run_shell_command", tt.args))
			if len(stub.runs) != 1 {
				t.Fatalf("domain calls = %d, want 1", len(stub.runs))
			}
			got := stub.runs[0]
			if got.Progress != nil {
				t.Error("Progress set for a call without a progress token")
			}
			if got.Caller == "" {
				t.Error("no caller: the session that may answer the command is not named")
			}
			got.Caller = ""
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("domain got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestRunShellCommandReportsProgressWhenAskedTo(t *testing.T) {
	stub := &stubTools{t: t, run: func(_ context.Context, req domain.RunRequest) (domain.RunResult, error) {
		if req.Progress == nil {
			t.Error("no Progress for a call with a progress token")
			return completed(0), nil
		}
		req.Progress(domain.Progress{Elapsed: 1 * time.Second, Total: 30 * time.Second})
		req.Progress(domain.Progress{Elapsed: 2500 * time.Millisecond, Total: 30 * time.Second, Line: "cc -c main.c"})
		req.Progress(domain.Progress{Elapsed: 2500 * time.Millisecond, Total: 30 * time.Second, Line: "cc -c main.c"}) // no progress: not sent again
		return completed(0), nil
	}}
	notes := make(chan *sdk.ProgressNotificationParams, 10)
	srv := mcp.NewServer(stub, mcp.Options{})
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
	defer func() { cs.Close(); ss.Wait() }()

	params := &sdk.CallToolParams{Name: "run_shell_command", Arguments: map[string]any{"paneId": "%1", "command": "make"}}
	params.SetProgressToken("tok-1")
	res, err := cs.CallTool(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	structured(t, res)
	// Reports may coalesce, but the last one always arrives, and progress
	// only ever grows.
	var last float64 = -1
	for {
		n := <-notes
		if n.ProgressToken != "tok-1" || n.Total != 30000 || n.Progress <= last {
			t.Fatalf("notification %+v after progress %v, want token tok-1, total 30000, growing progress", n, last)
		}
		last = n.Progress
		if last == 1000 && n.Message != "waited 1s of 30s" {
			t.Errorf("before any output the message is %q, want how long the call waited", n.Message)
		}
		if last == 2500 {
			// The newest line of the command's output is the message.
			if n.Message != "cc -c main.c" {
				t.Errorf("message %q, want the newest output line", n.Message)
			}
			break
		}
	}
}

func TestRunShellCommandReportsEveryField(t *testing.T) {
	stub := &stubTools{t: t, run: func(context.Context, domain.RunRequest) (domain.RunResult, error) {
		status := 7
		return domain.RunResult{
			PaneID:                 "%3",
			Outcome:                domain.OutcomeCompleted,
			ExitStatus:             &status,
			Output:                 "a > b & <c>\n",
			DroppedLines:           0,
			OmittedBytes:           0,
			MissedBytes:            0,
			ReturnedBytes:          12,
			OutputComplete:         true,
			ForeignOutputSuspected: false,
			StillRunning:           false,
			EffectiveTimeoutMs:     2000,
			RunID:                  "run7",
		}, nil
	}}
	cs, _ := connect(t, stub)
	res := call(t, cs, "run_shell_command", map[string]any{"paneId": "%3", "command": "exit 7"})
	got := structured(t, res)
	want := map[string]any{
		"droppedLines":           0,
		"effectiveTimeoutMs":     2000,
		"exitStatus":             7,
		"foreignOutputSuspected": false,
		"leftRunning":            nil,
		"leftRunningCount":       0,
		"input":                  nil,
		"missedBytes":            0,
		"omittedBytes":           0,
		"outcome":                "completed",
		"output":                 "a > b & <c>\n",
		"outputComplete":         true,
		"paneId":                 "%3",
		"replacedBytes":          0,
		"returnedBytes":          12,
		"runId":                  "run7",
		"stillRunning":           false,
		"unterminatedBytes":      0,
		"farShell":               false,
	}
	if !jsonEqual(got, want) {
		t.Errorf("structured content = %v\nwant %v", got, want)
	}
	txt := texts(t, res)
	if len(txt) != 1 {
		t.Errorf("content has %d blocks, want 1 (no notice for complete output): %q", len(txt), txt)
	}
	// The text half is for reading: no HTML escapes of the output.
	if !strings.Contains(txt[0], `"a > b & <c>\n"`) {
		t.Errorf("text block escapes the output: %s", txt[0])
	}
}

func TestExitStatusIsNullUnlessCompleted(t *testing.T) {
	for _, outcome := range []domain.Outcome{domain.OutcomeTimedOut, domain.OutcomePaneDied, domain.OutcomeCancelled} {
		t.Run(string(outcome), func(t *testing.T) {
			stub := &stubTools{t: t, run: func(context.Context, domain.RunRequest) (domain.RunResult, error) {
				stale := 0 // a domain slip must not reach the client as a status
				return domain.RunResult{PaneID: "%1", Outcome: outcome, ExitStatus: &stale, StillRunning: true}, nil
			}}
			cs, _ := connect(t, stub)
			got := structured(t, call(t, cs, "run_shell_command", map[string]any{"paneId": "%1", "command": "sleep 9"}))
			v, present := got["exitStatus"]
			if !present || v != nil {
				t.Errorf("exitStatus = %v (present %v), want null", v, present)
			}
			if got["outcome"] != string(outcome) {
				t.Errorf("outcome = %v, want %s", got["outcome"], outcome)
			}
		})
	}
}

func TestRunShellCommandTextCarriesANoticeWhenOutputIsIncomplete(t *testing.T) {
	tests := []struct {
		name     string
		edit     func(*domain.RunResult)
		contains []string // in the notice; none means no notice at all
	}{
		{"complete output", func(*domain.RunResult) {}, nil},
		{"lines withheld by maxLines", func(r *domain.RunResult) { r.DroppedLines, r.OutputComplete = 37, false },
			[]string{"incomplete", "37 lines", "maxLines"}},
		{"one line withheld", func(r *domain.RunResult) { r.DroppedLines, r.OutputComplete = 1, false },
			[]string{"1 line from"}},
		{"bytes cut by the ceiling", func(r *domain.RunResult) { r.OmittedBytes, r.OutputComplete = 4096, false },
			[]string{"4096 bytes", "ceiling"}},
		{"bytes lost by the terminal", func(r *domain.RunResult) { r.MissedBytes, r.OutputComplete = 512, false },
			[]string{"512 bytes", "lost", "partway"}},
		{"bytes text cannot carry", func(r *domain.RunResult) { r.ReplacedBytes, r.OutputComplete = 2, false },
			[]string{"output is incomplete", "2 bytes that text cannot carry", "U+FFFD", "od -c"}},
		{"an escape sequence that never ended", func(r *domain.RunResult) { r.UnterminatedBytes, r.OutputComplete = 23, false },
			[]string{"output is incomplete", "last 23 bytes", "escape sequence that never ended", "od -c"}},
		{"incomplete for a reason not counted", func(r *domain.RunResult) { r.OutputComplete = false },
			[]string{"incomplete"}},
		{"another writer's output", func(r *domain.RunResult) { r.ForeignOutputSuspected = true },
			[]string{"another writer"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := completed(0)
			tt.edit(&r)
			stub := &stubTools{t: t, run: func(context.Context, domain.RunRequest) (domain.RunResult, error) { return r, nil }}
			cs, _ := connect(t, stub)
			res := call(t, cs, "run_shell_command", map[string]any{"paneId": "%1", "command": "seq 100"})
			got := structured(t, res) // the structured half stays exact
			if got["droppedLines"] != float64(r.DroppedLines) || got["outputComplete"] != r.OutputComplete {
				t.Errorf("structured content = %v, want the domain's counts unchanged", got)
			}
			txt := texts(t, res)
			if tt.contains == nil {
				if len(txt) != 1 {
					t.Errorf("content = %q, want the JSON alone", txt)
				}
				return
			}
			if len(txt) != 2 {
				t.Fatalf("content = %q, want the JSON and then a notice", txt)
			}
			for _, s := range tt.contains {
				if !strings.Contains(txt[1], s) {
					t.Errorf("notice %q lacks %q", txt[1], s)
				}
			}
		})
	}
}

func TestArgumentsBreakingTheSchemaAreToolErrors(t *testing.T) {
	tests := []struct {
		tool     string
		args     any
		contains []string
	}{
		{"run_shell_command", map[string]any{"paneId": "%1", "command": "ls", "timeoutMs": 0}, []string{"timeoutMs", "got 0", "greater than 0"}},
		{"run_shell_command", map[string]any{"paneId": "%1", "command": "ls", "timeoutMs": -5}, []string{"timeoutMs", "got -5"}},
		{"run_shell_command", map[string]any{"paneId": "%1", "command": "ls", "timeoutMs": 1.5}, []string{"timeoutMs", "an integer"}},
		{"run_shell_command", map[string]any{"paneId": "%1", "command": "ls", "timeoutMs": "10"}, []string{"timeoutMs", `got "10"`}},
		{"run_shell_command", map[string]any{"paneId": "%1", "command": "ls", "maxLines": 0}, []string{"maxLines", "greater than 0"}},
		{"run_shell_command", map[string]any{"paneId": "%1", "command": "ls", "maxLines": 9007199254740992.0}, []string{"maxLines", "at most 9007199254740991"}},
		{"run_shell_command", map[string]any{"paneId": "1", "command": "ls"}, []string{"paneId", `got "1"`, `^%\d+$`, "e.g. %1"}},
		{"run_shell_command", map[string]any{"paneId": "%1"}, []string{"command", "missing", "required"}},
		{"run_shell_command", map[string]any{"command": "ls"}, []string{"paneId", "missing"}},
		{"run_shell_command", nil, []string{"missing"}},
		{"run_shell_command", map[string]any{"paneId": "%1", "command": 42}, []string{"command", "got 42", "a string"}},
		{"run_shell_command", map[string]any{"paneId": "%1", "command": "ls", "force": "yes"}, []string{"force", "true or false"}},
		{"paste_text", map[string]any{"paneId": "%1"}, []string{"text", "missing"}},
		{"paste_text", map[string]any{"paneId": "%1", "text": "x", "enter": 1}, []string{"enter", "true or false"}},
		{"capture_pane", map[string]any{"paneId": "%1", "start": "top"}, []string{"start", "an integer"}},
		{"capture_pane", map[string]any{"paneId": "%1", "maxLines": -1}, []string{"maxLines", "greater than 0"}},
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

func TestMalformedRequestsAreProtocolErrors(t *testing.T) {
	tests := []struct {
		name string
		tool string
		args any
	}{
		{"unknown tool", "rm_rf", map[string]any{}},
		{"arguments not an object", "capture_pane", []any{"%1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stub := &stubTools{t: t}
			cs, _ := connect(t, stub)
			res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tt.tool, Arguments: tt.args})
			if err == nil {
				t.Fatalf("CallTool = %+v, nil; want a protocol error", res)
			}
			if stub.calls() != 0 {
				t.Error("the domain was called")
			}
		})
	}
}

func TestDomainErrorsAreToolErrorsThatSayWhatToDo(t *testing.T) {
	tests := []struct {
		name     string
		err      error
		contains []string
	}{
		{"refusal", &fault.RefusalError{Pane: "%2", Why: fault.RefusedWatched, Reason: "a person is watching it (client /dev/pts/3)"},
			[]string{"refused", "%2", "watching", "choose a pane no attached client has on screen"}},
		{"busy", fmt.Errorf("run_shell_command: %w", &fault.BusyError{Pane: "%2", Holder: `run_shell_command "make test"`}),
			[]string{"%2", "busy", `"make test"`, "wait for that call to return"}},
		{"bad argument found by the domain", &fault.ArgumentError{Field: "timeoutMs", Reason: "must be positive"},
			[]string{"invalid timeoutMs", "must be positive", "call again"}},
		{"no such pane", fmt.Errorf("pane %%9: %w", ports.ErrPaneNotFound),
			[]string{"%9", "not found", "check the pane id"}},
		{"dead pane", fmt.Errorf("paste to pane %%2: %w", ports.ErrPaneDead),
			[]string{"dead", "exited"}},
		{"no backend", fmt.Errorf("tmux: %w", ports.ErrUnavailable),
			[]string{"unavailable", "-socket-name"}},
		{"unsupported", fmt.Errorf("capture: %w", ports.ErrUnsupported),
			[]string{"not supported", "not carried out"}},
		{"cancelled", fmt.Errorf("capture: %w", context.Canceled),
			[]string{"cancelled"}},
		{"anything else", errors.New("disk on fire"),
			[]string{"disk on fire"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stub := &stubTools{t: t,
				run: func(context.Context, domain.RunRequest) (domain.RunResult, error) { return domain.RunResult{}, tt.err },
				paste: func(context.Context, domain.PasteRequest) (domain.PasteResult, error) {
					return domain.PasteResult{}, tt.err
				},
				capture: func(context.Context, domain.CaptureRequest) (domain.CaptureResult, error) {
					return domain.CaptureResult{}, tt.err
				},
				since: func(context.Context, domain.CaptureSinceRequest) (domain.CaptureSinceResult, error) {
					return domain.CaptureSinceResult{}, tt.err
				},
				wait: func(context.Context, domain.WaitForTextRequest) (domain.WaitForTextResult, error) {
					return domain.WaitForTextResult{}, tt.err
				},
				keys: func(context.Context, domain.SendKeysRequest) (domain.SendKeysResult, error) {
					return domain.SendKeysResult{}, tt.err
				},
			}
			cs, _ := connect(t, stub)
			for _, c := range []struct {
				tool string
				args map[string]any
			}{
				{"run_shell_command", map[string]any{"paneId": "%2", "command": "make test"}},
				{"paste_text", map[string]any{"paneId": "%2", "text": "hi"}},
				{"capture_pane", map[string]any{"paneId": "%2"}},
				{"capture_since", map[string]any{"paneId": "%2"}},
				{"wait_for_text", map[string]any{"paneId": "%2", "patterns": []string{"$ "}}},
				{"send_keys", map[string]any{"paneId": "%2", "keys": "C-c"}},
			} {
				msg := toolErrorText(t, call(t, cs, c.tool, c.args))
				for _, s := range tt.contains {
					if !strings.Contains(msg, s) {
						t.Errorf("%s error %q lacks %q", c.tool, msg, s)
					}
				}
			}
		})
	}
}

func TestAResultBreakingTheOutputSchemaIsAToolError(t *testing.T) {
	stub := &stubTools{t: t, paste: func(context.Context, domain.PasteRequest) (domain.PasteResult, error) {
		return domain.PasteResult{PaneID: "pane-1", Bytes: 2}, nil
	}}
	cs, _ := connect(t, stub)
	msg := toolErrorText(t, call(t, cs, "paste_text", map[string]any{"paneId": "%1", "text": "hi"}))
	if !strings.Contains(msg, "internal error") || !strings.Contains(msg, "output schema") {
		t.Errorf("error = %q, want it to name an internal error against the output schema", msg)
	}
}

func TestAPanicInACallIsAToolError(t *testing.T) {
	stub := &stubTools{t: t, capture: func(context.Context, domain.CaptureRequest) (domain.CaptureResult, error) {
		panic("index out of range")
	}}
	cs, _ := connect(t, stub)
	msg := toolErrorText(t, call(t, cs, "capture_pane", map[string]any{"paneId": "%1"}))
	if !strings.Contains(msg, "internal error") || !strings.Contains(msg, "index out of range") {
		t.Errorf("error = %q", msg)
	}
	// The server still serves.
	stub.capture = func(context.Context, domain.CaptureRequest) (domain.CaptureResult, error) {
		return domain.CaptureResult{PaneID: "%1"}, nil
	}
	structured(t, call(t, cs, "capture_pane", map[string]any{"paneId": "%1"}))
}

func TestPasteText(t *testing.T) {
	stub := &stubTools{t: t, paste: func(_ context.Context, req domain.PasteRequest) (domain.PasteResult, error) {
		return domain.PasteResult{PaneID: req.PaneID, Bytes: int64(len(req.Text))}, nil
	}}
	cs, _ := connect(t, stub)
	got := structured(t, call(t, cs, "paste_text", map[string]any{"paneId": "%4", "text": "C-c ünï", "enter": true, "force": true}))
	if want := map[string]any{"bytes": 9, "paneId": "%4"}; !jsonEqual(got, want) {
		t.Errorf("structured content = %v, want %v", got, want)
	}
	want := domain.PasteRequest{PaneID: "%4", Text: "C-c ünï", Enter: true, Force: true}
	if len(stub.pastes) == 1 && stub.pastes[0].Caller == "" {
		t.Error("no caller: whether it may answer a command it started cannot be told")
	}
	if len(stub.pastes) == 1 {
		stub.pastes[0].Caller = ""
	}
	if len(stub.pastes) != 1 || stub.pastes[0] != want {
		t.Errorf("domain got %+v, want [%+v]", stub.pastes, want)
	}
}

func TestCapturePane(t *testing.T) {
	tests := []struct {
		name       string
		args       map[string]any
		start, end *int64 // what the domain should get
		result     domain.CaptureResult
		want       map[string]any
	}{
		{
			name:   "the visible screen by default",
			args:   map[string]any{"paneId": "%1"},
			result: domain.CaptureResult{PaneID: "%1", Text: "$ ls\nfoo\n", TotalLines: 24, ReturnedBytes: 9, EffectiveStart: new(int64(0)), EffectiveEnd: new(int64(23))},
			want: map[string]any{"byteClamped": false, "droppedLines": 0, "effectiveEnd": 23, "effectiveStart": 0, "omittedBytes": 0,
				"paneId": "%1", "rangeClamped": false, "returnedBytes": 9, "text": "$ ls\nfoo\n", "totalLines": 24},
		},
		{
			name:  "history rows, clamped and trimmed",
			args:  map[string]any{"paneId": "%1", "start": -100, "end": -1, "maxLines": 10, "joinWrapped": true},
			start: new(int64(-100)), end: new(int64(-1)),
			result: domain.CaptureResult{PaneID: "%1", Text: "x", TotalLines: 50, DroppedLines: 40, OmittedBytes: 3, ReturnedBytes: 1,
				EffectiveStart: new(int64(-50)), EffectiveEnd: new(int64(-1)), RangeClamped: true, ByteClamped: true},
			want: map[string]any{"byteClamped": true, "droppedLines": 40, "effectiveEnd": -1, "effectiveStart": -50, "omittedBytes": 3,
				"paneId": "%1", "rangeClamped": true, "returnedBytes": 1, "text": "x", "totalLines": 50},
		},
		{
			name:  "no row fits: null range",
			args:  map[string]any{"paneId": "%1", "start": -5, "end": -1},
			start: new(int64(-5)), end: new(int64(-1)),
			result: domain.CaptureResult{PaneID: "%1"},
			want: map[string]any{"byteClamped": false, "droppedLines": 0, "effectiveEnd": nil, "effectiveStart": nil, "omittedBytes": 0,
				"paneId": "%1", "rangeClamped": false, "returnedBytes": 0, "text": "", "totalLines": 0},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stub := &stubTools{t: t, capture: func(context.Context, domain.CaptureRequest) (domain.CaptureResult, error) {
				return tt.result, nil
			}}
			cs, _ := connect(t, stub)
			got := structured(t, call(t, cs, "capture_pane", tt.args))
			if !jsonEqual(got, tt.want) {
				t.Errorf("structured content = %v\nwant %v", got, tt.want)
			}
			if len(stub.captures) != 1 {
				t.Fatalf("domain calls = %d, want 1", len(stub.captures))
			}
			req := stub.captures[0]
			if !equalPtr(req.Start, tt.start) || !equalPtr(req.End, tt.end) {
				t.Errorf("domain got start %v end %v, want %v %v", deref(req.Start), deref(req.End), deref(tt.start), deref(tt.end))
			}
			if wantMax, _ := tt.args["maxLines"].(int); req.MaxLines != int64(wantMax) {
				t.Errorf("domain got maxLines %d, want %d", req.MaxLines, wantMax)
			}
			if wantJoin, _ := tt.args["joinWrapped"].(bool); req.JoinWrapped != wantJoin {
				t.Errorf("domain got joinWrapped %v, want %v", req.JoinWrapped, wantJoin)
			}
		})
	}
}

func equalPtr(a, b *int64) bool { return (a == nil && b == nil) || (a != nil && b != nil && *a == *b) }

func deref(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

func TestClientCancellationReachesTheCall(t *testing.T) {
	entered, sawCancel := make(chan struct{}), make(chan struct{})
	stub := &stubTools{t: t, run: func(ctx context.Context, req domain.RunRequest) (domain.RunResult, error) {
		close(entered)
		<-ctx.Done()
		close(sawCancel)
		return domain.RunResult{PaneID: req.PaneID, Outcome: domain.OutcomeCancelled, StillRunning: true}, nil
	}}
	cs, _ := connect(t, stub)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "run_shell_command", Arguments: map[string]any{"paneId": "%1", "command": "sleep 100"}})
		done <- err
	}()
	<-entered
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("CallTool error = %v, want context.Canceled", err)
	}
	<-sawCancel // the server cancelled the call's context; a hang here is the failure
}

func TestCloseCancelsRunningCalls(t *testing.T) {
	entered := make(chan struct{})
	stub := &stubTools{t: t, run: func(ctx context.Context, req domain.RunRequest) (domain.RunResult, error) {
		close(entered)
		<-ctx.Done()
		if !errors.Is(context.Cause(ctx), mcp.ErrServerClosing) {
			t.Errorf("cause = %v, want ErrServerClosing", context.Cause(ctx))
		}
		return domain.RunResult{PaneID: req.PaneID, Outcome: domain.OutcomeCancelled, StillRunning: true, EffectiveTimeoutMs: 30000}, nil
	}}
	cs, srv := connect(t, stub)
	results := make(chan *sdk.CallToolResult)
	go func() {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "run_shell_command", Arguments: map[string]any{"paneId": "%1", "command": "sleep 100"}})
		if err != nil {
			t.Errorf("CallTool: %v", err)
		}
		results <- res
	}()
	<-entered
	srv.Close()
	res := <-results
	if res == nil {
		return
	}
	if got := structured(t, res); got["outcome"] != "cancelled" || got["stillRunning"] != true {
		t.Errorf("result = %v, want outcome cancelled, still running", got)
	}
	// Later calls are refused without reaching the domain.
	msg := toolErrorText(t, call(t, cs, "capture_pane", map[string]any{"paneId": "%1"}))
	if !strings.Contains(msg, "shutting down") {
		t.Errorf("error after Close = %q, want it to say the server is shutting down", msg)
	}
	if n := stub.calls(); n != 1 {
		t.Errorf("domain calls = %d, want only the one before Close", n)
	}
}

func TestInitializeReportsNameAndVersion(t *testing.T) {
	cs, _ := connect(t, &stubTools{t: t})
	info := cs.InitializeResult().ServerInfo
	if info.Name != "tmux-mcp" || info.Version != "1.2.3" {
		t.Errorf("server info = %+v, want tmux-mcp 1.2.3", info)
	}
}

func TestServeStdioWritesOnlyJSONRPCAndEndsWithInput(t *testing.T) {
	stub := &stubTools{t: t, capture: func(context.Context, domain.CaptureRequest) (domain.CaptureResult, error) {
		return domain.CaptureResult{PaneID: "%1", Text: "ok"}, nil
	}}
	srv := mcp.NewServer(stub, mcp.Options{})
	stdinR, stdinW := io.Pipe()
	stdoutR, stdoutW := io.Pipe()
	served := make(chan error)
	go func() { served <- srv.ServeStdio(context.Background(), stdinR, stdoutW, mcp.StdioOptions{}) }()

	// The client reads the server's stdout through a tee that keeps every
	// line, to check afterwards that nothing but JSON-RPC was written.
	linesR, linesW := io.Pipe()
	lines := make(chan []string)
	go func() {
		var got []string
		sc := bufio.NewScanner(linesR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			got = append(got, sc.Text())
		}
		lines <- got
	}()
	clientIn := io.NopCloser(io.TeeReader(stdoutR, linesW))
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "c", Version: "0"}, nil).
		Connect(context.Background(), &sdk.IOTransport{Reader: clientIn, Writer: stdinW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	structured(t, call(t, cs, "capture_pane", map[string]any{"paneId": "%1"}))
	cs.Close() // closes stdin
	if err := <-served; err != nil {
		t.Errorf("ServeStdio = %v, want nil once stdin ends", err)
	}
	stdoutW.Close()
	linesW.Close()
	got := <-lines
	if len(got) < 2 {
		t.Fatalf("stdout lines = %q, want the initialize and tools/call responses", got)
	}
	for _, line := range got {
		var msg struct {
			JSONRPC string `json:"jsonrpc"`
		}
		if err := json.Unmarshal([]byte(line), &msg); err != nil || msg.JSONRPC != "2.0" {
			t.Errorf("stdout line is not JSON-RPC: %q", line)
		}
	}
}

func TestHTTPHandlerServesMCPAtSlashMCP(t *testing.T) {
	stub := &stubTools{t: t, paste: func(_ context.Context, req domain.PasteRequest) (domain.PasteResult, error) {
		return domain.PasteResult{PaneID: req.PaneID, Bytes: int64(len(req.Text))}, nil
	}}
	srv := mcp.NewServer(stub, mcp.Options{})
	hs := httptest.NewServer(srv.HTTPHandler())
	defer hs.Close()

	cs, err := sdk.NewClient(&sdk.Implementation{Name: "c", Version: "0"}, nil).
		Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: hs.URL + mcp.HTTPPath}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	got := structured(t, call(t, cs, "paste_text", map[string]any{"paneId": "%1", "text": "hey"}))
	if got["bytes"] != 3.0 {
		t.Errorf("structured content = %v, want bytes 3", got)
	}

	resp, err := http.Post(hs.URL+"/elsewhere", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("POST /elsewhere: status %d, want 404", resp.StatusCode)
	}
}
