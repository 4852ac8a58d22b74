package tmux

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/adapters/internal/tty"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// Who reads a pane's terminal over ssh (Options.SSH): the remote reader
// (remoteproc.go) reads on the remote host what tty.Reading reads here,
// and the same functions of internal/tty judge it, with the system call
// numbers of the remote host's machine (tty.CallsOf, from uname -m
// there). "rd" tells, in one answer, which processes of the foreground
// group sleep, in which system call or wait channel, and which of their
// descriptors are the terminal; only when one of them may be reading the
// terminal are its mode (stty, a process on the remote host) and the
// reader's program and command line asked for ("mode", "who"), so that a
// command that reads nothing costs one question and starts no process.

// remoteReading is Reading over ssh. A pane whose first process has no
// entry any more is asked of tmux again, as remoteForeground does.
func (t *terminal) remoteReading(ctx context.Context, id ports.PaneID) (ports.Reading, error) {
	if err := t.remoteHasProc(ctx); err != nil {
		return ports.Reading{}, err
	}
	for fresh := false; ; fresh = true {
		c, cached, err := t.paneTTY(ctx, id, fresh)
		if err != nil {
			return ports.Reading{}, err
		}
		if c, err = t.remoteDevice(ctx, id, c); err != nil {
			return ports.Reading{}, err
		}
		pts, err := ptsNumber(c.path)
		if err != nil {
			return ports.Reading{}, err
		}
		out, err := t.proc.ask(ctx, procQuery{verb: "rd", args: []int{c.pid, pts}})
		if err != nil {
			return ports.Reading{}, err
		}
		calls, sleepers, err := procSleepers(c.pid, c.dev, out[0])
		if errors.Is(err, tty.ErrNoProc) && cached {
			continue
		}
		if err != nil {
			return ports.Reading{}, err
		}
		return readingOf(ctx, t.proc.ask, c.pid, pts, calls, sleepers)
	}
}

// readingOf finds which of the sleepers reads the terminal /dev/pts/pts,
// once its mode is known, and asks what that one runs; ask asks the
// remote reader (procReader.ask).
func readingOf(ctx context.Context, ask func(context.Context, ...procQuery) ([][]string, error), pid, pts int, calls callsOf, sleepers []sleeper) (ports.Reading, error) {
	// The mode matters only to a wait on several files: in raw mode
	// (the mode most taken) is who may read at all.
	first := slices.IndexFunc(sleepers, func(s sleeper) bool { b, _ := s.blocked(calls, tty.Mode{}); return b })
	if first < 0 {
		return ports.Reading{}, nil
	}
	out, err := ask(ctx, procQuery{verb: "mode", args: []int{pid, pts}}, procQuery{verb: "who", args: []int{sleepers[first].pid}})
	if err != nil {
		return ports.Reading{}, err
	}
	mode, err := procTermMode(out[0])
	if err != nil {
		return ports.Reading{}, err
	}
	for i, s := range sleepers {
		blocked, weak := s.blocked(calls, mode)
		if !blocked {
			continue
		}
		who := out[1]
		if i != first {
			more, err := ask(ctx, procQuery{verb: "who", args: []int{s.pid}})
			if err != nil {
				return ports.Reading{}, err
			}
			who = more[0]
		}
		r := ports.Reading{Blocked: true, Echo: mode.Echo, Canonical: mode.Canonical, PID: s.pid, Weak: weak}
		if r.Program, r.Command, err = procWho(s.pid, who); err != nil {
			return ports.Reading{}, err
		}
		return r, nil
	}
	return ports.Reading{Echo: mode.Echo, Canonical: mode.Canonical}, nil
}

// callsOf is the remote machine's system call table, and whether it is
// known (else only wait channels tell).
type callsOf struct {
	tty.Calls
	known bool
}

// sleeper is one sleeping process of the foreground group, as "rd" told
// it.
type sleeper struct {
	pid              int
	st               tty.Stat
	syscall, wchan   string
	hasSys, hasWchan bool
	// Its descriptors that are the terminal: as /dev/pts/N, and as
	// /dev/tty where its controlling terminal is the pane's.
	pts, ctl []int
}

// blocked reports, as tty.Reading's blockedOn does locally, whether s
// reads the terminal, its mode mode, and whether that was
// told from the wait channel alone.
func (s sleeper) blocked(calls callsOf, mode tty.Mode) (blocked, weak bool) {
	isTTY := func(fd int) bool { return slices.Contains(s.pts, fd) || slices.Contains(s.ctl, fd) }
	holds := func() bool { return len(s.pts) > 0 || len(s.ctl) > 0 }
	if s.hasSys && calls.known && calls.Read >= 0 {
		sc, ok := tty.ParseSyscall(s.syscall)
		return ok && calls.ReadsTerminal(sc, mode, isTTY, holds), false
	}
	if !s.hasWchan {
		return false, false
	}
	return tty.WaitsOnTerminal(s.wchan, mode, isTTY(0), holds), true
}

// procSleepers reads the answer to "rd PID N": the remote machine, and
// the sleeping processes of the foreground group of the terminal PID is
// on, which must be the pane's (dev). As tty.Reading does locally, a PID
// without an entry is an error wrapping tty.ErrNoProc, and one on another
// terminal an error wrapping ports.ErrUnsupported.
func procSleepers(pid int, dev uint64, lines []string) (callsOf, []sleeper, error) {
	bad := func() (callsOf, []sleeper, error) {
		return callsOf{}, nil, fmt.Errorf("remote reader: the answer about who reads the terminal of process %d is %q, not one it gives", pid, lines)
	}
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "m ") {
		return bad()
	}
	var calls callsOf
	calls.Calls, calls.known = tty.CallsOf(lines[0][2:])
	switch lines[1] {
	case "s -":
		return callsOf{}, nil, fmt.Errorf("process %d on the remote host: %w: %w", pid, tty.ErrNoProc, ports.ErrUnsupported)
	case "s ?":
		return callsOf{}, nil, fmt.Errorf("/proc/%d/stat on the remote host cannot be read: %w", pid, ports.ErrUnsupported)
	}
	rest, ok := strings.CutPrefix(lines[1], "s ")
	if !ok {
		return bad()
	}
	st, err := tty.ParseStat(pid, ") "+rest)
	if err != nil {
		return callsOf{}, nil, err
	}
	if st.TTYNr != dev || st.Tpgid <= 0 {
		return callsOf{}, nil, fmt.Errorf("process %d is not on the pane's terminal: %w", pid, ports.ErrUnsupported)
	}
	var out []sleeper
	for r := lines[2:]; len(r) > 0; r = r[6:] {
		if len(r) < 6 {
			return bad()
		}
		idText, ok1 := strings.CutPrefix(r[0], "r ")
		statText, ok2 := strings.CutPrefix(r[1], "s ")
		sc, ok3 := strings.CutPrefix(r[2], "y ")
		wchan, ok4 := strings.CutPrefix(r[3], "w ")
		pts, ok5 := procFDs(r[4], "f")
		ctl, ok6 := procFDs(r[5], "c")
		id, err := strconv.Atoi(idText)
		if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 || !ok6 || err != nil || id <= 0 {
			return bad()
		}
		s := sleeper{pid: id, syscall: sc, wchan: wchan, hasSys: sc != "?", hasWchan: wchan != "?", pts: pts, ctl: ctl}
		s.st, err = tty.ParseStat(id, ") "+statText)
		if err != nil || !tty.Sleeping(") "+statText) {
			continue
		}
		if s.st.TTYNr != dev {
			s.ctl = nil // its /dev/tty is another terminal
		}
		out = append(out, s)
	}
	return calls, out, nil
}

// procFDs reads "f 0 1 2" (the tag, then descriptors).
func procFDs(line, tag string) ([]int, bool) {
	rest, ok := strings.CutPrefix(line, tag)
	if !ok || rest != "" && rest[0] != ' ' {
		return nil, false
	}
	var fds []int
	for _, w := range strings.Fields(rest) {
		n, err := strconv.Atoi(w)
		if err != nil || n < 0 {
			return nil, false
		}
		fds = append(fds, n)
	}
	return fds, true
}

// procTermMode reads the answer to "mode PID N" for the terminal's echo
// and canonical flags, as stty -a printed them.
func procTermMode(lines []string) (tty.Mode, error) {
	if len(lines) < 3 || lines[1] != "t" || !strings.HasPrefix(lines[0], "p ") {
		return tty.Mode{}, fmt.Errorf("remote reader: the answer about a terminal's mode is %q, not one it gives", lines)
	}
	switch lines[len(lines)-1] {
	case "x ok":
	case "x ?":
		return tty.Mode{}, fmt.Errorf("stty cannot read the pane's terminal on the remote host: %w", ports.ErrUnsupported)
	default:
		return tty.Mode{}, fmt.Errorf("remote reader: the answer about a terminal's mode is %q, not one it gives", lines)
	}
	said := lines[2 : len(lines)-1]
	icanon, echo := sttyFlag(said, "icanon"), sttyFlag(said, "echo")
	if icanon < 0 || echo < 0 {
		return tty.Mode{}, fmt.Errorf("stty -a on the remote host does not say icanon and echo: %w", ports.ErrUnsupported)
	}
	return tty.Mode{Echo: echo == 1, Canonical: icanon == 1}, nil
}

// procWho reads the answer to "who PID": the program it runs, as
// tty.ProgramFrom names it from its stat and exe link, and the name it
// was started under (its argv[0], without its path); "" for what was not
// read.
func procWho(pid int, lines []string) (program, command string, _ error) {
	bad := func() (string, string, error) {
		return "", "", fmt.Errorf("remote reader: the answer about what process %d runs is %q, not one it gives", pid, lines)
	}
	name := strconv.Itoa(pid)
	if len(lines) < 4 || lines[2] != "a "+name || !strings.HasPrefix(lines[len(lines)-1], "e "+name+" ") {
		return bad()
	}
	text := func(l string) (string, bool) {
		if l == "z" {
			return "", true
		}
		return strings.CutPrefix(l, "=")
	}
	stat, ok1 := text(lines[0])
	exe, ok2 := text(lines[1])
	if !ok1 || !ok2 {
		return bad()
	}
	program = tty.ProgramFrom(exe, stat)
	if lines[len(lines)-1] == "e "+name+" ok" {
		if args := procArgs(lines[3 : len(lines)-1]); len(args) > 0 {
			command = filepath.Base(args[0])
		}
	}
	return program, command, nil
}
