package domain

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// What a command left running in its pane: the processes that started on
// the pane's terminal while it ran and outlive it (a server started with
// "&", a nohup job), told where the terminal can tell
// (ports.ProcessWatcher).

// MaxLeftListed bounds the processes a result lists; LeftRunningCount
// says how many there were in all.
const MaxLeftListed = 20

// LeftRunning is what commands left running in a pane.
type LeftRunning struct {
	// Processes are at most MaxLeftListed of them, by process id; never
	// nil.
	Processes []LeftProcess
	// Count is how many there are in all.
	Count int
}

// LeftProcess is a process a command left running.
type LeftProcess struct {
	PID     int
	Command string
}

// markProcesses marks the pane's processes just before the line is
// typed; ok is false where the terminal cannot tell them.
func (s *Service) markProcesses(ctx context.Context, pane ports.PaneID) (ports.ProcessMark, bool) {
	pw, ok := s.term.(ports.ProcessWatcher)
	if !ok {
		return ports.ProcessMark{}, false
	}
	m, err := pw.ProcessMark(ctx, pane)
	return m, err == nil
}

// leftBy lists what the frame's shell (shell) had on its terminal after
// its command ended that started after mark: every such process but the
// shell itself and what the shell runs in front or in its own process
// group (what its prompt runs, PROMPT_COMMAND or a git prompt, and their
// children). A job the shell started in the background (persist: "sleep
// 300 &" in the shell itself) is neither, and a process that the
// command's subshell started is an orphan by now, no descendant of the
// shell. A process that started a moment ago may not have run its
// program yet (ports.Process.Young): it is looked at again shortly. ok is
// false when it cannot be told.
func (s *Service) leftBy(ctx context.Context, pane ports.PaneID, mark ports.ProcessMark, shell int) ([]ports.Process, bool) {
	pw, ok := s.term.(ports.ProcessWatcher)
	if !ok {
		return nil, false
	}
	for try := 0; ; try++ {
		ps, err := pw.ProcessesSince(ctx, pane, mark)
		if err != nil {
			return nil, false
		}
		ps = notTheShells(ps, shell)
		young := slices.ContainsFunc(ps, func(p ports.Process) bool { return p.Young })
		if !young || try == youngTries {
			slices.SortFunc(ps, func(a, b ports.Process) int { return a.PID - b.PID })
			return ps, true
		}
		t := s.clock.NewTimer(youngWait)
		select {
		case <-t.C():
		case <-ctx.Done():
			t.Stop()
			return nil, false
		}
	}
}

// How long leftBy waits for young processes to run their programs, and
// how often.
const (
	youngWait  = 50 * time.Millisecond
	youngTries = 2
)

// notTheShells drops from ps, the processes started on a terminal since
// a mark, the shell (pid shell) and what descends from it and runs in
// front of the terminal or in the shell's own process group (what its
// prompt runs). With shell 0 (not known) nothing is dropped.
func notTheShells(ps []ports.Process, shell int) []ports.Process {
	byPID := make(map[int]ports.Process, len(ps))
	for _, p := range ps {
		byPID[p.PID] = p
	}
	// Whether p descends from the shell, through processes that started
	// since the mark (as every descendant that did start since has).
	descends := func(p ports.Process) bool {
		for range len(ps) + 1 {
			if p.Parent == shell {
				return true
			}
			q, ok := byPID[p.Parent]
			if !ok {
				return false
			}
			p = q
		}
		return false
	}
	return slices.DeleteFunc(ps, func(p ports.Process) bool {
		return p.PID == shell || shell != 0 && (p.Group == shell || p.Foreground) && descends(p)
	})
}

// listed is what a result lists of ps, which is sorted by process id.
func listed(ps []ports.Process) *LeftRunning {
	out := &LeftRunning{Processes: make([]LeftProcess, 0, min(len(ps), MaxLeftListed)), Count: len(ps)}
	for _, p := range ps[:min(len(ps), MaxLeftListed)] {
		out.Processes = append(out.Processes, LeftProcess{PID: p.PID, Command: p.Command})
	}
	return out
}

// leftRecords are, by pane, what this Service's commands left running
// there, for get_pane_info: each the mark its run took and the ids it
// found, so that a later process that reuses an id is not taken for
// one of them.
type leftRecords struct {
	mu    sync.Mutex
	panes map[ports.PaneID][]leftRecord
}

type leftRecord struct {
	mark ports.ProcessMark
	pids []int
}

// maxLeftRecords bounds the records kept for one pane; the oldest goes.
const maxLeftRecords = 20

func (l *leftRecords) add(pane ports.PaneID, mark ports.ProcessMark, ps []ports.Process) {
	if len(ps) == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.panes == nil {
		l.panes = map[ports.PaneID][]leftRecord{}
	}
	rec := leftRecord{mark: mark}
	for _, p := range ps {
		rec.pids = append(rec.pids, p.PID)
	}
	rs := append(l.panes[pane], rec)
	if len(rs) > maxLeftRecords {
		rs = rs[len(rs)-maxLeftRecords:]
	}
	l.panes[pane] = rs
}

func (l *leftRecords) of(pane ports.PaneID) []leftRecord {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.panes[pane])
}

// keep replaces pane's records with those still live.
func (l *leftRecords) keep(pane ports.PaneID, live []leftRecord) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(live) == 0 {
		delete(l.panes, pane)
		return
	}
	l.panes[pane] = live
}

// LeftRunning tells what this Service's commands left running in the
// pane that still runs there; nil when the terminal cannot tell
// (ports.ProcessWatcher).
//
// Errors: wrapped ports errors (ErrPaneNotFound) from the terminal.
func (s *Service) LeftRunning(ctx context.Context, pane ports.PaneID) (*LeftRunning, error) {
	pw, ok := s.term.(ports.ProcessWatcher)
	if !ok {
		return nil, nil
	}
	recs := s.left.of(pane)
	if len(recs) == 0 {
		// Nothing was left that is known of; whether anything would be
		// is for the terminal to say.
		switch _, err := pw.ProcessMark(ctx, pane); {
		case paneGone(err):
			return nil, err
		case err != nil:
			return nil, nil
		}
	}
	var all []ports.Process
	var live []leftRecord
	// Every recorded process started after its own run's mark, and so
	// after the oldest record's: one listing since that mark holds them
	// all (one round trip, over -ssh too, however many records).
	var now []ports.Process
	if len(recs) > 0 {
		var err error
		now, err = pw.ProcessesSince(ctx, pane, recs[0].mark)
		switch {
		case paneGone(err):
			s.left.keep(pane, nil)
			return nil, err
		case err != nil:
			return nil, nil
		}
	}
	for _, rec := range recs {
		var still []int
		for _, p := range now {
			if slices.Contains(rec.pids, p.PID) && !slices.ContainsFunc(all, func(q ports.Process) bool { return q.PID == p.PID }) {
				all = append(all, p)
				still = append(still, p.PID)
			}
		}
		if len(still) > 0 {
			live = append(live, leftRecord{mark: rec.mark, pids: still})
		}
	}
	s.left.keep(pane, live)
	slices.SortFunc(all, func(a, b ports.Process) int { return a.PID - b.PID })
	return listed(all), nil
}
