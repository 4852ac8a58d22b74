package tmux

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// The benchmarks compare Pane's commands run as a tmux subprocess (the
// path of every call before commands went over control clients, and still
// the path of a long Paste) with Pane as it runs now, over the control
// client it attaches, and with the smallest command over that client; and
// the two ways of Paste.

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

// BenchmarkPaste compares the two ways Paste can fill its buffer, at
// sizes around maxControlPaste, which it chooses by: set-buffer commands
// over the control client, and load-buffer from the standard input of a
// tmux process. The pane's program reads and discards what is pasted,
// without echo.
func BenchmarkPaste(b *testing.B) {
	s := newTestServer(b)
	p := s.session("main", []string{"sh", "-c", "stty -echo; exec cat >/dev/null"})
	term := s.terminal(Options{})
	ctx := context.Background()
	stream, err := term.OpenOutput(ctx, p)
	if err != nil {
		b.Fatal(err)
	}
	defer stream.Close()
	// Lines of letters, whose bytes go on the command line as they are,
	// and lines of shell code, most of whose bytes take four.
	prose := strings.Repeat(strings.Repeat("p", 79)+"\n", 1<<20/80)
	code := strings.Repeat(`if [ "$x" != '#{y}' ]; then printf '%s\n' "${z:-~}"; fi # é`+"\n", 1<<20/64)
	for _, c := range []struct {
		kind string
		text string
		size int
	}{
		{"prose", prose, 100}, {"prose", prose, 8 << 10}, {"prose", prose, 16 << 10}, {"prose", prose, 32 << 10}, {"prose", prose, 64 << 10},
		{"code", code, 8 << 10}, {"code", code, 16 << 10}, {"code", code, 32 << 10},
	} {
		size, text := c.size, c.text[:c.size]
		b.Run(fmt.Sprintf("control/%s/%d", c.kind, size), func(b *testing.B) {
			b.SetBytes(int64(size))
			start := term.processes.Load()
			for b.Loop() {
				out, ok, err := term.controlCommand(ctx, route{pane: p, typing: true}, splitCommands(pasteArgs(p, "tmux-mcp-bench", text)))
				if !ok || err != nil || out != "0\n" {
					b.Fatalf("paste over the control client: %q, %v, %v", out, ok, err)
				}
			}
			if n := term.processes.Load() - start; n != 0 {
				b.Fatalf("%d tmux processes, want none", n)
			}
		})
		b.Run(fmt.Sprintf("process/%s/%d", c.kind, size), func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				out, err := term.run(ctx, strings.NewReader(text), pasteArgs(p, "tmux-mcp-bench", "")...)
				if err != nil || out != "0\n" {
					b.Fatalf("paste as a process: %q, %v", out, err)
				}
			}
		})
	}
}

// BenchmarkLightCalls times, one by one, the Terminal calls that the light
// tools make, each over the control client: the lease taken and released
// (two command lines), Pane, SendKeys of C-c, Paste of 100 bytes and
// Capture of the screen. send_keys C-c is the lease, Pane and SendKeys;
// paste_text the lease, Pane and Paste; capture_pane Pane and Capture.
func BenchmarkLightCalls(b *testing.B) {
	s := newTestServer(b)
	p := s.session("main", bashCmd)
	q := s.split(p, []string{"sh", "-c", "stty -echo; exec cat >/dev/null"})
	term := s.terminal(Options{})
	ctx := context.Background()
	stream, err := term.OpenOutput(ctx, p)
	if err != nil {
		b.Fatal(err)
	}
	defer stream.Close()
	text := strings.Repeat(strings.Repeat("p", 49)+"\n", 2)
	calls := []struct {
		name string
		call func() error
	}{
		{"lease", func() error {
			if ok, holder, err := term.TryAcquire(ctx, p, "bench", time.Minute); err != nil || !ok {
				return fmt.Errorf("TryAcquire: %v, held by %q, %v", ok, holder, err)
			}
			return term.Release(ctx, p, "bench")
		}},
		{"AcquireAndDescribe+OpenOutput+Release", func() error {
			ok, holder, _, err := term.AcquireAndDescribe(ctx, p, "bench", time.Minute)
			if err != nil || !ok {
				return fmt.Errorf("AcquireAndDescribe: %v, held by %q, %v", ok, holder, err)
			}
			s, err := term.OpenOutput(ctx, p)
			if err != nil {
				return err
			}
			s.Close()
			return term.Release(ctx, p, "bench")
		}},
		{"Pane", func() error { _, err := term.Pane(ctx, p); return err }},
		{"SendKeys", func() error { return term.SendKeys(ctx, p, []string{"C-c"}) }},
		{"Paste", func() error { return term.Paste(ctx, q, text) }},
		{"Capture", func() error { _, err := term.Capture(ctx, p, ports.CaptureRange{Start: 0, End: 23}); return err }},
		{"CaptureScreen", func() error { _, _, err := term.CaptureScreen(ctx, p, false); return err }},
	}
	for _, c := range calls {
		b.Run(c.name, func(b *testing.B) {
			start := term.processes.Load()
			for b.Loop() {
				if err := c.call(); err != nil {
					b.Fatal(err)
				}
			}
			if n := term.processes.Load() - start; n != 0 {
				b.Fatalf("%s ran %d tmux processes, want none", c.name, n)
			}
		})
	}
}
