package tty

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// What a command left running on a terminal: the processes that started
// there after a mark and still run. The mark is the id the kernel gave
// the newest process (Linux allocates ids in rising order, wrapping at
// pid_max), so only the ids given out since need looking at, not the
// whole process table.

// LastPID returns the id the kernel gave the newest process in this
// process's pid namespace, from /proc/loadavg. Errors wrap
// ports.ErrUnsupported.
func LastPID() (int, error) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0, fmt.Errorf("read /proc/loadavg: %w: %w", err, ports.ErrUnsupported)
	}
	return ParseLoadavg(string(b))
}

// ParseLoadavg reads the last field of /proc/loadavg ("0.52 0.58 0.59
// 2/467 12345"): the newest process id.
func ParseLoadavg(s string) (int, error) {
	f := strings.Fields(s)
	if len(f) < 5 {
		return 0, fmt.Errorf("/proc/loadavg is %q: %w", s, ports.ErrUnsupported)
	}
	n, err := strconv.Atoi(f[4])
	if err != nil || n < 0 {
		return 0, fmt.Errorf("/proc/loadavg is %q: %w", s, ports.ErrUnsupported)
	}
	return n, nil
}

// scanAll is how many ids given out since the mark are read one by one;
// past it the process table is listed instead.
const scanAll = 4096

// Started lists the processes whose controlling terminal is dev, whose
// ids the kernel gave out after mark, and that still run (zombies are
// not, nor are threads). upto is the newest id now (LastPID); an upto
// below mark means the ids wrapped around.
func Started(mark, upto int, dev uint64) ([]ports.Process, error) {
	ids, all := idsSince(mark, upto)
	if all {
		d, err := os.ReadDir("/proc")
		if err != nil {
			return nil, fmt.Errorf("list /proc: %w: %w", err, ports.ErrUnsupported)
		}
		for _, e := range d {
			if id, err := strconv.Atoi(e.Name()); err == nil && since(id, mark, upto) {
				ids = append(ids, id)
			}
		}
	}
	now, haveNow := uptimeTicks()
	var out []ports.Process
	for _, id := range ids {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(id) + "/stat")
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			continue
		}
		st, err := ParseStat(id, string(b))
		if err != nil || st.TTYNr != dev || st.State == 'Z' || st.State == 'X' || isThread(id) {
			continue
		}
		p := ports.Process{PID: id, Parent: st.PPID, Group: st.Pgrp, Foreground: st.Pgrp == st.Tpgid,
			Young: haveNow && st.Start != 0 && now < st.Start+youngTicks}
		if args := ReadArgs(id); len(args) > 0 {
			p.Command = strings.Join(args, " ")
		} else {
			p.Command = st.Comm
		}
		out = append(out, p)
	}
	return out, nil
}

// isThread reports whether id is a thread of another process rather than
// a process: thread ids come from the same numbers, and /proc answers for
// them too (fish and other programs run threads).
func isThread(id int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(id) + "/status")
	if err != nil {
		return false
	}
	t := ParseTgid(string(b))
	return t != 0 && t != id
}

// ParseTgid reads the Tgid line of /proc/PID/status: the process a thread
// belongs to; 0 when there is none.
func ParseTgid(status string) int {
	for line := range strings.Lines(status) {
		if v, ok := strings.CutPrefix(line, "Tgid:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return n
		}
	}
	return 0
}

// youngTicks is how long after it started a process counts as young
// (ports.Process.Young): 50 ms, in USER_HZ ticks, which Linux fixes at 100
// a second for /proc.
const youngTicks = 5

// uptimeTicks is the time since boot, in the ticks of /proc/PID/stat's
// start time.
func uptimeTicks() (uint64, bool) {
	b, err := os.ReadFile("/proc/uptime")
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0, false
	}
	secs, err := strconv.ParseFloat(f[0], 64)
	if err != nil || secs < 0 {
		return 0, false
	}
	return uint64(secs * 100), true
}

// idsSince lists the ids given out after mark up to upto; all is true,
// and the list empty, when the whole process table must be read instead:
// there are more than scanAll of them, or the ids wrapped around (at
// pid_max, to an id that only the kernel knows: 300 on Linux).
func idsSince(mark, upto int) (ids []int, all bool) {
	if upto < mark || upto-mark > scanAll {
		return nil, true
	}
	for id := mark + 1; id <= upto; id++ {
		ids = append(ids, id)
	}
	return ids, false
}

// since reports whether id was given out after mark, up to upto, on ids
// that wrap.
func since(id, mark, upto int) bool {
	if mark <= upto {
		return id > mark && id <= upto
	}
	return id > mark || id <= upto
}
