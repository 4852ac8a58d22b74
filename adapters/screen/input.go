package screen

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// How input reaches a window
//
// screen 4.9 loses or mangles input it cannot write to the window's
// pseudo-terminal at once: "stuff" spins for ever, hanging the whole
// session, when the window's input buffer (4 KiB) is full; a "paste" that
// is still being written is cut short by the next paste, and crashes
// screen when input is stuffed behind it; and a write the terminal refuses
// makes screen drop what its buffer holds. So the adapter hands screen no
// more than the window's programs take: it meters what they have read
// (the read counts of the processes on the window's terminal, in
// /proc/<pid>/io, plus what waits unread in the terminal) against what it
// sent. Typed text goes in stuff pieces of at most 480 bytes (screen
// ignores longer commands) with at most one piece not yet taken; a paste
// is one paste, and Paste returns once it has all been taken. A program
// that takes nothing for Options.InputTimeout fails the call with an error
// saying how much was delivered.
const (
	stuffPiece = 480 // escaped bytes in one "stuff" argument (screen takes about 750)
	meterPoll  = 2 * time.Millisecond
)

// Registers Paste fills: control characters that no key binding and no
// person's paste uses. Pasting two registers makes screen copy them, so
// they can be emptied at once (pasting one register alone reads it as it
// goes, and emptying it then crashes screen).
const (
	regA = "^_"
	regB = "^^"
)

// SendText types text into window N with screen's "stuff" command, whose
// argument screen reads for escapes: every '\', '^' and '$' is escaped,
// and NUL bytes are written as \000. No byte is read as a key name; a
// line feed is typed as a line feed (C-j). It returns an error wrapping
// ports.ErrPaneDead when the window's program has exited.
func (t *Terminal) SendText(ctx context.Context, id ports.PaneID, text string) error {
	w, err := t.lookup(ctx, id)
	if err != nil {
		return err
	}
	if err := t.deliver(ctx, w, []byte(text), false); err != nil {
		return fmt.Errorf("send text to pane %s: %w", id, err)
	}
	return nil
}

// SendKeys types the bytes a terminal sends for each key, in order (see
// keyBytes). Every name is translated before anything is sent: an unknown
// name yields an error wrapping ports.ErrUnknownKey and nothing is typed.
func (t *Terminal) SendKeys(ctx context.Context, id ports.PaneID, keys []string) error {
	w, err := t.lookup(ctx, id)
	if err != nil {
		return err
	}
	b, err := keysBytes(keys, t.appCursor(w))
	if err != nil {
		return fmt.Errorf("send keys to pane %s: %w", id, err)
	}
	if err := t.deliver(ctx, w, b, false); err != nil {
		return fmt.Errorf("send keys to pane %s: %w", id, err)
	}
	return nil
}

// Paste delivers text to window N through two of screen's registers
// (readreg from a private file, then paste), in pieces of 2 KiB, and
// empties the registers and removes the file before it returns. screen
// turns each line feed into a carriage return as it reads the file, as a
// terminal emulator does on paste (a CR LF pair becomes one CR). screen
// 4.9 has no bracketed paste: the program receives the text as if typed.
// It returns an error wrapping ports.ErrPaneDead when the window's program
// has exited, and an error saying how much was pasted when the program
// stops reading its input for Options.InputTimeout.
func (t *Terminal) Paste(ctx context.Context, id ports.PaneID, text string) error {
	w, err := t.lookup(ctx, id)
	if err != nil {
		return err
	}
	text = strings.ReplaceAll(text, "\r\n", "\n")
	if text != "" && t.bracketed(w) {
		text = "\x1b[200~" + text + "\x1b[201~"
	}
	if err := t.deliver(ctx, w, []byte(text), true); err != nil {
		return fmt.Errorf("paste into pane %s: %w", id, err)
	}
	return nil
}

// writer returns the lock that keeps the writes to window n in order.
func (t *Terminal) writer(n int) *sync.Mutex {
	t.mu.Lock()
	defer t.mu.Unlock()
	m, ok := t.writers[n]
	if !ok {
		m = &sync.Mutex{}
		t.writers[n] = m
	}
	return m
}

// deliver hands b to the window, by paste or by stuff, no faster than
// the window's programs take it.
func (t *Terminal) deliver(ctx context.Context, w window, b []byte, paste bool) error {
	if !w.live {
		return fmt.Errorf("window %d: its program has exited: %w", w.n, ports.ErrPaneDead)
	}
	if len(b) == 0 {
		return nil
	}
	lock := t.writer(w.n)
	lock.Lock()
	defer lock.Unlock()

	m, err := newMeter(w.proc)
	if err != nil {
		return fmt.Errorf("window %d: %w", w.n, err)
	}
	defer m.close()
	if err := t.settle(ctx, w); err != nil {
		return err
	}
	if paste {
		if err := t.pasteAll(ctx, w.n, b); err != nil {
			return err
		}
		m.add(b)
		if err := t.waitTaken(ctx, w, m, m.sent); err != nil {
			// screen still holds some of the paste: the next write
			// waits for it, or the next paste would cut it short.
			t.mu.Lock()
			t.pending[w.n] = m
			t.mu.Unlock()
			m = nil
			return err
		}
		return nil
	}
	for _, p := range splitPieces(b, stuffPiece, stuffCost) {
		// At most one piece is on its way: screen's buffer always has
		// room for the next.
		if err := t.waitTaken(ctx, w, m, m.sent); err != nil {
			return err
		}
		// screen carries out a -X command after its client has gone:
		// the last piece must be in screen before the room is judged.
		if m.sent > 0 {
			if err := t.barrier(ctx); err != nil {
				return fmt.Errorf("window %d after %d of %d bytes: %w", w.n, m.sent, len(b), err)
			}
		}
		if err := t.waitRoom(ctx, w, m, len(p)); err != nil {
			return err
		}
		if !w.stillLive() {
			// A dead window with zombie keys would read the rest as
			// commands to kill or restart it.
			return fmt.Errorf("window %d: its program exited after %d of %d bytes: %w", w.n, m.sent, len(b), ports.ErrPaneDead)
		}
		if err := t.command(ctx, w.n, "stuff", stuffEscape(p)); err != nil {
			return fmt.Errorf("window %d after %d of %d bytes: %w", w.n, m.sent, len(b), err)
		}
		m.add(p)
	}
	return nil
}

// settle waits until the rest of an earlier paste into the window has
// been taken.
func (t *Terminal) settle(ctx context.Context, w window) error {
	t.mu.Lock()
	m := t.pending[w.n]
	t.mu.Unlock()
	if m == nil {
		return nil
	}
	if err := t.waitTaken(ctx, w, m, m.sent); err != nil {
		return fmt.Errorf("an earlier paste is still being delivered: %w", err)
	}
	t.mu.Lock()
	delete(t.pending, w.n)
	t.mu.Unlock()
	m.close()
	return nil
}

// pasteAll pastes b through the registers from a private file, and
// empties the registers. Pasting two registers makes screen copy them, so
// that emptying them at once is safe (pasting one register reads it as
// the paste goes, and emptying it then crashes screen).
func (t *Terminal) pasteAll(ctx context.Context, n int, b []byte) error {
	file, empty := t.privateFile("paste"), t.privateFile("empty")
	defer os.Remove(file)
	defer os.Remove(empty)
	if err := os.WriteFile(file, b, 0o600); err != nil {
		return err
	}
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		return err
	}
	if err := t.command(ctx, n, "eval",
		"readreg "+regA+" "+file,
		"readreg "+regB+" "+empty,
		"paste "+regA+regB,
		"readreg "+regA+" "+empty); err != nil {
		return err
	}
	// The files must stay until screen has read them.
	return t.barrier(ctx)
}

// waitTaken waits until the window's programs have taken want bytes of
// what m metered. It fails when they take nothing for
// Options.InputTimeout, or when ctx ends.
func (t *Terminal) waitTaken(ctx context.Context, w window, m *inputMeter, want int64) error {
	last, since := int64(-1), time.Now()
	for {
		got, err := m.taken()
		if err != nil {
			return fmt.Errorf("window %d: %w", w.n, err)
		}
		if got >= want {
			return nil
		}
		if got > last {
			last, since = got, time.Now()
		} else if time.Since(since) > t.opts.InputTimeout {
			return fmt.Errorf("window %d: its program has taken %d of %d bytes and then no more for %v, leaving the rest unread",
				w.n, max(got, 0), m.sent, t.opts.InputTimeout)
		}
		if !w.stillLive() {
			return fmt.Errorf("window %d: its program exited after taking %d of %d bytes: %w", w.n, max(got, 0), m.sent, ports.ErrPaneDead)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("window %d after %d of %d bytes: %w", w.n, max(got, 0), m.sent, ctx.Err())
		case <-time.After(meterPoll):
		}
	}
}

// ttyQueue is how much input a Linux terminal holds for a program that does
// not read it (N_TTY_BUF_SIZE). screen's own input buffer of a window is as
// small, and screen 4.9 loops for ever on a stuff that does not fit in it,
// answering nobody again.
const ttyQueue = 4096

// waitRoom waits until the window's terminal has room for two more pieces
// of n bytes, so that screen can pass on at once the piece it holds and the
// next one. The read counts of waitTaken cannot promise that alone: they
// count every read of the processes on the terminal, and one reading a
// file (or loading its own program) makes them run ahead of what was
// taken, while screen's pieces pile up. It fails when the
// queue stays as full as it is for Options.InputTimeout, or when ctx
// ends; where the queue cannot be read it does not wait.
func (t *Terminal) waitRoom(ctx context.Context, w window, m *inputMeter, n int) error {
	last, since := -1, time.Now()
	for {
		unread, err := ttyPending(m.tty)
		if err != nil || unread+2*n <= ttyQueue {
			return nil
		}
		if unread != last {
			last, since = unread, time.Now()
		} else if time.Since(since) > t.opts.InputTimeout {
			got, _ := m.taken()
			return fmt.Errorf("window %d: its program has taken at most %d of %d bytes and its terminal holds %d unread bytes that it has not read for %v, leaving the rest unread",
				w.n, max(min(got, m.sent-int64(unread)), 0), m.sent, unread, t.opts.InputTimeout)
		}
		if !w.stillLive() {
			return fmt.Errorf("window %d: its program exited with %d of %d bytes unread: %w", w.n, unread, m.sent, ports.ErrPaneDead)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("window %d after %d bytes: %w", w.n, m.sent, ctx.Err())
		case <-time.After(meterPoll):
		}
	}
}

// stuffEscape escapes b for screen's reading of a stuff argument, which
// takes '\' followed by octal digits as a byte, '^' followed by a
// character as a control character and '$' as the start of a variable.
// A NUL byte cannot be an argument at all.
func stuffEscape(b []byte) string {
	var s strings.Builder
	s.Grow(len(b) + len(b)/8)
	for _, c := range b {
		switch c {
		case '\\', '^', '$':
			s.WriteByte('\\')
			s.WriteByte(c)
		case 0:
			s.WriteString(`\000`)
		default:
			s.WriteByte(c)
		}
	}
	return s.String()
}

// splitPieces cuts b into pieces that cost at most limit, never inside a
// UTF-8 sequence; cost says what each byte costs.
func splitPieces(b []byte, limit int, cost func(byte) int) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		cut, used := 0, 0
		for cut < len(b) && used+cost(b[cut]) <= limit {
			used += cost(b[cut])
			cut++
		}
		for cut > 1 && cut < len(b) && !utf8.RuneStart(b[cut]) {
			cut--
		}
		cut = max(cut, 1)
		out = append(out, b[:cut])
		b = b[cut:]
	}
	return out
}

// stuffCost is what a byte costs in a stuff argument once escaped.
func stuffCost(c byte) int {
	switch c {
	case '\\', '^', '$':
		return 2
	case 0:
		return 4
	}
	return 1
}
