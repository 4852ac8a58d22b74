package tty

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// Who reads a terminal (ports.InputWatcher), from /proc: the processes of
// the terminal's foreground group, each one's state, the system call it
// sleeps in and the files it has open, and the terminal's mode.
//
// A process blocked reading the terminal sleeps in read(2) on a file
// descriptor that is the terminal (a line at a time, or a key at a time in
// raw mode), or, its terminal in raw mode (ICANON off), in one of the
// calls that wait on several files (poll, select, epoll), holding the
// terminal open: a pager, an editor, a line editor. What a process reads
// from a pipe or a file (a heredoc, `sleep 30 | cat`) is not the terminal.
//
// /proc/PID/syscall tells the system call; the kernel shows it only to a
// process that may ptrace the process (ptrace_scope 1 under Yama lets a
// process trace only its descendants unless it runs as root). Without it
// the kernel's wait channel (/proc/PID/wchan) stands in: wait_woken or
// n_tty_read for a read of a terminal, poll_schedule_timeout or do_select
// for a wait on several files. That is weaker (Reading.Weak): a read of a
// socket sleeps in wait_woken too, so a process whose standard input is
// the terminal and that waits for the network can be taken for one that
// waits for the terminal.

// Mode is a terminal's ECHO and ICANON flags.
type Mode struct {
	Echo, Canonical bool
}

// maxMembers bounds the processes looked at on one terminal.
const maxMembers = 512

// Reading reports who of the foreground process group of the terminal
// that process pid (the pane's first process, on that terminal: device
// dev, path tty) has as its controlling terminal is blocked reading it.
// Errors wrap ports.ErrUnsupported when /proc or the terminal cannot be
// read.
func Reading(pid int, dev uint64, tty string) (ports.Reading, error) {
	st, err := ReadStat(pid)
	if err != nil {
		return ports.Reading{}, err
	}
	if st.TTYNr != dev || st.Tpgid <= 0 {
		return ports.Reading{}, fmt.Errorf("process %d is not on the pane's terminal: %w", pid, ports.ErrUnsupported)
	}
	mode, err := ReadMode(tty)
	if err != nil {
		return ports.Reading{}, err
	}
	for _, m := range groupMembers(pid, st.Tpgid) {
		how, ok := blockedOn(m, dev, tty, mode)
		if !ok {
			continue
		}
		r := ports.Reading{Blocked: true, Echo: mode.Echo, Canonical: mode.Canonical, PID: m, Program: Program(m), Weak: how.weak}
		if args := ReadArgs(m); len(args) > 0 {
			r.Command = filepath.Base(args[0])
		}
		return r, nil
	}
	return ports.Reading{Echo: mode.Echo, Canonical: mode.Canonical}, nil
}

// groupMembers returns the processes of group pgrp among root and its
// descendants, the deepest last: a job's processes are all the pane's
// first process's descendants. The group's leader comes first when it is
// among them.
func groupMembers(root, pgrp int) []int {
	var members []int
	seen := map[int]bool{}
	queue := []int{root}
	for len(queue) > 0 && len(seen) < maxMembers {
		p := queue[0]
		queue = queue[1:]
		if seen[p] {
			continue
		}
		seen[p] = true
		if st, err := ReadStat(p); err == nil && st.Pgrp == pgrp {
			members = append(members, p)
		}
		queue = append(queue, children(p)...)
	}
	return members
}

// children lists the children of every thread of process pid.
func children(pid int) []int {
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var kids []int
	for _, t := range tasks {
		b, err := os.ReadFile(dir + "/" + t.Name() + "/children")
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				kids = append(kids, n)
			}
		}
	}
	return kids
}

// how says how a process was found blocked.
type how struct{ weak bool }

// blockedOn reports whether process pid is blocked reading the terminal
// tty (device dev), whose mode is mode.
func blockedOn(pid int, dev uint64, tty string, mode Mode) (how, bool) {
	dir := "/proc/" + strconv.Itoa(pid)
	b, err := os.ReadFile(dir + "/stat")
	if err != nil || !Sleeping(string(b)) {
		return how{}, false
	}
	st, err := ParseStat(pid, string(b))
	if err != nil {
		return how{}, false
	}
	// A process that opened /dev/tty (ssh, sudo, less) holds its
	// controlling terminal, which /proc names /dev/tty.
	isTTY := func(target string) bool { return target == tty || target == "/dev/tty" && st.TTYNr == dev }
	fdIsTTY := func(fd int) bool {
		target, err := os.Readlink(dir + "/fd/" + strconv.Itoa(fd))
		return err == nil && isTTY(target)
	}
	holds := func() bool { return holdsTTY(dir, isTTY) }
	if b, err := readSyscall(dir); err == nil && sysRead >= 0 {
		sc, ok := ParseSyscall(string(b))
		return how{}, ok && ReadsTerminal(sc, mode, fdIsTTY, holds)
	}
	// Not allowed to see the system call: the wait channel instead.
	b, err = os.ReadFile(dir + "/wchan")
	if err != nil {
		return how{}, false
	}
	return how{weak: true}, WaitsOnTerminal(string(b), mode, fdIsTTY(0), holds)
}

// readSyscall reads /proc/PID/syscall of the process whose /proc
// directory is dir; a test makes it fail, as the kernel does for a
// process it may not trace.
var readSyscall = func(dir string) ([]byte, error) { return os.ReadFile(dir + "/syscall") }

// holdsTTY reports whether the process whose /proc directory is dir has
// the terminal (isTTY) open on any file descriptor.
func holdsTTY(dir string, isTTY func(target string) bool) bool {
	fds, err := os.ReadDir(dir + "/fd")
	if err != nil {
		return false
	}
	for _, fd := range fds {
		if target, err := os.Readlink(dir + "/fd/" + fd.Name()); err == nil && isTTY(target) {
			return true
		}
	}
	return false
}

// Sleeping reports whether the text of /proc/PID/stat says the process
// sleeps interruptibly (state S), as one blocked reading does.
func Sleeping(stat string) bool {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return false
	}
	f := strings.Fields(stat[i+1:])
	return len(f) > 0 && f[0] == "S"
}

// Syscall is what /proc/PID/syscall says: the system call a process
// sleeps in and its arguments.
type Syscall struct {
	Nr   int
	Args []uint64
}

// ParseSyscall reads the text of /proc/PID/syscall: the call's number
// and six arguments in hex, then the stack and program counters; ok is
// false for "running", for -1 (not in a system call) and for anything
// else it cannot read.
func ParseSyscall(s string) (Syscall, bool) {
	f := strings.Fields(s)
	if len(f) < 2 {
		return Syscall{}, false
	}
	nr, err := strconv.Atoi(f[0])
	if err != nil || nr < 0 {
		return Syscall{}, false
	}
	sc := Syscall{Nr: nr}
	for _, a := range f[1:min(len(f), 7)] {
		v, err := strconv.ParseUint(strings.TrimPrefix(a, "0x"), 16, 64)
		if err != nil {
			return Syscall{}, false
		}
		sc.Args = append(sc.Args, v)
	}
	return sc, true
}

// ReadsTerminal reports whether a process sleeping in sc reads the
// terminal: a read of a descriptor that is the terminal (isTTY), or, the
// terminal in raw mode, a wait on several descriptors by a process that
// holds the terminal open (holds), which the call's arguments, pointers
// into the process's memory, do not tell more of.
func ReadsTerminal(sc Syscall, mode Mode, isTTY func(fd int) bool, holds func() bool) bool {
	switch {
	case sc.Nr == sysRead && len(sc.Args) > 0:
		return sc.Args[0] <= 1<<20 && isTTY(int(sc.Args[0]))
	case waitsOnMany[sc.Nr]:
		return !mode.Canonical && holds()
	}
	return false
}

// WaitsOnTerminal is ReadsTerminal from the wait channel alone (the text
// of /proc/PID/wchan): a read of a terminal sleeps in wait_woken (or, in
// older kernels, n_tty_read), and is taken for one when the process's
// standard input is the terminal (stdinTTY); a wait on several files
// counts as for ReadsTerminal.
func WaitsOnTerminal(wchan string, mode Mode, stdinTTY bool, holds func() bool) bool {
	w := strings.TrimSpace(wchan)
	switch {
	case w == "wait_woken" || w == "n_tty_read":
		return stdinTTY
	case strings.HasPrefix(w, "poll_schedule_timeout") || strings.HasPrefix(w, "do_select") ||
		strings.HasPrefix(w, "do_sys_poll") || strings.HasPrefix(w, "ep_poll") || strings.HasPrefix(w, "core_sys_select"):
		return !mode.Canonical && holds()
	}
	return false
}
