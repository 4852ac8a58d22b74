package domain

import (
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
