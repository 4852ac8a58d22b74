package app_test

//lint:file-ignore SA1019 MCP logging (logging/setLevel, notifications/message) is deprecated from protocol version 2026-07-28 (SEP-2577), not removed: the earlier versions this server also speaks have it, and their clients ask for it.

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmux-mcp/tmux-mcp/adapters/mcp"
	"github.com/tmux-mcp/tmux-mcp/app"
)

// The process's log lines reach a client that asked for them as the very
// lines stderr gets, through Main as the binary runs it: the bridge is
// wired into the process's logging, not beside it.
func TestMainSendsItsLogLinesToAClientThatAsks(t *testing.T) {
	heard := make(chan *sdk.LoggingMessageParams, 64)
	cs, stderr, end := mainSessionOpts(t, nil, &sdk.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, req *sdk.LoggingMessageRequest) {
			select {
			case heard <- req.Params:
			default:
			}
		},
	}, "-backend", "fake")
	defer func() {
		if code, _ := end(); code != app.ExitOK {
			t.Errorf("Main = %d\nstderr:\n%s", code, stderr.String())
		}
	}()
	if err := cs.SetLoggingLevel(context.Background(), &sdk.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	callOK(t, cs, "capture_pane", map[string]any{"paneId": string(app.DemoPane)})
	deadline := time.After(20 * time.Second)
	for {
		select {
		case l := <-heard:
			text := fmt.Sprint(l.Data)
			if !strings.Contains(text, "tool call done") {
				continue
			}
			if l.Level != "info" || l.Logger != mcp.LoggerName {
				t.Errorf("the line came at level %s from logger %q, want info from %s", l.Level, l.Logger, mcp.LoggerName)
			}
			if !strings.Contains(stderr.String(), text+"\n") {
				t.Errorf("the client heard %q, which is not a line of stderr:\n%s", text, stderr.String())
			}
			return
		case <-deadline:
			t.Fatalf("no notifications/message for the tool call\nstderr:\n%s", stderr.String())
		}
	}
}

// A client that never asks hears nothing, however much the server logs.
func TestMainSendsNoLogLinesToAClientThatDoesNotAsk(t *testing.T) {
	var (
		mu    sync.Mutex
		heard []string
	)
	cs, stderr, end := mainSessionOpts(t, nil, &sdk.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, req *sdk.LoggingMessageRequest) {
			mu.Lock()
			heard = append(heard, fmt.Sprint(req.Params.Data))
			mu.Unlock()
		},
	}, "-backend", "fake")
	callOK(t, cs, "capture_pane", map[string]any{"paneId": string(app.DemoPane)})
	if code, lines := end(); code != app.ExitOK || strings.Contains(strings.Join(lines, "\n"), "notifications/message") {
		t.Errorf("Main = %d; stdout carries notifications/message to a client that set no level:\n%s\nstderr:\n%s",
			code, strings.Join(lines, "\n"), stderr.String())
	}
	mu.Lock()
	defer mu.Unlock()
	if len(heard) != 0 {
		t.Errorf("heard %q", heard)
	}
}
