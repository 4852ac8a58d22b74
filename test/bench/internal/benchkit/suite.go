package benchkit

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// bench holds one run of the benchmark: the private tmux server, the
// tmux-mcp server under test and the client connected to it, and what has
// been measured so far.
type bench struct {
	ctx      context.Context
	tmux     *tmuxServer
	ctl      *controlClient // the benchmark's own control-mode client (control.go)
	srv      *Server
	tools    map[string]bool
	n        int            // iterations of a light call
	heavy    int            // iterations of a heavy call
	dur      time.Duration  // length of each concurrency level
	memCalls int64          // tool calls between the two RSS readings
	only     *regexp.Regexp // rows to run
	trace    *tmuxTracer    // nil unless the tmux runs are counted
	log      func(format string, args ...any)

	dir         string                                               // the run's temporary directory
	startServer func(args []string, logPath string) (*Server, error) // another server on the same tmux

	floors    []time.Duration // every process floor sample of the run
	ctlFloors []time.Duration // every typed control-mode floor sample
	keyFloors []time.Duration // every send-keys floor sample
	subFloors []time.Duration // every subshell floor sample
	calls     atomic.Int64    // tool calls made

	panes struct {
		main, hist, paste, since, wait, keys string
		conc                                 []string
	}
	rows   []row
	memory memoryReport
	levels []level
}

// The concurrency levels: how many panes run commands at once.
var concurrencyLevels = []int{1, 4, 16}

// Sizes of the heavy calls.
const (
	seqCount        = 100_000 // lines printed by the seq command
	seqMaxLines     = 200
	historyRows     = 10_000 // rows of history captured
	pasteBytes      = 1 << 20
	smallPasteBytes = 100
)

// errNoTool marks a row whose tool the server does not offer.
var errNoTool = errors.New("tool not available")

// call calls a tool and returns its structured result. A tool error is an
// error here: every call the benchmark makes is meant to succeed.
func (b *bench) call(ctx context.Context, tool string, args map[string]any) (map[string]any, error) {
	if !b.tools[tool] {
		return nil, fmt.Errorf("%s: %w", tool, errNoTool)
	}
	res, err := b.srv.Session.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	b.calls.Add(1)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", tool, err)
	}
	if res.IsError {
		return nil, fmt.Errorf("%s: tool error: %s", tool, resultText(res))
	}
	m, ok := res.StructuredContent.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: structured content is %T, want an object", tool, res.StructuredContent)
	}
	return m, nil
}

func resultText(res *sdk.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if t, ok := c.(*sdk.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, " ")
}

// timed calls a tool and returns its result and how long the call took.
func (b *bench) timed(tool string, args map[string]any) (map[string]any, time.Duration, error) {
	start := time.Now()
	m, err := b.call(b.ctx, tool, args)
	return m, time.Since(start), err
}

// floorSamples is how many samples of each floor are taken before and
// after each row.
const floorSamples = 10

// sampleFloor measures the floors k times each, after a pause that lets
// the work of the previous call (a shell redrawing its prompt, tmux
// passing output on) finish, and keeps the samples both for the run and
// for the row being measured. The three floors take turns, so that each
// sees the same load: the process floor, the typed control-mode floor and
// the send-keys floor (control.go).
func (b *bench) sampleFloor(r *row, k int) error {
	select {
	case <-b.ctx.Done():
		return b.ctx.Err()
	case <-time.After(50 * time.Millisecond):
	}
	for range k {
		d, err := b.tmux.floor(b.ctx)
		if err != nil {
			return fmt.Errorf("floor: %w", err)
		}
		b.floors = append(b.floors, d)
		r.floors = append(r.floors, d)
		if d, err = b.ctl.typed(b.ctx); err != nil {
			return fmt.Errorf("control-mode floor: %w", err)
		}
		b.ctlFloors = append(b.ctlFloors, d)
		r.ctlFloors = append(r.ctlFloors, d)
		if d, err = b.ctl.sendKeys(b.ctx); err != nil {
			return fmt.Errorf("send-keys floor: %w", err)
		}
		b.keyFloors = append(b.keyFloors, d)
		r.keyFloors = append(r.keyFloors, d)
		if d, err = b.ctl.typedSubshell(b.ctx); err != nil {
			return fmt.Errorf("subshell floor: %w", err)
		}
		b.subFloors = append(b.subFloors, d)
		r.subFloors = append(r.subFloors, d)
	}
	return nil
}

// measure runs fn warmup times untimed, then n times, and records the row.
// fn returns the latency of one iteration. The floor is sampled before and
// after the row, so that a row's ratio compares it with the floor under
// the same load: the machine is shared, and its load moves during a run.
//
// A missing tool or a failed iteration ends the row early and is recorded
// in it; only a cancelled run is returned as an error.
func (b *bench) measure(r row, warmup, n int, fn func(i int) (time.Duration, error)) error {
	if b.only != nil && !b.only.MatchString(r.name) {
		return nil
	}
	b.log("%s: %d iterations", r.name, n)
	if err := b.sampleFloor(&r, floorSamples); err != nil {
		return err
	}
	var traced int
	if b.trace != nil {
		traced = len(b.trace.lines())
	}
	iterations := 0
	for i := range warmup + n {
		iterations++
		d, err := fn(i)
		if err != nil {
			if b.ctx.Err() != nil {
				return b.ctx.Err()
			}
			r.err = fmt.Errorf("iteration %d: %w", i, err)
			break
		}
		if i >= warmup {
			r.samples = append(r.samples, d)
		}
	}
	if b.trace != nil {
		r.tmuxRuns = countRuns(b.trace.lines()[traced:], iterations)
		if r.untraced != "" {
			r.tmuxRuns = r.untraced
		}
	}
	if err := b.sampleFloor(&r, floorSamples); err != nil {
		return err
	}
	b.rows = append(b.rows, r)
	return nil
}

// countRuns sums up traced tmux invocations as "3.0 runs, 6.2 ms in tmux
// (list-panes 1.0, list-panes;send-keys 2.0)": per iteration, the runs,
// the time tmux ran, and the runs of each command line (the commands of
// one invocation joined by ";").
func countRuns(lines []string, iterations int) string {
	if iterations == 0 {
		return ""
	}
	by := map[string]int{}
	var names []string
	var inTmux time.Duration
	for _, l := range lines {
		f := strings.SplitN(l, " ", 3)
		if len(f) < 3 {
			continue
		}
		start, err1 := strconv.ParseFloat(f[0], 64)
		end, err2 := strconv.ParseFloat(f[1], 64)
		if err1 == nil && err2 == nil {
			inTmux += time.Duration((end - start) * float64(time.Second))
		}
		args := strings.Split(strings.TrimSuffix(f[2], "\x1e"), "\x1e")
		var cmds []string
		for i, a := range args {
			switch {
			case i == 0 && a == "-C":
				cmds = append(cmds, "control client")
			case i == 0 || args[i-1] == ";":
				cmds = append(cmds, a)
			}
		}
		name := strings.Join(cmds, ";")
		if by[name] == 0 {
			names = append(names, name)
		}
		by[name]++
	}
	slices.Sort(names)
	parts := make([]string, len(names))
	for i, name := range names {
		parts[i] = fmt.Sprintf("%s %.2f", name, float64(by[name])/float64(iterations))
	}
	if len(lines) == 0 {
		return "no tmux process"
	}
	return fmt.Sprintf("%.2f runs, %s in tmux (%s)", float64(len(lines))/float64(iterations),
		ms(inTmux/time.Duration(iterations)), strings.Join(parts, ", "))
}

// setup opens the panes the benchmark needs and prepares their content.
func (b *bench) setup() error {
	ctx := b.ctx
	var err error
	if b.panes.main, err = b.tmux.firstPane(ctx, benchSession); err != nil {
		return err
	}
	for _, p := range []*string{&b.panes.hist, &b.panes.paste, &b.panes.since, &b.panes.wait, &b.panes.keys} {
		if *p, err = b.tmux.newPane(ctx); err != nil {
			return err
		}
	}
	for range concurrencyLevels[len(concurrencyLevels)-1] {
		p, err := b.tmux.newPane(ctx)
		if err != nil {
			return err
		}
		b.panes.conc = append(b.panes.conc, p)
	}

	// History to capture, written by the pane's own shell rather than
	// through the server: preparing it is not part of what is measured.
	if err := b.tmux.typeLine(ctx, b.panes.hist, fmt.Sprintf("seq 1 %d", historyRows+2000)); err != nil {
		return err
	}
	// A reader for the pastes that neither echoes them nor lets the shell
	// parse a megabyte of text as commands. It is started by tmux itself:
	// run_shell_command would hold the pane as long as cat runs, and the
	// server refuses to paste into a pane it holds.
	if err := b.tmux.typeLine(ctx, b.panes.paste, "stty -echo; exec cat >/dev/null"); err != nil {
		return err
	}
	if err := b.tmux.waitFor(ctx, b.panes.hist, "#{history_size}", func(v string) bool {
		var n int
		_, err := fmt.Sscan(v, &n)
		return err == nil && n >= historyRows
	}, 10*time.Second); err != nil {
		return fmt.Errorf("prepare history: %w", err)
	}
	if err := b.tmux.waitFor(ctx, b.panes.paste, "#{pane_current_command}", func(v string) bool { return v == "cat" }, 10*time.Second); err != nil {
		return fmt.Errorf("start cat in the paste pane: %w", err)
	}
	if err := b.ctl.setPrompt(ctx); err != nil {
		return fmt.Errorf("control-mode floor: %w", err)
	}
	// The floors' first samples pay for what a shell does once.
	for range 3 {
		if _, err := b.ctl.typed(ctx); err != nil {
			return fmt.Errorf("control-mode floor: %w", err)
		}
		if _, err := b.ctl.sendKeys(ctx); err != nil {
			return fmt.Errorf("send-keys floor: %w", err)
		}
		if _, err := b.ctl.typedSubshell(ctx); err != nil {
			return fmt.Errorf("subshell floor: %w", err)
		}
	}
	return nil
}

// checkCompleted checks that a run_shell_command result is that of a
// command that ended with status 0.
func checkCompleted(m map[string]any) error {
	if m["outcome"] != "completed" || m["exitStatus"] != 0.0 {
		return fmt.Errorf("outcome %v, exit status %v; want completed, 0", m["outcome"], m["exitStatus"])
	}
	return nil
}

// latencies measures the single-call rows of the light tools.
func (b *bench) latencies() error {
	p := b.panes
	steps := []func() error{
		func() error {
			return b.measure(row{name: "MCP ping (no tmux)", info: "the transport alone"}, 3, b.n, func(int) (time.Duration, error) {
				start := time.Now()
				err := b.srv.Session.Ping(b.ctx, nil)
				return time.Since(start), err
			})
		},
		func() error {
			return b.measure(row{name: "run_shell_command `true`", target: ctlTarget(3).withSubshell()}, 3, b.n, func(int) (time.Duration, error) {
				m, d, err := b.timed("run_shell_command", map[string]any{"paneId": p.main, "command": "true"})
				if err == nil {
					err = checkCompleted(m)
				}
				return d, err
			})
		},
		func() error {
			return b.measure(row{name: "capture_pane visible screen", target: ctlTarget(4)}, 3, b.n, func(int) (time.Duration, error) {
				m, d, err := b.timed("capture_pane", map[string]any{"paneId": p.main})
				if n, _ := m["totalLines"].(float64); err == nil && n <= 0 {
					err = fmt.Errorf("totalLines %v, want the screen's rows", m["totalLines"])
				}
				return d, err
			})
		},
		b.captureSinceRow,
		func() error {
			text := strings.Repeat(strings.Repeat("p", 49)+"\n", smallPasteBytes/50)
			r := row{name: fmt.Sprintf("paste_text %d B", smallPasteBytes), target: ctlTarget(3), info: "into `cat >/dev/null`, echo off"}
			return b.measure(r, 3, b.n, func(int) (time.Duration, error) {
				m, d, err := b.timed("paste_text", map[string]any{"paneId": p.paste, "text": text})
				if err == nil && m["bytes"] != float64(smallPasteBytes) {
					err = fmt.Errorf("bytes %v, want %d", m["bytes"], smallPasteBytes)
				}
				return d, err
			})
		},
		func() error {
			r := row{name: "send_keys C-c", target: keysTarget(3), info: "idle bash; enter false"}
			return b.measure(r, 3, b.n, func(int) (time.Duration, error) {
				m, d, err := b.timed("send_keys", map[string]any{"paneId": p.keys, "keys": "C-c", "enter": false})
				if sent, _ := m["sent"].([]any); err == nil && (len(sent) != 1 || sent[0] != "C-c") {
					err = fmt.Errorf("sent %v, want [C-c]", m["sent"])
				}
				return d, err
			})
		},
		func() error {
			return b.waitForTextRow("wait_for_text, write to reply", nil, func(pane, line string) (func() error, error) {
				return func() error { return nil }, b.tmux.typeLine(b.ctx, pane, line)
			}, true)
		},
		func() error {
			return b.waitForTextRow("wait_for_text, write to reply, control-mode writer", ctlTarget(1.2), func(pane, line string) (func() error, error) {
				return func() error { _, err := b.ctl.awaitReply(b.ctx); return err }, b.ctl.typeInto(pane, line)
			}, false)
		},
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// captureSinceRow measures capture_since with a cursor and nothing new: the
// cost of asking "anything new?" of an idle pane.
func (b *bench) captureSinceRow() error {
	pane := b.panes.since
	var cursor any
	return b.measure(row{name: "capture_since, nothing new"}, 3, b.n, func(i int) (time.Duration, error) {
		if cursor == nil {
			m, err := b.call(b.ctx, "capture_since", map[string]any{"paneId": pane})
			if err != nil {
				return 0, err
			}
			if cursor = m["cursor"]; cursor == nil {
				return 0, fmt.Errorf("capture_since gave no cursor (streaming %v)", m["streaming"])
			}
		}
		m, d, err := b.timed("capture_since", map[string]any{"paneId": pane, "cursor": cursor})
		if err != nil {
			return 0, err
		}
		if m["text"] != "" || m["seeded"] != false {
			return 0, fmt.Errorf("text %q, seeded %v; want nothing new", m["text"], m["seeded"])
		}
		cursor = m["cursor"]
		return d, nil
	})
}

// waitSettle is how long the harness lets a wait_for_text call get going
// before it writes what the call waits for. The call waits from a cursor,
// so a write that comes too early is still seen; the pause only makes the
// measured time that of a wait in progress, not of the call's setup.
const waitSettle = 40 * time.Millisecond

// A waitWriter types line and Enter into pane for a wait_for_text row. It
// returns once the write is under way (the process writer: once its tmux
// process exited), with a function that finishes it after the row's clock
// stopped.
type waitWriter func(pane, line string) (finish func() error, err error)

// waitForTextRow measures wait_for_text from the write to the reply. The
// write is typed by write: a tmux client the harness runs (send-keys of a
// printf command and Enter), or the harness's control-mode client. The
// time is: the write's round trip to tmux, the shell running printf, tmux
// passing the output to the server, the server matching it and replying.
// The clock starts just before the write. With exitNote, the row's note
// gives the time from the writer's exit to the reply too.
func (b *bench) waitForTextRow(name string, tgt *target, write waitWriter, exitNote bool) error {
	pane := b.panes.wait
	var cursor any
	var afterWrite []time.Duration
	r := row{name: name, target: tgt}
	err := b.measure(r, 2, b.n, func(i int) (time.Duration, error) {
		if cursor == nil {
			m, err := b.call(b.ctx, "capture_since", map[string]any{"paneId": pane})
			if err != nil {
				return 0, err
			}
			if cursor = m["cursor"]; cursor == nil {
				return 0, fmt.Errorf("capture_since gave no cursor (streaming %v)", m["streaming"])
			}
		}
		// The typed command does not contain the mark, so the pane's
		// echo of it cannot match: only printf's output can.
		mark := fmt.Sprintf("<MARK-%d>", i)
		type reply struct {
			m   map[string]any
			err error
			at  time.Time
		}
		done := make(chan reply, 1)
		go func() {
			m, err := b.call(b.ctx, "wait_for_text", map[string]any{
				"paneId": pane, "patterns": []string{mark}, "cursor": cursor, "timeoutMs": 10_000})
			done <- reply{m, err, time.Now()}
		}()
		select {
		case <-time.After(waitSettle):
		case rep := <-done:
			return 0, fmt.Errorf("wait_for_text returned before the write: %v %v", rep.m["outcome"], rep.err)
		}
		start := time.Now()
		finish, werr := write(pane, fmt.Sprintf("printf '<%%s-%%d>\\n' MARK %d", i))
		written := time.Now()
		rep := <-done
		if werr != nil {
			return 0, werr
		}
		if err := finish(); err != nil {
			return 0, err
		}
		if rep.err != nil {
			return 0, rep.err
		}
		if rep.m["outcome"] != "matched" {
			return 0, fmt.Errorf("outcome %v, want matched", rep.m["outcome"])
		}
		cursor = rep.m["cursor"]
		if i >= 2 {
			afterWrite = append(afterWrite, rep.at.Sub(written))
		}
		return rep.at.Sub(start), nil
	})
	if exitNote && err == nil && len(afterWrite) > 0 && len(b.rows) > 0 && b.rows[len(b.rows)-1].name == name {
		last := &b.rows[len(b.rows)-1]
		last.info = fmt.Sprintf("from the writer's exit: median %s", ms(percentile(afterWrite, 50)))
	}
	return err
}

// heavyRows measures the calls that move a lot of data.
func (b *bench) heavyRows() error {
	p := b.panes
	if err := b.measure(row{name: fmt.Sprintf("run_shell_command `seq 1 %d`, maxLines %d", seqCount, seqMaxLines)}, 1, b.heavy, func(int) (time.Duration, error) {
		m, d, err := b.timed("run_shell_command", map[string]any{
			"paneId": p.main, "command": fmt.Sprintf("seq 1 %d", seqCount), "maxLines": seqMaxLines, "timeoutMs": 60_000})
		if err != nil {
			return 0, err
		}
		if err := checkCompleted(m); err != nil {
			return 0, err
		}
		// The line break before the end marker is not output (CONTRACT.md).
		out, _ := m["output"].(string)
		if m["missedBytes"] == 0.0 && (m["droppedLines"] != float64(seqCount-seqMaxLines) || !strings.HasSuffix(out, fmt.Sprintf("\n%d", seqCount))) {
			return 0, fmt.Errorf("droppedLines %v, output ending %q; want %d dropped and the last lines of seq",
				m["droppedLines"], out[max(0, len(out)-20):], seqCount-seqMaxLines)
		}
		return d, nil
	}); err != nil {
		return err
	}
	if err := b.measure(row{name: fmt.Sprintf("capture_pane %d history rows", historyRows)}, 1, b.heavy, func(int) (time.Duration, error) {
		m, d, err := b.timed("capture_pane", map[string]any{
			"paneId": p.hist, "start": -historyRows, "end": -1, "maxLines": historyRows})
		if err != nil {
			return 0, err
		}
		if m["totalLines"] != float64(historyRows) || m["droppedLines"] != 0.0 {
			return 0, fmt.Errorf("totalLines %v, droppedLines %v; want %d, 0", m["totalLines"], m["droppedLines"], historyRows)
		}
		return d, nil
	}); err != nil {
		return err
	}
	text := strings.Repeat(strings.Repeat("p", 79)+"\n", pasteBytes/80+1)[:pasteBytes]
	return b.measure(row{name: "paste_text 1 MiB", info: "into `cat >/dev/null`, echo off"}, 1, b.heavy, func(int) (time.Duration, error) {
		m, d, err := b.timed("paste_text", map[string]any{"paneId": p.paste, "text": text})
		if err != nil {
			return 0, err
		}
		if m["bytes"] != float64(pasteBytes) {
			return 0, fmt.Errorf("bytes %v, want %d", m["bytes"], pasteBytes)
		}
		return d, nil
	})
}

// memoryReport is the server's resident memory at four moments.
type memoryReport struct {
	idle, after, again, end, peak int64
	calls                         int64 // tool calls between idle and after
	callsAgain                    int64 // tool calls between after and again
	// The medians of the two steady-state windows (memorySteady), of
	// steadyCalls calls each.
	steadyFirst, steadySecond, steadyCalls int64
	err                                    error
}

// readMemory reads the server's RSS, or reports why it cannot.
func (b *bench) readMemory() (rss, peak int64, err error) {
	if b.srv.PID == 0 {
		return 0, 0, errors.New("the server runs inside the harness (test/bench/profile)")
	}
	return readRSS(b.srv.PID)
}

// memoryIdle records the RSS of the server before any tool call.
func (b *bench) memoryIdle() {
	b.memory.idle, _, b.memory.err = b.readMemory()
}

// memoryAfterCalls makes light calls until b.memCalls tool calls have
// been made since the idle reading, then records the RSS; then as many
// again, and records it again: growth over the first calls may be a
// working set being made, growth over the second is not.
func (b *bench) memoryAfterCalls() error {
	if b.memory.err != nil {
		return nil
	}
	p := b.panes
	mix := []func() error{
		func() error {
			m, err := b.call(b.ctx, "run_shell_command", map[string]any{"paneId": p.main, "command": "true"})
			if err == nil {
				err = checkCompleted(m)
			}
			return err
		},
		func() error {
			_, err := b.call(b.ctx, "capture_pane", map[string]any{"paneId": p.main})
			return err
		},
	}
	if b.tools["capture_since"] {
		mix = append(mix, func() error {
			_, err := b.call(b.ctx, "capture_since", map[string]any{"paneId": p.since})
			return err
		})
	}
	b.log("memory: %d calls so far, topping up to %d", b.calls.Load(), b.memCalls)
	callsUntil := func(n int64) error {
		for i := 0; b.calls.Load() < n; i++ {
			if err := mix[i%len(mix)](); err != nil {
				if b.ctx.Err() != nil {
					return b.ctx.Err()
				}
				b.memory.err = fmt.Errorf("during the %d calls: %w", b.memCalls, err)
				return nil
			}
		}
		return nil
	}
	if err := callsUntil(b.memCalls); err != nil || b.memory.err != nil {
		return err
	}
	b.memory.calls = b.calls.Load()
	if b.memory.after, _, b.memory.err = b.readMemory(); b.memory.err != nil {
		return nil
	}
	b.log("memory: %d more calls", b.memCalls)
	if err := callsUntil(b.memory.calls + b.memCalls); err != nil || b.memory.err != nil {
		return err
	}
	b.memory.callsAgain = b.calls.Load() - b.memory.calls
	if b.memory.again, _, b.memory.err = b.readMemory(); b.memory.err != nil {
		return nil
	}
	return b.memorySteady(callsUntil)
}

// ringFill is what a pane prints to fill the server's record of its
// output: more than the tmux adapter retains of a pane (DefaultRingSize,
// 1 MiB). seq 1 200000 prints 1,288,895 bytes.
const ringFill = "seq 1 200000"

// memorySamples is how many RSS readings each steady-state window takes.
const memorySamples = 10

// memorySteady measures growth once the working set is made. Until then,
// RSS grows by design: the server retains the newest output of every pane
// it records (up to 1 MiB each, for capture_since and cursors), in a
// buffer that grows as output comes, and the light calls write a few
// hundred bytes each. So the panes the calls write to print enough to fill
// theirs first; then two windows of b.memCalls calls each read the RSS
// every b.memCalls/memorySamples calls, and the growth is the difference
// of their medians (a median, because the heap's size moves with the
// garbage collector's cycle from one reading to the next).
func (b *bench) memorySteady(callsUntil func(n int64) error) error {
	panes := []string{b.panes.main}
	if b.tools["capture_since"] {
		panes = append(panes, b.panes.since)
	}
	for _, pane := range panes {
		m, err := b.call(b.ctx, "run_shell_command", map[string]any{"paneId": pane, "command": ringFill, "maxLines": 1})
		if err == nil {
			err = checkCompleted(m)
		}
		if err != nil {
			if b.ctx.Err() != nil {
				return b.ctx.Err()
			}
			b.memory.err = fmt.Errorf("fill the output record of pane %s: %w", pane, err)
			return nil
		}
	}
	b.log("memory: two windows of %d calls with the output records full", b.memCalls)
	step := max(1, b.memCalls/memorySamples)
	window := func() (int64, error) {
		var rss []int64
		for range memorySamples {
			if err := callsUntil(b.calls.Load() + step); err != nil || b.memory.err != nil {
				return 0, err
			}
			v, _, err := b.readMemory()
			if err != nil {
				b.memory.err = err
				return 0, nil
			}
			rss = append(rss, v)
		}
		slices.Sort(rss)
		return rss[len(rss)/2], nil
	}
	first, err := window()
	if err != nil || b.memory.err != nil {
		return err
	}
	second, err := window()
	if err != nil || b.memory.err != nil {
		return err
	}
	b.memory.steadyFirst, b.memory.steadySecond = first, second
	b.memory.steadyCalls = step * memorySamples
	return nil
}

// level is one concurrency level's figures.
type level struct {
	panes       int
	calls       int64
	errors      int64
	firstErr    error
	elapsed     time.Duration
	latencies   []time.Duration
	server      procCPU // the server's CPU (Children: the tmux clients it ran)
	tmuxServer  time.Duration
	machineBusy time.Duration
	machineAll  time.Duration
	cpuErr      error
}

func (l level) perSecond() float64 { return float64(l.calls) / l.elapsed.Seconds() }

// concurrency runs run_shell_command `true` in 1, 4 and 16 panes at once,
// one goroutine per pane, each level for b.dur.
func (b *bench) concurrency() error {
	if b.only != nil && !b.only.MatchString("concurrency") {
		return nil
	}
	tmuxPID, tmuxErr := b.tmux.serverPID(b.ctx)
	// One untimed call per pane first: each pane's first call pays for
	// what a server does once per pane.
	for _, pane := range b.panes.conc {
		m, err := b.call(b.ctx, "run_shell_command", map[string]any{"paneId": pane, "command": "true"})
		if err == nil {
			err = checkCompleted(m)
		}
		if err != nil {
			return fmt.Errorf("warm up pane %s: %w", pane, err)
		}
	}
	for _, k := range concurrencyLevels {
		b.log("concurrency: %d panes for %v", k, b.dur)
		l := level{panes: k}
		before, errBefore := b.cpuSnapshot(tmuxPID)
		var mu sync.Mutex
		var wg sync.WaitGroup
		start := time.Now()
		for _, pane := range b.panes.conc[:k] {
			wg.Go(func() {
				for time.Since(start) < b.dur && b.ctx.Err() == nil {
					m, d, err := b.timed("run_shell_command", map[string]any{"paneId": pane, "command": "true"})
					if err == nil {
						err = checkCompleted(m)
					}
					mu.Lock()
					if err != nil {
						l.errors++
						if l.firstErr == nil {
							l.firstErr = fmt.Errorf("pane %s: %w", pane, err)
						}
					} else {
						l.calls++
						l.latencies = append(l.latencies, d)
					}
					mu.Unlock()
					if err != nil {
						return
					}
				}
			})
		}
		wg.Wait()
		l.elapsed = time.Since(start)
		if b.ctx.Err() != nil {
			return b.ctx.Err()
		}
		after, errAfter := b.cpuSnapshot(tmuxPID)
		switch {
		case tmuxErr != nil:
			l.cpuErr = tmuxErr
		case errBefore != nil:
			l.cpuErr = errBefore
		case errAfter != nil:
			l.cpuErr = errAfter
		default:
			l.server = procCPU{Self: after.server.Self - before.server.Self, Children: after.server.Children - before.server.Children}
			l.tmuxServer = after.tmux - before.tmux
			l.machineBusy = after.machine.Busy - before.machine.Busy
			l.machineAll = after.machine.Total - before.machine.Total
		}
		b.levels = append(b.levels, l)
	}
	return nil
}

type cpuSnapshot struct {
	server  procCPU
	tmux    time.Duration
	machine machineCPU
}

// cpuSnapshot reads the CPU times of the server (zero when it runs in
// process), the tmux server and the machine.
func (b *bench) cpuSnapshot(tmuxPID int) (cpuSnapshot, error) {
	var s cpuSnapshot
	var err error
	if b.srv.PID != 0 {
		if s.server, err = readProcCPU(b.srv.PID); err != nil {
			return s, err
		}
	}
	t, err := readProcCPU(tmuxPID)
	if err != nil {
		return s, err
	}
	s.tmux = t.Self
	s.machine, err = readMachineCPU()
	return s, err
}
