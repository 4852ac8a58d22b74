package mcp_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/adapters/mcp"
	"github.com/tmux-mcp/tmux-mcp/domain"
)

// benchStdio serves tools on pipes and returns a function that sends one
// line and waits for the reply to it: the whole stdio path of a call, from
// the line read to the reply written, with no terminal behind it.
func benchStdio(b *testing.B, tools *stubTools) func(line string) {
	b.Helper()
	stdinR, stdinW := io.Pipe()
	stdoutR, stdoutW := io.Pipe()
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	srv := mcp.NewServer(tools, mcp.Options{Version: "1.2.3"})
	go func() {
		served <- srv.ServeStdio(ctx, stdinR, stdoutW, mcp.StdioOptions{})
		stdoutW.Close()
	}()
	replies := bufio.NewReaderSize(stdoutR, 1<<20)
	call := func(line string) {
		if _, err := io.WriteString(stdinW, line+"\n"); err != nil {
			b.Fatalf("write: %v", err)
		}
		for {
			got, err := replies.ReadString('\n')
			if err != nil {
				b.Fatalf("read the reply: %v", err)
			}
			if strings.Contains(got, `"error"`) {
				b.Fatalf("reply %s", got)
			}
			if strings.Contains(got, `"id"`) {
				return
			}
		}
	}
	b.Cleanup(func() {
		stop()
		stdinW.Close()
		<-served
	})
	call(initializeLine(1, "2025-06-18"))
	if _, err := io.WriteString(stdinW, initializedLine+"\n"); err != nil {
		b.Fatal(err)
	}
	return call
}

// BenchmarkStdioSendKeys is a light call through the stdio transport: what
// the transport and the SDK add to every call.
func BenchmarkStdioSendKeys(b *testing.B) {
	tools := &stubTools{keys: func(_ context.Context, req domain.SendKeysRequest) (domain.SendKeysResult, error) {
		return domain.SendKeysResult{PaneID: req.PaneID, Sent: []string{"C-c"}}, nil
	}}
	call := benchStdio(b, tools)
	b.ReportAllocs()
	id := 2
	for b.Loop() {
		call(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"send_keys","arguments":{"paneId":"%%1","keys":"C-c","enter":false}}}`, id))
		id++
	}
}

// BenchmarkStdioCaptureScreen is a call whose result is a full screen (50
// rows of 150 characters, 7.5 KB): what the transport and the SDK add per
// byte of a result, which is encoded twice (its structured content and its
// text) and then passed over again by every layer that wraps it.
func BenchmarkStdioCaptureScreen(b *testing.B) {
	mcp.WithoutResultChecks(b)
	row := ": 'make test'; [ -r '/dev/shm/tmux-mcp-20268-971611986/98' ] || builtin printf '\\033]7717;tmcp;X;0a968feeaecb721d\\007'; . 'x' <&>"
	text := strings.Repeat(row+strings.Repeat(" ", 150-len(row))+"\n", 50)
	tools := &stubTools{capture: func(_ context.Context, req domain.CaptureRequest) (domain.CaptureResult, error) {
		first, last := int64(0), int64(49)
		return domain.CaptureResult{PaneID: req.PaneID, Text: text, TotalLines: 50, ReturnedBytes: int64(len(text)),
			EffectiveStart: &first, EffectiveEnd: &last}, nil
	}}
	call := benchStdio(b, tools)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	id := 2
	for b.Loop() {
		call(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"capture_pane","arguments":{"paneId":"%%1"}}}`, id))
		id++
	}
}

// BenchmarkStdioPaste1MiB is a call whose argument is a 1 MiB text: how
// often the transport and the SDK read it.
func BenchmarkStdioPaste1MiB(b *testing.B) {
	tools := &stubTools{paste: func(_ context.Context, req domain.PasteRequest) (domain.PasteResult, error) {
		return domain.PasteResult{PaneID: req.PaneID, Bytes: int64(len(req.Text))}, nil
	}}
	call := benchStdio(b, tools)
	text := strings.Repeat("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde\\n", 1<<20/81)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	id := 2
	for b.Loop() {
		call(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"paste_text","arguments":{"paneId":"%%1","text":"%s"}}}`, id, text))
		id++
	}
}
