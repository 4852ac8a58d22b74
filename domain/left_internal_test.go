package domain

import (
	"context"
	"slices"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// What the shell's prompt runs is not what the command left; an orphan
// in the shell's group (zsh runs its subshell there) and a job of its
// own are.
func TestNotTheShellsKeepsOnlyWhatTheCommandLeft(t *testing.T) {
	const shell = 100
	ps := []ports.Process{
		{PID: shell, Parent: 1, Group: shell, Command: "bash"},                        // the shell itself, respawned into the range
		{PID: 201, Parent: shell, Group: shell, Command: "git status"},                // the prompt's
		{PID: 202, Parent: 201, Group: shell, Command: "git fsmonitor"},               // the prompt's child
		{PID: 203, Parent: 1, Group: shell, Command: "sleep 300"},                     // left by zsh's subshell
		{PID: 204, Parent: 1, Group: 150, Command: "python3 -m http.server"},          // left by bash's subshell
		{PID: 205, Parent: shell, Group: 205, Command: "sleep 60"},                    // a job of the shell's own (persist)
		{PID: 206, Parent: 204, Group: 150, Command: "worker"},                        // a child of what was left
		{PID: 207, Parent: shell, Group: 207, Foreground: true, Command: "sleep 0.4"}, // the prompt's, as a job in front
		{PID: 208, Parent: 1, Group: 208, Foreground: true, Command: "vim"},           // in front, but no descendant: not the prompt's
	}
	var got []int
	for _, p := range notTheShells(slices.Clone(ps), shell) {
		got = append(got, p.PID)
	}
	if want := []int{203, 204, 205, 206, 208}; !slices.Equal(got, want) {
		t.Errorf("notTheShells kept %v, want %v", got, want)
	}
	if kept := notTheShells(slices.Clone(ps), 0); len(kept) != len(ps) {
		t.Errorf("with the shell not known, notTheShells kept %d of %d", len(kept), len(ps))
	}
}

// A loop in the parents (ids reused as the table was read) ends.
func TestNotTheShellsEndsOnALoopOfParents(t *testing.T) {
	ps := []ports.Process{{PID: 7, Parent: 8, Group: 100}, {PID: 8, Parent: 7, Group: 100}}
	if kept := notTheShells(ps, 100); len(kept) != 2 {
		t.Errorf("kept %v, want both: neither descends from the shell", kept)
	}
}

func TestListedKeepsAtMostMaxLeftListed(t *testing.T) {
	var ps []ports.Process
	for i := range MaxLeftListed + 5 {
		ps = append(ps, ports.Process{PID: 1000 + i, Command: "sleep"})
	}
	l := listed(ps)
	if l.Count != MaxLeftListed+5 || len(l.Processes) != MaxLeftListed || l.Processes[0].PID != 1000 {
		t.Errorf("listed = count %d, %d processes from %d", l.Count, len(l.Processes), l.Processes[0].PID)
	}
	if l := listed(nil); l.Processes == nil || l.Count != 0 {
		t.Errorf("listed(nil) = %+v, want an empty list", l)
	}
}

// A process of the prompt's is dropped however short its line of
// parents: alone in the list, or under another of the prompt's.
func TestNotTheShellsDropsThePromptsAtAnyDepth(t *testing.T) {
	const shell = 100
	alone := []ports.Process{{PID: 201, Parent: shell, Group: shell, Command: "git status"}}
	if kept := notTheShells(alone, shell); len(kept) != 0 {
		t.Errorf("the prompt's one process: kept %v, want none", kept)
	}
	chain := []ports.Process{
		{PID: 203, Parent: 202, Group: shell},
		{PID: 202, Parent: 201, Group: shell},
		{PID: 201, Parent: shell, Group: shell},
	}
	if kept := notTheShells(chain, shell); len(kept) != 0 {
		t.Errorf("three of the prompt's, each the child of the next: kept %v, want none", kept)
	}
}

// A pane keeps the records of its last maxLeftRecords runs that left
// something, exactly: the oldest goes first.
func TestLeftRecordsKeepTheLastMaxLeftRecords(t *testing.T) {
	var l leftRecords
	for i := range maxLeftRecords + 1 {
		l.add("%0", ports.ProcessMark{Seq: int64(i)}, []ports.Process{{PID: 1000 + i}})
		if got, want := len(l.of("%0")), min(i+1, maxLeftRecords); got != want {
			t.Fatalf("after %d runs: %d records, want %d", i+1, got, want)
		}
	}
	if recs := l.of("%0"); recs[0].mark.Seq != 1 || recs[len(recs)-1].mark.Seq != maxLeftRecords {
		t.Errorf("the records kept are of marks %d to %d, want 1 to %d", recs[0].mark.Seq, recs[len(recs)-1].mark.Seq, maxLeftRecords)
	}
}

// listedWatcher is a terminal that tells processes: every pane lists
// procs, whatever the mark.
type listedWatcher struct {
	ports.Terminal
	procs []ports.Process
}

func (w *listedWatcher) ProcessMark(context.Context, ports.PaneID) (ports.ProcessMark, error) {
	return ports.ProcessMark{Seq: 1}, nil
}

func (w *listedWatcher) ProcessesSince(context.Context, ports.PaneID, ports.ProcessMark) ([]ports.Process, error) {
	return slices.Clone(w.procs), nil
}

// A record none of whose processes still runs is let go; one with some
// keeps just those.
func TestLeftRunningLetsEndedRecordsGo(t *testing.T) {
	w := &listedWatcher{procs: []ports.Process{{PID: 11, Command: "sleep 300"}}}
	s := &Service{term: w}
	s.left.add("%0", ports.ProcessMark{Seq: 1}, []ports.Process{{PID: 10}, {PID: 11}})
	s.left.add("%0", ports.ProcessMark{Seq: 2}, []ports.Process{{PID: 20}})
	left, err := s.LeftRunning(context.Background(), "%0")
	if err != nil || left == nil || left.Count != 1 || left.Processes[0].PID != 11 {
		t.Fatalf("LeftRunning = %+v, %v; want the one still running", left, err)
	}
	recs := s.left.of("%0")
	if len(recs) != 1 || !slices.Equal(recs[0].pids, []int{11}) {
		t.Errorf("the records kept = %+v, want one, of pid 11", recs)
	}
	w.procs = nil
	if left, err := s.LeftRunning(context.Background(), "%0"); err != nil || left == nil || left.Count != 0 {
		t.Errorf("LeftRunning once all ended = %+v, %v", left, err)
	}
	if recs := s.left.of("%0"); len(recs) != 0 {
		t.Errorf("once every process ended, %d records are kept, want none", len(recs))
	}
}
