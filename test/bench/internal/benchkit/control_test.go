package benchkit

import (
	"strings"
	"testing"
)

func TestTmuxQuoteEscapesEverythingTmuxCouldRead(t *testing.T) {
	got := tmuxQuote(`printf '<%s>\n' X$((1+1)) #{x};~"`)
	want := `"printf \047\074\045s\076\134n\047 X\044\050\0501+1\051\051 \043\173x\175\073\176\042"`
	if got != want {
		t.Errorf("tmuxQuote = %s, want %s", got, want)
	}
	if got := tmuxQuote("%1 C-c"); got != `"\0451 C-c"` {
		t.Errorf("tmuxQuote = %s", got)
	}
}

func TestUnescapeOutputDecodesOctalEscapes(t *testing.T) {
	for in, want := range map[string]string{
		`X2\015\012$ `:  "X2\r\n$ ",
		`a\134b`:        `a\b`,
		`é日`:            "é日",
		`cut \01`:       `cut \01`,
		`not \9999 oct`: `not \9999 oct`,
	} {
		if got := string(unescapeOutput([]byte(in))); got != want {
			t.Errorf("unescapeOutput(%q) = %q, want %q", in, got, want)
		}
	}
}

// The reader takes the first block that no command of the client asked
// for as the attach, passes on the replies to its commands and the output
// of the floor pane alone, and reads a line that looks like the end of a
// block as output unless it ends the open one.
func TestControlReaderSortsTheLines(t *testing.T) {
	c := &controlClient{pane: "%1", events: make(chan controlEvent, 16), done: make(chan struct{})}
	attached := make(chan error, 1)
	c.read(strings.NewReader(strings.Join([]string{
		"%begin 10 1 0", "%end 10 1 0",
		"%session-changed $1 floor",
		"%output %1 X2\\015\\012",
		"%output %9 not the floor pane",
		"%begin 11 2 1", "%end 99 9 1", "%end 11 2 1",
		"%begin 12 3 1", "unknown key: Bogus", "%error 12 3 1",
		"%output %1 $ ",
	}, "\n")+"\n"), attached)
	if err, open := <-attached; err != nil || open {
		t.Errorf("attach: %v (channel open %v), want a closed channel", err, open)
	}
	var got []controlEvent
	for ev := range c.events {
		got = append(got, ev)
	}
	if len(got) != 4 {
		t.Fatalf("events = %+v, want 4", got)
	}
	if string(got[0].data) != "X2\r\n" || got[0].reply {
		t.Errorf("first event %+v, want the floor pane's output", got[0])
	}
	if !got[1].reply || got[1].err != "" {
		t.Errorf("second event %+v, want the %%end of a command", got[1])
	}
	if !got[2].reply || got[2].err != "unknown key: Bogus" {
		t.Errorf("third event %+v, want the %%error of a command with its message", got[2])
	}
	if string(got[3].data) != "$ " {
		t.Errorf("fourth event %+v, want the prompt", got[3])
	}
	select {
	case <-c.done:
	default:
		t.Error("done still open after the output ended")
	}
}
