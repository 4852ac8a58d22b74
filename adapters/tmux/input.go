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
		l := probeCmd(id).then("send-keys", "-t", string(id), "-l", "--", chunk)
		out, err := t.exec(ctx, route{pane: id, typing: true}, l)
		if err != nil {
			return fmt.Errorf("type into pane %s: %w", id, err)
		}
		if dead(out) {
			return fmt.Errorf("type into pane %s: %w", id, ports.ErrPaneDead)
		}
	}
	return nil
}

// SendKeys presses the named keys in order. Every name is checked first
// (validKey): one that tmux does not know, or that it would send without
// one of its modifiers, yields an error wrapping ports.ErrUnknownKey and
// nothing is sent (tmux would type it as text, or press another key).
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
		send := []string{"send-keys", "-t", string(id), "--"}
		size := 0
		for len(keys) > 0 && (size == 0 || size+len(keys[0]) <= maxArgBytes) {
			send = append(send, keys[0])
			size += len(keys[0]) + 1
			keys = keys[1:]
		}
		out, err := t.exec(ctx, route{pane: id, typing: true}, probeCmd(id).then(send...))
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

// maxControlPaste is the largest text Paste sends over a control client
// (set-buffer); a longer one is loaded from standard input by a tmux
// process (load-buffer -). tmux reads a control client's command line a
// byte at a time, and each byte of the text may take four there
// (quoteArg): about 0.07 ms per KiB of plain text and 0.1 ms per KiB of
// shell code, against 2-2.5 ms for a process whatever the size.
// BenchmarkPaste puts the crossing near 28 KiB for shell code and 45 KiB
// for plain text; at 16 KiB the control client still saves about 1 ms,
// and 14× that for a 100-byte text (BENCHMARKS.md).
const maxControlPaste = 16 << 10

// pasteChunk bounds the text of one set-buffer command of a paste over a
// control client, as remoteChunk does for a script (see scripts.go).
const pasteChunk = 8 << 10

// Paste puts text into a paste buffer of its own and pastes it with
// paste-buffer -p, which wraps the text in bracketed-paste markers only
// when the program asked for them. The buffer is deleted by the paste, and
// also when anything fails.
//
// A text of at most maxControlPaste bytes without a NUL byte goes over a
// control client, in set-buffer commands (no tmux process is started); a
// longer one, or one holding a NUL (which no tmux argument can carry), is
// loaded from the standard input of a tmux process (load-buffer -, no size
// limit). Both deliver the same bytes.
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
	var out string
	var err error
	ok := false
	if len(text) <= maxControlPaste && strings.IndexByte(text, 0) < 0 {
		out, ok, err = t.controlCommand(ctx, route{pane: id, typing: true}, pasteCmds(id, name, text))
	}
	if !ok {
		out, err = t.exec(ctx, route{stdin: strings.NewReader(text)}, pasteCmds(id, name, ""))
	}
	if err != nil {
		// The buffer may have been loaded before the failure; deleting a
		// buffer that does not exist fails harmlessly.
		t.exec(context.WithoutCancel(ctx), route{}, tmuxCmd("delete-buffer", "-b", name))
		return fmt.Errorf("paste into pane %s: %w", id, err)
	}
	if dead(out) || strings.Contains(out, deadMark) {
		return fmt.Errorf("paste into pane %s: %w", id, ports.ErrPaneDead)
	}
	return nil
}

// pasteCmds is the command list of a paste into pane id through the
// buffer name: a probe (which stops the list when there is no such pane),
// the buffer filled with text in set-buffer commands of at most pasteChunk
// bytes, or, with text "", loaded from standard input, then the paste,
// guarded. The liveness test and the paste run in one pass of tmux's
// command queue, so the pane cannot die between them. (The buffer's name
// and the pane's id need no quoting in if-shell's commands.)
func pasteCmds(id ports.PaneID, name, text string) cmdList {
	l := probeCmd(id)
	if text == "" {
		l = l.then("load-buffer", "-b", name, "-")
	} else {
		for i, chunk := range chunkText(text, pasteChunk) {
			if i == 0 {
				l = l.then("set-buffer", "-b", name, "--", chunk)
			} else {
				l = l.then("set-buffer", "-a", "-b", name, "--", chunk)
			}
		}
	}
	guarded := fmt.Sprintf("paste-buffer -d -p -b %s -t %s", name, id)
	ifDead := fmt.Sprintf("delete-buffer -b %s ; display-message -p %s", name, deadMark)
	return l.then("if-shell", "-F", "-t", string(id), "#{pane_dead}", ifDead, guarded)
}

// probe checks that the pane exists and is alive, for calls with nothing to
// send.
func (t *terminal) probe(ctx context.Context, id ports.PaneID, what string) error {
	out, err := t.exec(ctx, route{pane: id}, probeCmd(id))
	if err != nil {
		return fmt.Errorf("%s pane %s: %w", what, id, err)
	}
	if dead(out) {
		return fmt.Errorf("%s pane %s: %w", what, id, ports.ErrPaneDead)
	}
	return nil
}

// dead reads the first line of output of probeCmd.
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
