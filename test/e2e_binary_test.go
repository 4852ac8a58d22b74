package test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmux-mcp/tmux-mcp/test/gate"
)

// The end-to-end tests of the built binary: cmd/tmux-mcp built once,
// spawned with -socket-name naming a private tmux server, spoken to over
// its standard input and output by the SDK's MCP client. Every line the
// binary writes to standard output, and every line the client writes to
// its input, is logged with the time it passed, so that the tests can
// check that standard output carries nothing but JSON-RPC and can time
// the server's replies from the wire.

// binDir holds the binary the tests build; TestMain removes it.
var binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "tmcp-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

var (
	buildOnce sync.Once
	buildErr  error
)

// serverBinary builds cmd/tmux-mcp once for the whole run, on first use,
// so that runs that select other tests do not pay for the build, and
// returns its path.
func serverBinary(t *testing.T) string {
	t.Helper()
	gate.Real(t, "the built binary")
	bin := filepath.Join(binDir, "tmux-mcp")
	buildOnce.Do(func() {
		out, err := exec.Command("go", "build", "-o", bin, "github.com/tmux-mcp/tmux-mcp/cmd/tmux-mcp").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build ./cmd/tmux-mcp: %w\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return bin
}

// wireLine is one line that crossed the binary's standard input or output.
type wireLine struct {
	at   time.Time
	text string
}

// wireLog records lines as they pass, and lets a test wait for one.
type wireLog struct {
	mu      sync.Mutex
	lines   []wireLine
	partial []byte // of a line written in pieces
	changed chan struct{}
}

func newWireLog() *wireLog { return &wireLog{changed: make(chan struct{}, 1)} }

func (l *wireLog) add(text string) {
	l.mu.Lock()
	l.lines = append(l.lines, wireLine{at: time.Now(), text: text})
	l.mu.Unlock()
	select {
	case l.changed <- struct{}{}:
	default:
	}
}

// Write records each complete line of p.
func (l *wireLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	l.partial = append(l.partial, p...)
	var done []string
	for {
		i := bytes.IndexByte(l.partial, '\n')
		if i < 0 {
			break
		}
		done = append(done, string(l.partial[:i]))
		l.partial = l.partial[i+1:]
	}
	l.mu.Unlock()
	for _, line := range done {
		l.add(line)
	}
	return len(p), nil
}

func (l *wireLog) snapshot() []wireLine {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]wireLine(nil), l.lines...)
}

// await returns the first line that ok accepts, waiting up to timeout for
// it to pass.
func (l *wireLog) await(t *testing.T, timeout time.Duration, what string, ok func(text string) bool) wireLine {
	t.Helper()
	deadline := time.After(timeout)
	for {
		for _, line := range l.snapshot() {
			if ok(line.text) {
				return line
			}
		}
		select {
		case <-l.changed:
		case <-deadline:
			t.Fatalf("gave up after %v waiting for %s on the wire", timeout, what)
		}
	}
}

// binServer is the binary running, with a client session on its stdio.
type binServer struct {
	cmd    *exec.Cmd
	in     io.WriteCloser // the binary's standard input
	cs     *sdk.ClientSession
	stdout *wireLog // what the binary wrote
	stdin  *wireLog // what the client wrote
	stderr *lockedBuffer

	exited  chan struct{} // closed once the process has been reaped
	exitErr error

	closeOnce sync.Once
}

// startBinary starts the binary with args and connects a client with opts.
// The session is closed, the process awaited and its standard output
// checked when the test ends (see stop).
func startBinary(t *testing.T, opts *sdk.ClientOptions, args ...string) *binServer {
	t.Helper()
	bin := serverBinary(t)
	b := &binServer{stdout: newWireLog(), stdin: newWireLog(), stderr: &lockedBuffer{}, exited: make(chan struct{})}
	b.cmd = exec.Command(bin, args...)
	b.cmd.Env = cleanEnv(os.Environ())
	b.cmd.Stderr = b.stderr
	stdin, err := b.cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	b.in = stdin
	stdout, err := b.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := b.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	// The client reads the binary's output through this pipe after it has
	// been logged; once the client stops reading, the output is still
	// read to the end and logged.
	toClient, fromBinary := io.Pipe()
	go func() {
		br := bufio.NewReader(stdout)
		forward := true
		for {
			line, err := br.ReadBytes('\n')
			if len(line) > 0 {
				b.stdout.add(strings.TrimSuffix(string(line), "\n"))
				if forward {
					if _, werr := fromBinary.Write(line); werr != nil {
						forward = false
					}
				}
			}
			if err != nil {
				break
			}
		}
		fromBinary.Close()
		b.exitErr = b.cmd.Wait()
		close(b.exited)
	}()
	t.Cleanup(func() {
		b.stop(t)
		b.checkStdout(t)
	})

	transport := &sdk.IOTransport{Reader: toClient, Writer: teeWriteCloser{stdin, b.stdin}}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	b.cs, err = sdk.NewClient(&sdk.Implementation{Name: "e2e-binary", Version: "0"}, opts).Connect(ctx, transport, nil)
	if err != nil {
		t.Fatalf("connect to the binary: %v\nstderr:\n%s", err, b.stderr)
	}
	return b
}

// stop closes the session, which closes the binary's standard input, and
// waits for the binary to exit, which it must do promptly and with status
// 0. Calling it again does nothing.
func (b *binServer) stop(t *testing.T) {
	t.Helper()
	b.closeOnce.Do(func() {
		if b.cs != nil {
			b.cs.Close()
		} else {
			b.in.Close() // the client never connected
		}
		select {
		case <-b.exited:
		case <-time.After(15 * time.Second):
			b.cmd.Process.Kill()
			<-b.exited
			t.Errorf("the binary did not exit within 15s of its input ending\nstderr:\n%s", b.stderr)
			return
		}
		if b.exitErr != nil {
			t.Errorf("the binary exited with %v after its input ended; want status 0\nstderr:\n%s", b.exitErr, b.stderr)
		}
	})
}

// checkStdout checks that every line the binary wrote to standard output
// is a JSON-RPC 2.0 message.
func (b *binServer) checkStdout(t *testing.T) {
	t.Helper()
	lines := b.stdout.snapshot()
	if len(lines) == 0 {
		t.Errorf("the binary wrote nothing to standard output; the session must have said something")
	}
	for _, line := range lines {
		var msg struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Method  string          `json:"method"`
		}
		if err := json.Unmarshal([]byte(line.text), &msg); err != nil || msg.JSONRPC != "2.0" || (msg.ID == nil && msg.Method == "") {
			t.Errorf("standard output carries a line that is not JSON-RPC 2.0: %q", line.text)
		}
	}
}

// call calls a tool and fails the test on a protocol error.
func (b *binServer) call(t *testing.T, tool string, args map[string]any) *sdk.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := b.cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error %v\nstderr:\n%s", tool, err, b.stderr)
	}
	return res
}

// teeWriteCloser writes to w and logs what it wrote; Close closes w.
type teeWriteCloser struct {
	w   io.WriteCloser
	log *wireLog
}

func (c teeWriteCloser) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.log.Write(p[:n])
	return n, err
}

func (c teeWriteCloser) Close() error { return c.w.Close() }

// lockedBuffer is a bytes.Buffer safe for a writing process and a reading
// test.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// -version prints the version and exits 0, serving nothing.
func TestBinaryPrintsItsVersion(t *testing.T) {
	t.Parallel()
	out, err := exec.Command(serverBinary(t), "-version").Output()
	if err != nil {
		t.Fatalf("tmux-mcp -version: %v", err)
	}
	if !regexp.MustCompile(`^tmux-mcp \S+\n$`).Match(out) {
		t.Errorf("tmux-mcp -version printed %q, want \"tmux-mcp <version>\"", out)
	}
}

// The three specified tools and the waiting tools, through the binary, on
// a pane of a tmux server named with -socket-name.
func TestBinaryServesTheToolsOverStdio(t *testing.T) {
	t.Parallel()
	srv, p := newTmuxServer(t, bash)
	b := startBinary(t, nil, "-socket-name", srv.sock)
	pane := string(p)

	run := decodeRun(t, b.call(t, "run_shell_command", map[string]any{"paneId": pane, "command": "echo hello from the binary; exit 7"}))
	checkRun(t, run, runOutput{Outcome: "completed", ExitStatus: status(7), Output: "hello from the binary", ReturnedBytes: 21,
		OutputComplete: true, PaneID: pane, EffectiveTimeoutMs: 30000})

	seed := decodeSince(t, b.call(t, "capture_since", map[string]any{"paneId": pane}))
	if !seed.Seeded || seed.Cursor == nil || !strings.Contains(seed.Text, "$") {
		t.Fatalf("capture_since without a cursor = %+v, want the screen, seeded, and a cursor", seed)
	}

	pasteAndSeeItRun(t, b, srv, pane, *seed.Cursor, "echo pasted-$((6*7))")

	since := decodeSince(t, b.call(t, "capture_since", map[string]any{"paneId": pane, "cursor": *seed.Cursor}))
	if since.Seeded || since.Cursor == nil || *since.Cursor == *seed.Cursor || !strings.Contains(since.Text, "pasted-42") ||
		strings.Contains(since.Text, "hello from the binary") {
		t.Errorf("capture_since from the seed = %+v; want only what came after it, the pasted command's output", since)
	}

	// A pattern split across two writes half a second apart, typed at the
	// prompt so that its echo shows the halves apart.
	cur := *since.Cursor
	keys := decodeKeys(t, b.call(t, "send_keys", map[string]any{"paneId": pane, "keys": `printf 'Buil'; sleep 0.5; printf 'd OK\n'`,
		"literal": true}))
	if len(keys.Sent) != 2 || keys.Sent[1] != "Enter" {
		t.Errorf("send_keys sent %q, want the text and Enter", keys.Sent)
	}
	wait := decodeWait(t, b.call(t, "wait_for_text", map[string]any{"paneId": pane, "patterns": []string{"Build OK"}, "cursor": cur,
		"timeoutMs": 10000}))
	if wait.Outcome != "matched" || derefS(wait.Matched) != "Build OK" {
		t.Errorf("wait_for_text for a pattern split across two writes = %+v", wait)
	}
}

// A client that cancels run_shell_command gets the call's answer, outcome
// cancelled, within 100 ms of its cancel notification; the command keeps
// the pane until C-c ends it.
func TestBinaryCancelledRunAnswersWithin100ms(t *testing.T) {
	t.Parallel()
	srv, p := newTmuxServer(t, bash)
	pane := string(p)
	progress := make(chan *sdk.ProgressNotificationParams, 16)
	b := startBinary(t, &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			select {
			case progress <- req.Params:
			default:
			}
		},
	}, "-socket-name", srv.sock)

	params := &sdk.CallToolParams{Name: "run_shell_command", Arguments: map[string]any{"paneId": pane, "command": "sleep 30", "timeoutMs": 20000}}
	params.SetProgressToken("cancel-me")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	clientErr := make(chan error, 1)
	go func() {
		_, err := b.cs.CallTool(ctx, params)
		clientErr <- err
	}()
	// A progress notification says that the server is waiting for the
	// command.
	select {
	case n := <-progress:
		if n.ProgressToken != "cancel-me" {
			t.Fatalf("progress for token %v, want cancel-me", n.ProgressToken)
		}
	case err := <-clientErr:
		t.Fatalf("run_shell_command returned before it was cancelled: %v", err)
	case <-time.After(15 * time.Second):
		t.Fatal("no progress notification while sleep 30 ran")
	}
	cancelled := time.Now()
	cancel()
	if err := <-clientErr; !errors.Is(err, context.Canceled) {
		t.Errorf("the cancelled call returned %v to the client, want context.Canceled", err)
	}

	note := b.stdin.await(t, 5*time.Second, "the client's notifications/cancelled", func(text string) bool {
		return strings.Contains(text, `"notifications/cancelled"`)
	})
	var cancelMsg struct {
		Params struct {
			RequestID json.RawMessage `json:"requestId"`
		} `json:"params"`
	}
	if err := json.Unmarshal([]byte(note.text), &cancelMsg); err != nil || cancelMsg.Params.RequestID == nil {
		t.Fatalf("notifications/cancelled %q names no request: %v", note.text, err)
	}
	reply := b.stdout.await(t, 10*time.Second, "the answer to the cancelled call", func(text string) bool {
		var resp struct {
			ID json.RawMessage `json:"id"`
		}
		return json.Unmarshal([]byte(text), &resp) == nil && bytes.Equal(resp.ID, cancelMsg.Params.RequestID)
	})
	if took := reply.at.Sub(note.at); took > 100*time.Millisecond {
		t.Errorf("the answer came %v after the cancel notification was written (%v after cancel); want within 100ms",
			took, reply.at.Sub(cancelled))
	} else {
		t.Logf("answered %v after the cancel notification was written", took)
	}
	var resp struct {
		Result sdk.CallToolResult `json:"result"`
	}
	if err := json.Unmarshal([]byte(reply.text), &resp); err != nil {
		t.Fatalf("answer %q: %v", reply.text, err)
	}
	checkRun(t, decodeRun(t, &resp.Result), runOutput{Outcome: "cancelled", OutputComplete: true, PaneID: pane,
		StillRunning: true, EffectiveTimeoutMs: 20000})

	// The command still runs and keeps the pane, but C-c may reach it.
	if msg := errorText(t, b.call(t, "paste_text", map[string]any{"paneId": pane, "text": "echo intruder"})); !strings.Contains(msg, "busy") {
		t.Errorf("paste_text while the cancelled command runs: %q, want busy", msg)
	}
	decodeKeys(t, b.call(t, "send_keys", map[string]any{"paneId": pane, "keys": "C-c"}))
	eventually(t, 10*time.Second, "the pane to be free after C-c", func() bool {
		res := b.call(t, "run_shell_command", map[string]any{"paneId": pane, "command": "echo free"})
		if res.IsError {
			return false
		}
		out := decodeRun(t, res)
		return out.Outcome == "completed" && out.Output == "free"
	})
}

// A client that sends a progress token hears how run_shell_command's wait
// goes while the command runs.
func TestBinarySendsProgressNotifications(t *testing.T) {
	t.Parallel()
	srv, p := newTmuxServer(t, bash)
	var mu sync.Mutex
	var notes []*sdk.ProgressNotificationParams
	b := startBinary(t, &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			mu.Lock()
			notes = append(notes, req.Params)
			mu.Unlock()
		},
	}, "-socket-name", srv.sock)

	params := &sdk.CallToolParams{Name: "run_shell_command", Arguments: map[string]any{"paneId": string(p), "command": "sleep 3; echo slept", "timeoutMs": 20000}}
	params.SetProgressToken("p-run")
	res, err := b.cs.CallTool(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	out := decodeRun(t, res)
	if out.Outcome != "completed" || out.Output != "slept" {
		t.Errorf("run_shell_command sleep 3 = %+v", out)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(notes) == 0 {
		t.Fatal("no progress notification during a 3 s command")
	}
	last := -1.0
	for _, n := range notes {
		if n.ProgressToken != "p-run" || n.Progress <= last || n.Total != 20000 {
			t.Errorf("progress %+v: want token p-run, rising progress, total 20000", n)
		}
		last = n.Progress
	}
}

// Without a socket named, the binary runs a private tmux server of its own
// and removes it, socket file included, when it exits.
func TestBinaryWithoutASocketRunsAndRemovesAPrivateServer(t *testing.T) {
	t.Parallel()
	bin := needTmux(t)
	b := startBinary(t, nil)
	socket, tmuxOn := privateServerOf(t, b, bin)
	pane, err := tmuxOn("display-message", "-p", "-t", "tmux-mcp:", "#{pane_id} #{pane_height}")
	if err != nil {
		t.Fatalf("the private server %s does not answer while the binary runs: %v: %s", socket, err, pane)
	}
	pane, height, _ := strings.Cut(strings.TrimSpace(pane), " ")
	var capture captureOutput
	decode(t, b.call(t, "capture_pane", map[string]any{"paneId": pane}), captureFields, &capture)
	if fmt.Sprint(capture.TotalLines) != height {
		t.Errorf("capture_pane of the private session's pane = %d rows, want its %s", capture.TotalLines, height)
	}

	b.stop(t)
	if out, err := tmuxOn("list-sessions"); err == nil {
		t.Errorf("tmux server %s still runs after the binary exited: %s", socket, out)
	}
	if _, err := os.Stat(socketFile(socket)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket file %s left behind (stat: %v)", socketFile(socket), err)
	}
}

// A binary killed with SIGKILL, which has no chance to clean up, leaves
// nothing behind all the same: its control-mode clients die with it, its
// private tmux server exits once they have gone, and the socket file tmux
// leaves is removed by the next binary that starts a private server.
func TestBinaryKilledLeavesNoClientAndNoPrivateServer(t *testing.T) {
	t.Parallel()
	bin := needTmux(t)
	b := startBinary(t, nil)
	socket, tmuxOn := privateServerOf(t, b, bin)
	pane, err := tmuxOn("display-message", "-p", "-t", "tmux-mcp:", "#{pane_id}")
	if err != nil {
		t.Fatalf("the private server does not answer: %v: %s", err, pane)
	}
	// A run opens a control-mode client for the pane's output.
	decodeRun(t, b.call(t, "run_shell_command", map[string]any{"paneId": strings.TrimSpace(pane), "command": "echo alive"}))
	if out, _ := tmuxOn("list-clients", "-F", "#{client_control_mode}"); !strings.Contains(out, "1") {
		t.Fatalf("no control client attached while the binary runs: %q", out)
	}

	b.cmd.Process.Signal(syscall.SIGKILL)
	<-b.exited
	b.closeOnce.Do(func() {}) // it is gone: nothing to stop
	eventually(t, 10*time.Second, "the private server to exit after the binary was killed", func() bool {
		_, err := tmuxOn("list-sessions")
		return err != nil
	})
	out, _ := exec.Command("pgrep", "-f", "-a", socket).CombinedOutput()
	if s := strings.TrimSpace(string(out)); s != "" {
		t.Errorf("processes of the killed binary's server are left: %s", s)
	}

	next := startBinary(t, nil)
	privateServerOf(t, next, bin)
	if _, err := os.Stat(socketFile(socket)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the killed binary's socket file %s is still there once the next binary started (stat: %v)", socketFile(socket), err)
	}
}

// privateServerOf waits for the log line in which b names the private tmux
// server it started, and returns that server's socket name and a way to run
// tmux (bin) against it. The test kills the server and removes its socket
// file at its end, in case b failed to: a test must not leave a server.
func privateServerOf(t *testing.T, b *binServer, bin string) (socket string, tmuxOn func(args ...string) (string, error)) {
	t.Helper()
	eventually(t, 10*time.Second, "the log line naming the private server", func() bool {
		m := regexp.MustCompile(`"socket": "([^"]+)"`).FindStringSubmatch(b.stderr.String())
		if m != nil {
			socket = m[1]
		}
		return socket != ""
	})
	return socket, privateTmux(t, bin, socket)
}

// privateTmux returns a way to run tmux (bin) against the private server
// on socket, which the test kills, and whose socket file it removes, at
// its end, in case the binary failed to.
func privateTmux(t *testing.T, bin, socket string) func(args ...string) (string, error) {
	t.Helper()
	tmuxOn := func(args ...string) (string, error) {
		cmd := exec.Command(bin, append([]string{"-L", socket}, args...)...)
		cmd.Env = cleanEnv(os.Environ())
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	t.Cleanup(func() {
		tmuxOn("kill-server")
		os.Remove(socketFile(socket))
	})
	return tmuxOn
}

// pasteAndSeeItRun pastes command, which prints pasted-42, into the shell
// of pane with Enter, through b; waits from cursor for its output; and
// checks that capture_pane then shows the whole screen of srv's pane with
// the command and its output on it.
func pasteAndSeeItRun(t *testing.T, b *binServer, srv *tmuxServer, pane, cursor, command string) {
	t.Helper()
	var paste pasteOutput
	decode(t, b.call(t, "paste_text", map[string]any{"paneId": pane, "text": command, "enter": true}),
		[]string{"bytes", "paneId"}, &paste)
	if paste != (pasteOutput{Bytes: int64(len(command)), PaneID: pane}) {
		t.Errorf("paste_text = %+v, want %d bytes to %s", paste, len(command), pane)
	}
	wait := decodeWait(t, b.call(t, "wait_for_text", map[string]any{"paneId": pane, "patterns": []string{"pasted-42"},
		"cursor": cursor, "timeoutMs": 10000}))
	if wait.Outcome != "matched" || derefS(wait.Matched) != "pasted-42" {
		t.Fatalf("wait_for_text for the pasted command's output = %+v", wait)
	}
	var capture captureOutput
	decode(t, b.call(t, "capture_pane", map[string]any{"paneId": pane}), captureFields, &capture)
	height := srv.tmux(t, "display-message", "-p", "-t", pane, "#{pane_height}")
	if !strings.Contains(capture.Text, command+"\npasted-42\n") || fmt.Sprint(capture.TotalLines) != height {
		t.Errorf("capture_pane = %d lines %q; want the %s rows of the screen with the pasted command and its output",
			capture.TotalLines, capture.Text, height)
	}
}
