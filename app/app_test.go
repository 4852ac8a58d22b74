package app_test

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
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/fx/fxevent"

	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
	"github.com/tmux-mcp/tmux-mcp/app"
	"github.com/tmux-mcp/tmux-mcp/test/gate"
	"github.com/tmux-mcp/tmux-mcp/test/tmuxtest"
)

// syncBuffer is a bytes.Buffer safe for the concurrent writes of loggers.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// mainSession runs Main as the binary does, with args, and connects a real
// MCP client to its stdin and stdout. end closes the client (ending stdin)
// and returns Main's exit code and every line Main wrote to stdout.
func mainSession(t *testing.T, args ...string) (cs *sdk.ClientSession, stderr *syncBuffer, end func() (int, []string)) {
	t.Helper()
	return mainSessionWith(t, nil, args...)
}

// mainSessionWith is mainSession with environment variables.
func mainSessionWith(t *testing.T, env map[string]string, args ...string) (cs *sdk.ClientSession, stderr *syncBuffer, end func() (int, []string)) {
	t.Helper()
	return mainSessionOpts(t, env, nil, args...)
}

// mainSessionOpts is mainSessionWith with the client's options.
func mainSessionOpts(t *testing.T, env map[string]string, opts *sdk.ClientOptions, args ...string) (cs *sdk.ClientSession, stderr *syncBuffer, end func() (int, []string)) {
	t.Helper()
	stdinR, stdinW := io.Pipe()
	stdoutR, stdoutW := io.Pipe()
	stderr = &syncBuffer{}
	exit := make(chan int, 1)
	go func() {
		code := app.Main(args, envOf(env), app.Stdio{In: stdinR, Out: stdoutW, Err: stderr})
		stdoutW.Close()
		exit <- code
	}()

	// Keep every line the server writes, to check that it is all JSON-RPC;
	// the client reads what the scanner reads, through the tee.
	var lines []string
	linesDone := make(chan struct{})
	clientR, teeW := io.Pipe()
	go func() {
		defer close(linesDone)
		sc := bufio.NewScanner(io.TeeReader(stdoutR, teeW))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines = append(lines, sc.Text())
		}
		teeW.Close()
	}()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "0"}, opts).
		Connect(context.Background(), &sdk.IOTransport{Reader: clientR, Writer: stdinW}, nil)
	if err != nil {
		stdinW.Close()
		t.Fatalf("connect: %v (exit %d)\nstderr:\n%s", err, <-exit, stderr.String())
	}
	return cs, stderr, func() (int, []string) {
		cs.Close() // ends stdin: the server shuts down
		code := <-exit
		<-linesDone
		return code, lines
	}
}

func checkJSONRPCOnly(t *testing.T, lines []string) {
	t.Helper()
	if len(lines) < 2 {
		t.Errorf("stdout = %q, want the JSON-RPC responses", lines)
	}
	for _, line := range lines {
		var msg struct {
			JSONRPC string `json:"jsonrpc"`
		}
		if err := json.Unmarshal([]byte(line), &msg); err != nil || msg.JSONRPC != "2.0" {
			t.Errorf("stdout carries a line that is not JSON-RPC: %q", line)
		}
	}
}

func runEcho(t *testing.T, cs *sdk.ClientSession, pane string) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{
		Name:      "run_shell_command",
		Arguments: map[string]any{"paneId": pane, "command": "echo hello; exit 3"},
	})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := res.StructuredContent.(map[string]any)
	if res.IsError || got["outcome"] != "completed" || got["exitStatus"] != 3.0 || got["output"] != "hello" {
		var text []string
		for _, c := range res.Content {
			if tc, ok := c.(*sdk.TextContent); ok {
				text = append(text, tc.Text)
			}
		}
		t.Errorf("run_shell_command = %+v (error %v, text %q)", got, res.IsError, text)
	}
}

// TestMainServesTheFakeBackendOverStdio runs the server as the binary does,
// on the in-memory backend.
func TestMainServesTheFakeBackendOverStdio(t *testing.T) {
	cs, stderr, end := mainSession(t, "-backend", "fake")
	runEcho(t, cs, string(app.DemoPane))
	code, lines := end()
	if code != app.ExitOK {
		t.Errorf("Main = %d, want %d once stdin ends\nstderr:\n%s", code, app.ExitOK, stderr.String())
	}
	checkJSONRPCOnly(t, lines)
	for _, s := range []string{"starting tmux-mcp", "backend", "fake", "stdin closed"} {
		if !strings.Contains(stderr.String(), s) {
			t.Errorf("stderr lacks %q:\n%s", s, stderr.String())
		}
	}
	if strings.Contains(stderr.String(), "Connect a client") {
		t.Errorf("stderr has the note for a person at a terminal, but stdin is a pipe:\n%s", stderr.String())
	}
}

// TestMainServesTheWaitingAndInputTools drives the fake backend's shell
// through the binary with send_keys, and follows it with capture_since and
// wait_for_text. Nothing here waits on the clock: the wait ends on the
// shell's output.
func TestMainServesTheWaitingAndInputTools(t *testing.T) {
	cs, stderr, end := mainSession(t, "-backend", "fake")
	defer func() {
		if code, _ := end(); code != app.ExitOK {
			t.Errorf("Main = %d, want %d\nstderr:\n%s", code, app.ExitOK, stderr.String())
		}
	}()
	pane := string(app.DemoPane)
	callOK := func(tool string, args map[string]any) map[string]any {
		t.Helper()
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		got, _ := res.StructuredContent.(map[string]any)
		if res.IsError || got == nil {
			t.Fatalf("%s = %v (error %v)", tool, res.Content, res.IsError)
		}
		return got
	}

	seed := callOK("capture_since", map[string]any{"paneId": pane})
	cursor, _ := seed["cursor"].(string)
	if seed["seeded"] != true || cursor == "" {
		t.Fatalf("capture_since without a cursor = %v, want seeded with a cursor", seed)
	}
	// The typed line does not hold the answer, so only the command's output
	// can match.
	sent := callOK("send_keys", map[string]any{"paneId": pane, "keys": "e c h o Space $ ( ( 6 * 7 ) )"})
	if keys, _ := sent["sent"].([]any); len(keys) == 0 || keys[len(keys)-1] != "Enter" {
		t.Errorf("send_keys = %v, want Enter pressed last", sent)
	}
	waited := callOK("wait_for_text", map[string]any{"paneId": pane, "patterns": []string{"42"}, "cursor": cursor})
	if waited["outcome"] != "matched" || waited["matched"] != "42" {
		t.Errorf("wait_for_text = %v, want 42 matched", waited)
	}
	since := callOK("capture_since", map[string]any{"paneId": pane, "cursor": cursor})
	if text, _ := since["text"].(string); !strings.Contains(text, "echo $((6*7))\n42\n") {
		t.Errorf("capture_since text = %q, want the typed command and its output", text)
	}
}

// TestMainServesAPrivateTmuxServer runs the server on real tmux with no
// socket named: it starts a private tmux server, serves its pane, and
// kills the server when stdin ends.
func TestMainServesAPrivateTmuxServer(t *testing.T) {
	gate.Real(t, "tmux")
	gate.Need(t, "tmux")
	// The private server runs $SHELL; a user's login shell may run
	// start-up files that wait on locks a killed test shell left behind.
	t.Setenv("SHELL", "/bin/sh")
	cs, stderr, end := mainSession(t, "-backend", "tmux")
	m := regexp.MustCompile(`"socket": "([^"]+)"`).FindStringSubmatch(stderr.String())
	if m == nil {
		end()
		t.Fatalf("no private socket named in the log:\n%s", stderr.String())
	}
	socket := m[1]
	// In case the server failed to: never leave a tmux server, or the
	// socket file tmux leaves, behind.
	t.Cleanup(func() { (&tmuxtest.Server{Bin: "tmux", Socket: socket}).Kill() })
	runEcho(t, cs, "%0")
	code, lines := end()
	if code != app.ExitOK {
		t.Errorf("Main = %d, want %d\nstderr:\n%s", code, app.ExitOK, stderr.String())
	}
	checkJSONRPCOnly(t, lines)
	if err := exec.Command("tmux", "-L", socket, "has-session").Run(); err == nil {
		t.Errorf("the private tmux server %s still runs after the server stopped", socket)
	}
}

func TestMainExitCodes(t *testing.T) {
	tests := []struct {
		name      string
		args      []string
		env       map[string]string
		code      int
		stdout    string // substring; "" means stdout must stay empty
		stderrHas string
	}{
		{name: "version", args: []string{"-version"}, code: app.ExitOK, stdout: "tmux-mcp "},
		{name: "help", args: []string{"-h"}, code: app.ExitOK, stderrHas: "Usage: tmux-mcp"},
		{name: "bad setting", env: map[string]string{"LIBTMUX_SAFETY": "all"}, code: app.ExitUsage, stderrHas: "LIBTMUX_SAFETY"},
		{name: "unknown tool", args: []string{"-backend", "fake", "-tools", "capture_pane,rm_rf"}, code: app.ExitUsage,
			stderrHas: `"rm_rf" is not a tool of this server`},
		{name: "a bearer token too short", args: []string{"-backend", "fake", "-transport", "http", "-listen", "127.0.0.1:0"},
			env: map[string]string{"TMUX_MCP_TOKEN": "short"}, code: app.ExitUsage, stderrHas: "invalid setting"},
		{name: "an address that is no address", args: []string{"-backend", "fake", "-transport", "http", "-listen", "nonsense"},
			code: app.ExitUsage, stderrHas: `-listen "nonsense": bad address`},
		{name: "address that cannot be bound", args: []string{"-backend", "fake", "-transport", "http", "-listen", "256.0.0.1:1"},
			env: map[string]string{"TMUX_MCP_TOKEN": "0123456789abcdef0123456789abcdef"}, code: app.ExitUsage, stderrHas: "-listen 256.0.0.1:1: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr syncBuffer
			code := app.Main(tt.args, envOf(tt.env), app.Stdio{In: strings.NewReader(""), Out: &stdout, Err: &stderr})
			if code != tt.code {
				t.Errorf("Main = %d, want %d\nstderr:\n%s", code, tt.code, stderr.String())
			}
			if tt.stdout == "" && stdout.String() != "" {
				t.Errorf("stdout = %q, want nothing", stdout.String())
			}
			if !strings.Contains(stdout.String(), tt.stdout) {
				t.Errorf("stdout = %q, want %q", stdout.String(), tt.stdout)
			}
			if !strings.Contains(stderr.String(), tt.stderrHas) {
				t.Errorf("stderr = %q, want %q", stderr.String(), tt.stderrHas)
			}
		})
	}
}

// The adapters' logger writes through zap: its key-value pairs become
// the entry's fields. (The SDK's slog records reach it as pairs too: see
// adapters/mcp's logger tests.)
func TestAdapterLoggerWritesThroughZap(t *testing.T) {
	var buf syncBuffer
	log := app.NewAdapterLogger(app.NewLogger(&buf))
	log.Debug("hidden below info")
	log.Info("tool call done", "tool", "capture_pane", "duration", 1500*time.Millisecond, "call.pane.id", "%1")
	log.Warn("warned", "error", errors.New("boom"))
	log.Error("failed", "calls", 2)
	out := buf.String()
	if strings.Contains(out, "hidden") {
		t.Errorf("debug line written at info level: %s", out)
	}
	for _, s := range []string{"INFO", "tool call done", `"tool": "capture_pane"`, `"duration": "1.5s"`, `"call.pane.id": "%1"`,
		"WARN", `"error": "boom"`, "ERROR", `"calls": 2`} {
		if !strings.Contains(out, s) {
			t.Errorf("log lines lack %s: %s", s, out)
		}
	}
}

// fx's chatter is below the info level, and a failure of the start is
// left to Main, which says it in a line or two (fx would log its chain of
// constructors); a failure to stop is still logged.
func TestFxLogsOnlyErrorsAtInfoLevel(t *testing.T) {
	var buf syncBuffer
	l := app.NewFxLogger(app.NewLogger(&buf))
	l.LogEvent(&fxevent.Provided{ConstructorName: "app.NewService()", OutputTypeNames: []string{"*domain.Service"}})
	if buf.String() != "" {
		t.Errorf("fx chatter logged at info level: %q", buf.String())
	}
	for _, e := range []fxevent.Event{
		&fxevent.Invoked{FunctionName: "serve", Err: errors.New("chain")},
		&fxevent.Provided{ConstructorName: "app.NewTmuxBackend()", Err: errors.New("chain")},
		&fxevent.OnStartExecuted{FunctionName: "start", Err: errors.New("chain")},
		&fxevent.Started{Err: errors.New("chain")},
		&fxevent.RollingBack{StartErr: errors.New("chain")},
	} {
		l.LogEvent(e)
	}
	if buf.String() != "" {
		t.Errorf("a failure of the start logged by fx, which Main reports: %q", buf.String())
	}
	l.LogEvent(&fxevent.OnStopExecuted{FunctionName: "stop", Err: errors.New("boom")})
	if !strings.Contains(buf.String(), "boom") {
		t.Errorf("fx error not logged: %q", buf.String())
	}
}

func TestDriveClockMovesTheFakeClockWithTheSystemClock(t *testing.T) {
	c := fake.NewClock(time.Now())
	stop := app.DriveClock(c, time.Millisecond)
	defer stop()
	start := c.Now()
	timer := c.NewTimer(5 * time.Millisecond)
	fired := <-timer.C() // nobody else moves this clock: only DriveClock can fire it
	if fired.Sub(start) < 5*time.Millisecond {
		t.Errorf("fired %v after start, want at least 5ms", fired.Sub(start))
	}
}

func TestHTTPTransportServesMCPAtSlashMCP(t *testing.T) {
	cfg, err := app.ParseConfig([]string{"-backend", "fake", "-transport", "http", "-listen", "127.0.0.1:0"}, envOf(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr syncBuffer
	a := app.New(cfg, app.Stdio{In: strings.NewReader(""), Out: &stdout, Err: &stderr})
	ctx := context.Background()
	if err := a.Start(ctx); err != nil {
		t.Fatalf("start: %v\nstderr:\n%s", err, stderr.String())
	}
	defer func() {
		if err := a.Stop(ctx); err != nil {
			t.Errorf("stop: %v", err)
		}
		if stdout.String() != "" {
			t.Errorf("stdout = %q, want nothing", stdout.String())
		}
	}()
	m := regexp.MustCompile(`"url": "(http://127\.0\.0\.1:\d+/mcp)"`).FindStringSubmatch(stderr.String())
	if m == nil {
		t.Fatalf("no URL in the log:\n%s", stderr.String())
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "0"}, nil).
		Connect(ctx, &sdk.StreamableClientTransport{Endpoint: m[1]}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	runEcho(t, cs, string(app.DemoPane))
}

// A start that fails after the private tmux server was started (here: the
// audit log cannot be opened) must not leave that server behind: fx runs
// no stop hook when building the application fails.
func TestMainStopsThePrivateTmuxServerWhenItCannotStart(t *testing.T) {
	gate.Real(t, "tmux")
	gate.Need(t, "tmux")
	t.Setenv("SHELL", "/bin/sh")
	var stdout, stderr syncBuffer
	code := app.Main([]string{"-audit", filepath.Join(t.TempDir(), "no", "such", "dir", "audit.log")}, envOf(nil),
		app.Stdio{In: strings.NewReader(""), Out: &stdout, Err: &stderr})
	if code != app.ExitUsage {
		t.Errorf("Main = %d, want %d when the audit log cannot be opened", code, app.ExitUsage)
	}
	m := regexp.MustCompile(`"socket": "([^"]+)"`).FindStringSubmatch(stderr.String())
	if m == nil {
		t.Fatalf("no private socket named in the log:\n%s", stderr.String())
	}
	socket := m[1]
	if err := exec.Command("tmux", "-L", socket, "has-session").Run(); err == nil {
		t.Errorf("the private tmux server %s still runs after the start failed", socket)
		_ = exec.Command("tmux", "-L", socket, "kill-server").Run()
		dir := os.Getenv("TMUX_TMPDIR")
		if dir == "" {
			dir = "/tmp"
		}
		// tmux 3.3a leaves the socket file of a killed server.
		_ = os.Remove(filepath.Join(dir, fmt.Sprintf("tmux-%d", os.Getuid()), socket))
	}
}
