package mcp_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// read_output passes its arguments to the domain as given.
func TestReadOutputPassesArgumentsToTheDomain(t *testing.T) {
	stub := &stubTools{t: t, readOut: func(_ context.Context, req domain.ReadOutputRequest) (domain.ReadOutputResult, error) {
		return domain.ReadOutputResult{RunID: req.RunID, PaneID: "%1", Text: "7:error", StartLine: 3, ReturnedLines: 1,
			TotalLines: 9, Searched: true, MatchedLines: 1}, nil
	}}
	cs, _ := connect(t, stub)
	res := call(t, cs, "read_output", map[string]any{"runId": "r1", "startLine": 3, "maxLines": 5, "grep": "err", "regex": true, "context": 2})
	got := structured(t, res)
	if got["text"] != "7:error" || got["runId"] != "r1" || got["matchedLines"] != 1.0 || got["nextLine"] != nil {
		t.Errorf("structured content = %v", got)
	}
	want := domain.ReadOutputRequest{RunID: "r1", StartLine: 3, MaxLines: 5, Grep: "err", Regex: true, Context: 2}
	if len(stub.readOuts) != 1 || stub.readOuts[0] != want {
		t.Errorf("domain got %+v, want %+v", stub.readOuts, want)
	}
	if len(texts(t, res)) != 1 {
		t.Errorf("a whole page of an ended run carries a notice: %v", texts(t, res))
	}
}

// The text half says where the next page starts, that the command still
// runs, and what the budget cut.
func TestReadOutputNotices(t *testing.T) {
	next := int64(201)
	stub := &stubTools{t: t, readOut: func(context.Context, domain.ReadOutputRequest) (domain.ReadOutputResult, error) {
		return domain.ReadOutputResult{RunID: "r9", PaneID: "%2", Text: "x", StartLine: 1, ReturnedLines: 200, TotalLines: 900,
			NextLine: &next, StoredBytes: 1000, CutBytes: 5000, CutReason: "the output budget (1000 B for all runs) was full",
			StillRunning: true}, nil
	}}
	cs, _ := connect(t, stub)
	txt := texts(t, call(t, cs, "read_output", map[string]any{"runId": "r9"}))
	if len(txt) != 2 {
		t.Fatalf("texts = %v, want the JSON and notices", txt)
	}
	for _, w := range []string{"runId r9 and startLine 201", "may still be running", "wait_for_command with paneId %2",
		"kept only the first 1000 bytes", "budget (1000 B for all runs) was full", "5000 bytes", "-output-budget"} {
		if !strings.Contains(txt[1], w) {
			t.Errorf("notice lacks %q: %s", w, txt[1])
		}
	}
}

// Unknown and evicted runs and bad patterns are tool errors that say what
// is wrong and what to do.
func TestReadOutputErrorsSayWhatToDo(t *testing.T) {
	errs := map[string]error{
		"nosuch": fmt.Errorf("read the output of run %q: %w", "nosuch", ports.ErrRunNotFound),
		"gone":   fmt.Errorf("read the output of run gone: %w", ports.ErrRunEvicted),
		"badre":  &fault.ArgumentError{Field: "grep", Reason: `"a(" is not an RE2 regular expression: missing )`},
	}
	stub := &stubTools{t: t, readOut: func(_ context.Context, req domain.ReadOutputRequest) (domain.ReadOutputResult, error) {
		return domain.ReadOutputResult{}, errs[req.RunID]
	}}
	cs, _ := connect(t, stub)
	for id, want := range map[string][]string{
		"nosuch": {"run not found", "runId comes from a run_shell_command or wait_for_command result", "run the command again"},
		"gone":   {"evicted", "within its budget", "-output-budget", "run the command again"},
		"badre":  {"grep", "not an RE2 regular expression", "correct it"},
	} {
		msg := toolErrorText(t, call(t, cs, "read_output", map[string]any{"runId": id}))
		for _, w := range want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: %q lacks %q", id, msg, w)
			}
		}
	}
	// The schema refuses what it can tell: no runId, a context past 100.
	for _, args := range []map[string]any{{}, {"runId": ""}, {"runId": "r", "context": 101}, {"runId": "r", "startLine": 0}} {
		if msg := toolErrorText(t, call(t, cs, "read_output", args)); msg == "" {
			t.Errorf("%v: no error text", args)
		}
	}
}

// A result that withheld lines says how to read them: read_output with
// its runId.
func TestRunResultThatDroppedLinesNamesReadOutput(t *testing.T) {
	stub := &stubTools{t: t, run: func(context.Context, domain.RunRequest) (domain.RunResult, error) {
		return domain.RunResult{PaneID: "%1", Outcome: domain.OutcomeCompleted, ExitStatus: new(0), Output: "tail",
			DroppedLines: 99_800, OmittedBytes: 12, ReturnedBytes: 4, RunID: "fr0m", EffectiveTimeoutMs: 30000}, nil
	}}
	cs, _ := connect(t, stub)
	txt := texts(t, call(t, cs, "run_shell_command", map[string]any{"paneId": "%1", "command": "seq 1 100000"}))
	if len(txt) != 2 {
		t.Fatalf("texts = %v", txt)
	}
	for _, w := range []string{"99800 lines from the start withheld by maxLines", "12 bytes cut", "read_output with runId fr0m", "grep"} {
		if !strings.Contains(txt[1], w) {
			t.Errorf("notice lacks %q: %s", w, txt[1])
		}
	}
	if strings.Contains(txt[1], "capture_pane") {
		t.Errorf("notice sends the caller to the pane's history, which lost them: %s", txt[1])
	}
}
