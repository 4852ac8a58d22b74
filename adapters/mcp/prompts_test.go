package mcp_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmux-mcp/tmux-mcp/adapters/mcp"
	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/domain/lifecycle"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// The prompts and completion/complete, on a stub domain.

// promptArgs are valid arguments for each prompt.
var promptArgs = map[string]map[string]string{
	"run_and_check":     {"paneId": "%3", "command": "make test", "expect": "all tests pass"},
	"watch_pane":        {"paneId": "%3", "pattern": `Build (OK|FAILED)`, "regex": "true"},
	"diagnose_pane":     {"paneId": "%3"},
	"interrupt_program": {"paneId": "%3"},
	"survey_panes":      {"session": "work"},
	"answer_input":      {"paneId": "%3", "answer": "y"},
}

func listPrompts(t *testing.T, cs *sdk.ClientSession) []string {
	t.Helper()
	res, err := cs.ListPrompts(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range res.Prompts {
		names = append(names, p.Name)
	}
	return names
}

func getPrompt(t *testing.T, cs *sdk.ClientSession, name string, args map[string]string) string {
	t.Helper()
	res, err := cs.GetPrompt(context.Background(), &sdk.GetPromptParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("prompts/get %s: %v", name, err)
	}
	if len(res.Messages) != 1 || res.Messages[0].Role != "user" {
		t.Fatalf("prompts/get %s = %+v, want one user message", name, res.Messages)
	}
	tc, ok := res.Messages[0].Content.(*sdk.TextContent)
	if !ok {
		t.Fatalf("prompts/get %s: content %T, want text", name, res.Messages[0].Content)
	}
	return tc.Text
}

// snakeWord finds the words of a text that are shaped like tool names.
var snakeWord = regexp.MustCompile(`\b[a-z]+(?:_[a-z]+)+\b`)

// notTools are the snake_case words a prompt may hold that are not tools:
// outcomes, and the prompts' own names.
var notTools = []string{"timed_out", "pane_died", "output_lost", "interrupt_program", "awaiting_input", "answer_input"}

// A prompt is offered when the tools it needs are, and its text, whatever
// the server offers, names no tool the server does not offer, unless to
// say that it does not.
func TestPromptsNameOnlyTheToolsTheServerOffers(t *testing.T) {
	configs := []struct {
		name    string
		opts    mcp.Options
		manage  bool
		prompts []string
	}{
		{"destructive", mcp.Options{Safety: mcp.TierDestructive}, true,
			[]string{"run_and_check", "watch_pane", "diagnose_pane", "interrupt_program", "survey_panes", "answer_input"}},
		{"mutating", mcp.Options{}, true,
			[]string{"run_and_check", "watch_pane", "diagnose_pane", "interrupt_program", "survey_panes", "answer_input"}},
		{"readonly", mcp.Options{Safety: mcp.TierReadonly}, true, []string{"watch_pane", "diagnose_pane", "survey_panes"}},
		{"no lifecycle tools", mcp.Options{Safety: mcp.TierDestructive}, false,
			[]string{"run_and_check", "watch_pane", "diagnose_pane", "interrupt_program", "answer_input"}},
		{"an allowlist", mcp.Options{Tools: []string{"run_shell_command", "capture_pane", "send_keys", "wait_for_text"}}, true,
			[]string{"run_and_check", "watch_pane", "diagnose_pane", "interrupt_program"}},
		{"an allowlist without capture_pane", mcp.Options{Tools: []string{"run_shell_command", "wait_for_text", "send_keys"}}, true,
			[]string{"run_and_check", "watch_pane"}},
		{"too narrow an allowlist", mcp.Options{Tools: []string{"paste_text"}}, true, nil},
	}
	for _, c := range configs {
		t.Run(c.name, func(t *testing.T) {
			stub := newManageStub(t)
			opts := c.opts
			if c.manage {
				opts.Manage = stub
			}
			cs, srv := connectWith(t, stub, opts)
			if got := listPrompts(t, cs); !slices.Equal(got, slices.Sorted(slices.Values(c.prompts))) {
				t.Errorf("prompts/list = %v, want %v", got, c.prompts)
			}
			offered := srv.Offered()
			for _, name := range c.prompts {
				text := getPrompt(t, cs, name, promptArgs[name])
				for _, w := range snakeWord.FindAllString(text, -1) {
					if slices.Contains(offered, w) || slices.Contains(notTools, w) {
						continue
					}
					if slices.Contains(mcp.ToolNames(), w) && strings.Contains(text, "does not offer "+w) {
						continue // the text says it is not offered
					}
					t.Errorf("%s names %s, which the server does not offer:\n%s", name, w, text)
				}
			}
		})
	}
}

// Each prompt says what its steps are, in the tools' words: the calls
// with the caller's arguments, and the fields and outcomes to read.
func TestPromptTextsSayHowToDoIt(t *testing.T) {
	stub := newManageStub(t)
	cs, _ := connectWith(t, stub, mcp.Options{Manage: stub, Safety: mcp.TierDestructive})
	want := map[string][]string{
		"run_and_check": {`run_shell_command {"paneId": "%3", "command": "make test"}`, `wait_for_command {"paneId": "%3"}`,
			"stillRunning", "exitStatus", "outputComplete", "droppedLines", "missedBytes", "foreignOutputSuspected", "all tests pass",
			`read_output {"runId": "<runId of the result>"}`, "grep"},
		"watch_pane": {`capture_since {"paneId": "%3"}`, `"patterns": ["Build (OK|FAILED)"], "regex": true, "cursor": "<the cursor>"`,
			"matched", "timed_out", "output_lost", "pane_died", "alreadyOnScreen", "cursor this result returned"},
		"diagnose_pane": {`get_pane_info {"paneId": "%3"}`, `capture_pane {"paneId": "%3", "start": -200}`, "dead", "mode", "busy",
			"watched", `wait_for_command {"paneId": "%3", "timeoutMs": 5000}`, "interrupt_program"},
		"interrupt_program": {`send_keys {"paneId": "%3", "keys": "C-c", "enter": false}`, `send_keys {"paneId": "%3", "keys": "C-\\", "enter": false}`,
			`kill_pane {"paneId": "%3"}`, `wait_for_command {"paneId": "%3", "timeoutMs": 5000}`, "Check", "watched", "Ask the user"},
		"survey_panes": {`list_windows {"session": "work"}`, `list_panes {"session": "work"}`, "busy", "dead", "watched"},
		"answer_input": {`paste_text {"paneId": "%3", "text": "<the answer>", "enter": true}`, `wait_for_command {"paneId": "%3"}`,
			"never guess", "secret", "confirm", "pager", "awaiting_input again", `The user said to answer: "y"`, "another session is refused"},
	}
	for name, words := range want {
		text := getPrompt(t, cs, name, promptArgs[name])
		for _, w := range words {
			if !strings.Contains(text, w) {
				t.Errorf("%s lacks %q:\n%s", name, w, text)
			}
		}
	}
	// C-c comes first, then C-\, then the kill, each after a check.
	text := getPrompt(t, cs, "interrupt_program", promptArgs["interrupt_program"])
	cc, cq, kill := strings.Index(text, `"C-c"`), strings.Index(text, `"C-\\"`), strings.Index(text, "kill_pane {")
	if !(cc < cq && cq < kill) || !strings.Contains(text[cc:cq], "Check") {
		t.Errorf("interrupt_program does not go C-c, check, C-\\, kill:\n%s", text)
	}
	// signal_command TERM ends this server's command before the pane goes.
	if term := strings.Index(text, `signal_command {"paneId": "%3", "signal": "TERM"}`); !(cq < term && term < kill) || !strings.Contains(text, "4. If it still runs, end the pane") {
		t.Errorf("interrupt_program does not go C-\\, signal_command TERM, kill:\n%s", text)
	}
	// Without kill_pane the last step says it is not there.
	cs2, _ := connectWith(t, stub, mcp.Options{Manage: stub})
	if text := getPrompt(t, cs2, "interrupt_program", promptArgs["interrupt_program"]); !strings.Contains(text, "does not offer kill_pane (its safety tier is mutating") {
		t.Errorf("interrupt_program at the mutating tier does not say kill_pane is not offered:\n%s", text)
	}
}

func TestPromptArgumentsAreCheckedAsTheToolsCheckThem(t *testing.T) {
	stub := newManageStub(t)
	cs, _ := connectWith(t, stub, mcp.Options{Manage: stub})
	tests := []struct {
		prompt string
		args   map[string]string
		says   string
	}{
		{"run_and_check", map[string]string{"paneId": "%3"}, "command is missing"},
		{"diagnose_pane", nil, "paneId is missing"},
		{"diagnose_pane", map[string]string{"paneId": "3"}, `paneId is "3"`},
		{"survey_panes", map[string]string{"windowId": "2"}, `windowId is "2"`},
		{"survey_panes", map[string]string{"windowId": "@2", "session": "work"}, "not both"},
		{"watch_pane", map[string]string{"paneId": "%1", "pattern": "x", "regex": "yes"}, `regex is "yes"`},
		{"watch_pane", map[string]string{"paneId": "%1", "pattern": "x", "timeout": "5"}, "no argument timeout"},
		{"watch_pane", map[string]string{"paneId": "%1", "pattern": "(", "regex": "true"}, "not an RE2 regular expression"},
		{"watch_pane", map[string]string{"paneId": "%1", "pattern": "x*", "regex": "true"}, `"x*" can match where no character is`},
	}
	for _, tt := range tests {
		_, err := cs.GetPrompt(context.Background(), &sdk.GetPromptParams{Name: tt.prompt, Arguments: tt.args})
		if err == nil || !strings.Contains(err.Error(), tt.says) {
			t.Errorf("prompts/get %s %v: error %v, want one saying %q", tt.prompt, tt.args, err, tt.says)
		}
	}
}

func complete(t *testing.T, cs *sdk.ClientSession, ref *sdk.CompleteReference, arg, value string, others map[string]string) []string {
	t.Helper()
	params := &sdk.CompleteParams{Ref: ref, Argument: sdk.CompleteParamsArgument{Name: arg, Value: value}}
	if others != nil {
		params.Context = &sdk.CompleteContext{Arguments: others}
	}
	res, err := cs.Complete(context.Background(), params)
	if err != nil {
		t.Fatalf("completion/complete %s %s=%q: %v", ref.Name+ref.URI, arg, value, err)
	}
	return res.Completion.Values
}

func promptRef(name string) *sdk.CompleteReference {
	return &sdk.CompleteReference{Type: "ref/prompt", Name: name}
}

// The prompts' pane, window and session arguments, and the {id} of the
// pane resources, complete to what the listings hold.
func TestArgumentsCompleteToLivePanesWindowsAndSessions(t *testing.T) {
	stub := newManageStub(t)
	pane := func(id ports.PaneID) lifecycle.Pane { p := paneFixture; p.ID = id; return p }
	stub.results["ListPanes"] = lifecycle.PaneList{Panes: []lifecycle.Pane{pane("%3"), pane("%12"), pane("%1"), pane("%30")}}
	stub.results["ListWindows"] = lifecycle.WindowList{Windows: []ports.WindowInfo{
		{WindowRef: logsWindow, Session: workSession},
		{WindowRef: ports.WindowRef{ID: "@10", Name: "build"}, Session: workSession},
		{WindowRef: logsWindow, Session: ports.SessionRef{ID: "$4", Name: "other"}}, // linked: listed twice
	}}
	stub.results["ListSessions"] = lifecycle.SessionList{Sessions: []ports.SessionInfo{
		{SessionRef: workSession}, {SessionRef: ports.SessionRef{ID: "$4", Name: "other"}}, {SessionRef: ports.SessionRef{ID: "$5", Name: "$work"}},
	}}
	cs, _ := connectWith(t, stub, mcp.Options{Manage: stub})
	caps := cs.InitializeResult().Capabilities
	if caps.Completions == nil || caps.Prompts == nil {
		t.Errorf("capabilities %+v, want completions and prompts advertised", caps)
	}

	tests := []struct {
		ref         *sdk.CompleteReference
		arg, value  string
		others      map[string]string
		want        []string
		wantRequest any // of the listing, when it matters
	}{
		{promptRef("diagnose_pane"), "paneId", "", nil, []string{"%3", "%12", "%1", "%30"}, lifecycle.ListPanesRequest{}},
		{promptRef("diagnose_pane"), "paneId", "%1", nil, []string{"%12", "%1"}, nil},
		{promptRef("interrupt_program"), "paneId", "3", nil, []string{"%3", "%30"}, nil},
		{promptRef("run_and_check"), "paneId", "%9", nil, nil, nil},
		{promptRef("run_and_check"), "command", "ma", nil, nil, nil},
		{promptRef("survey_panes"), "windowId", "", nil, []string{"@2", "@10"}, lifecycle.ListWindowsRequest{}},
		{promptRef("survey_panes"), "windowId", "@1", map[string]string{"session": "work"}, []string{"@10"}, lifecycle.ListWindowsRequest{Session: "work"}},
		{promptRef("survey_panes"), "session", "", nil, []string{"$1", "$4", "$5", "work", "other", "$work"}, nil},
		{promptRef("survey_panes"), "session", "$", nil, []string{"$1", "$4", "$5", "$work"}, nil},
		{promptRef("survey_panes"), "session", "w", nil, []string{"work"}, nil},
		{promptRef("watch_pane"), "regex", "t", nil, []string{"true"}, nil},
		{&sdk.CompleteReference{Type: "ref/resource", URI: mcp.PaneURITemplate}, "id", "", nil, []string{"3", "12", "1", "30"}, nil},
		{&sdk.CompleteReference{Type: "ref/resource", URI: mcp.PaneContentURITemplate}, "id", "3", nil, []string{"3", "30"}, nil},
		{&sdk.CompleteReference{Type: "ref/resource", URI: "file:///{path}"}, "path", "", nil, nil, nil},
	}
	for _, tt := range tests {
		before := len(stub.recorded())
		got := complete(t, cs, tt.ref, tt.arg, tt.value, tt.others)
		if !slices.Equal(got, tt.want) && !(len(got) == 0 && len(tt.want) == 0) {
			t.Errorf("complete %s%s %s=%q = %q, want %q", tt.ref.Name, tt.ref.URI, tt.arg, tt.value, got, tt.want)
		}
		if got == nil {
			t.Errorf("complete %s %s=%q: values null, want a list", tt.ref.Name, tt.arg, tt.value)
		}
		if tt.wantRequest != nil {
			calls := stub.recorded()[before:]
			if len(calls) != 1 || calls[0].req != tt.wantRequest {
				t.Errorf("complete %s %s: listings %+v, want one with %+v", tt.ref.Name, tt.arg, calls, tt.wantRequest)
			}
		}
	}

	// A pane argument with a window among the other arguments completes to
	// that window's panes.
	before := len(stub.recorded())
	complete(t, cs, promptRef("diagnose_pane"), "paneId", "", map[string]string{"windowId": "@2"})
	if calls := stub.recorded()[before:]; len(calls) != 1 || calls[0].req != (lifecycle.ListPanesRequest{Window: "@2"}) {
		t.Errorf("pane completion with windowId @2: listings %+v, want that window's panes", calls)
	}

	if _, err := cs.Complete(context.Background(), &sdk.CompleteParams{Ref: promptRef("no_such_prompt"),
		Argument: sdk.CompleteParamsArgument{Name: "paneId"}}); err == nil || !strings.Contains(err.Error(), "unknown prompt") {
		t.Errorf("completion of an unknown prompt: %v, want an error saying so", err)
	}
}

// More than a hundred panes: a hundred values, and the rest counted.
func TestCompletionSaysWhenThereIsMore(t *testing.T) {
	stub := newManageStub(t)
	var panes []lifecycle.Pane
	for i := range 150 {
		p := paneFixture
		p.ID = ports.PaneID(fmt.Sprintf("%%%d", i))
		panes = append(panes, p)
	}
	stub.results["ListPanes"] = lifecycle.PaneList{Panes: panes}
	cs, _ := connectWith(t, stub, mcp.Options{Manage: stub})
	res, err := cs.Complete(context.Background(), &sdk.CompleteParams{Ref: promptRef("diagnose_pane"),
		Argument: sdk.CompleteParamsArgument{Name: "paneId", Value: "%"}})
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Completion; len(c.Values) != 100 || !c.HasMore || c.Total != 150 {
		t.Errorf("completion = %d values, hasMore %v, total %d; want 100, true, 150", len(c.Values), c.HasMore, c.Total)
	}
}

// Without listings (GNU screen), a pane completes to the panes this
// server's calls worked in, the newest first; windows and sessions to
// nothing.
func TestWithoutListingsPanesCompleteToThoseTheCallsWorkedIn(t *testing.T) {
	stub := &stubTools{t: t, capture: func(_ context.Context, req domain.CaptureRequest) (domain.CaptureResult, error) {
		return domain.CaptureResult{PaneID: req.PaneID}, nil
	}}
	cs, _ := connect(t, stub)
	if got := complete(t, cs, promptRef("diagnose_pane"), "paneId", "", nil); len(got) != 0 {
		t.Errorf("before any call: %q, want nothing", got)
	}
	for _, p := range []string{"%4", "%7", "%4"} {
		structured(t, call(t, cs, "capture_pane", map[string]any{"paneId": p}))
	}
	if got := complete(t, cs, promptRef("diagnose_pane"), "paneId", "", nil); !slices.Equal(got, []string{"%4", "%7"}) {
		t.Errorf("after calls in %%4, %%7, %%4: %q, want [%%4 %%7]", got)
	}
	if got := complete(t, cs, &sdk.CompleteReference{Type: "ref/resource", URI: mcp.PaneContentURITemplate}, "id", "7", nil); !slices.Equal(got, []string{"7"}) {
		t.Errorf("resource id completion: %q, want [7]", got)
	}
	if names := listPrompts(t, cs); slices.Contains(names, "survey_panes") {
		t.Errorf("prompts/list = %v: survey_panes needs list_panes, which is not offered", names)
	}
}
