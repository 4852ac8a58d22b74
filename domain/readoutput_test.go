package domain_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// outputRig is a rig whose Service keeps run output in an in-memory
// store, budget bytes of it (0: the default).
func outputRig(t *testing.T, budget int64) (*rig, *fake.OutputStore) {
	t.Helper()
	store := fake.NewOutputStore()
	cfg := domain.DefaultConfig()
	if budget > 0 {
		cfg.OutputBudget = budget
	}
	return newRig(t, cfg, domain.WithOutputStore(store)), store
}

func (r *rig) readOutput(req domain.ReadOutputRequest) domain.ReadOutputResult {
	r.t.Helper()
	res, err := r.svc.ReadOutput(context.Background(), req)
	if err != nil {
		r.t.Fatalf("ReadOutput(%+v): %v", req, err)
	}
	return res
}

func lines(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "%d\n", i)
	}
	return b.String()
}

// A result that withheld lines names the run whose whole output the
// Service kept: read_output pages through all of it.
func TestReadOutputPagesThroughWhatTheResultWithheld(t *testing.T) {
	r, _ := outputRig(t, 0)
	r.term.Expect(r.pane, fake.Run{Output: lines(1, 500)})
	res := r.run(domain.RunRequest{Command: "seq 1 500", MaxLines: 10})
	if res.DroppedLines != 490 || res.RunID == "" || res.OutputComplete {
		t.Fatalf("run = %+v; want 490 lines withheld and a runId", res)
	}
	page := r.readOutput(domain.ReadOutputRequest{RunID: res.RunID, MaxLines: 100})
	if page.Text != strings.TrimSuffix(lines(1, 100), "\n") || page.StartLine != 1 || page.ReturnedLines != 100 ||
		page.TotalLines != 500 || page.NextLine == nil || *page.NextLine != 101 || page.PaneID != r.pane {
		t.Fatalf("first page = %+v", page)
	}
	if !page.OutputComplete || page.StillRunning || page.CutBytes != 0 {
		t.Errorf("the kept output of an ended run is not complete: %+v", page)
	}
	page = r.readOutput(domain.ReadOutputRequest{RunID: res.RunID, StartLine: 450})
	if page.Text != strings.TrimSuffix(lines(450, 500), "\n") || page.NextLine != nil {
		t.Fatalf("last page = %+v", page)
	}
	// Without maxLines a page holds the server's default.
	page = r.readOutput(domain.ReadOutputRequest{RunID: res.RunID})
	if page.ReturnedLines != domain.DefaultMaxResultLines {
		t.Errorf("a page without maxLines holds %d lines, want %d", page.ReturnedLines, domain.DefaultMaxResultLines)
	}
}

// grep finds lines by substring or regular expression, with context.
func TestReadOutputGrep(t *testing.T) {
	r, _ := outputRig(t, 0)
	r.term.Expect(r.pane, fake.Run{Output: "cc a.c\ncc b.c\nb.c:3: error: x undeclared\ncc c.c\ncc d.c\nERROR: build failed\n", Status: 1})
	res := r.run(domain.RunRequest{Command: "make", MaxLines: 1})
	got := r.readOutput(domain.ReadOutputRequest{RunID: res.RunID, Grep: "error"})
	if got.Text != "3:b.c:3: error: x undeclared" || got.MatchedLines != 1 || !got.Searched {
		t.Errorf("literal grep (case kept) = %+v", got)
	}
	got = r.readOutput(domain.ReadOutputRequest{RunID: res.RunID, Grep: "(?i)^error|: error:", Regex: true, Context: 1})
	want := "2-cc b.c\n3:b.c:3: error: x undeclared\n4-cc c.c\n5-cc d.c\n6:ERROR: build failed"
	if got.Text != want || got.MatchedLines != 2 || got.ReturnedLines != 5 {
		t.Errorf("regex grep with context = %q, want %q", got.Text, want)
	}
	// A literal pattern is taken as it is, regex characters and all.
	got = r.readOutput(domain.ReadOutputRequest{RunID: res.RunID, Grep: "(?i)^error"})
	if got.MatchedLines != 0 || got.Text != "" {
		t.Errorf("a literal pattern was read as a regular expression: %+v", got)
	}
}

// Requests read_output refuses, each with a clear error naming what is
// wrong.
func TestReadOutputRefusals(t *testing.T) {
	r, _ := outputRig(t, 0)
	res := r.run(domain.RunRequest{Command: "echo hi"})
	for name, tc := range map[string]struct {
		req   domain.ReadOutputRequest
		field string
		want  string
	}{
		"no runId":             {domain.ReadOutputRequest{}, "runId", "empty"},
		"negative startLine":   {domain.ReadOutputRequest{RunID: res.RunID, StartLine: -1}, "startLine", "at least 1"},
		"negative maxLines":    {domain.ReadOutputRequest{RunID: res.RunID, MaxLines: -1}, "maxLines", "at least 1"},
		"context too large":    {domain.ReadOutputRequest{RunID: res.RunID, Grep: "x", Context: domain.MaxContext + 1}, "context", "from 0 to 100"},
		"context without grep": {domain.ReadOutputRequest{RunID: res.RunID, Context: 2}, "context", "is for grep"},
		"regex without grep":   {domain.ReadOutputRequest{RunID: res.RunID, Regex: true}, "regex", "is for grep"},
		"bad regex":            {domain.ReadOutputRequest{RunID: res.RunID, Grep: "a(b", Regex: true}, "grep", "not an RE2 regular expression"},
		"regex matching empty": {domain.ReadOutputRequest{RunID: res.RunID, Grep: "x*", Regex: true}, "grep", "can match where no character is"},
	} {
		_, err := r.svc.ReadOutput(context.Background(), tc.req)
		var arg *fault.ArgumentError
		if !errors.As(err, &arg) || arg.Field != tc.field || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want an argument error for %s saying %q", name, err, tc.field, tc.want)
		}
	}
	for _, id := range []string{"nosuchrun1", "../../etc/passwd"} {
		if _, err := r.svc.ReadOutput(context.Background(), domain.ReadOutputRequest{RunID: id}); !errors.Is(err, ports.ErrRunNotFound) {
			t.Errorf("unknown run %q: %v, want ErrRunNotFound", id, err)
		}
	}
}

// Runs are evicted oldest first to keep within the budget, and reading
// an evicted one says so.
func TestReadOutputEvicted(t *testing.T) {
	r, store := outputRig(t, 1000)
	var ids []string
	for i := range 3 {
		r.term.Expect(r.pane, fake.Run{Output: strings.Repeat(fmt.Sprintf("%d", i), 399) + "\n"})
		ids = append(ids, r.run(domain.RunRequest{Command: "x"}).RunID)
	}
	if _, err := r.svc.ReadOutput(context.Background(), domain.ReadOutputRequest{RunID: ids[0]}); !errors.Is(err, ports.ErrRunEvicted) {
		t.Errorf("the oldest run: %v, want ErrRunEvicted", err)
	}
	for _, id := range ids[1:] {
		if got := r.readOutput(domain.ReadOutputRequest{RunID: id}); !got.OutputComplete || got.TotalLines != 1 {
			t.Errorf("run %s = %+v", id, got)
		}
	}
	if store.Size() > 1000 {
		t.Errorf("the store holds %d bytes, over the budget", store.Size())
	}
}

// A run that alone outgrows the budget keeps its first lines, and says
// what it did not keep.
func TestReadOutputBudgetCut(t *testing.T) {
	r, _ := outputRig(t, 100)
	r.term.Expect(r.pane, fake.Run{Output: lines(1, 100)}) // 292 bytes
	res := r.run(domain.RunRequest{Command: "seq 1 100"})
	if res.Output != strings.TrimSuffix(lines(1, 100), "\n") {
		t.Fatalf("the result's own output was cut by the budget: %q", res.Output)
	}
	got := r.readOutput(domain.ReadOutputRequest{RunID: res.RunID, MaxLines: 1000})
	if !strings.HasPrefix(got.Text, "1\n2\n3\n") || got.StoredBytes > 100 || got.CutBytes != 292-got.StoredBytes ||
		got.OutputComplete || !strings.Contains(got.CutReason, "budget") {
		t.Fatalf("a run over the budget = %+v", got)
	}
}

// A run still running is read as far as it has got, and says so; a
// wait_for_command result names the same run.
func TestReadOutputWhileRunning(t *testing.T) {
	r, _ := outputRig(t, 0)
	first := r.timedOut(fake.Run{Output: "step 1\n", Steps: []fake.Step{{At: 2 * time.Second, Output: "step 2\n"}}, Delay: 3 * time.Second}, "job")
	got := r.readOutput(domain.ReadOutputRequest{RunID: first.RunID})
	if got.Text != "step 1" || !got.StillRunning || got.OutputComplete {
		t.Fatalf("a running run = %+v", got)
	}
	reply := r.waitAsync(domain.WaitCommandRequest{})
	r.waitTimers(2)
	r.clock.Advance(3 * time.Second)
	end := r.await(reply)
	if end.err != nil || end.res.RunID != first.RunID || end.res.Outcome != domain.OutcomeCompleted {
		t.Fatalf("wait_for_command = %+v, %v; want the same run's end", end.res, end.err)
	}
	got = r.readOutput(domain.ReadOutputRequest{RunID: first.RunID})
	if got.Text != "step 1\nstep 2" || got.StillRunning || !got.OutputComplete {
		t.Fatalf("the ended run = %+v", got)
	}
}

// Without a store the Service keeps nothing, and says so.
func TestReadOutputWithoutAStore(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	res := r.run(domain.RunRequest{Command: "echo hi"})
	got := r.readOutput(domain.ReadOutputRequest{RunID: res.RunID})
	if got.Text != "" || got.CutBytes == 0 || got.OutputComplete || !strings.Contains(got.CutReason, "keeps no output") {
		t.Fatalf("read without a store = %+v", got)
	}
}

// A command that never started has no run a result named: nothing of
// it is kept.
func TestReadOutputNothingForWhatNeverRan(t *testing.T) {
	r, store := outputRig(t, 0)
	r.term.Attach(r.pane, "/dev/pts/1")
	if _, err := r.svc.RunShellCommand(context.Background(), domain.RunRequest{PaneID: r.pane, Command: "true"}); err == nil {
		t.Fatal("a watched pane was written to")
	}
	if store.Len() != 0 {
		t.Errorf("a refused run left %d outputs in the store", store.Len())
	}
}

// While run_shell_command waits, each progress report carries the
// command's newest line of output.
func TestRunProgressCarriesTheNewestLine(t *testing.T) {
	cfg := domain.DefaultConfig()
	// Liveness checks, which let held output through, never due at the
	// same moment as a progress report.
	cfg.LivenessInterval = 300 * time.Millisecond
	r := newRig(t, cfg, domain.WithOutputStore(fake.NewOutputStore()))
	r.term.Expect(r.pane, fake.Run{Output: "configuring\n", Steps: []fake.Step{
		{At: 1500 * time.Millisecond, Output: "compiling " + strings.Repeat("é", 300) + "\n\n"},
	}, Delay: 3 * time.Second})
	var mu sync.Mutex
	var got []string
	progress := func(p domain.Progress) {
		mu.Lock()
		got = append(got, p.Line)
		mu.Unlock()
	}
	reply := r.runAsync(context.Background(), domain.RunRequest{Command: "make", Progress: progress})
	for range 29 {
		r.waitTimers(3) // deadline, liveness, progress
		r.clock.Advance(100 * time.Millisecond)
	}
	r.clock.Advance(200 * time.Millisecond)
	if res := r.await(reply); res.err != nil || res.res.Outcome != domain.OutcomeCompleted {
		t.Fatalf("run = %+v, %v", res.res, res.err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) < 2 || got[0] != "configuring" {
		t.Fatalf("progress lines %q; want the first to be the first line", got)
	}
	long := got[1]
	if n := len([]rune(long)); n != domain.ProgressLineMax || !strings.HasPrefix(long, "compiling éé") || !strings.HasSuffix(long, "…") {
		t.Errorf("the second report's line is %d characters: %q", n, long)
	}
}

// So does each report of wait_for_command.
func TestWaitForCommandProgressCarriesTheNewestLine(t *testing.T) {
	cfg := domain.DefaultConfig()
	cfg.LivenessInterval = 300 * time.Millisecond
	r := newRig(t, cfg, domain.WithOutputStore(fake.NewOutputStore()))
	r.timedOut(fake.Run{Output: "started\n", Steps: []fake.Step{{At: 1500 * time.Millisecond, Output: "half way\n"}}, Delay: 4 * time.Second}, "job")
	var mu sync.Mutex
	var got []string
	reply := r.waitAsync(domain.WaitCommandRequest{Progress: func(p domain.Progress) {
		mu.Lock()
		got = append(got, p.Line)
		mu.Unlock()
	}})
	for range 25 {
		r.waitTimers(3) // the wait's deadline and progress, the follower's liveness
		r.clock.Advance(100 * time.Millisecond)
	}
	r.clock.Advance(time.Second)
	if end := r.await(reply); end.err != nil || end.res.Outcome != domain.OutcomeCompleted {
		t.Fatalf("wait = %+v, %v", end.res, end.err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) < 2 || got[0] != "half way" && got[0] != "started" || got[len(got)-1] != "half way" {
		t.Errorf("progress lines %q; want the newest line in each", got)
	}
}

// A command that never started has a run too, of no output: its result's
// runId reads back empty and complete.
func TestReadOutputOfACommandThatNeverStarted(t *testing.T) {
	r, _ := outputRig(t, 0)
	r.term.SetStarting(r.pane, true)
	r.svc.ExpectStartingShell(r.pane)
	reply := r.runAsync(context.Background(), domain.RunRequest{Command: "echo never", TimeoutMs: 1000})
	r.waitTimers(2) // the deadline, the next look at the shell
	r.clock.Advance(time.Second)
	got := r.await(reply)
	if got.err != nil || !got.res.NotStarted || got.res.RunID == "" {
		t.Fatalf("run = %+v, %v; want not started, with a runId", got.res, got.err)
	}
	page := r.readOutput(domain.ReadOutputRequest{RunID: got.res.RunID})
	if page.Text != "" || page.TotalLines != 0 || !page.OutputComplete || page.StillRunning {
		t.Errorf("the run of a command that never started = %+v", page)
	}
}
