// Package tty reads what the kernel tells about a terminal and the
// processes on it, for the backends whose panes run on this machine: a
// terminal's mode, a process's group and its terminal's foreground group.
package tty

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// Stat holds the fields of /proc/PID/stat that job control needs.
type Stat struct {
	Comm  string // the process's name, as the kernel keeps it (at most 15 bytes)
	State byte   // R, S, D, T, Z...: Z for a zombie
	PPID  int    // its parent
	Pgrp  int    // the process's group
	TTYNr uint64 // its controlling terminal, as a device number
	Tpgid int    // the foreground group of that terminal
	// Start is when it started, in clock ticks since the machine booted
	// (USER_HZ, 100 a second); 0 when /proc did not say.
	Start uint64
}

// ErrNoProc says that /proc has no entry for the process (it is gone, or
// this is not Linux); it is wrapped together with ports.ErrUnsupported.
var ErrNoProc = errors.New("no /proc entry for the process")

// ReadStat reads /proc/PID/stat. The command name, in parentheses, may
// hold anything, so the fields are counted from the last ")".
func ReadStat(pid int) (Stat, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return Stat{}, fmt.Errorf("process %d: %w: %w", pid, ErrNoProc, ports.ErrUnsupported)
	}
	return ParseStat(pid, string(b))
}

// ParseStat reads the text of /proc/PID/stat.
func ParseStat(pid int, s string) (Stat, error) {
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return Stat{}, fmt.Errorf("/proc/%d/stat is %q: %w", pid, s, ports.ErrUnsupported)
	}
	// After ") ": state ppid pgrp session tty_nr tpgid ...
	f := strings.Fields(s[i+1:])
	if len(f) < 6 {
		return Stat{}, fmt.Errorf("/proc/%d/stat is %q: %w", pid, s, ports.ErrUnsupported)
	}
	ppid, err0 := strconv.Atoi(f[1])
	pgrp, err1 := strconv.Atoi(f[2])
	tty, err2 := strconv.ParseUint(f[4], 10, 64)
	tpgid, err3 := strconv.Atoi(f[5])
	if err := errors.Join(err0, err1, err2, err3); err != nil {
		return Stat{}, fmt.Errorf("/proc/%d/stat: %w: %w", pid, err, ports.ErrUnsupported)
	}
	st := Stat{State: f[0][0], PPID: ppid, Pgrp: pgrp, TTYNr: tty, Tpgid: tpgid}
	if len(f) > 19 {
		st.Start, _ = strconv.ParseUint(f[19], 10, 64)
	}
	if j := strings.IndexByte(s, '('); j >= 0 && j < i {
		st.Comm = s[j+1 : i]
	}
	return st, nil
}

// Foreground reads the foreground process group of the terminal that
// process pid, on that terminal, has as its controlling terminal (device
// dev): its id from pid's /proc entry, its leader's command line and
// program, and the children of its leader.
// A process on another terminal is an error wrapping ErrUnsupported.
func Foreground(pid int, dev uint64) (ports.Foreground, error) {
	st, err := ReadStat(pid)
	if err != nil {
		return ports.Foreground{}, err
	}
	if st.TTYNr != dev || st.Tpgid <= 0 {
		return ports.Foreground{}, fmt.Errorf("process %d is not on the pane's terminal: %w", pid, ports.ErrUnsupported)
	}
	fg := ports.Foreground{Group: st.Tpgid, Args: ReadArgs(st.Tpgid)}
	if fg.Args == nil || len(fg.Args) > 0 {
		// A leader that has exited runs nothing, whatever its zombie is
		// named.
		fg.Program = Program(st.Tpgid)
	}
	// A leader, being single-threaded as shells are, is its one task.
	b, err := os.ReadFile("/proc/" + strconv.Itoa(st.Tpgid) + "/task/" + strconv.Itoa(st.Tpgid) + "/children")
	if err != nil {
		return fg, nil
	}
	fg.Children = []int{}
	for _, f := range strings.Fields(string(b)) {
		if n, err := strconv.Atoi(f); err == nil {
			fg.Children = append(fg.Children, n)
		}
	}
	return fg, nil
}

// ReadArgs returns the command line of process pid from
// /proc/PID/cmdline: empty, not nil, when the process has exited (no
// entry, or a zombie's empty one), as ports.Foreground.Args says; nil
// when it cannot be read otherwise.
func ReadArgs(pid int) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	switch {
	case (errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ESRCH)) && !hidesOthers():
		return []string{}
	case err != nil:
		return nil
	case len(b) == 0:
		return []string{}
	}
	return ParseArgs(b)
}

// hidesOthers reports whether /proc hides other users' processes from
// this one (mounted with hidepid): a missing entry then does not mean
// that the process has exited. init, pid 1, is another user's unless this
// process runs as root.
var hidesOthers = sync.OnceValue(func() bool {
	if os.Geteuid() == 0 {
		return false
	}
	_, err := os.Stat("/proc/1")
	return err != nil
})

// ParseArgs splits the contents of /proc/PID/cmdline, one NUL after each
// argument, into the arguments; nil when it holds none.
func ParseArgs(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
}

// Exists reports whether /proc has an entry for the process.
func Exists(pid int) bool {
	_, err := os.Stat("/proc/" + strconv.Itoa(pid))
	return err == nil
}
