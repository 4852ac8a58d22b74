package domain_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// chattyTerminal is a Terminal with one pane whose program writes out in
// pieces of chunk bytes, one piece each time the reader reads: a busy pane
// whose reader keeps up with it, as wait_for_text's is while it waits.
type chattyTerminal struct {
	ports.Terminal
	out   []byte
	chunk int
}

var chattyPane = ports.PaneInfo{ID: "%1", Generation: "g", Command: "bash", Height: 50, Width: 200}

func (t chattyTerminal) Pane(context.Context, ports.PaneID) (ports.PaneInfo, error) {
	return chattyPane, nil
}

func (t chattyTerminal) Capture(context.Context, ports.PaneID, ports.CaptureRange) ([]string, error) {
	return []string{"$ make"}, nil
}

func (t chattyTerminal) OpenOutput(context.Context, ports.PaneID) (ports.OutputStream, error) {
	changed := make(chan struct{})
	close(changed) // there is always more to read until the output is done
	return &chattyStream{out: t.out, chunk: t.chunk, changed: changed}, nil
}

type chattyStream struct {
	mu      sync.Mutex
	out     []byte
	chunk   int
	end     int // bytes written so far
	changed chan struct{}
}

func (s *chattyStream) Changed() <-chan struct{} { return s.changed }

func (s *chattyStream) ReadFrom(offset int64) ports.OutputChunk {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.end = min(s.end+s.chunk, len(s.out))
	return ports.OutputChunk{Offset: offset, Data: s.out[offset:s.end]}
}

func (s *chattyStream) End() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return int64(s.end)
}

func (s *chattyStream) Close() error { return nil }

// BenchmarkWaitForTextChattyPane waits for a pattern that a busy pane
// prints after 2 MB of build log, arriving 4 KB at a time. Its MB/s,
// compared with BenchmarkScan10MB's, tells how much each arriving chunk
// costs beyond reading it once.
func BenchmarkWaitForTextChattyPane(b *testing.B) {
	var log strings.Builder
	for i := 0; log.Len() < 2<<20; i++ {
		fmt.Fprintf(&log, "\x1b[32m[%6d]\x1b[0m compiling module %d of the project ... ok\r\n", i, i)
	}
	log.WriteString("BUILD DONE\r\n")
	term := chattyTerminal{out: []byte(log.String()), chunk: 4 << 10}
	b.SetBytes(int64(log.Len()))
	b.ReportAllocs()
	for b.Loop() {
		// A new Service each time, so that each wait opens a new stream.
		svc := domain.NewService(term, fake.NewClock(time.Unix(0, 0)), fake.NewIDs(), domain.DefaultConfig())
		res, err := svc.WaitForText(context.Background(), domain.WaitForTextRequest{PaneID: chattyPane.ID, Patterns: []string{"BUILD DONE"}})
		if err != nil {
			b.Fatal(err)
		}
		if res.Outcome != domain.WaitMatched {
			b.Fatalf("outcome %s, want matched", res.Outcome)
		}
		svc.Close()
	}
}
