// Command profile runs the end-to-end benchmark of test/bench with the
// server inside its own process, connected over pipes, so that
// -cpuprofile and -memprofile cover the server's code:
//
//	go run ./test/bench/profile -run 'true|concurrency' -cpuprofile cpu.prof
//	go tool pprof -top -cum cpu.prof
//
// The profile also holds the benchmark's own client, and the server's
// memory and CPU figures are not printed: they cannot be told apart from
// the harness's.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmux-mcp/tmux-mcp/app"
	"github.com/tmux-mcp/tmux-mcp/test/bench/internal/benchkit"
)

func main() {
	os.Exit(benchkit.Main(startInProcess))
}

// startInProcess runs the server as app.Main with args, over pipes.
func startInProcess(ctx context.Context, args []string, logPath string) (*benchkit.Server, error) {
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	// The tmux adapter reads TMUX and TMUX_PANE from the process's
	// environment; this process must not look as if it ran in a pane.
	os.Unsetenv("TMUX")
	os.Unsetenv("TMUX_PANE")
	stdinR, stdinW := io.Pipe()
	stdoutR, stdoutW := io.Pipe()
	exit := make(chan int, 1)
	go func() {
		code := app.Main(args, os.Getenv, app.Stdio{In: stdinR, Out: stdoutW, Err: logf})
		stdoutW.Close()
		exit <- code
	}()
	cs, err := benchkit.NewClient().Connect(ctx, &sdk.IOTransport{Reader: stdoutR, Writer: stdinW}, nil)
	if err != nil {
		stdinW.Close()
		<-exit
		logf.Close()
		return nil, fmt.Errorf("start the server in process: %w (log: %s)", err, logPath)
	}
	return &benchkit.Server{Session: cs, Stop: func() error {
		defer logf.Close()
		err := cs.Close() // ends the server's stdin: it shuts down
		select {
		case code := <-exit:
			if code != app.ExitOK && err == nil {
				err = fmt.Errorf("server exited with code %d", code)
			}
		case <-time.After(5 * time.Second):
			err = fmt.Errorf("server still running 5s after its stdin closed")
		}
		return err
	}}, nil
}
