package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tmux-mcp/tmux-mcp/adapters/mcp"
	"github.com/tmux-mcp/tmux-mcp/domain"
)

// The stdio transport spoken to line by line, as a client, a pipe or a
// person at a terminal would: what comes back for each line, and what is
// still answered when the input ends or the server is told to stop.

// stdioRig is ServeStdio running on pipes.
type stdioRig struct {
	t      *testing.T
	srv    *mcp.Server
	stdin  *io.PipeWriter
	lines  chan string // what the server wrote, line by line
	served chan error
	stop   context.CancelFunc
}

func serveStdio(t *testing.T, tools mcp.Tools, opts mcp.StdioOptions) *stdioRig {
	t.Helper()
	return serveStdioLogging(t, tools, opts, nil)
}

func serveStdioLogging(t *testing.T, tools mcp.Tools, opts mcp.StdioOptions, log *slog.Logger) *stdioRig {
	t.Helper()
	return serveStdioServer(t, mcp.NewServer(tools, mcp.Options{Version: "1.2.3", Logger: log}), opts)
}

// serveStdioServer is serveStdio of a server made by the test.
func serveStdioServer(t *testing.T, srv *mcp.Server, opts mcp.StdioOptions) *stdioRig {
	t.Helper()
	stdinR, stdinW := io.Pipe()
	stdoutR, stdoutW := io.Pipe()
	ctx, stop := context.WithCancel(context.Background())
	r := &stdioRig{t: t, srv: srv, stdin: stdinW, lines: make(chan string, 100), served: make(chan error, 1), stop: stop}
	go func() {
		r.served <- srv.ServeStdio(ctx, stdinR, stdoutW, opts)
		stdoutW.Close()
	}()
	go func() {
		defer close(r.lines)
		sc := bufio.NewScanner(stdoutR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			r.lines <- sc.Text()
		}
	}()
	t.Cleanup(func() {
		stop()
		stdinW.Close()
		select {
		case <-r.served:
		case <-time.After(10 * time.Second):
			t.Error("ServeStdio did not return after the test")
		}
	})
	return r
}

func (r *stdioRig) send(lines ...string) {
	r.t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(r.stdin, l+"\n"); err != nil {
			r.t.Fatalf("write %q: %v", l, err)
		}
	}
}

// reply is a JSON-RPC message the server wrote.
type reply struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	raw string
}

// next returns the next message the server wrote, skipping notifications.
func (r *stdioRig) next() reply {
	r.t.Helper()
	for {
		select {
		case line, ok := <-r.lines:
			if !ok {
				r.t.Fatal("the server's output ended; want another reply")
			}
			var m reply
			if err := json.Unmarshal([]byte(line), &m); err != nil || m.JSONRPC != "2.0" {
				r.t.Fatalf("the server wrote a line that is not JSON-RPC 2.0: %q", line)
			}
			m.raw = line
			if m.Method != "" && m.ID == nil {
				continue // a notification
			}
			return m
		case <-time.After(10 * time.Second):
			r.t.Fatal("no reply within 10s")
		}
	}
}

// nextError returns the next reply, which must be an error with code.
func (r *stdioRig) nextError(code int, id string) reply {
	r.t.Helper()
	m := r.next()
	if m.Error == nil || m.Error.Code != code || string(m.ID) != id {
		r.t.Fatalf("reply %s; want an error with code %d and id %s", m.raw, code, id)
	}
	return m
}

// nextResult returns the next reply, which must be a result for id.
func (r *stdioRig) nextResult(id string) reply {
	r.t.Helper()
	m := r.next()
	if m.Error != nil || m.Result == nil || string(m.ID) != id {
		r.t.Fatalf("reply %s; want a result for id %s", m.raw, id)
	}
	return m
}

// end closes the server's input and returns what ServeStdio returned.
func (r *stdioRig) end() error {
	r.t.Helper()
	r.stdin.Close()
	return r.wait()
}

func (r *stdioRig) wait() error {
	r.t.Helper()
	select {
	case err := <-r.served:
		r.served <- err // for the cleanup
		return err
	case <-time.After(10 * time.Second):
		r.t.Fatal("ServeStdio did not return within 10s")
		return nil
	}
}

// The output is at its end: nothing more was written.
func (r *stdioRig) noMore() {
	r.t.Helper()
	for line := range r.lines {
		r.t.Errorf("unexpected line after the replies: %q", line)
	}
}

func initializeLine(id int, version string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`, id, version)
}

const initializedLine = `{"jsonrpc":"2.0","method":"notifications/initialized"}`

func runLine(id int, command string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"run_shell_command","arguments":{"paneId":"%%1","command":%q}}}`, id, command)
}

func pingLine(id int) string { return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id) }

// blockingRun is a run_shell_command that waits for release (or for its
// context to end, then reports cancelled) and tells of its start on
// entered.
type blockingRun struct {
	entered chan string   // the command, once the call is running
	release chan struct{} // closed to let the command complete
	ctxErr  chan error    // the call context's error when it returned
}

func newBlockingRun() *blockingRun {
	return &blockingRun{entered: make(chan string, 10), release: make(chan struct{}), ctxErr: make(chan error, 10)}
}

func (b *blockingRun) tools(t *testing.T) *stubTools {
	return &stubTools{t: t, run: func(ctx context.Context, req domain.RunRequest) (domain.RunResult, error) {
		b.entered <- req.Command
		zero := 0
		select {
		case <-b.release:
			b.ctxErr <- ctx.Err()
			return domain.RunResult{PaneID: req.PaneID, Outcome: domain.OutcomeCompleted, ExitStatus: &zero,
				Output: "done " + req.Command, ReturnedBytes: int64(len("done " + req.Command)), OutputComplete: true,
				EffectiveTimeoutMs: 30000}, nil
		case <-ctx.Done():
			b.ctxErr <- ctx.Err()
			return domain.RunResult{PaneID: req.PaneID, Outcome: domain.OutcomeCancelled, StillRunning: true,
				OutputComplete: true, EffectiveTimeoutMs: 30000}, nil
		}
	}}
}

// logWatch is a slog handler that tells when a message has been logged.
type logWatch struct {
	msg  string
	seen chan struct{}
	once sync.Once
}

func watchLog(msg string) *logWatch { return &logWatch{msg: msg, seen: make(chan struct{})} }

func (w *logWatch) Enabled(context.Context, slog.Level) bool { return true }
func (w *logWatch) Handle(_ context.Context, r slog.Record) error {
	if r.Message == w.msg {
		w.once.Do(func() { close(w.seen) })
	}
	return nil
}
func (w *logWatch) WithAttrs([]slog.Attr) slog.Handler { return w }
func (w *logWatch) WithGroup(string) slog.Handler      { return w }

func (w *logWatch) wait(t *testing.T) {
	t.Helper()
	select {
	case <-w.seen:
	case <-time.After(10 * time.Second):
		t.Fatalf("%q was never logged", w.msg)
	}
}

func (b *blockingRun) waitEntered(t *testing.T) string {
	t.Helper()
	select {
	case c := <-b.entered:
		return c
	case <-time.After(10 * time.Second):
		t.Fatal("the call never started")
		return ""
	}
}

// outcome is the run_shell_command outcome a tools/call reply carries.
func outcome(t *testing.T, m reply) string {
	t.Helper()
	var res struct {
		StructuredContent struct {
			Outcome string `json:"outcome"`
			Output  string `json:"output"`
		} `json:"structuredContent"`
	}
	if err := json.Unmarshal(m.Result, &res); err != nil {
		t.Fatalf("tools/call result %s: %v", m.Result, err)
	}
	return res.StructuredContent.Outcome + ": " + res.StructuredContent.Output
}

func TestStdioAnswersALineThatIsNotJSONWithAParseErrorAndGoesOn(t *testing.T) {
	r := serveStdio(t, &stubTools{t: t}, mcp.StdioOptions{})
	r.send("hello")
	if m := r.nextError(-32700, "null"); !strings.Contains(m.Error.Message, "not JSON") {
		t.Errorf("parse error message %q, want it to say the line is not JSON", m.Error.Message)
	}
	r.send(initializeLine(1, "2025-11-25"))
	r.nextResult("1")
	r.send(initializedLine, `{"jsonrpc":"2.0","id":2,"method":"ping"`, pingLine(3))
	r.nextError(-32700, "null")
	r.nextResult("3")
	if err := r.end(); err != nil {
		t.Errorf("ServeStdio = %v, want nil at the end of input", err)
	}
	r.noMore()
}

func TestStdioAnswersJSONThatIsNotAJSONRPCMessageAndGoesOn(t *testing.T) {
	r := serveStdio(t, &stubTools{t: t}, mcp.StdioOptions{})
	r.send(initializeLine(1, "2025-11-25"), initializedLine)
	r.nextResult("1")
	for _, tc := range []struct{ line, id string }{
		{`{"foo":1}`, "null"},
		{`42`, "null"},
		{`[]`, "null"},
		{`{"jsonrpc":"1.0","id":7,"method":"ping"}`, "7"},
		{`{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}`, "null"},
		{`[` + pingLine(8) + `]`, "null"}, // 2025-11-25 has no batches
	} {
		r.send(tc.line)
		r.nextError(-32600, tc.id)
	}
	r.send("", "   ", pingLine(9)) // blank lines are no messages
	r.nextResult("9")
	if err := r.end(); err != nil {
		t.Errorf("ServeStdio = %v", err)
	}
	r.noMore()
}

func TestStdioAnswersABatchWhereTheProtocolVersionHasThem(t *testing.T) {
	r := serveStdio(t, &stubTools{t: t}, mcp.StdioOptions{})
	r.send(initializeLine(1, "2025-03-26"))
	r.nextResult("1")
	r.send(initializedLine, "["+pingLine(2)+","+pingLine(3)+"]")
	select {
	case line := <-r.lines:
		var batch []reply
		if err := json.Unmarshal([]byte(line), &batch); err != nil || len(batch) != 2 {
			t.Fatalf("reply to a batch of two pings = %q, want an array of two replies", line)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no reply to the batch")
	}
	if err := r.end(); err != nil {
		t.Errorf("ServeStdio = %v", err)
	}
}

// A batch's replies come as one array, in the order of its calls, once
// every call is answered; its notifications get none, and a batch of
// notifications alone gets no line at all. The session runs in a bubble
// (synctest) over in-memory pipes, so "nothing written yet" is checked once
// the server can go no further.
func TestStdioAnswersTheCallsOfABatchInOneArrayInTheirOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newBlockingRun()
		r := serveStdio(t, b.tools(t), mcp.StdioOptions{})
		r.send(initializeLine(1, "2025-03-26"))
		r.nextResult("1")
		r.send(initializedLine, "["+runLine(2, "slow")+`,{"jsonrpc":"2.0","method":"notifications/roots/list_changed"},`+pingLine(3)+"]")
		b.waitEntered(t)
		synctest.Wait() // the ping of the batch is answered, the slow call not
		select {
		case line := <-r.lines:
			t.Fatalf("wrote %q before the batch's slow call was answered", line)
		default:
		}
		close(b.release)
		var batch []reply
		select {
		case line := <-r.lines:
			if err := json.Unmarshal([]byte(line), &batch); err != nil {
				t.Fatalf("reply to the batch = %q, want an array", line)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("no reply to the batch")
		}
		if len(batch) != 2 || string(batch[0].ID) != "2" || string(batch[1].ID) != "3" || batch[0].Result == nil || batch[1].Result == nil {
			t.Errorf("reply to the batch = %+v, want the results of calls 2 and 3, in that order", batch)
		}
		r.send(`[{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}]`, pingLine(4))
		r.nextResult("4") // and nothing before it for the batch of one notification
		if err := r.end(); err != nil {
			t.Errorf("ServeStdio = %v", err)
		}
		r.noMore()
	})
}

// Lines that come in one write are each handed on whole: the reader's
// buffer, which the next line overwrites, is not what the calls read.
func TestStdioHandsOnEachOfLinesReadTogetherWhole(t *testing.T) {
	var mu sync.Mutex
	var got []string
	tools := &stubTools{t: t, paste: func(_ context.Context, req domain.PasteRequest) (domain.PasteResult, error) {
		mu.Lock()
		got = append(got, req.Text)
		mu.Unlock()
		return domain.PasteResult{PaneID: req.PaneID, Bytes: int64(len(req.Text))}, nil
	}}
	r := serveStdio(t, tools, mcp.StdioOptions{})
	r.send(initializeLine(1, "2025-11-25"), initializedLine)
	r.nextResult("1")
	texts := []string{strings.Repeat("a", 100_000), strings.Repeat("b", 3), strings.Repeat("c", 70_000)}
	var lines []string
	for i, text := range texts {
		lines = append(lines, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"paste_text","arguments":{"paneId":"%%1","text":%q}}}`, i+2, text))
	}
	r.send(strings.Join(lines, "\n"))
	for range texts {
		r.next()
	}
	mu.Lock()
	defer mu.Unlock()
	slices.Sort(got)
	if !slices.Equal(got, texts) {
		t.Errorf("the pastes got texts of %d bytes, want each of %d, %d and %d bytes as sent", len(got), len(texts[0]), len(texts[1]), len(texts[2]))
	}
	if err := r.end(); err != nil {
		t.Errorf("ServeStdio = %v", err)
	}
}

// MCP ids are strings or integers: a call with a null id would go
// unanswered as a notification, and one with a fraction or an integer
// beyond 2^53 would be answered under another id. Each is refused with
// id null, and the session goes on.
func TestStdioRefusesARequestIDItCouldNotAnswerUnder(t *testing.T) {
	r := serveStdio(t, &stubTools{t: t}, mcp.StdioOptions{})
	r.send(initializeLine(1, "2025-11-25"), initializedLine)
	r.nextResult("1")
	for _, id := range []string{"null", "1.5", "-0.5", "9007199254740993", "1e300", "true", "[1]"} {
		r.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`)
		if m := r.nextError(-32600, "null"); !strings.Contains(m.Error.Message, "id") {
			t.Errorf("id %s: %q, want the id said to be wrong", id, m.Error.Message)
		}
	}
	for _, id := range []string{`"a-1"`, "9007199254740992", "-7", "0"} {
		r.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`)
		r.nextResult(id)
	}
	if err := r.end(); err != nil {
		t.Errorf("ServeStdio = %v", err)
	}
}

// A call before initialize is refused with Invalid Request, saying to
// initialize first (the SDK refuses it without a JSON-RPC code, which
// went out as code 0); ping is answered, and once initialized the same
// call is.
func TestStdioRefusesACallBeforeInitializeWithAJSONRPCCode(t *testing.T) {
	r := serveStdio(t, &stubTools{t: t}, mcp.StdioOptions{})
	r.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if m := r.nextError(-32600, "1"); !strings.Contains(m.Error.Message, "initialize") {
		t.Errorf("the refusal %q does not say to initialize first", m.Error.Message)
	}
	r.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	r.nextResult("2")
	r.send(initializeLine(3, "2025-11-25"), initializedLine, `{"jsonrpc":"2.0","id":4,"method":"tools/list"}`)
	r.nextResult("3")
	r.nextResult("4")
	if err := r.end(); err != nil {
		t.Errorf("ServeStdio = %v", err)
	}
}

func TestStdioAnswersALineLongerThanTheLimitAndGoesOn(t *testing.T) {
	r := serveStdio(t, &stubTools{t: t}, mcp.StdioOptions{})
	// Written in the background, as the server answers before it has read
	// all of it; the write's error is checked here, as only the test's own
	// goroutine may fail it.
	sent := make(chan error, 1)
	go func() {
		_, err := io.WriteString(r.stdin, `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"`+strings.Repeat("x", mcp.MaxMessageBytes)+`"}}`+"\n")
		sent <- err
	}()
	r.nextError(-32600, "null")
	r.send(initializeLine(2, "2025-11-25"))
	r.nextResult("2")
	if err := <-sent; err != nil {
		t.Fatalf("write the long line: %v", err)
	}
	if err := r.end(); err != nil {
		t.Errorf("ServeStdio = %v", err)
	}
}

// printf '<initialize>\n<initialized>\n<tools/call>\n' | tmux-mcp: every
// call is answered, in the order the protocol needs, before ServeStdio
// returns, and the end of input cancels nothing.
func TestStdioAnswersEveryCallOfInputThatEndsAtOnce(t *testing.T) {
	b := newBlockingRun()
	r := serveStdio(t, b.tools(t), mcp.StdioOptions{})
	r.send(initializeLine(1, "2025-11-25"), initializedLine, runLine(2, "make"))
	r.stdin.Close()
	r.nextResult("1")
	b.waitEntered(t)
	select {
	case err := <-r.served:
		t.Fatalf("ServeStdio returned (%v) with a call in flight", err)
	default:
	}
	close(b.release)
	if got := outcome(t, r.nextResult("2")); got != "completed: done make" {
		t.Errorf("the call's reply says %q, want it completed", got)
	}
	if err := r.wait(); err != nil {
		t.Errorf("ServeStdio = %v, want nil", err)
	}
	if err := <-b.ctxErr; err != nil {
		t.Errorf("the call's context ended (%v) while it ran; the end of input must not cancel it", err)
	}
	r.noMore()
}

// SIGTERM (ctx done) with the input still open: the call in flight
// finishes and is answered; a call that comes later is refused at once.
func TestStdioStopLetsTheCallsInFlightFinish(t *testing.T) {
	b := newBlockingRun()
	stopping := watchLog("stopping; finishing the calls in flight")
	r := serveStdioLogging(t, b.tools(t), mcp.StdioOptions{}, slog.New(stopping))
	r.send(initializeLine(1, "2025-11-25"), initializedLine)
	r.nextResult("1")
	r.send(runLine(2, "make"))
	b.waitEntered(t)
	r.stop()
	stopping.wait(t)
	r.send(runLine(3, "late"))
	if m := r.nextError(-32000, "3"); !strings.Contains(m.Error.Message, "shutting down") {
		t.Errorf("a call after the stop: %q, want it refused as the server shuts down", m.Error.Message)
	}
	close(b.release)
	if got := outcome(t, r.nextResult("2")); got != "completed: done make" {
		t.Errorf("the call in flight says %q, want it completed", got)
	}
	if err := r.wait(); err != nil {
		t.Errorf("ServeStdio = %v, want nil", err)
	}
	if err := <-b.ctxErr; err != nil {
		t.Errorf("the call's context ended (%v); stopping must not cancel it", err)
	}
}

// Past the drain bound the calls still running are cancelled, and their
// replies (outcome cancelled) are still written.
func TestStdioDrainBoundCancelsTheCallsAndStillAnswersThem(t *testing.T) {
	b := newBlockingRun()
	r := serveStdio(t, b.tools(t), mcp.StdioOptions{Drain: 20 * time.Millisecond})
	r.send(initializeLine(1, "2025-11-25"), initializedLine, runLine(2, "sleep 100"))
	r.nextResult("1")
	b.waitEntered(t)
	r.stdin.Close()
	if got := outcome(t, r.nextResult("2")); got != "cancelled: " {
		t.Errorf("the call's reply says %q, want it cancelled", got)
	}
	if err := r.wait(); err != nil {
		t.Errorf("ServeStdio = %v, want nil", err)
	}
}

// The second signal to stop (here: the input ends, then ctx is done)
// cancels the calls at once; their replies are still written.
func TestStdioSecondStopCancelsTheCallsAtOnce(t *testing.T) {
	b := newBlockingRun()
	r := serveStdio(t, b.tools(t), mcp.StdioOptions{Drain: time.Hour})
	r.send(initializeLine(1, "2025-11-25"), initializedLine, runLine(2, "sleep 100"))
	r.nextResult("1")
	b.waitEntered(t)
	r.stdin.Close()
	r.stop()
	if got := outcome(t, r.nextResult("2")); got != "cancelled: " {
		t.Errorf("the call's reply says %q, want it cancelled", got)
	}
	if err := <-b.ctxErr; !errors.Is(err, context.Canceled) {
		t.Errorf("the call's context: %v, want it cancelled", err)
	}
	if err := r.wait(); err != nil {
		t.Errorf("ServeStdio = %v, want nil", err)
	}
}

// A client may cancel a call while the server drains.
func TestStdioPassesACancellationWhileDraining(t *testing.T) {
	b := newBlockingRun()
	r := serveStdio(t, b.tools(t), mcp.StdioOptions{Drain: time.Hour})
	r.send(initializeLine(1, "2025-11-25"), initializedLine, runLine(2, "sleep 100"))
	r.nextResult("1")
	b.waitEntered(t)
	r.stop()
	r.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"no longer needed"}}`)
	if err := <-b.ctxErr; !errors.Is(err, context.Canceled) {
		t.Errorf("the call's context: %v, want it cancelled by the client", err)
	}
	if err := r.wait(); err != nil {
		t.Errorf("ServeStdio = %v, want nil", err)
	}
}

func TestStdioRefusesASecondCallWithTheIDOfOneInFlight(t *testing.T) {
	b := newBlockingRun()
	r := serveStdio(t, b.tools(t), mcp.StdioOptions{})
	r.send(initializeLine(1, "2025-11-25"), initializedLine, runLine(2, "first"))
	r.nextResult("1")
	b.waitEntered(t)
	r.send(runLine(2, "second"))
	if m := r.nextError(-32600, "null"); !strings.Contains(m.Error.Message, "already in use") {
		t.Errorf("duplicate id: %q, want it said to be in use", m.Error.Message)
	}
	close(b.release)
	if got := outcome(t, r.nextResult("2")); got != "completed: done first" {
		t.Errorf("the first call says %q", got)
	}
	if err := r.end(); err != nil {
		t.Errorf("ServeStdio = %v", err)
	}
	r.noMore()
}

// A read error of the input is ServeStdio's error, after the calls in
// flight were answered.
func TestStdioReportsABrokenInput(t *testing.T) {
	r := serveStdio(t, &stubTools{t: t}, mcp.StdioOptions{})
	r.send(initializeLine(1, "2025-11-25"))
	r.nextResult("1")
	r.stdin.CloseWithError(errors.New("disk on fire"))
	if err := r.wait(); err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Errorf("ServeStdio = %v, want the read error", err)
	}
}
