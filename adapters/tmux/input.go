package tmux

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// maxArgBytes bounds the text or keys of one send-keys invocation. tmux
// sends a command to its server in one message of at most 16 KiB and
// answers "command too long" above about 16,340 bytes of arguments; half
// of that leaves room for the rest of the command line.
const maxArgBytes = 8 << 10

// SendText types text into the pane with send-keys -l, which reads no key
// names: every byte reaches the program as typed, a newline as C-j (line
// feed), which both a readline shell and a shell reading a canonical tty
// take as the end of a line. Long texts are typed in chunks cut at UTF-8
// character boundaries.
//
// Errors wrap ports.ErrPaneNotFound, ports.ErrPaneDead (nothing reaches a
// dead pane) or ports.ErrUnavailable.
func (t *Terminal) SendText(ctx context.Context, id ports.PaneID, text string) error {
	if err := checkPaneID(id); err != nil {
		return err
	}
	if text == "" {
		return t.probe(ctx, id, "type into")
	}
	for _, chunk := range chunkText(text, maxArgBytes) {
		args := append(probeArgs(id), ";", "send-keys", "-t", string(id), "-l", "--", escapeArg(chunk))
		out, err := t.command(ctx, route{pane: id, typing: true}, args...)
		if err != nil {
			return fmt.Errorf("type into pane %s: %w", id, err)
		}
		if dead(out) {
			return fmt.Errorf("type into pane %s: %w", id, ports.ErrPaneDead)
		}
	}
	return nil
}

// SendKeys presses the named keys in order. Every name is checked first: an
// unknown one yields an error wrapping ports.ErrUnknownKey and nothing is
// sent (tmux would type it as text).
//
// Errors wrap ports.ErrUnknownKey, ports.ErrPaneNotFound,
// ports.ErrPaneDead or ports.ErrUnavailable.
func (t *Terminal) SendKeys(ctx context.Context, id ports.PaneID, keys []string) error {
	if err := checkPaneID(id); err != nil {
		return err
	}
	for _, k := range keys {
		if !validKey(k) {
			return fmt.Errorf("press %q in pane %s: %w", k, id, ports.ErrUnknownKey)
		}
	}
	if len(keys) == 0 {
		return t.probe(ctx, id, "press keys in")
	}
	for len(keys) > 0 {
		args := append(probeArgs(id), ";", "send-keys", "-t", string(id), "--")
		size := 0
		for len(keys) > 0 && (size == 0 || size+len(keys[0]) <= maxArgBytes) {
			args = append(args, escapeArg(keys[0]))
			size += len(keys[0]) + 1
			keys = keys[1:]
		}
		out, err := t.command(ctx, route{pane: id, typing: true}, args...)
		if err != nil {
			return fmt.Errorf("press keys in pane %s: %w", id, err)
		}
		if dead(out) {
			return fmt.Errorf("press keys in pane %s: %w", id, ports.ErrPaneDead)
		}
	}
	return nil
}

// bufferSeq and bufferTag make paste buffer names unique to one Paste call
// in one process among all the clients of a server.
var (
	bufferSeq atomic.Uint64
	bufferTag = func() string {
		b := make([]byte, 4)
		rand.Read(b)
		return hex.EncodeToString(b)
	}()
)

// deadMark is what Paste's invocation prints when it found the pane dead
// just before pasting.
const deadMark = "tmux-mcp:pane-dead"

// Paste loads text into a paste buffer of its own from standard input (no
// size limit) and pastes it with paste-buffer -p, which wraps the text in
// bracketed-paste markers only when the program asked for them. The buffer
// is deleted by the paste, and also when anything fails.
//
// Line feeds reach the program as carriage returns, tmux's default and what
// a terminal emulator sends when text is pasted into it: it is the Enter
// key, so a program that reads keys in raw mode without bracketed paste
// takes each line as entered, and a program reading a canonical tty
// (which maps CR to LF) or a readline shell with bracketed paste sees line
// ends. Text is otherwise delivered byte for byte.
//
// The paste is guarded so that it never targets a dead pane: tmux 3.3a
// crashes when paste-buffer writes to one.
//
// Errors wrap ports.ErrPaneNotFound, ports.ErrPaneDead or
// ports.ErrUnavailable.
func (t *Terminal) Paste(ctx context.Context, id ports.PaneID, text string) error {
	if err := checkPaneID(id); err != nil {
		return err
	}
	if text == "" {
		return t.probe(ctx, id, "paste into")
	}
	name := fmt.Sprintf("tmux-mcp-%d-%s-%d", os.Getpid(), bufferTag, bufferSeq.Add(1))
	// The liveness test and the paste run in one pass of tmux's command
	// queue, so the pane cannot die between them.
	guarded := fmt.Sprintf("paste-buffer -d -p -b %s -t %s", name, id)
	ifDead := fmt.Sprintf("delete-buffer -b %s ; display-message -p %s", name, deadMark)
	args := append(probeArgs(id), ";",
		"load-buffer", "-b", name, "-", ";",
		"if-shell", "-F", "-t", string(id), "#{pane_dead}", ifDead, guarded)
	out, err := t.run(ctx, strings.NewReader(text), args...)
	if err != nil {
		// The buffer may have been loaded before the failure; deleting a
		// buffer that does not exist fails harmlessly.
		t.run(context.WithoutCancel(ctx), nil, "delete-buffer", "-b", name)
		return fmt.Errorf("paste into pane %s: %w", id, err)
	}
	if dead(out) || strings.Contains(out, deadMark) {
		return fmt.Errorf("paste into pane %s: %w", id, ports.ErrPaneDead)
	}
	return nil
}

// probe checks that the pane exists and is alive, for calls with nothing to
// send.
func (t *Terminal) probe(ctx context.Context, id ports.PaneID, what string) error {
	out, err := t.command(ctx, route{pane: id}, probeArgs(id)...)
	if err != nil {
		return fmt.Errorf("%s pane %s: %w", what, id, err)
	}
	if dead(out) {
		return fmt.Errorf("%s pane %s: %w", what, id, ports.ErrPaneDead)
	}
	return nil
}

// dead reads the first line of output of probeArgs.
func dead(out string) bool {
	return strings.HasPrefix(out, "1\n") || out == "1"
}

// escapeArg protects an argument from tmux's command splitting: tmux takes
// an argument ending in ";" as the end of a command (dropping the ";") and
// one ending in "\;" as ending in a plain ";". A backslash before the last
// ";" makes tmux pass the argument through unchanged.
func escapeArg(s string) string {
	if strings.HasSuffix(s, ";") {
		return s[:len(s)-1] + `\;`
	}
	return s
}

// chunkText cuts s into pieces of at most max bytes, never inside a UTF-8
// character (a piece may be shorter than max for that reason).
func chunkText(s string, max int) []string {
	var chunks []string
	for len(s) > max {
		cut := max
		for cut > max-utf8.UTFMax && cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		if !utf8.RuneStart(s[cut]) {
			// Not UTF-8 here; any cut is as good as another.
			cut = max
		}
		chunks = append(chunks, s[:cut])
		s = s[cut:]
	}
	return append(chunks, s)
}
