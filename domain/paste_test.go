package domain_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/golang/mock/gomock"

	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
	"github.com/tmux-mcp/tmux-mcp/adapters/mocks"
	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/domain/fault"
)

// pasteTo pastes text into a fresh fake bash pane that asked for
// bracketed paste, as bash 5.2 does by default, and returns the rig and
// the call's error.
func pasteTo(t *testing.T, text string) (*rig, error) {
	t.Helper()
	r := newRig(t, domain.DefaultConfig())
	r.term.SetBracketedPaste(r.pane, true)
	_, err := r.svc.PasteText(context.Background(), domain.PasteRequest{PaneID: r.pane, Text: text})
	return r, err
}

// ran reports whether the pane's shell printed out: the lines the tests
// paste compute what they print ($((...))), so that the echo of a pasted
// line never matches.
func (r *rig) ran(out string) bool {
	return strings.Contains(strings.ReplaceAll(string(r.term.Output(r.pane)), "\r\n", "\n"), "\n"+out+"\n")
}

// pastedAsGiven reports whether sent is text pasted once, exactly.
func pastedAsGiven(sent []fake.Input, text string) bool {
	return len(sent) == 1 && sent[0].Kind == fake.InputPaste && sent[0].Text == text && sent[0].Via == ""
}

// A text holding the end of a bracketed paste would end the paste early,
// and the program would read the rest as typed keys: a shell runs each of
// its lines though enter is false. Such a text is refused before anything
// is sent, wherever the sequence is, in its 7-bit form (ESC [) and its
// 8-bit one (the C1 control CSI).
func TestPasteRefusesTheEndOfABracketedPaste(t *testing.T) {
	const (
		seven = "ESC [ 2 0 1 ~"
		char  = "U+009B then"
		byte_ = "the byte 0x9b"
	)
	for _, c := range []struct {
		name, text string
		at         string // the byte offset the error names
		form       string // and how the end is written there
	}{
		{"the tester's text", "echo one-$((0+1))\x1b[201~\necho INJECTED-$((1+1))\n", "byte 17", seven},
		{"first", "\x1b[201~\necho INJECTED-$((1+1))\n", "byte 0", seven},
		{"last", "echo one-$((0+1))\n\x1b[201~", "byte 18", seven},
		{"twice", "a\x1b[201~b\x1b[201~", "byte 1", seven},
		{"after a start", "\x1b[200~\x1b[201~\necho INJECTED-$((1+1))\n", "byte 6", seven},
		{"8-bit, as the character U+009B", "x\u009b201~\necho INJECTED-$((1+1))\n", "byte 1", char},
		{"8-bit, as a byte of its own", "x\x9b201~\necho INJECTED-$((1+1))\n", "byte 1", byte_},
		{"8-bit, a byte of its own, first", "\x9b201~", "byte 0", byte_},
		{"8-bit before 7-bit", "\u009b201~\x1b[201~", "byte 0", char},
		{"7-bit before 8-bit", "\x1b[201~\u009b201~", "byte 0", seven},
		{"8-bit after a character ending in 0x9b", "\u00db201~\u009b201~", "byte 6", char},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := pasteTo(t, c.text)
			var arg *fault.ArgumentError
			if !errors.As(err, &arg) || arg.Field != "text" {
				t.Fatalf("err = %v, want an ArgumentError on text", err)
			}
			for _, want := range []string{"bracketed paste", c.at + ", ", c.form, "nothing was pasted"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("err = %q, want it to say %q", err, want)
				}
			}
			if sent := r.term.Sent(r.pane); len(sent) != 0 {
				t.Errorf("sent %+v", sent)
			}
			if r.ran("INJECTED-2") {
				t.Errorf("the line after the sequence ran: %q", r.term.Output(r.pane))
			}
			// The refusal holds nothing: the pane takes the next paste.
			if _, err := r.svc.PasteText(context.Background(), domain.PasteRequest{PaneID: r.pane, Text: "x"}); err != nil {
				t.Errorf("a paste after the refusal: %v", err)
			}
		})
	}
}

// The refusal comes before the pane is so much as looked at: a terminal
// that expects no call sees none, neither the paste nor the Enter, nor
// the lease or the description that a write starts with.
func TestARefusedPasteAsksTheTerminalNothing(t *testing.T) {
	ctrl := gomock.NewController(t)
	clock, _ := mockClock(ctrl)
	svc := domain.NewService(mocks.NewMockTerminal(ctrl), clock, fake.NewIDs(), domain.DefaultConfig())
	_, err := svc.PasteText(context.Background(), domain.PasteRequest{PaneID: "%1", Text: "a\x1b[201~b", Enter: true, Force: true})
	if !errors.Is(err, fault.ErrInvalidArgument) {
		t.Fatalf("err = %v, want an ArgumentError", err)
	}
}

// The guard is what keeps the line from running: without the end
// sequence in it, the same text is pasted, and its lines wait for Enter.
func TestPasteOfTheSameTextWithoutTheEndRunsNothing(t *testing.T) {
	text := "echo one-$((0+1))\necho INJECTED-$((1+1))\n"
	r, err := pasteTo(t, text)
	if err != nil {
		t.Fatal(err)
	}
	if sent := r.term.Sent(r.pane); !pastedAsGiven(sent, text) {
		t.Errorf("sent %+v, want the text as one paste, exactly", sent)
	}
	if r.ran("one-1") || r.ran("INJECTED-2") {
		t.Errorf("a pasted line ran without Enter: %q", r.term.Output(r.pane))
	}
}

// What cannot end a bracketed paste is pasted exactly as given:
//
//   - the start sequence, ESC [ 2 0 0 ~: inside a paste, bash's readline,
//     zsh's line editor and vim look only for the end and take a start as
//     pasted text, so it cannot make the rest typed;
//   - a sequence short of the end, or the end with other parameters, which
//     those programs do not take for it either;
//   - a character whose UTF-8 encoding ends in the byte 0x9b (Û is C3 9B)
//     before "201~": a program that reads UTF-8 reads the character, not
//     a CSI.
func TestPasteTakesWhatCannotEndABracketedPaste(t *testing.T) {
	for _, c := range []struct{ name, text string }{
		{"the start", "echo one-$((0+1))\x1b[200~\necho two-$((1+1))\n"},
		{"a start at the end", "echo one-$((0+1))\n\x1b[200~"},
		{"the end without its ~", "echo one-$((0+1))\x1b[201\necho two-$((1+1))\n"},
		{"the end cut short at the text's end", "echo one-$((0+1))\n\x1b[201"},
		{"another parameter", "echo one-$((0+1))\x1b[202~\necho two-$((1+1))\n"},
		{"201 ~ without CSI", "echo one-$((0+1)) 201~\necho two-$((1+1))\n"},
		{"Û before 201~", "echo Û201~\necho two-$((1+1))\n"},
		{"another character ending in 0x9b before 201~", "echo \u7b5b201~\necho two-$((1+1))\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := pasteTo(t, c.text)
			if err != nil {
				t.Fatalf("PasteText: %v", err)
			}
			if sent := r.term.Sent(r.pane); !pastedAsGiven(sent, c.text) {
				t.Errorf("sent %+v, want the text as one paste, exactly", sent)
			}
			if r.ran("two-2") {
				t.Errorf("a pasted line ran without Enter: %q", r.term.Output(r.pane))
			}
		})
	}
}
