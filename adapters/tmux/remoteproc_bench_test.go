package tmux

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/ports"
	"github.com/tmux-mcp/tmux-mcp/test/sshtest"
)

// What one question about a pane's processes costs over ssh, on the
// private sshd on loopback, against what it costs here and what a
// process per question would: the end confirmation asks Foreground at
// every end of a command.

func benchSSHPane(b *testing.B) (local, remote *Terminal, pid int, p ports.PaneID) {
	d := newSSHD(b, sshtest.Options{})
	s := newTestServer(b)
	pane := s.session("main", bashCmd)
	s.waitPrompt(pane)
	pid, _ = strconv.Atoi(strings.TrimSpace(s.tmux("display-message", "-p", "-t", string(pane), "#{pane_pid}")))
	return s.terminal(Options{}), s.sshTerminal(d, Options{}), pid, pane
}

// BenchmarkForegroundLocal reads /proc here.
func BenchmarkForegroundLocal(b *testing.B) {
	local, _, _, p := benchSSHPane(b)
	ctx := context.Background()
	for b.Loop() {
		if _, err := local.Foreground(ctx, p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSSHForeground asks the remote reader: a line each way and,
// there, the shell's builtins and one od.
func BenchmarkSSHForeground(b *testing.B) {
	_, remote, _, p := benchSSHPane(b)
	ctx := context.Background()
	if _, err := remote.Foreground(ctx, p); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := remote.Foreground(ctx, p); err != nil {
			b.Fatal(err)
		}
	}
	if n := remote.proc.starts.Load(); n != 1 {
		b.Fatalf("%d reader sessions, want 1", n)
	}
	if h, err := remote.proc.hello(ctx); err != nil || !h.nuls {
		b.Fatalf("the reader: %+v, %v; want it under bash, which reads command lines itself", h, err)
	}
}

// BenchmarkSSHForegroundUnderSh asks a reader that runs under /bin/sh
// (dash here), as on a host without bash: one od per question.
func BenchmarkSSHForegroundUnderSh(b *testing.B) {
	_, remote, _, p := benchSSHPane(b)
	remote.proc.start = func(ctx context.Context) (*procSession, error) {
		return remote.launch.startProcReader(ctx, remote.opts.CommandTimeout, "exec /bin/sh -c "+shellQuote(procScript))
	}
	ctx := context.Background()
	if _, err := remote.Foreground(ctx, p); err != nil {
		b.Fatal(err)
	}
	if h, err := remote.proc.hello(ctx); err != nil || h.nuls {
		b.Fatalf("the reader under /bin/sh: %+v, %v; want one that needs od", h, err)
	}
	for b.Loop() {
		if _, err := remote.Foreground(ctx, p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSSHLineEditing asks the remote reader, which runs stty.
func BenchmarkSSHLineEditing(b *testing.B) {
	_, remote, _, p := benchSSHPane(b)
	ctx := context.Background()
	for b.Loop() {
		if _, err := remote.LineEditing(ctx, p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSSHReaderRoundTrip is a question that starts no process
// there (a process without an entry): the connection and the shell's
// loop alone.
func BenchmarkSSHReaderRoundTrip(b *testing.B) {
	_, remote, _, _ := benchSSHPane(b)
	ctx := context.Background()
	for b.Loop() {
		if _, err := remote.proc.ask(ctx, procQuery{"fg", []int{procMaxArg}}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSSHProcessPerQuestion is what the reader saves: one ssh
// session on the master per question (here, a cat of the pane's stat).
func BenchmarkSSHProcessPerQuestion(b *testing.B) {
	_, remote, pid, _ := benchSSHPane(b)
	ctx := context.Background()
	for b.Loop() {
		cmd, err := remote.launch.ssh.command(ctx, []string{"cat", "/proc/" + strconv.Itoa(pid) + "/stat"})
		if err != nil {
			b.Fatal(err)
		}
		if out, err := cmd.Output(); err != nil || len(out) == 0 {
			b.Fatal(err)
		}
	}
}
