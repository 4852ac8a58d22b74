package benchkit

import (
	"strings"
	"testing"
	"time"
)

func TestPercentileIsNearestRank(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		d := make([]time.Duration, len(v))
		for i, x := range v {
			d[i] = time.Duration(x) * time.Millisecond
		}
		return d
	}
	tests := []struct {
		samples []time.Duration
		p       float64
		want    time.Duration
	}{
		{nil, 50, 0},
		{ms(7), 50, 7 * time.Millisecond},
		{ms(7), 90, 7 * time.Millisecond},
		{ms(4, 1, 3, 2), 50, 2 * time.Millisecond}, // the 2nd of 4, unsorted input
		{ms(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), 90, 9 * time.Millisecond},
		{ms(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11), 90, 10 * time.Millisecond},
		{ms(1, 2, 3), 100, 3 * time.Millisecond},
	}
	for _, tt := range tests {
		if got := percentile(tt.samples, tt.p); got != tt.want {
			t.Errorf("percentile(%v, %v) = %v, want %v", tt.samples, tt.p, got, tt.want)
		}
	}
}

func TestPercentileLeavesItsInputAlone(t *testing.T) {
	s := []time.Duration{3, 1, 2}
	percentile(s, 50)
	if s[0] != 3 || s[1] != 1 || s[2] != 2 {
		t.Errorf("input reordered to %v", s)
	}
}

func TestParseProcStat(t *testing.T) {
	// A command name with a space and a parenthesis, as a process may
	// name itself; utime 150, stime 50, cutime 30, cstime 20 ticks.
	line := "4242 (tmux: (server) x) S 1 4242 4242 0 -1 4194560 500 0 0 0 150 50 30 20 20 0 1 0 100 5000000 300 18446744073709551615"
	got, err := parseProcStat(line)
	if err != nil {
		t.Fatal(err)
	}
	if want := (procCPU{Self: 2 * time.Second, Children: 500 * time.Millisecond}); got != want {
		t.Errorf("parseProcStat = %+v, want %+v", got, want)
	}
	for _, bad := range []string{"", "4242 tmux S 1", "4242 (tmux) S 1 2 3", "4242 (tmux) S 1 4242 4242 0 -1 4194560 500 0 0 0 x 50 30 20"} {
		if _, err := parseProcStat(bad); err == nil {
			t.Errorf("parseProcStat(%q) succeeded, want an error", bad)
		}
	}
}

func TestParseMachineStat(t *testing.T) {
	// user nice system idle iowait irq softirq steal guest guest_nice
	text := "cpu  100 10 40 500 50 5 5 0 30 3\ncpu0 50 5 20 250 25 2 3 0 15 1\n"
	got, err := parseMachineStat(text)
	if err != nil {
		t.Fatal(err)
	}
	tick := 10 * time.Millisecond
	if want := (machineCPU{Busy: 160 * tick, Total: 710 * tick}); got != want {
		t.Errorf("parseMachineStat = %+v, want %+v (guest time is already in user time)", got, want)
	}
	if _, err := parseMachineStat("intr 1 2 3\n"); err == nil {
		t.Error("a text without the cpu line parsed")
	}
}

func TestCountRunsSumsUpCommandsPerIteration(t *testing.T) {
	const rs = "\x1e"
	lines := []string{
		"1.000 1.002 list-panes" + rs + "-t" + rs + "%1" + rs + ";" + rs + "send-keys" + rs + "-l" + rs + "echo a; echo b" + rs,
		"1.010 1.012 list-panes" + rs + "-t" + rs + "%1" + rs + ";" + rs + "send-keys" + rs + "Enter" + rs,
		"1.020 1.022 capture-pane" + rs + "-p" + rs,
		"0 0 -C" + rs + "attach-session" + rs,
	}
	got := countRuns(lines, 2)
	for _, want := range []string{"2.00 runs", "3.00 ms in tmux", "capture-pane 0.50", "control client 0.50", "list-panes;send-keys 1.00"} {
		if !strings.Contains(got, want) {
			t.Errorf("countRuns = %q, want it to contain %q", got, want)
		}
	}
	if got := countRuns(nil, 5); got != "no tmux process" {
		t.Errorf("countRuns(nil) = %q", got)
	}
}
