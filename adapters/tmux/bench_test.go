package tmux

import (
	"context"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// The benchmarks compare one command run as a tmux subprocess, as every
// Terminal method does, with one sent through an attached control client,
// as the stream checks do.

// benchPane starts a server with a shell pane.
func benchPane(b *testing.B) (*Terminal, ports.PaneID) {
	s := newTestServer(b)
	p := s.session("main", bashCmd)
	return s.terminal(Options{}), p
}

func BenchmarkPane(b *testing.B) {
	term, p := benchPane(b)
	ctx := context.Background()
	for b.Loop() {
		if _, err := term.Pane(ctx, p); err != nil {
			b.Fatal(err)
		}
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
