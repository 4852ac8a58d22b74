package tmux

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/adapters/internal/tty"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// What a command left running in a pane over ssh (Options.SSH): the
// remote reader (remoteproc.go) reads on the remote host what
// tty.LastPID and tty.Started read here, with its verbs "last" and "ps",
// and the same functions of internal/tty make the answer. The one
// difference: a process's command line is read there up to 1,024 bytes
// and 64 arguments, and a longer one is cut, so that an answer about many
// processes stays short; and at most 64 processes are listed, beyond
// which the Terminal cannot tell (an error).

// remoteProcessMark asks the remote host for its newest process id.
func (t *terminal) remoteProcessMark(ctx context.Context, id ports.PaneID) (ports.ProcessMark, error) {
	if err := checkPaneID(id); err != nil {
		return ports.ProcessMark{}, err
	}
	if err := t.remoteHasProc(ctx); err != nil {
		return ports.ProcessMark{}, err
	}
	out, err := t.proc.ask(ctx, procQuery{verb: "last"})
	if err != nil {
		return ports.ProcessMark{}, err
	}
	n, err := procLastPID(out[0])
	if err != nil {
		return ports.ProcessMark{}, err
	}
	return ports.ProcessMark{Seq: int64(n)}, nil
}

// remoteProcessesSince lists, on the remote host, the processes on the
// pane's terminal that started after mark. The pane's terminal is the one
// remembered, checked as remoteLineEditing checks it: by whether the
// pane's first process still runs.
func (t *terminal) remoteProcessesSince(ctx context.Context, id ports.PaneID, mark ports.ProcessMark) ([]ports.Process, error) {
	if err := t.remoteHasProc(ctx); err != nil {
		return nil, err
	}
	if mark.Seq < 0 || mark.Seq > procMaxArg {
		return nil, fmt.Errorf("the mark %d is no process id of the remote host's", mark.Seq)
	}
	for fresh := false; ; fresh = true {
		c, cached, err := t.paneTTY(ctx, id, fresh)
		if err != nil {
			return nil, err
		}
		if c, err = t.remoteDevice(ctx, id, c); err != nil {
			return nil, err
		}
		if c.dev == 0 || c.dev > procMaxArg {
			return nil, fmt.Errorf("the pane's terminal on the remote host is device %d, which the remote reader is not asked about: %w", c.dev, ports.ErrUnsupported)
		}
		out, err := t.proc.ask(ctx, procQuery{verb: "ps", args: []int{c.pid, int(mark.Seq), int(c.dev)}})
		if err != nil {
			return nil, err
		}
		alive, ps, err := procStarted(int(mark.Seq), c.dev, out[0])
		if alive != 1 && cached {
			continue
		}
		return ps, err
	}
}

// remoteHasProc fails, wrapping ports.ErrUnsupported, when the remote
// host has no Linux /proc to read processes from.
func (t *terminal) remoteHasProc(ctx context.Context) error {
	hello, err := t.proc.hello(ctx)
	if err != nil {
		return err
	}
	if !hello.proc {
		return fmt.Errorf("the remote host has no /proc to read processes from: %w", ports.ErrUnsupported)
	}
	return nil
}

// remoteDevice returns c with the device number of the pane's terminal,
// asking the remote reader the first time (and remembering it).
func (t *terminal) remoteDevice(ctx context.Context, id ports.PaneID, c ttyOf) (ttyOf, error) {
	if c.devKnown {
		return c, nil
	}
	pts, err := ptsNumber(c.path)
	if err != nil {
		return ttyOf{}, err
	}
	out, err := t.proc.ask(ctx, procQuery{verb: "dev", args: []int{pts}})
	if err != nil {
		return ttyOf{}, err
	}
	if c.dev, err = procDevice(out[0]); err != nil {
		return ttyOf{}, err
	}
	c.devKnown = true
	t.rememberTTY(id, c)
	return c, nil
}

// procLastPID reads the answer to "last": the line of /proc/loadavg.
func procLastPID(lines []string) (int, error) {
	if len(lines) == 1 && lines[0] == "l ?" {
		return 0, fmt.Errorf("/proc/loadavg on the remote host cannot be read: %w", ports.ErrUnsupported)
	}
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "l ") {
		return 0, fmt.Errorf("remote reader: the answer about the newest process is %q, not one it gives", lines)
	}
	return tty.ParseLoadavg(lines[0][2:])
}

// procCmdlineMax is the longest command line "ps" reads back whole
// (procScript reads a byte more, to tell a longer one).
const procCmdlineMax = 1024

// procStarted reads the answer to "ps PID MARK DEV": whether PID has an
// entry (as procMode tells it), and the processes on the terminal dev
// whose ids were given out after mark, as tty.Started lists them.
func procStarted(mark int, dev uint64, lines []string) (alive int, _ []ports.Process, _ error) {
	bad := func(why string) (int, []ports.Process, error) {
		return -1, nil, fmt.Errorf("remote reader: the answer about the processes started (%s) is %q, not one it gives", why, lines)
	}
	if len(lines) < 2 {
		return bad("too short")
	}
	alive, ok := procAlive(lines[0])
	if !ok {
		return bad("no p")
	}
	upto, err := procLastPID(lines[1:2])
	if err != nil {
		return alive, nil, err
	}
	if len(lines) < 3 || !strings.HasPrefix(lines[2], "u ") {
		return bad("no u")
	}
	now, haveNow := tty.ParseUptime(lines[2][2:])
	out := []ports.Process{}
	rest := lines[3:]
	for len(rest) > 0 {
		if rest[0] == "o" && len(rest) == 1 {
			return alive, nil, fmt.Errorf("more than 64 processes on the pane's terminal on the remote host started since the mark; they are not listed")
		}
		idText, ok := strings.CutPrefix(rest[0], "i ")
		id, err := strconv.Atoi(idText)
		if !ok || err != nil || id <= 0 || len(rest) < 4 || !strings.HasPrefix(rest[1], "=") {
			return bad("an entry")
		}
		stat := rest[1][1:]
		rest = rest[2:]
		tgid := 0
		if g, ok := strings.CutPrefix(rest[0], "g "); ok {
			tgid = tty.ParseTgid(g)
			rest = rest[1:]
		}
		// The command line: "a ID", its lines, "e ID how".
		name := strconv.Itoa(id)
		end := -1
		for i, l := range rest {
			if strings.HasPrefix(l, "e ") {
				end = i
				break
			}
		}
		if len(rest) == 0 || rest[0] != "a "+name || end < 0 {
			return bad("a command line")
		}
		how, ok := strings.CutPrefix(rest[end], "e "+name+" ")
		if !ok {
			return bad("a command line's end")
		}
		args, gone := procCmdline(rest[1:end], how)
		rest = rest[end+1:]
		st, err := tty.ParseStat(id, stat)
		if gone || err != nil || !tty.Since(id, mark, upto) || !tty.Runs(st, dev) || tgid != 0 && tgid != id {
			continue
		}
		out = append(out, tty.StartedProcess(id, st, args, now, haveNow))
	}
	return alive, out, nil
}

// procCmdline reads a command line that "ps" printed (raw items or od's
// hex, and how it ended: ok, + for cut, - for no entry, ? for not read):
// its arguments, cut at procCmdlineMax bytes; gone when the process has no
// entry any more.
func procCmdline(lines []string, how string) (args []string, gone bool) {
	switch how {
	case "-":
		return nil, true
	case "?":
		return nil, false
	case "ok", "+":
	default:
		return nil, false
	}
	if len(lines) > 0 && strings.HasPrefix(lines[0], "=") {
		for _, l := range lines {
			a, ok := strings.CutPrefix(l, "=")
			if !ok {
				return nil, false
			}
			args = append(args, a)
		}
		return args, false
	}
	b, ok := decodeOD(lines)
	if !ok {
		return nil, false
	}
	return tty.ParseArgs(b[:min(len(b), procCmdlineMax)]), false
}
