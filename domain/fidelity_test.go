package domain_test

import (
	"context"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
	"github.com/tmux-mcp/tmux-mcp/domain"
)

// Output that the text of a result cannot carry as it was — bytes that are
// not UTF-8, controls that show nothing, an escape sequence that never
// ended — is counted, and the output is not called complete: the text
// says what a terminal would show, and the counts say what it leaves out.

// fidelityCases are what a command prints (the fake's tty turns "\n" into
// "\r\n", as a real one does) and what run_shell_command returns for it.
var fidelityCases = []struct {
	name         string
	printed      string
	output       string
	text         string // capture_since's text, which keeps the last line break
	replaced     int64
	unterminated int64
}{
	// printf '\033]'; seq 1 5; echo tail: the OSC never ends, and hides
	// all that follows it, on the pane's screen too. 2 + 5×3 + 6 bytes.
	{"an OSC that never ends", "\x1b]1\n2\n3\n4\n5\ntail\n", "", "", 0, 23},
	// The line break before the end of the output is not output, though
	// something unseen follows it.
	{"text before an OSC that never ends", "ok\n\x1b]0;title", "ok", "ok\n", 0, 9},
	{"a CSI cut short at the end", "ok\x1b[3", "ok", "ok", 0, 3},
	{"a character cut short at the end", "ok\xe2\x82", "ok", "ok", 0, 2},
	{"bytes that are not UTF-8", "a\xff\xfeb\n", "a\uFFFD\uFFFDb", "a\uFFFD\uFFFDb\n", 2, 0},
	{"NUL and other controls that do nothing", "a\x00b\x01c\x7fd\n", "abcd", "abcd\n", 3, 0},
	// What a terminal acts on is removed, as escape sequences are, and
	// nothing is lost.
	{"an OSC ended by BEL", "\x1b]0;title\x07ok\n", "ok", "ok\n", 0, 0},
	{"an OSC ended by ST", "\x1b]0;title\x1b\\ok\n", "ok", "ok\n", 0, 0},
	{"an OSC ended by another sequence", "\x1b]0;title\x1b[1mok\n", "ok", "ok\n", 0, 0},
	{"an OSC cancelled by CAN", "\x1b]0;tit\x18ok\n", "ok", "ok\n", 0, 0},
	{"an OSC cancelled by SUB", "\x1b]0;tit\x1aok\n", "ok", "ok\n", 0, 0},
	{"a bell, colours and a tab", "\a\x1b[31mred\x1b[m\tok\n", "red\tok", "red\tok\n", 0, 0},
}

func TestRunCountsOutputTheTextCannotCarry(t *testing.T) {
	for _, c := range fidelityCases {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t, domain.DefaultConfig())
			r.term.Expect(r.pane, fake.Run{Output: c.printed})
			res := r.run(domain.RunRequest{Command: "print"})
			exact := c.replaced == 0 && c.unterminated == 0
			if res.Outcome != domain.OutcomeCompleted || res.Output != c.output || res.ReplacedBytes != c.replaced ||
				res.UnterminatedBytes != c.unterminated || res.OutputComplete != exact {
				t.Errorf("got output %q, replaced %d, unterminated %d, complete %v; want %q, %d, %d, %v",
					res.Output, res.ReplacedBytes, res.UnterminatedBytes, res.OutputComplete, c.output, c.replaced, c.unterminated, exact)
			}
		})
	}
}

// A result taken while the command runs on says that the escape sequence
// it ends in is unfinished; the rest of the sequence, when it comes, is
// not shown as text, and the end says nothing was lost.
func TestWaitForCommandReadsOnInsideAnEscapeSequence(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	first := r.timedOut(fake.Run{Output: "a\x1b]0;ti", Steps: []fake.Step{{At: 2 * time.Second, Output: "tle\ab\n"}},
		Delay: 3 * time.Second}, "title")
	if first.Output != "a" || first.UnterminatedBytes != 6 || first.OutputComplete {
		t.Fatalf("while it runs: output %q, unterminated %d, complete %v; want \"a\", 6, false",
			first.Output, first.UnterminatedBytes, first.OutputComplete)
	}
	reply := r.waitAsync(domain.WaitCommandRequest{})
	r.waitTimers(2)
	r.clock.Advance(2 * time.Second)
	got := r.await(reply)
	if got.err != nil || got.res.Outcome != domain.OutcomeCompleted || got.res.Output != "ab" ||
		got.res.UnterminatedBytes != 0 || got.res.ReplacedBytes != 0 || !got.res.OutputComplete {
		t.Fatalf("the end = %+v, %v; want completed, \"ab\", complete", got.res, got.err)
	}
}

func TestCaptureSinceCountsOutputTheTextCannotCarry(t *testing.T) {
	for _, c := range fidelityCases {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t, domain.DefaultConfig())
			seed, err := r.svc.CaptureSince(context.Background(), domain.CaptureSinceRequest{PaneID: r.pane})
			if err != nil {
				t.Fatal(err)
			}
			// The pane's program ends after printing, so that nothing
			// unfinished is held back for a later call.
			r.term.Inject(r.pane, []byte(crlf(c.printed)))
			r.term.KillPane(r.pane)
			res, err := r.svc.CaptureSince(context.Background(), domain.CaptureSinceRequest{PaneID: r.pane, Cursor: *seed.Cursor})
			if err != nil {
				t.Fatal(err)
			}
			want := c.text
			if res.Text != want || res.ReplacedBytes != c.replaced || res.UnterminatedBytes != c.unterminated || res.Streaming {
				t.Errorf("got text %q, replaced %d, unterminated %d, streaming %v; want %q, %d, %d, false",
					res.Text, res.ReplacedBytes, res.UnterminatedBytes, res.Streaming, want, c.replaced, c.unterminated)
			}
		})
	}
}

// While the pane goes on, an escape sequence it is in the middle of stays
// behind the cursor, and the call that reads it whole counts nothing.
func TestCaptureSinceHoldsBackAnUnfinishedSequence(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	seed, err := r.svc.CaptureSince(context.Background(), domain.CaptureSinceRequest{PaneID: r.pane})
	if err != nil {
		t.Fatal(err)
	}
	r.term.Inject(r.pane, []byte("ok\r\n\x1b]0;ti"))
	first, err := r.svc.CaptureSince(context.Background(), domain.CaptureSinceRequest{PaneID: r.pane, Cursor: *seed.Cursor})
	if err != nil {
		t.Fatal(err)
	}
	if first.Text != "ok\n" || first.UnterminatedBytes != 0 || !first.Streaming {
		t.Fatalf("first read: %+v; want \"ok\\n\", nothing unterminated", first)
	}
	r.term.Inject(r.pane, []byte("tle\a\xffx\r\n"))
	second, err := r.svc.CaptureSince(context.Background(), domain.CaptureSinceRequest{PaneID: r.pane, Cursor: *first.Cursor})
	if err != nil {
		t.Fatal(err)
	}
	if second.Text != "\uFFFDx\n" || second.ReplacedBytes != 1 || second.UnterminatedBytes != 0 {
		t.Fatalf("second read: %+v; want the title removed, one byte replaced", second)
	}
}

func TestWaitForTextCountsOutputTheTextCannotCarry(t *testing.T) {
	r := newRig(t, domain.DefaultConfig())
	reply := make(chan domain.WaitForTextResult, 1)
	r.calls.start("wait_for_text", func() (any, error) {
		res, err := r.svc.WaitForText(context.Background(), domain.WaitForTextRequest{PaneID: r.pane, Patterns: []string{"done"}, TimeoutMs: 5000})
		reply <- res
		return res, err
	})
	r.waitTimers(2)
	r.term.Inject(r.pane, []byte("a\xff\x00b\r\n\x1b]0;title\r\n"))
	r.term.Inject(r.pane, []byte("done\r\n")) // inside the title: not shown, no match
	r.clock.Advance(5 * time.Second)
	res := <-reply
	if res.Outcome != domain.WaitTimedOut || res.Output != "a\uFFFDb\n" || res.ReplacedBytes != 2 || res.UnterminatedBytes != 17 {
		t.Fatalf("got %+v; want timed_out, \"a\\uFFFDb\\n\", 2 replaced, 17 unterminated", res)
	}
}

// crlf is s as a tty passes it on: "\n" as "\r\n".
func crlf(s string) string {
	var b []byte
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			b = append(b, '\r')
		}
		b = append(b, s[i])
	}
	return string(b)
}
