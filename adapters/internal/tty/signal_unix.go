//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package tty

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// SignalGroup sends sig to the process group pgid, as ports.Signaler
// does, for a pane whose own process is panePID on the terminal dev: the
// group must have a process whose controlling terminal is dev (read from
// /proc), and must not be panePID's group. It returns the group's
// processes on that terminal as /proc listed them just before.
func SignalGroup(panePID int, dev uint64, pgid int, sig ports.Signal) ([]ports.Process, error) {
	n := sig.Number()
	if n == 0 {
		return nil, fmt.Errorf("no signal %q", sig)
	}
	if pgid <= 1 {
		return nil, fmt.Errorf("process group %d: %w", pgid, ports.ErrNoGroup)
	}
	own, err := ReadStat(panePID)
	if err != nil {
		return nil, err
	}
	if own.TTYNr != dev {
		return nil, fmt.Errorf("the pane's process %d is not on its terminal: %w", panePID, ports.ErrUnsupported)
	}
	if pgid == panePID || pgid == own.Pgrp {
		return nil, fmt.Errorf("process group %d is the pane's own process's: %w", pgid, ports.ErrNoGroup)
	}
	procs, err := GroupOn(pgid, dev)
	if err != nil {
		return nil, err
	}
	if len(procs) == 0 {
		return nil, fmt.Errorf("no process of group %d is on the pane's terminal: %w", pgid, ports.ErrNoGroup)
	}
	switch err := syscall.Kill(-pgid, syscall.Signal(n)); {
	case errors.Is(err, syscall.ESRCH):
		return nil, fmt.Errorf("process group %d has ended: %w", pgid, ports.ErrNoGroup)
	case err != nil:
		return nil, fmt.Errorf("send %s to process group %d: %w", sig, pgid, err)
	}
	return procs, nil
}

// GroupOn lists the processes of group pgid whose controlling terminal is
// dev, from /proc: each with its command line, or its name where that is
// empty (a kernel thread, a zombie).
func GroupOn(pgid int, dev uint64) ([]ports.Process, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("list processes: %w: %w", err, ports.ErrUnsupported)
	}
	var procs []ports.Process
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid <= 0 {
			continue
		}
		st, err := ReadStat(pid)
		if err != nil || st.Pgrp != pgid || st.TTYNr != dev {
			continue
		}
		procs = append(procs, ports.Process{PID: pid, Command: commandOf(pid)})
	}
	return procs, nil
}

// commandOf is the process's command line, its arguments joined by
// spaces, or its name.
func commandOf(pid int) string {
	if args := ReadArgs(pid); len(args) > 0 {
		return strings.Join(args, " ")
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}
