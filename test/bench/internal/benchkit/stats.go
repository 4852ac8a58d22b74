package benchkit

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// percentile returns the p-th percentile (0 < p <= 100) of samples by the
// nearest-rank method: the smallest sample that at least p% of the samples
// do not exceed. It returns 0 for no samples.
func percentile(samples []time.Duration, p float64) time.Duration {
	if len(samples) == 0 {
		return 0
	}
	s := slices.Clone(samples)
	slices.Sort(s)
	rank := int(math.Ceil(p / 100 * float64(len(s))))
	return s[max(rank, 1)-1]
}

// ms formats a duration in milliseconds with a precision that suits it.
func ms(d time.Duration) string {
	v := float64(d) / float64(time.Millisecond)
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f ms", v)
	case v >= 10:
		return fmt.Sprintf("%.1f ms", v)
	default:
		return fmt.Sprintf("%.2f ms", v)
	}
}

// clockTicks is USER_HZ, the unit of the CPU times in /proc/<pid>/stat;
// Linux fixes it at 100 for user space on every architecture Go supports.
const clockTicks = 100

// procCPU is the CPU time a process has used: its own (user and system),
// and that of its children it has waited for.
type procCPU struct {
	Self, Children time.Duration
}

// readProcCPU reads /proc/<pid>/stat.
func readProcCPU(pid int) (procCPU, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return procCPU{}, err
	}
	cpu, err := parseProcStat(string(b))
	if err != nil {
		return procCPU{}, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	return cpu, nil
}

// parseProcStat reads the CPU times from the text of a /proc/<pid>/stat.
func parseProcStat(s string) (procCPU, error) {
	// The command name, field 2, is in parentheses and may hold spaces
	// and parentheses; the fields after it start with field 3 (state).
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return procCPU{}, fmt.Errorf("no command name in %q", s)
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 15 {
		return procCPU{}, fmt.Errorf("%d fields, want at least 17", len(f)+2)
	}
	// utime, stime, cutime, cstime are fields 14 to 17.
	var t [4]int64
	for k := range t {
		var err error
		if t[k], err = strconv.ParseInt(f[11+k], 10, 64); err != nil {
			return procCPU{}, fmt.Errorf("field %d: %w", 14+k, err)
		}
	}
	tick := time.Second / clockTicks
	return procCPU{Self: time.Duration(t[0]+t[1]) * tick, Children: time.Duration(t[2]+t[3]) * tick}, nil
}

// readRSS returns the resident set size (VmRSS) and its peak (VmHWM) of a
// process, in bytes.
func readRSS(pid int) (rss, peak int64, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		name, val, ok := strings.Cut(line, ":")
		if !ok || (name != "VmRSS" && name != "VmHWM") {
			continue
		}
		f := strings.Fields(val)
		if len(f) != 2 || f[1] != "kB" {
			return 0, 0, fmt.Errorf("/proc/%d/status: %s is %q", pid, name, val)
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("/proc/%d/status: %s: %w", pid, name, err)
		}
		if name == "VmRSS" {
			rss = kb << 10
		} else {
			peak = kb << 10
		}
	}
	if rss == 0 {
		return 0, 0, fmt.Errorf("/proc/%d/status: no VmRSS", pid)
	}
	return rss, peak, nil
}

// machineCPU is the machine's CPU time so far, busy and in total, summed
// over every core, from the "cpu" line of /proc/stat.
type machineCPU struct {
	Busy, Total time.Duration
}

func readMachineCPU() (machineCPU, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return machineCPU{}, err
	}
	m, err := parseMachineStat(string(b))
	if err != nil {
		return machineCPU{}, fmt.Errorf("/proc/stat: %w", err)
	}
	return m, nil
}

// parseMachineStat reads the "cpu" line of the text of /proc/stat.
func parseMachineStat(s string) (machineCPU, error) {
	line, _, _ := strings.Cut(s, "\n")
	f := strings.Fields(line)
	if len(f) < 5 || f[0] != "cpu" {
		return machineCPU{}, fmt.Errorf("first line is %q, want the cpu totals", line)
	}
	var m machineCPU
	tick := time.Second / clockTicks
	for i, v := range f[1:] {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return machineCPU{}, err
		}
		// guest and guest_nice (9th and 10th) are already counted in user
		// and nice.
		if i >= 8 {
			continue
		}
		d := time.Duration(n) * tick
		m.Total += d
		// idle and iowait (4th and 5th) are the idle time.
		if i != 3 && i != 4 {
			m.Busy += d
		}
	}
	return m, nil
}

// cpuModel returns the CPU model name from /proc/cpuinfo.
func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if name, val, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(name) == "model name" {
			return strings.TrimSpace(val)
		}
	}
	return "unknown"
}

// memTotal returns MemTotal from /proc/meminfo in bytes.
func memTotal() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if name, val, ok := strings.Cut(line, ":"); ok && name == "MemTotal" {
			if f := strings.Fields(val); len(f) == 2 {
				kb, _ := strconv.ParseInt(f[0], 10, 64)
				return kb << 10
			}
		}
	}
	return 0
}

// mb formats a byte count in megabytes (10^6 bytes), the unit of the
// targets.
func mb(b int64) string { return fmt.Sprintf("%.1f MB", float64(b)/1e6) }
