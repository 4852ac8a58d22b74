package test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
	"github.com/tmux-mcp/tmux-mcp/adapters/mcp"
	"github.com/tmux-mcp/tmux-mcp/adapters/random"
	"github.com/tmux-mcp/tmux-mcp/domain"
)

// The end-to-end test of the three specified tools (e2e_waiting_test.go
// has the waiting and input tools'): a real MCP client and
// the real domain, over the SDK's in-memory transport, on the fake
// terminal and fake clock. Time moves only when the test moves it, and
// only once the server is seen waiting on the clock, so every outcome is
// decided by the scenario and none by the scheduler.

// inmem is one server on a fresh terminal, with a client connected.
type inmem struct {
	t     *testing.T
	clock *fake.Clock
	term  *fake.Terminal
	srv   *mcp.Server
	cs    *sdk.ClientSession
	// responses receives every JSON-RPC response the client reads, even
	// one to a call the client has given up on (a cancelled one).
	responses chan *jsonrpc.Response

	// running are the calls made in the background (start), each closed
	// when its call returns and before its result is handed over, so that
	// awaitWaiting fails at once when one returns instead of waiting, and
	// never for one whose result the test already holds.
	mu      sync.Mutex
	running map[string]chan struct{}
	started int
	// handingOver, when set, runs in a background call between marking it
	// returned and handing its result over: the harness's own test widens
	// that gap with it.
	handingOver func()
}

// newInmem starts a server with one shell pane, %0.
func newInmem(t *testing.T) *inmem { return newInmemWith(t, nil) }

// newInmemWith is newInmem with client options.
func newInmemWith(t *testing.T, opts *sdk.ClientOptions) *inmem {
	t.Helper()
	clock := fake.NewClock(time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC))
	term := fake.New(fake.WithClock(clock))
	if id := term.AddPane(fake.PaneSpec{}); id != "%0" {
		t.Fatalf("first pane is %s, want %%0", id)
	}
	return newInmemOnWith(t, term, clock, opts)
}

// newInmemOn starts a server of its own, with a client connected, on an
// existing terminal and clock: another run of the server, as far as the
// panes can tell.
func newInmemOn(t *testing.T, term *fake.Terminal, clock *fake.Clock) *inmem {
	return newInmemOnWith(t, term, clock, nil)
}

func newInmemOnWith(t *testing.T, term *fake.Terminal, clock *fake.Clock, opts *sdk.ClientOptions) *inmem {
	t.Helper()
	e := &inmem{t: t, clock: clock, term: term, responses: make(chan *jsonrpc.Response, 64)}
	svc := domain.NewService(e.term, e.clock, random.New(), domain.Config{WaitMax: 60 * time.Second, MaxResultLines: 100})
	e.srv = mcp.NewServer(svc, mcp.Options{Version: "e2e", CheckResults: true})
	st, ct := sdk.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := e.srv.SDK().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	e.cs, err = sdk.NewClient(&sdk.Implementation{Name: "e2e", Version: "0"}, opts).
		Connect(ctx, &tapTransport{Transport: ct, responses: e.responses}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		e.cs.Close()
		ss.Wait()
		svc.Close()
	})
	return e
}

// call calls a tool and fails the test on a protocol error.
func (e *inmem) call(tool string, args map[string]any) *sdk.CallToolResult {
	e.t.Helper()
	res, err := e.cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		e.t.Fatalf("%s: protocol error %v", tool, err)
	}
	return res
}

// start calls a tool in the background; the result arrives on the channel.
func (e *inmem) start(tool string, args map[string]any) <-chan *sdk.CallToolResult {
	out := make(chan *sdk.CallToolResult, 1)
	returned := e.track(tool)
	go func() {
		res, err := e.cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			e.t.Errorf("%s: protocol error %v", tool, err)
		}
		// Closed before the result is handed over, so that a test holding
		// the result knows the call is seen as returned: closed after, it
		// could close while a later awaitWaiting watches, and read as a
		// call that returned early.
		close(returned)
		if e.handingOver != nil {
			e.handingOver()
		}
		out <- res
	}()
	return out
}

// awaitWaiting returns once the server has made n timers on the clock,
// which the domain does only when a call waits. It fails the test rather
// than hang if that never happens.
func (e *inmem) awaitWaiting(n int) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	early := make(chan string, 1)
	e.mu.Lock()
	for name, returned := range e.running {
		select {
		case <-returned:
			delete(e.running, name) // returned before: the test has seen to it
			continue
		default:
		}
		go func() {
			select {
			case <-returned:
				select {
				case early <- name:
				default:
				}
			case <-ctx.Done():
			}
		}()
	}
	e.mu.Unlock()
	waited := make(chan error, 1)
	go func() { waited <- e.clock.WaitForTimers(ctx, n) }()
	select {
	case err := <-waited:
		if err != nil {
			e.t.Fatalf("the server never waited on the clock (%d timers pending): %v", e.clock.PendingTimers(), err)
		}
	case name := <-early:
		cancel()
		if err := <-waited; err != nil {
			e.t.Fatalf("%s returned while the test waited for the server to wait on %d timers", name, n)
		}
	}
}

// track records a call made in the background; close the channel when
// it returns.
func (e *inmem) track(tool string) chan struct{} {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.running == nil {
		e.running = map[string]chan struct{}{}
	}
	returned := make(chan struct{})
	e.started++
	e.running[fmt.Sprintf("%s (call %d)", tool, e.started)] = returned
	return returned
}

// cancelled calls tool, cancels the call once the server holds timers
// timers on the clock (it waits), and returns the result the server still
// sent for it: the client has stopped listening, but the tap shows what the
// server said.
func (e *inmem) cancelled(tool string, args map[string]any, timers int) *sdk.CallToolResult {
	e.t.Helper()
	// The responses to earlier calls are in the tap already, each read
	// before its call returned: forget them.
	for drained := false; !drained; {
		select {
		case <-e.responses:
		default:
			drained = true
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	clientErr := make(chan error, 1)
	returned := e.track(tool)
	go func() {
		_, err := e.cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
		close(returned) // before the error is handed over, as in start
		clientErr <- err
	}()
	e.awaitWaiting(timers)
	cancel()
	if err := <-clientErr; err == nil {
		e.t.Fatalf("cancelled %s returned no error to the client", tool)
	}
	var resp *jsonrpc.Response
	select {
	case resp = <-e.responses:
	case <-time.After(10 * time.Second):
		e.t.Fatalf("the server never answered the cancelled %s", tool)
	}
	if resp.Error != nil {
		e.t.Fatalf("cancelled %s answered with a protocol error: %v", tool, resp.Error)
	}
	var res sdk.CallToolResult
	if err := json.Unmarshal(resp.Result, &res); err != nil {
		e.t.Fatal(err)
	}
	return &res
}

// runTimers is how many timers a waiting run_shell_command holds without a
// progress token: its deadline and its liveness check.
const runTimers = 2

// tapTransport hands a copy of every response its connection reads to a
// channel.
type tapTransport struct {
	sdk.Transport
	responses chan<- *jsonrpc.Response
}

func (t *tapTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &tapConn{Connection: c, responses: t.responses}, nil
}

type tapConn struct {
	sdk.Connection
	responses chan<- *jsonrpc.Response
}

func (c *tapConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if r, ok := msg.(*jsonrpc.Response); ok {
		select {
		case c.responses <- r:
		default: // nobody is listening for this many; the client has it anyway
		}
	}
	return msg, err
}

// runOutput is run_shell_command's structured content.
type runOutput struct {
	DroppedLines           int64          `json:"droppedLines"`
	EffectiveTimeoutMs     int64          `json:"effectiveTimeoutMs"`
	ExitStatus             *int           `json:"exitStatus"`
	FarShell               bool           `json:"farShell"`
	ForeignOutputSuspected bool           `json:"foreignOutputSuspected"`
	Input                  *runInput      `json:"input"`
	LeftRunning            *[]leftProcess `json:"leftRunning"`
	LeftRunningCount       int            `json:"leftRunningCount"`
	MissedBytes            int64          `json:"missedBytes"`
	OmittedBytes           int64          `json:"omittedBytes"`
	Outcome                string         `json:"outcome"`
	Output                 string         `json:"output"`
	OutputComplete         bool           `json:"outputComplete"`
	PaneID                 string         `json:"paneId"`
	ReplacedBytes          int64          `json:"replacedBytes"`
	ReturnedBytes          int64          `json:"returnedBytes"`
	RunID                  string         `json:"runId"`
	StillRunning           bool           `json:"stillRunning"`
	UnterminatedBytes      int64          `json:"unterminatedBytes"`
}

type runInput struct {
	Kind   string `json:"kind"`
	Prompt string `json:"prompt"`
}

type leftProcess struct {
	Command string `json:"command"`
	PID     int    `json:"pid"`
}

var runFields = []string{"droppedLines", "effectiveTimeoutMs", "exitStatus", "farShell", "foreignOutputSuspected", "input", "leftRunning", "leftRunningCount", "missedBytes",
	"omittedBytes", "outcome", "output", "outputComplete", "paneId", "replacedBytes", "returnedBytes", "runId", "stillRunning",
	"unterminatedBytes"}

// decode checks a successful result's two halves (every field present, no
// other; the first text block the same JSON) and decodes it into out.
func decode(t *testing.T, res *sdk.CallToolResult, fields []string, out any) {
	t.Helper()
	if res.IsError {
		t.Fatalf("tool error: %s", errorText(t, res))
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("structured content is not an object: %s", raw)
	}
	if len(m) != len(fields) {
		t.Errorf("structured content has %d fields, want %d: %s", len(m), len(fields), raw)
	}
	for _, f := range fields {
		if _, ok := m[f]; !ok {
			t.Errorf("structured content lacks %s: %s", f, raw)
		}
	}
	tc, ok := res.Content[0].(*sdk.TextContent)
	if !ok {
		t.Fatalf("first content block is %T, want text", res.Content[0])
	}
	var fromText, fromStructured any
	_ = json.Unmarshal(raw, &fromStructured)
	if err := json.Unmarshal([]byte(tc.Text), &fromText); err != nil {
		t.Fatalf("first text block is not JSON: %q", tc.Text)
	}
	if a, b := mustMarshal(fromText), mustMarshal(fromStructured); a != b {
		t.Errorf("text block %s differs from structured content %s", a, b)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		t.Fatal(err)
	}
}

func mustMarshal(v any) string {
	b, _ := json.Marshal(v) // maps marshal with sorted keys
	return string(b)
}

func decodeRun(t *testing.T, res *sdk.CallToolResult) runOutput {
	t.Helper()
	var out runOutput
	decode(t, res, runFields, &out)
	return out
}

func errorText(t *testing.T, res *sdk.CallToolResult) string {
	t.Helper()
	if !res.IsError {
		t.Fatalf("IsError = false, want a tool error; structured content %v", res.StructuredContent)
	}
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func status(n int) *int { return &n }

func checkRun(t *testing.T, got, want runOutput) {
	t.Helper()
	if (got.ExitStatus == nil) != (want.ExitStatus == nil) || (got.ExitStatus != nil && *got.ExitStatus != *want.ExitStatus) {
		t.Errorf("exitStatus = %v, want %v", deref(got.ExitStatus), deref(want.ExitStatus))
	}
	got.ExitStatus, want.ExitStatus = nil, nil
	// A want without leftRunning is a command that left nothing: known
	// and empty once completed (null where the backend cannot tell),
	// null for any other outcome.
	switch {
	case want.LeftRunning != nil:
		if got.LeftRunning == nil || !slices.Equal(*got.LeftRunning, *want.LeftRunning) {
			t.Errorf("leftRunning = %v, want %v", got.LeftRunning, *want.LeftRunning)
		}
	case got.Outcome != "completed" && got.LeftRunning != nil, got.LeftRunning != nil && len(*got.LeftRunning) > 0:
		t.Errorf("leftRunning = %v, want none", *got.LeftRunning)
	}
	got.LeftRunning, want.LeftRunning = nil, nil
	// Every result names its run; which id it is, is the server's.
	if got.RunID == "" {
		t.Error("the result has no runId")
	}
	if want.RunID == "" {
		got.RunID = ""
	}
	if got != want {
		t.Errorf("run_shell_command =\n %+v\nwant\n %+v", got, want)
	}
}

func deref(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

// The harness itself: a call whose result the test holds is one that
// awaitWaiting already counts as returned, so that waiting for the server
// after reading a result never reads that call as one that returned
// early (it once closed its channel after handing the result over, and
// failed a test now and then under load).
func TestInMemoryHarnessCountsACallWhoseResultItHoldsAsReturned(t *testing.T) {
	e := newInmem(t)
	// The call's goroutine held up half-way through (as the scheduler may
	// hold it): only one of the two can have happened by then.
	release := make(chan struct{})
	e.handingOver = func() { <-release }
	done := e.start("capture_pane", map[string]any{"paneId": "%0"})
	e.mu.Lock()
	returned := e.running["capture_pane (call 1)"]
	e.mu.Unlock()
	select {
	case <-returned:
	case <-done:
		t.Error("the call handed its result over before the harness saw it return")
	}
	close(release)
}

func TestInMemoryRunShellCommandCompleted(t *testing.T) {
	e := newInmem(t)
	res := e.call("run_shell_command", map[string]any{"paneId": "%0", "command": "echo hello; printf 'a > b\\n'; exit 3"})
	checkRun(t, decodeRun(t, res), runOutput{
		Outcome:            "completed",
		ExitStatus:         status(3),
		Output:             "hello\na > b",
		ReturnedBytes:      11,
		OutputComplete:     true,
		PaneID:             "%0",
		EffectiveTimeoutMs: 30000,
	})
	if len(res.Content) != 1 {
		t.Errorf("complete output carries a notice: %v", res.Content)
	}
	// The pane is free again: a second command runs at once.
	checkRun(t, decodeRun(t, e.call("run_shell_command", map[string]any{"paneId": "%0", "command": "true"})), runOutput{
		Outcome: "completed", ExitStatus: status(0), OutputComplete: true, PaneID: "%0", EffectiveTimeoutMs: 30000,
	})
}

func TestInMemoryRunShellCommandWithheldLinesCarryANotice(t *testing.T) {
	e := newInmem(t)
	res := e.call("run_shell_command", map[string]any{"paneId": "%0", "command": "printf 'line%d\\n' 1 2 3 4 5", "maxLines": 2})
	checkRun(t, decodeRun(t, res), runOutput{
		Outcome: "completed", ExitStatus: status(0), Output: "line4\nline5", DroppedLines: 3, ReturnedBytes: 11,
		OutputComplete: false, PaneID: "%0", EffectiveTimeoutMs: 30000,
	})
	if len(res.Content) != 2 || !strings.Contains(res.Content[1].(*sdk.TextContent).Text, "3 lines") {
		t.Errorf("content = %v, want the JSON and a notice of 3 withheld lines", res.Content)
	}
}

func TestInMemoryRunShellCommandTimedOut(t *testing.T) {
	e := newInmem(t)
	// The ceiling is 60 s: a larger timeout is clamped, not refused.
	done := e.start("run_shell_command", map[string]any{"paneId": "%0", "command": "echo started; sleep 100", "timeoutMs": 90000})
	e.awaitWaiting(runTimers)
	e.clock.Advance(60 * time.Second)
	checkRun(t, decodeRun(t, <-done), runOutput{
		Outcome: "timed_out", Output: "started", ReturnedBytes: 7, OutputComplete: true, PaneID: "%0",
		StillRunning: true, EffectiveTimeoutMs: 60000,
	})
}

func TestInMemoryRunShellCommandPaneDied(t *testing.T) {
	e := newInmem(t)
	done := e.start("run_shell_command", map[string]any{"paneId": "%0", "command": "echo started; sleep 100", "timeoutMs": 5000})
	e.awaitWaiting(runTimers)
	e.term.KillPane("%0")
	checkRun(t, decodeRun(t, <-done), runOutput{
		Outcome: "pane_died", Output: "started", ReturnedBytes: 7, OutputComplete: true, PaneID: "%0",
		StillRunning: false, EffectiveTimeoutMs: 5000,
	})
	// A dead pane refuses the next command before anything is sent.
	msg := errorText(t, e.call("run_shell_command", map[string]any{"paneId": "%0", "command": "true"}))
	if !strings.Contains(msg, "dead") {
		t.Errorf("run in a dead pane: %q, want it refused as dead", msg)
	}
}

func TestInMemoryRunShellCommandCancelled(t *testing.T) {
	e := newInmem(t)
	res := e.cancelled("run_shell_command", map[string]any{"paneId": "%0", "command": "echo started; sleep 100"}, runTimers)
	checkRun(t, decodeRun(t, res), runOutput{
		Outcome: "cancelled", Output: "started", ReturnedBytes: 7, OutputComplete: true, PaneID: "%0",
		StillRunning: true, EffectiveTimeoutMs: 30000,
	})
}

func TestInMemoryBusyPaneRefusesOtherWritesButNotReads(t *testing.T) {
	e := newInmem(t)
	done := e.start("run_shell_command", map[string]any{"paneId": "%0", "command": "sleep 100", "timeoutMs": 1000})
	e.awaitWaiting(runTimers)
	e.clock.Advance(time.Second)
	if out := decodeRun(t, <-done); out.Outcome != "timed_out" || !out.StillRunning {
		t.Fatalf("first call = %+v, want timed_out and still running", out)
	}

	// The command still runs: every write is refused at once.
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"run_shell_command", map[string]any{"paneId": "%0", "command": "echo again"}},
		{"paste_text", map[string]any{"paneId": "%0", "text": "echo again", "enter": true}},
	} {
		msg := errorText(t, e.call(c.tool, c.args))
		for _, s := range []string{"%0", "busy", `"sleep 100"`, "timed_out"} {
			if !strings.Contains(msg, s) {
				t.Errorf("%s on a busy pane: %q lacks %q", c.tool, msg, s)
			}
		}
	}
	// Reading is never refused.
	var cap captureOutput
	decode(t, e.call("capture_pane", map[string]any{"paneId": "%0"}), captureFields, &cap)
	if cap.PaneID != "%0" {
		t.Errorf("capture_pane of a busy pane = %+v", cap)
	}
	if sent := e.term.Sent("%0"); len(sent) != 1 { // the framed command, ending in its Enter
		t.Errorf("input reached the busy pane: %+v", sent)
	}
}

func TestInMemoryRefusals(t *testing.T) {
	tests := []struct {
		name  string
		setup func(e *inmem)
		force bool
		says  []string
	}{
		{"watched", func(e *inmem) { e.term.Attach("%0", "/dev/pts/3") }, false, []string{"watching", "/dev/pts/3"}},
		{"watched, even with force", func(e *inmem) { e.term.Attach("%0", "/dev/pts/3") }, true, []string{"watching", "force does not"}},
		{"in copy mode", func(e *inmem) { e.term.SetMode("%0", "copy-mode") }, false, []string{"copy-mode", "leave the mode"}},
		{"synchronized", func(e *inmem) { e.term.AddPane(fake.PaneSpec{}); e.term.Synchronize("%0", "%1") }, false, []string{"synchronized", "%1"}},
		{"the server's own pane", func(e *inmem) { e.term.SetSelf("%0") }, false, []string{"this server itself", "force: true"}},
		{"not a shell", func(e *inmem) { e.term.SetCommand("%0", "vim") }, false, []string{`"vim"`, "not a shell"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newInmem(t)
			tt.setup(e)
			msg := errorText(t, e.call("run_shell_command", map[string]any{"paneId": "%0", "command": "echo hi", "force": tt.force}))
			for _, s := range append(tt.says, "refused", "%0") {
				if !strings.Contains(msg, s) {
					t.Errorf("refusal %q lacks %q", msg, s)
				}
			}
			if sent := e.term.Sent("%0"); len(sent) != 0 {
				t.Errorf("refused, yet input was sent: %+v", sent)
			}
		})
	}
}

func TestInMemoryForceAllowsTheServersOwnPane(t *testing.T) {
	e := newInmem(t)
	e.term.SetSelf("%0")
	out := decodeRun(t, e.call("run_shell_command", map[string]any{"paneId": "%0", "command": "echo hi", "force": true}))
	if out.Outcome != "completed" || out.Output != "hi" {
		t.Errorf("forced run = %+v", out)
	}
}

func TestInMemoryArgumentAndPaneErrors(t *testing.T) {
	e := newInmem(t)
	tests := []struct {
		tool string
		args map[string]any
		says string
	}{
		{"run_shell_command", map[string]any{"paneId": "%0", "command": "true", "timeoutMs": 0}, "timeoutMs"},
		{"run_shell_command", map[string]any{"paneId": "%0", "command": ""}, "command"},
		{"run_shell_command", map[string]any{"paneId": "%42", "command": "true"}, "not found"},
		{"paste_text", map[string]any{"paneId": "%42", "text": "x"}, "not found"},
		{"capture_pane", map[string]any{"paneId": "%42"}, "not found"},
		// Modifiers that no terminal sends with the key: refused, with
		// the key to send instead, and nothing (not even the Enter) sent.
		{"send_keys", map[string]any{"paneId": "%0", "keys": "S-Tab"}, `"S-Tab" cannot be pressed: Shift with Tab is BTab, so send BTab`},
		{"send_keys", map[string]any{"paneId": "%0", "keys": "x S-a"}, "so send A"},
		{"send_keys", map[string]any{"paneId": "%0", "keys": "C-é"}, `"C-é" cannot be pressed: Ctrl goes with a character only`},
	}
	for _, tt := range tests {
		if msg := errorText(t, e.call(tt.tool, tt.args)); !strings.Contains(msg, tt.says) {
			t.Errorf("%s %v: %q lacks %q", tt.tool, tt.args, msg, tt.says)
		}
	}
	if sent := e.term.Sent("%0"); len(sent) != 0 {
		t.Errorf("a rejected call sent input: %+v", sent)
	}
}

type pasteOutput struct {
	Bytes  int64  `json:"bytes"`
	PaneID string `json:"paneId"`
}

func TestInMemoryPasteText(t *testing.T) {
	e := newInmem(t)
	var out pasteOutput
	// Key names are not read: "C-c" is three characters of text.
	decode(t, e.call("paste_text", map[string]any{"paneId": "%0", "text": "echo C-c é"}), []string{"bytes", "paneId"}, &out)
	if out != (pasteOutput{Bytes: 11, PaneID: "%0"}) {
		t.Errorf("paste_text = %+v, want 11 bytes to %%0", out)
	}
	want := []fake.Input{{Kind: fake.InputPaste, Text: "echo C-c é"}}
	if got := e.term.Sent("%0"); !sameInputs(got, want) {
		t.Errorf("sent %+v, want %+v", got, want)
	}
	// With enter, the shell runs what was pasted.
	decode(t, e.call("paste_text", map[string]any{"paneId": "%0", "text": "", "enter": true}), []string{"bytes", "paneId"}, &out)
	if out.Bytes != 0 {
		t.Errorf("bytes = %d for empty text, want 0 (Enter is not counted)", out.Bytes)
	}
	var screen captureOutput
	decode(t, e.call("capture_pane", map[string]any{"paneId": "%0"}), captureFields, &screen)
	if !strings.HasPrefix(screen.Text, "$ echo C-c é\nC-c é\n$\n") {
		t.Errorf("screen = %q, want the pasted command run", screen.Text)
	}
}

// A text holding the end of a bracketed paste, however the client's JSON
// escapes it, is a tool error that says why and what to do, and reaches
// nothing: the line after the sequence does not run.
func TestInMemoryPasteTextRefusesTheEndOfABracketedPaste(t *testing.T) {
	e := newInmem(t)
	e.term.SetBracketedPaste("%0", true)
	for _, text := range []string{`echo one\u001b[201~\necho INJECTED-$((1+1))\n`, `echo one\u009b201~\necho INJECTED-$((1+1))\n`} {
		var args map[string]any
		if err := json.Unmarshal([]byte(`{"paneId": "%0", "text": "`+text+`"}`), &args); err != nil {
			t.Fatal(err)
		}
		msg := errorText(t, e.call("paste_text", args))
		for _, want := range []string{"invalid text", "at byte 8", "end of a bracketed paste", "nothing was pasted", "remove that sequence"} {
			if !strings.Contains(msg, want) {
				t.Errorf("paste_text %s: %q lacks %q", text, msg, want)
			}
		}
	}
	if sent := e.term.Sent("%0"); len(sent) != 0 {
		t.Errorf("a refused paste sent input: %+v", sent)
	}
	var screen captureOutput
	decode(t, e.call("capture_pane", map[string]any{"paneId": "%0"}), captureFields, &screen)
	if strings.Contains(screen.Text, "INJECTED") {
		t.Errorf("screen = %q, want nothing of the refused text", screen.Text)
	}
}

func sameInputs(got, want []fake.Input) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i].Kind != want[i].Kind || got[i].Text != want[i].Text || !slices.Equal(got[i].Keys, want[i].Keys) ||
			got[i].Via != want[i].Via {
			return false
		}
	}
	return true
}

type captureOutput struct {
	ByteClamped    bool   `json:"byteClamped"`
	DroppedLines   int64  `json:"droppedLines"`
	EffectiveEnd   *int64 `json:"effectiveEnd"`
	EffectiveStart *int64 `json:"effectiveStart"`
	OmittedBytes   int64  `json:"omittedBytes"`
	PaneID         string `json:"paneId"`
	RangeClamped   bool   `json:"rangeClamped"`
	ReturnedBytes  int64  `json:"returnedBytes"`
	Text           string `json:"text"`
	TotalLines     int64  `json:"totalLines"`
}

var captureFields = []string{"byteClamped", "droppedLines", "effectiveEnd", "effectiveStart", "omittedBytes",
	"paneId", "rangeClamped", "returnedBytes", "text", "totalLines"}

func TestInMemoryCapturePane(t *testing.T) {
	e := newInmem(t)
	e.term.Inject("%0", []byte("first\r\nsecond\r\n"))

	var out captureOutput
	decode(t, e.call("capture_pane", map[string]any{"paneId": "%0"}), captureFields, &out)
	if !strings.HasPrefix(out.Text, "$ first\nsecond\n") {
		t.Errorf("text = %q, want the screen's rows", out.Text)
	}
	if out.PaneID != "%0" || out.TotalLines != 24 || out.DroppedLines != 0 || out.OmittedBytes != 0 ||
		out.RangeClamped || out.ByteClamped || out.ReturnedBytes != int64(len(out.Text)) ||
		out.EffectiveStart == nil || *out.EffectiveStart != 0 || out.EffectiveEnd == nil || *out.EffectiveEnd != 23 {
		t.Errorf("capture_pane of the visible screen = %+v (start %v, end %v)", out, deref64(out.EffectiveStart), deref64(out.EffectiveEnd))
	}

	// maxLines keeps the newest rows of the range.
	decode(t, e.call("capture_pane", map[string]any{"paneId": "%0", "start": 0, "end": 1, "maxLines": 1}), captureFields, &out)
	if out.Text != "second\n" || out.TotalLines != 2 || out.DroppedLines != 1 || out.ReturnedBytes != 7 {
		t.Errorf("capture_pane rows 0-1, maxLines 1 = %+v", out)
	}

	// No history yet: a range wholly above the screen holds no row.
	decode(t, e.call("capture_pane", map[string]any{"paneId": "%0", "start": -10, "end": -1}), captureFields, &out)
	if out.EffectiveStart != nil || out.EffectiveEnd != nil || out.Text != "" || out.TotalLines != 0 {
		t.Errorf("capture_pane of absent history = %+v (start %v, end %v), want null range", out, deref64(out.EffectiveStart), deref64(out.EffectiveEnd))
	}
}

func deref64(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}
