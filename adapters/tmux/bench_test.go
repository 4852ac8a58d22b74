package tmux

import (
	"context"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// The benchmarks compare Pane's commands run as a tmux subprocess (the
// path of every call before commands went over control clients, and still
// the path of Capture and Paste) with Pane as it runs now, over the
// control client it attaches, and with the smallest command over that
// client.

// benchPane starts a server with a shell pane.
func benchPane(b *testing.B) (*Terminal, ports.PaneID) {
	s := newTestServer(b)
	p := s.session("main", bashCmd)
	return s.terminal(Options{}), p
}

func BenchmarkPaneProcess(b *testing.B) {
	term, p := benchPane(b)
	ctx := context.Background()
	for b.Loop() {
		if _, err := term.run(ctx, nil, paneArgs(p)...); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPane(b *testing.B) {
	term, p := benchPane(b)
	ctx := context.Background()
	if _, err := term.Pane(ctx, p); err != nil {
		b.Fatal(err)
	}
	start := term.processes.Load()
	for b.Loop() {
		if _, err := term.Pane(ctx, p); err != nil {
			b.Fatal(err)
		}
	}
	if n := term.processes.Load() - start; n != 0 {
		b.Fatalf("Pane ran %d tmux processes, want none", n)
	}
}

func BenchmarkControlCommand(b *testing.B) {
	term, p := benchPane(b)
	ctx := context.Background()
	stream, err := term.OpenOutput(ctx, p)
	if err != nil {
		b.Fatal(err)
	}
	defer stream.Close()
	c := listener(term, p)
	for b.Loop() {
		if _, err := term.sessionPanes(ctx, c); err != nil {
			b.Fatal(err)
		}
	}
}
