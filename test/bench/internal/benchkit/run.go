// Package benchkit is the end-to-end benchmark of tmux-mcp, shared by its
// two commands: test/bench, which drives the server binary over stdio,
// and test/bench/profile, which runs the server inside its own process so
// that a CPU or heap profile covers the server's code.
//
// A run starts a private tmux server, drives tmux-mcp through a real MCP
// client, and prints median and p90 latencies of the tools beside floors
// measured in the same run (one `tmux display -p x` process; a
// control-mode client of the benchmark's own typing a command into a
// shell and seeing its output, and its send-keys round trip), the
// server's memory, and the throughput of 1, 4 and 16 panes at once, each
// with its target and PASS or MISS. Every tmux server and server process
// it starts is stopped when it ends, also on SIGINT or SIGTERM.
//
// The package imports nothing of the server's own but domain/frame (pure,
// for the frame the pane-side rows type, frameparts.go): the benchmark
// builds and runs against a server binary even while the server's other
// packages are being changed. (It uses test/sshtest, a test helper on the
// standard library alone, to run the private sshd of the ssh row.)
package benchkit

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"
)

type options struct {
	n          int
	dur        time.Duration
	bin        string
	goBin      string
	tmuxBin    string
	shell      string
	only       string
	cpuProfile string
	memProfile string
	timeout    time.Duration
	verbose    bool
	traceTmux  bool
	memCalls   int
	// The fair run (fair.go).
	fair     bool
	warmup   int
	gap      time.Duration
	cpuCalls int
}

func parseFlags(profiling bool) options {
	var o options
	flag.IntVar(&o.n, "n", 50, "iterations of each light call; heavy calls (seq, history, paste) run n/5, at least 5")
	flag.DurationVar(&o.dur, "d", 3*time.Second, "length of each concurrency level")
	flag.IntVar(&o.memCalls, "memcalls", 1000, "tool calls between the idle and the second RSS reading")
	flag.StringVar(&o.tmuxBin, "tmux", "tmux", "tmux binary")
	flag.StringVar(&o.shell, "shell", "", `shell command of the panes (default "bash --norc --noprofile", or "sh" without bash)`)
	flag.StringVar(&o.only, "run", "", "run only the rows whose name matches this regular expression (\"concurrency\" for the levels)")
	if profiling {
		flag.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the measured calls to this file")
		flag.StringVar(&o.memProfile, "memprofile", "", "write a heap profile at the end to this file")
	} else {
		flag.StringVar(&o.bin, "bin", "", "server binary to run; empty builds ./cmd/tmux-mcp into a temporary directory")
		flag.StringVar(&o.goBin, "go", "go", "go command used to build the server")
	}
	flag.DurationVar(&o.timeout, "timeout", 5*time.Minute, "stop and clean up after this long")
	flag.BoolVar(&o.verbose, "v", false, "say what is being measured")
	flag.BoolVar(&o.traceTmux, "tracetmux", false, "count the tmux processes the server runs per call, through a logging wrapper (slows every call)")
	flag.BoolVar(&o.fair, "fair", false, "measure the fair limit instead (fair.go): a bare JSON-RPC client, each row against the same work by a bare control-mode client plus one MCP ping; rows \"cpu\" and \"concurrency\" for the CPU per call and 1 against 16 panes")
	flag.IntVar(&o.warmup, "warmup", 10, "with -fair: untimed iterations before each row")
	flag.DurationVar(&o.gap, "gap", 5*time.Millisecond, "with -fair: pause between the steps of an iteration")
	flag.IntVar(&o.cpuCalls, "cpucalls", 500, "with -fair: run_shell_command `true` calls back to back for the CPU per call")
	flag.Parse()
	return o
}

// Main parses the command line, runs the benchmark and returns the exit
// code: 0 when every figure was measured (whether or not the targets were
// met), 1 otherwise, 2 for a bad flag. With inProcess nil it builds (or
// takes, with -bin) the server binary and runs it as a child; otherwise
// inProcess starts the server and the -cpuprofile and -memprofile flags
// are offered.
func Main(inProcess StartFunc) int {
	o := parseFlags(inProcess != nil)
	if o.n < 1 || o.dur <= 0 {
		fmt.Fprintln(os.Stderr, "bench: -n must be at least 1 and -d positive")
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	go func() {
		<-ctx.Done()
		// A second signal ends the process at once.
		stop()
	}()

	if err := runBench(ctx, o, inProcess); err != nil {
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			err = fmt.Errorf("stopped after -timeout %v: %w", o.timeout, err)
		case errors.Is(err, context.Canceled):
			err = fmt.Errorf("interrupted: %w", err)
		}
		fmt.Fprintf(os.Stderr, "bench: %v\n", err)
		return 1
	}
	return 0
}

// runBench sets up, measures, prints and cleans up.
func runBench(ctx context.Context, o options, inProcess StartFunc) (err error) {
	logf := func(format string, args ...any) {
		if o.verbose {
			fmt.Fprintf(os.Stderr, "bench: "+format+"\n", args...)
		}
	}
	dir, err := os.MkdirTemp("", "tmux-mcp-bench-")
	if err != nil {
		return err
	}
	keepDir := false
	defer func() {
		if keepDir {
			fmt.Fprintf(os.Stderr, "bench: the server's log is in %s\n", dir)
			return
		}
		os.RemoveAll(dir)
	}()

	var only *regexp.Regexp
	if o.only != "" {
		if only, err = regexp.Compile(o.only); err != nil {
			return fmt.Errorf("-run: %w", err)
		}
	}
	tmuxVersion, err := exec.Command(o.tmuxBin, "-V").Output()
	if err != nil {
		return fmt.Errorf("%s -V: %w", o.tmuxBin, err)
	}
	shell := o.shell
	if shell == "" {
		shell = "bash --norc --noprofile"
		if _, err := exec.LookPath("bash"); err != nil {
			shell = "sh"
		}
	}
	bin := o.bin
	if inProcess == nil && bin == "" {
		logf("building the server")
		if bin, err = buildServer(ctx, o.goBin, dir); err != nil {
			return err
		}
	}

	// The other engineers' load on a shared machine, to read the figures by.
	h := header{tmuxVersion: strings.TrimSpace(string(tmuxVersion)), n: o.n, heavy: max(5, o.n/5), dur: o.dur}
	h.background, h.backgroundErr = machineLoad(ctx, time.Second)

	tm, err := startTmux(ctx, o.tmuxBin, shell, 2*historyRows)
	if err != nil {
		return err
	}
	defer tm.kill()
	h.socket = tm.Socket
	logf("tmux server on socket %s", tm.Socket)
	// The benchmark's control-mode client attaches before the server
	// starts: tmux 3.3a crashes when a notification for every control
	// client comes while one attaches, and nothing else runs yet.
	floorPane, err := tm.firstPane(ctx, floorSession)
	if err != nil {
		return err
	}
	keysPane, err := tm.display(ctx, floorSession+":1.0", "#{pane_id}")
	if err != nil {
		return err
	}
	ctl, err := tm.startControl(ctx, floorPane, keysPane)
	if err != nil {
		return err
	}
	defer ctl.close()

	if o.fair {
		if inProcess != nil {
			return errors.New("-fair measures the server binary; run test/bench, not test/bench/profile")
		}
		return runFair(ctx, o, h, bin, dir, tm, ctl, only, os.Stdout, logf)
	}

	args := []string{"-socket-name", tm.Socket}
	var trace *tmuxTracer
	if o.traceTmux {
		if trace, err = newTmuxTracer(dir, o.tmuxBin); err != nil {
			return fmt.Errorf("trace tmux: %w", err)
		}
		args = append(args, "-tmux-bin", trace.wrapper)
	}
	logPath := filepath.Join(dir, "server.log")
	var srv *Server
	if inProcess != nil {
		srv, err = inProcess(ctx, args, logPath)
		h.serverDesc = "in process (" + runtime.Version() + ")"
	} else {
		srv, err = startChild(ctx, bin, args, logPath)
		h.serverDesc = bin
	}
	if err != nil {
		keepDir = true
		return err
	}
	defer func() {
		if cerr := srv.Stop(); cerr != nil && err == nil {
			err = fmt.Errorf("stop the server: %w", cerr)
		}
		if err != nil {
			keepDir = true
		}
	}()
	if srv.PID != 0 {
		h.serverDesc += fmt.Sprintf(" (pid %d)", srv.PID)
	}

	b := &bench{ctx: ctx, tmux: tm, ctl: ctl, srv: srv, n: o.n, heavy: h.heavy, dur: o.dur, memCalls: int64(o.memCalls), only: only, trace: trace, log: logf, tools: map[string]bool{}}
	b.dir = dir
	b.startServer = func(args []string, logPath string) (*Server, error) {
		if inProcess != nil {
			return inProcess(ctx, args, logPath)
		}
		return startChild(ctx, bin, args, logPath)
	}
	// The idle reading comes first, before the server has done any work.
	b.memoryIdle()
	tools, err := srv.Session.ListTools(ctx, nil)
	if err != nil {
		return fmt.Errorf("list tools: %w", err)
	}
	for _, t := range tools.Tools {
		b.tools[t.Name] = true
	}
	if err := b.setup(); err != nil {
		return fmt.Errorf("set up panes: %w", err)
	}

	if o.cpuProfile != "" {
		f, err := os.Create(o.cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	for _, step := range []func() error{b.latencies, b.sshRow, b.memoryAfterCalls, b.heavyRows, b.concurrency} {
		if err := step(); err != nil {
			return err
		}
	}
	if b.memory.err == nil && srv.PID != 0 {
		b.memory.end, b.memory.peak, _ = readRSS(srv.PID)
	}
	if o.memProfile != "" {
		if err := writeHeapProfile(o.memProfile); err != nil {
			return err
		}
	}
	b.print(os.Stdout, h)
	return b.failures()
}

// failures returns an error naming the rows that could not be measured.
func (b *bench) failures() error {
	var errs []error
	for _, r := range b.rows {
		if r.err != nil && !errors.Is(r.err, errNoTool) && !errors.Is(r.err, errNoSSH) {
			errs = append(errs, fmt.Errorf("%s: %w", r.name, r.err))
		}
	}
	for _, l := range b.levels {
		if l.firstErr != nil {
			errs = append(errs, fmt.Errorf("%d panes: %w", l.panes, l.firstErr))
		}
	}
	if b.memory.err != nil && b.srv.PID != 0 {
		errs = append(errs, fmt.Errorf("memory: %w", b.memory.err))
	}
	return errors.Join(errs...)
}

// machineLoad returns the share of all CPUs that were busy during d.
func machineLoad(ctx context.Context, d time.Duration) (float64, error) {
	before, err := readMachineCPU()
	if err != nil {
		return 0, err
	}
	select {
	case <-ctx.Done():
		return 0, ctx.Err()
	case <-time.After(d):
	}
	after, err := readMachineCPU()
	if err != nil {
		return 0, err
	}
	if after.Total == before.Total {
		return 0, errors.New("/proc/stat did not move")
	}
	return float64(after.Busy-before.Busy) / float64(after.Total-before.Total), nil
}

func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	runtime.GC() // the profile then shows what is live, not garbage
	if err := pprof.WriteHeapProfile(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
