package benchkit

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Server is a running tmux-mcp server and the MCP client session connected
// to it.
type Server struct {
	Session *sdk.ClientSession
	// PID is the server's process id, or 0 when the server runs inside
	// the harness, where its memory and CPU cannot be told apart from the
	// harness's own.
	PID int
	// Stop ends the session and the server, and waits for the server to
	// exit.
	Stop func() error
}

// A StartFunc starts a server with the given command-line arguments,
// writing its log to logPath, and connects a client to it.
type StartFunc func(ctx context.Context, args []string, logPath string) (*Server, error)

// NewClient returns the MCP client the benchmark uses.
func NewClient() *sdk.Client {
	return sdk.NewClient(&sdk.Implementation{Name: "tmux-mcp-bench", Version: "0"}, nil)
}

// buildServer builds the server binary into dir with the go command gobin
// and returns its path. It builds in the module's root, found with
// `go env GOMOD`, so that the benchmark can be started from any directory
// of the module.
func buildServer(ctx context.Context, gobin, dir string) (string, error) {
	out, err := exec.CommandContext(ctx, gobin, "env", "GOMOD").Output()
	if err != nil || strings.TrimSpace(string(out)) == "" || strings.TrimSpace(string(out)) == os.DevNull {
		return "", fmt.Errorf("find the module root (go env GOMOD = %q): %v", strings.TrimSpace(string(out)), err)
	}
	bin := filepath.Join(dir, "tmux-mcp")
	cmd := exec.CommandContext(ctx, gobin, "build", "-trimpath", "-o", bin, "./cmd/tmux-mcp")
	cmd.Dir = filepath.Dir(strings.TrimSpace(string(out)))
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/tmux-mcp: %w\n%s", err, b)
	}
	return bin, nil
}

// serverEnv is the server's environment: the harness's, without the
// variables that would tell the server it runs inside a tmux pane (it
// would then treat that pane as its own).
func serverEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TMUX=") && !strings.HasPrefix(kv, "TMUX_PANE=") {
			env = append(env, kv)
		}
	}
	return env
}

// startChild starts the server binary with args and connects an MCP client
// to it over stdio.
func startChild(ctx context.Context, bin string, args []string, logPath string) (*Server, error) {
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = serverEnv()
	cmd.Stderr = logf
	// Should the harness die without cleaning up, the server's stdin
	// closes with it, and the server exits on its own.
	transport := &sdk.CommandTransport{Command: cmd, TerminateDuration: 3 * time.Second}
	cs, err := NewClient().Connect(ctx, transport, nil)
	if err != nil {
		if cmd.Process != nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
		logf.Close()
		return nil, fmt.Errorf("start %s: %w (log: %s)", bin, err, logPath)
	}
	return &Server{Session: cs, PID: cmd.Process.Pid, Stop: func() error {
		defer logf.Close()
		return cs.Close() // closes stdin, then signals the server if it lingers
	}}, nil
}

// tmuxTracer counts and times the tmux processes the server runs: the
// server is given a bash wrapper as its tmux binary, which logs each
// invocation's command and how long tmux ran. The wrapper's own cost (a
// bash start and a few forks) inflates every call, so a traced run is for
// counting and attribution, not for timing calls.
type tmuxTracer struct {
	wrapper, log string
}

// newTmuxTracer writes the wrapper for tmuxBin into dir.
func newTmuxTracer(dir, tmuxBin string) (*tmuxTracer, error) {
	bin, err := exec.LookPath(tmuxBin)
	if err != nil {
		return nil, err
	}
	if bin, err = filepath.Abs(bin); err != nil {
		return nil, err
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		return nil, fmt.Errorf("the tmux tracer needs bash: %w", err)
	}
	t := &tmuxTracer{wrapper: filepath.Join(dir, "tmux-trace"), log: filepath.Join(dir, "tmux-trace.log")}
	// One line per invocation: start and end times (0 0 for a control
	// client, which is not timed but exec'd, so that signals reach tmux),
	// then the arguments after the socket flag, each followed by RS
	// (036), with line breaks in typed text turned into spaces.
	script := fmt.Sprintf(`#!%s
log='%s' tmux='%s'
args=$(if [ "$1" = -L ] || [ "$1" = -S ]; then shift 2; fi; printf '%%s\036' "$@" | tr '\n' ' ')
case "$args" in -C*) echo "0 0 $args" >>"$log"; exec "$tmux" "$@";; esac
start=$EPOCHREALTIME
"$tmux" "$@"
rc=$?
echo "$start $EPOCHREALTIME $args" >>"$log"
exit $rc
`, bash, t.log, bin)
	if err := os.WriteFile(t.wrapper, []byte(script), 0o755); err != nil {
		return nil, err
	}
	return t, nil
}

// lines returns the invocations logged so far.
func (t *tmuxTracer) lines() []string {
	b, err := os.ReadFile(t.log)
	if err != nil || len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}
