package screen

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"github.com/tmux-mcp/tmux-mcp/adapters/internal/tty"
)

// What screen cannot say about a window's process, /proc can: screen starts
// each window's program as a child of its server process with WINDOW=<n> and
// STY=<session> in its environment, on a pseudo-terminal of its own. Reading
// /proc is Linux-only; elsewhere the facts that need it are reported as
// unknown.

// procStat holds the fields of /proc/<pid>/stat the adapter reads.
type procStat struct {
	pid   int
	comm  string
	ppid  int
	pgrp  int
	ttyNr uint64
	tpgid int
	start uint64 // start time in clock ticks after boot
}

// readStat reads /proc/<pid>/stat.
func readStat(pid int) (procStat, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return procStat{}, err
	}
	return parseStat(pid, b)
}

// parseStat reads the text of /proc/<pid>/stat. The command name is in
// parentheses and may hold spaces and parentheses itself, so the fields
// after it are counted from the last ')'.
func parseStat(pid int, b []byte) (procStat, error) {
	open, shut := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || shut < open {
		return procStat{}, fmt.Errorf("stat of process %d: malformed", pid)
	}
	f := strings.Fields(string(b[shut+1:]))
	// f[0] is the state (field 3); field k of proc(5) is f[k-3].
	if len(f) < 20 {
		return procStat{}, fmt.Errorf("stat of process %d: %d fields", pid, len(f)+2)
	}
	num := func(k int) int64 { v, _ := strconv.ParseInt(f[k-3], 10, 64); return v }
	start, _ := strconv.ParseUint(f[22-3], 10, 64)
	tty, _ := strconv.ParseUint(f[7-3], 10, 64)
	return procStat{
		pid:   pid,
		comm:  string(b[open+1 : shut]),
		ppid:  int(num(4)),
		pgrp:  int(num(5)),
		ttyNr: tty,
		tpgid: int(num(8)),
		start: start,
	}, nil
}

// children returns the pids of pid's child processes. Each thread lists
// the children it forked, so every thread's list is read.
func children(pid int) ([]int, error) {
	if _, err := os.Stat(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid)); err == nil {
		tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
		if err != nil {
			return nil, err
		}
		var out []int
		for _, task := range tasks {
			if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", pid, task.Name())); err == nil {
				out = append(out, atoiFields(string(b))...)
			}
		}
		return out, nil
	}
	// Kernels without CONFIG_PROC_CHILDREN: scan every process.
	all, err := allPIDs()
	if err != nil {
		return nil, err
	}
	var out []int
	for _, p := range all {
		if st, err := readStat(p); err == nil && st.ppid == pid {
			out = append(out, p)
		}
	}
	return out, nil
}

func atoiFields(s string) []int {
	var out []int
	for _, f := range strings.Fields(s) {
		if n, err := strconv.Atoi(f); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// allPIDs lists the processes in /proc.
func allPIDs() ([]int, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	var out []int
	for _, e := range ents {
		if n, err := strconv.Atoi(e.Name()); err == nil {
			out = append(out, n)
		}
	}
	return out, nil
}

// environValue returns the value of key in the environment pid started
// with, and whether it is there.
func environValue(pid int, key string) (string, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		return "", false
	}
	prefix := []byte(key + "=")
	for _, kv := range bytes.Split(b, []byte{0}) {
		if bytes.HasPrefix(kv, prefix) {
			return string(kv[len(prefix):]), true
		}
	}
	return "", false
}

// findWindowProcess looks among the children of the screen server server
// for the live program of window n of session sty (the full socket name,
// "pid.name"): the child whose environment holds WINDOW=n and STY=sty.
// born reports that some child is still a copy of the server, forked but
// not yet executing a window's program, or is in the middle of executing
// it (see Terminal.windowProcess); it is false when the children cannot be
// read.
func findWindowProcess(server int, sty string, n int) (st procStat, found, born bool) {
	kids, err := children(server)
	if err != nil {
		return procStat{}, false, false
	}
	serverExe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", server))
	want := strconv.Itoa(n)
	for _, pid := range kids {
		win, ok := environValue(pid, "WINDOW")
		if !ok {
			// Still the server's program, or in the middle of executing
			// the window's: the kernel shows no environment then, and
			// what was read before the exec and after it do not agree.
			exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
			if err == nil && serverExe != "" && exe == serverExe || emptyEnviron(pid) {
				born = true
			} else if _, now := environValue(pid, "WINDOW"); now {
				born = true // it executed its program between the reads
			}
			continue
		}
		if win != want {
			continue
		}
		if v, ok := environValue(pid, "STY"); !ok || v != sty {
			continue
		}
		if st, err := readStat(pid); err == nil && alive(pid, st.start) {
			return st, true, false
		}
	}
	return procStat{}, false, born
}

// emptyEnviron reports whether the process pid shows no environment at all.
func emptyEnviron(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	return err == nil && len(b) == 0
}

// alive reports whether the process pid still runs and is the one that
// started at start (and not a later process given the same pid). A zombie
// process has exited.
func alive(pid int, start uint64) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	st, err := parseStat(pid, b)
	if err != nil || st.start != start {
		return false
	}
	shut := bytes.LastIndexByte(b, ')')
	state := strings.TrimSpace(string(b[shut+1:]))
	return !strings.HasPrefix(state, "Z") && !strings.HasPrefix(state, "X")
}

// foreground returns the command name of the foreground process group of
// the terminal of the process st: its leader, or any process of the group
// on the same terminal when the leader has exited; and the executable the
// leader runs (tty.Program), "" when it has exited.
func foreground(st procStat) (name, program string, err error) {
	if st.tpgid <= 0 {
		return "", "", fmt.Errorf("process %d has no terminal foreground group", st.pid)
	}
	if lead, err := readStat(st.tpgid); err == nil && lead.pgrp == st.tpgid {
		return lead.comm, tty.Program(st.tpgid), nil
	}
	all, err := allPIDs()
	if err != nil {
		return "", "", err
	}
	for _, p := range all {
		if s, err := readStat(p); err == nil && s.pgrp == st.tpgid && s.ttyNr == st.ttyNr {
			return s.comm, "", nil
		}
	}
	return "", "", fmt.Errorf("no process in foreground group %d", st.tpgid)
}

// ttyPath finds the device file of the process's controlling terminal:
// one of its standard descriptors when they are that terminal, else the
// pseudo-terminal whose device number it is.
func ttyPath(st procStat) (string, error) {
	if st.ttyNr == 0 {
		return "", fmt.Errorf("process %d has no terminal", st.pid)
	}
	for fd := 0; fd <= 2; fd++ {
		p, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%d", st.pid, fd))
		if err == nil && strings.HasPrefix(p, "/dev/") && rdev(p) == st.ttyNr {
			return p, nil
		}
	}
	ents, err := os.ReadDir("/dev/pts")
	if err != nil {
		return "", err
	}
	for _, e := range ents {
		p := filepath.Join("/dev/pts", e.Name())
		if rdev(p) == st.ttyNr {
			return p, nil
		}
	}
	return "", fmt.Errorf("terminal %#x of process %d not found", st.ttyNr, st.pid)
}

func rdev(path string) uint64 {
	var s syscall.Stat_t
	if syscall.Stat(path, &s) != nil {
		return 0
	}
	return uint64(s.Rdev)
}

// openTTY opens a terminal without making it this process's controlling
// terminal and without waiting for it: only to ask it questions.
func openTTY(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOCTTY|syscall.O_NONBLOCK, 0)
}

// ttySize returns the terminal's size in cells.
func ttySize(f *os.File) (width, height int, err error) {
	var ws struct{ row, col, x, y uint16 }
	if err := ioctl(f, syscall.TIOCGWINSZ, uintptr(unsafe.Pointer(&ws))); err != nil {
		return 0, 0, fmt.Errorf("size of %s: %w", f.Name(), err)
	}
	return int(ws.col), int(ws.row), nil
}

func ioctl(f *os.File, req, arg uintptr) error {
	c, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var errno syscall.Errno
	if err := c.Control(func(fd uintptr) {
		_, _, errno = syscall.Syscall(syscall.SYS_IOCTL, fd, req, arg)
	}); err != nil {
		return err
	}
	if errno != 0 {
		return errno
	}
	return nil
}

// attached reports whether a person's display is attached to the session:
// screen marks its socket executable by its owner while one is.
func attached(sockPath string) (bool, error) {
	fi, err := os.Stat(sockPath)
	if err != nil {
		return false, err
	}
	return fi.Mode().Perm()&0o100 != 0, nil
}

// ancestors returns pid and the pids of its ancestors, up to init.
func ancestors(pid int) map[int]uint64 {
	out := map[int]uint64{}
	for pid > 1 && len(out) < 512 {
		st, err := readStat(pid)
		if err != nil {
			break
		}
		out[pid] = st.start
		pid = st.ppid
	}
	return out
}
