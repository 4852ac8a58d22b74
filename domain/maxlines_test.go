package domain_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
	"github.com/tmux-mcp/tmux-mcp/domain"
)

// numbered returns n lines "line 1\n" to "line n\n".
func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString("line " + itoa(i) + "\n")
	}
	return b.String()
}

// A call that gives no maxLines keeps the newest Config.MaxResultLines
// lines of its text, whichever tool it is, and counts the others.
func TestEveryResultKeepsMaxResultLinesWhenTheCallGivesNone(t *testing.T) {
	cfg := domain.DefaultConfig()
	cfg.MaxResultLines = 3
	ctx := context.Background()
	kept := func(t *testing.T, tool, text string, dropped int64) {
		t.Helper()
		if lines := strings.Count(strings.TrimSuffix(text, "\n"), "\n") + 1; lines != 3 || dropped == 0 {
			t.Errorf("%s kept %d lines (%q), dropped %d; want the newest 3 and the rest counted", tool, lines, text, dropped)
		}
	}

	t.Run("run_shell_command", func(t *testing.T) {
		r := newRig(t, cfg)
		r.term.Expect(r.pane, fake.Run{Output: numbered(5)})
		res := r.run(domain.RunRequest{Command: "seq"})
		if res.Output != "line 3\nline 4\nline 5" || res.DroppedLines != 2 || res.OutputComplete {
			t.Errorf("got %+v; want lines 3 to 5, 2 dropped", res)
		}
	})
	t.Run("wait_for_command", func(t *testing.T) {
		r := newRig(t, cfg)
		// The run itself kept more than the default; the wait keeps
		// what its own maxLines, the default, allows.
		r.term.Expect(r.pane, fake.Run{Output: numbered(5), Hang: true})
		reply := r.runAsync(ctx, domain.RunRequest{Command: "seq; sleep", TimeoutMs: 1000, MaxLines: 100})
		r.waitTimers(2)
		r.clock.Advance(time.Second)
		if got := r.await(reply); got.err != nil || got.res.DroppedLines != 0 {
			t.Fatalf("run = %+v, %v; want all five lines", got.res, got.err)
		}
		reply = r.waitAsync(domain.WaitCommandRequest{TimeoutMs: 1000})
		r.waitTimers(2)
		r.clock.Advance(time.Second)
		got := r.await(reply)
		if got.err != nil || got.res.Output != "line 3\nline 4\nline 5" || got.res.DroppedLines != 2 {
			t.Errorf("wait = %+v, %v; want lines 3 to 5, 2 dropped", got.res, got.err)
		}
	})
	t.Run("capture_pane", func(t *testing.T) {
		r := newRig(t, cfg)
		r.fill(10)
		res, err := r.svc.CapturePane(ctx, domain.CaptureRequest{PaneID: r.pane})
		if err != nil {
			t.Fatal(err)
		}
		kept(t, "capture_pane", res.Text, res.DroppedLines)
	})
	t.Run("capture_since", func(t *testing.T) {
		r := newRig(t, cfg)
		r.fill(10)
		seed := since(t, r, "", 0)
		kept(t, "capture_since without a cursor", seed.Text, seed.DroppedLines)
		r.term.Inject(r.pane, []byte(strings.ReplaceAll(numbered(5), "\n", "\r\n")))
		res := since(t, r, *seed.Cursor, 0)
		if res.Text != "line 3\nline 4\nline 5\n" || res.DroppedLines != 2 {
			t.Errorf("capture_since = %+v; want lines 3 to 5, 2 dropped", res)
		}
	})
	t.Run("wait_for_text", func(t *testing.T) {
		r := newRig(t, cfg)
		reply := waitText(r, ctx, domain.WaitForTextRequest{Patterns: []string{"line 5"}})
		r.waitTimers(1)
		r.term.Inject(r.pane, []byte(strings.ReplaceAll(numbered(5), "\n", "\r\n")))
		res := <-reply
		if res.Outcome != domain.WaitMatched || res.Output != "line 3\nline 4\nline 5\n" || res.DroppedLines != 2 {
			t.Errorf("wait_for_text = %+v; want matched, lines 3 to 5, 2 dropped", res)
		}
	})
}

// The contract's default is 200 lines.
func TestTheDefaultMaxResultLinesIs200(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	r.term.Expect(r.pane, fake.Run{Output: numbered(201)})
	res := r.run(domain.RunRequest{Command: "seq 201"})
	if !strings.HasPrefix(res.Output, "line 2\n") || res.DroppedLines != 1 {
		t.Errorf("a run of 201 lines kept from %.10q, dropped %d; want lines 2 to 201", res.Output, res.DroppedLines)
	}
}
