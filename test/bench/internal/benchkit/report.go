package benchkit

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"text/tabwriter"
	"time"
)

// row is one line of the latency table.
type row struct {
	name    string
	info    string // printed after the figures
	target  *target
	samples []time.Duration
	// The floors, sampled before and after the row: the tmux process,
	// the typed control-mode round trip, the control-mode send-keys and
	// the typed round trip of a subshell.
	floors, ctlFloors, keyFloors, subFloors []time.Duration
	err                                     error // why the row has fewer samples than asked for
	// tmuxRuns sums up the tmux processes the server ran per iteration,
	// in a traced run; untraced, when set, says why the row's server is
	// not traced instead.
	tmuxRuns, untraced string
}

// floorMedians are the medians of a row's floor samples.
type floorMedians struct {
	proc, ctl, keys, sub time.Duration
}

func (r row) floorMedians() floorMedians {
	return floorMedians{percentile(r.floors, 50), percentile(r.ctlFloors, 50), percentile(r.keyFloors, 50), percentile(r.subFloors, 50)}
}

// target is a speed goal of a row, judged on its median.
type target struct {
	desc     string
	met      func(median time.Duration, f floorMedians) bool
	sendKeys bool // judged against the send-keys floor, which the row's note then gives
	// subshell: the row's note gives the subshell floor and the ratio to
	// it, which tell how much of the distance to the target is the fork
	// the contract's subshell costs.
	subshell bool
}

// withSubshell returns t with the subshell floor in the row's note.
func (t *target) withSubshell() *target {
	c := *t
	c.subshell = true
	return &c
}

// ctlTarget is met when the median is at most x times the typed
// control-mode floor.
func ctlTarget(x float64) *target {
	return &target{
		desc: fmt.Sprintf("≤ %g× ctl", x),
		met:  func(m time.Duration, f floorMedians) bool { return f.ctl > 0 && float64(m) <= x*float64(f.ctl) },
	}
}

// keysTarget is met when the median is at most x times the send-keys
// floor.
func keysTarget(x float64) *target {
	return &target{
		desc:     fmt.Sprintf("≤ %g× keys", x),
		met:      func(m time.Duration, f floorMedians) bool { return f.keys > 0 && float64(m) <= x*float64(f.keys) },
		sendKeys: true,
	}
}

func verdict(ok bool) string {
	if ok {
		return "PASS"
	}
	return "MISS"
}

// header describes the machine and the software measured.
type header struct {
	tmuxVersion, serverDesc, socket string
	background                      float64 // machine busy share before the run, 0..1
	backgroundErr                   error
	n, heavy                        int
	dur                             time.Duration
}

func (b *bench) print(w io.Writer, h header) {
	fmt.Fprintf(w, "\ntmux-mcp end-to-end benchmark, %s\n", time.Now().Format("2006-01-02 15:04 MST"))
	fmt.Fprintf(w, "machine: %d CPUs (%s), %s RAM; %s, %s; server %s\n",
		runtime.NumCPU(), cpuModel(), mb(memTotal()), h.tmuxVersion, runtime.Version(), h.serverDesc)
	if h.backgroundErr == nil {
		fmt.Fprintf(w, "other load on the machine just before the run: %.0f%% of all CPUs\n", 100*h.background)
	}
	fmt.Fprintf(w, "floors, each sampled %d times before and %d times after each row, taking turns:\n", floorSamples, floorSamples)
	fmt.Fprintf(w, "  proc: one `tmux -L %s display -p x` round trip (process start to exit)\n", h.socket)
	fmt.Fprintf(w, "  ctl:  the benchmark's own control-mode client (`tmux -C attach-session -t %s`) typing `printf '<%%s>\\n' X$((k+1))` and Enter\n", floorSession)
	fmt.Fprintf(w, "        into an idle shell pane with one send-keys, until the %s carrying <X…> arrives\n", "%output")
	fmt.Fprintf(w, "  keys: that client's `send-keys -t PANE C-c` round trip, until its %s arrives (PANE: `cat` on a raw tty)\n", "%end")
	fmt.Fprintf(w, "  sub:  as ctl, with the printf in a subshell, `(printf …)`: the fork every run_shell_command's subshell costs (no target's floor)\n")
	fmt.Fprintf(w, "iterations: %d per light call, %d per heavy call (flag -n); %v per concurrency level (flag -d)\n\n", h.n, h.heavy, h.dur)

	fmt.Fprintf(w, rowFormat, "call", "n", "median", "p90", "proc", "× proc", "ctl", "× ctl", "target", "", "")
	for _, f := range []struct {
		name    string
		samples []time.Duration
	}{
		{"floor proc: tmux display -p x (all samples)", b.floors},
		{"floor ctl: typed printf to %output (all samples)", b.ctlFloors},
		{"floor keys: send-keys round trip (all samples)", b.keyFloors},
		{"floor sub: (printf) in a subshell (all samples)", b.subFloors},
	} {
		fmt.Fprintf(w, rowFormat, f.name, fmt.Sprint(len(f.samples)),
			ms(percentile(f.samples, 50)), ms(percentile(f.samples, 90)), "", "", "", "", "", "", "")
	}
	for _, r := range b.rows {
		printRow(w, r)
	}
	fmt.Fprintln(w)
	if b.trace != nil {
		fmt.Fprintln(w, "tmux processes the server ran per iteration (traced run: the wrapper slows every call, so the times above are not comparable)")
		for _, r := range b.rows {
			fmt.Fprintf(w, "  %-51s %s\n", r.name, r.tmuxRuns)
		}
		fmt.Fprintln(w)
	}
	b.printMemory(w)
	fmt.Fprintln(w)
	b.printLevels(w)
}

// rowFormat lays out a row of the latency table: name, n, median, p90,
// the row's process floor and the ratio of the median to it, its typed
// control-mode floor and that ratio, target, verdict, note.
const rowFormat = "%-51s %4s %9s %9s %9s %7s %9s %7s  %-11s %-4s  %s\n"

func printRow(w io.Writer, r row) {
	note := r.info
	if r.err != nil {
		note = "error: " + r.err.Error()
		if strings.Contains(note, errNoTool.Error()) {
			note = "n/a (tool not available)"
		}
		if errors.Is(r.err, errNoSSH) {
			note = "n/a (" + r.err.Error() + ")"
		}
	}
	if len(r.samples) == 0 {
		fmt.Fprintf(w, rowFormat, r.name, "0", "-", "-", "-", "-", "-", "-", targetDesc(r.target), "", note)
		return
	}
	med, p90, f := percentile(r.samples, 50), percentile(r.samples, 90), r.floorMedians()
	result := ""
	if r.target != nil {
		result = verdict(r.target.met(med, f) && r.err == nil)
		if r.target.sendKeys {
			note = strings.TrimSuffix(fmt.Sprintf("keys floor %s, %s; %s", ms(f.keys), ratio(med, f.keys), note), "; ")
		}
		if r.target.subshell {
			note = strings.TrimSuffix(fmt.Sprintf("sub floor %s, %s; %s", ms(f.sub), ratio(med, f.sub), note), "; ")
		}
	}
	fmt.Fprintf(w, rowFormat, r.name, fmt.Sprint(len(r.samples)), ms(med), ms(p90), ms(f.proc),
		ratio(med, f.proc), ms(f.ctl), ratio(med, f.ctl), targetDesc(r.target), result, note)
}

// ratio formats d/floor with the precision a small ratio needs.
func ratio(d, floor time.Duration) string {
	if floor <= 0 {
		return "-"
	}
	x := float64(d) / float64(floor)
	if x < 0.95 {
		return fmt.Sprintf("%.2f×", x)
	}
	return fmt.Sprintf("%.1f×", x)
}

func targetDesc(t *target) string {
	if t == nil {
		return ""
	}
	return t.desc
}

// Memory targets (bytes): idle RSS, and no growth over the calls, judged
// at the precision the figures are printed with.
const (
	idleRSSTarget   = 20_000_000
	rssGrowthTarget = 100_000
)

func (b *bench) printMemory(w io.Writer) {
	m := b.memory
	fmt.Fprintln(w, "server memory (VmRSS from /proc/<pid>/status)")
	if m.idle == 0 {
		fmt.Fprintf(w, "  n/a: %v\n", m.err)
		return
	}
	fmt.Fprintf(w, "  idle, before any tool call:          %9s   target ≤ %s      %s\n", mb(m.idle), mb(idleRSSTarget), verdict(m.idle <= idleRSSTarget))
	if m.after == 0 {
		fmt.Fprintf(w, "  after %d calls: n/a: %v\n", b.memCalls, m.err)
	} else {
		grow := m.after - m.idle
		fmt.Fprintf(w, "  after %d light tool calls:          %9s   growth %s from idle, target none (≤ %s)   %s\n",
			m.calls, mb(m.after), mb(grow), mb(rssGrowthTarget), verdict(grow <= rssGrowthTarget))
	}
	if m.again != 0 {
		grow := m.again - m.after
		fmt.Fprintf(w, "  after %d more:                      %9s   growth %s over them, target none (≤ %s)   %s\n",
			m.callsAgain, mb(m.again), mb(grow), mb(rssGrowthTarget), verdict(grow <= rssGrowthTarget))
	}
	if m.steadySecond != 0 {
		grow := m.steadySecond - m.steadyFirst
		fmt.Fprintf(w, "  output records full, median of %d readings over %d calls: %s, then over %d more: %s; growth %s, target none (≤ %s)   %s\n",
			memorySamples, m.steadyCalls, mb(m.steadyFirst), m.steadyCalls, mb(m.steadySecond), mb(grow), mb(rssGrowthTarget), verdict(grow <= rssGrowthTarget))
		fmt.Fprintf(w, "    (until then RSS grows by design: the server keeps each recorded pane's newest output, up to 1 MiB, in a buffer that grows as output comes)\n")
	}
	if m.end != 0 {
		fmt.Fprintf(w, "  end of run, after the heavy calls:   %9s   peak (VmHWM) %s\n", mb(m.end), mb(m.peak))
	}
}

func (b *bench) printLevels(w io.Writer) {
	if len(b.levels) == 0 {
		return
	}
	fmt.Fprintf(w, "concurrent run_shell_command `true`: one goroutine per pane, one MCP session, %v per level\n", b.dur)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "panes\tcalls\terrors\tcalls/s\t× 1 pane\tmedian\tp90\tserver CPU/call\ttmux clients CPU/call\ttmux server CPU/call\tmachine busy\t")
	one := b.levels[0].perSecond()
	for _, l := range b.levels {
		cpu := func(d time.Duration) string {
			if l.cpuErr != nil || l.calls == 0 {
				return "n/a"
			}
			return ms(d / time.Duration(l.calls))
		}
		srv, kids := cpu(l.server.Self), cpu(l.server.Children)
		if b.srv.PID == 0 {
			srv, kids = "n/a", "n/a"
		}
		busy := "n/a"
		if l.cpuErr == nil && l.machineAll > 0 {
			busy = fmt.Sprintf("%.0f%%", 100*float64(l.machineBusy)/float64(l.machineAll))
		}
		fmt.Fprintf(tw, "%d\t%d\t%d\t%.1f\t%.2f×\t%s\t%s\t%s\t%s\t%s\t%s\t\n", l.panes, l.calls, l.errors, l.perSecond(),
			l.perSecond()/one, ms(percentile(l.latencies, 50)), ms(percentile(l.latencies, 90)), srv, kids, cpu(l.tmuxServer), busy)
	}
	tw.Flush()
	for _, l := range b.levels {
		if l.firstErr != nil {
			fmt.Fprintf(w, "  %d panes: first error: %v\n", l.panes, l.firstErr)
		}
	}
	fmt.Fprintln(w, "  server CPU: the server's own user+system time; tmux clients: the CPU of the tmux processes it ran")
	fmt.Fprintln(w, "  (its reaped children); tmux server: the one tmux server all panes share; machine busy: all CPUs, all processes")
	b.printScaling(w)
}

// scalingTarget is how many times one pane's calls per second the most
// panes are to give.
const scalingTarget = 2.5

// printScaling judges the scaling target: 16 panes give at least
// scalingTarget times one pane's calls per second. It also says how busy
// the machine and the server were, to tell what limits them.
func (b *bench) printScaling(w io.Writer) {
	first, last := b.levels[0], b.levels[len(b.levels)-1]
	want := scalingTarget * first.perSecond()
	got := last.perSecond()
	fmt.Fprintf(w, "  target: %d panes ≥ %g × 1 pane = %.1f calls/s; measured %.1f (%.2f×)   %s\n",
		last.panes, scalingTarget, want, got, got/first.perSecond(), verdict(got >= want))
	if b.srv.PID == 0 || last.cpuErr != nil || last.machineAll == 0 {
		return
	}
	busy := float64(last.machineBusy) / float64(last.machineAll)
	share := float64(last.server.Self) / float64(last.machineBusy)
	cores1 := last.server.Self.Seconds() / last.elapsed.Seconds()
	fmt.Fprintf(w, "  at %d panes the server used %.2f of a CPU (%.0f%% of the machine's busy time) on %d CPUs, %.0f%% busy\n",
		last.panes, cores1, 100*share, runtime.NumCPU(), 100*busy)
}
