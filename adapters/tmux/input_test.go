package tmux

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// catV is what cat -v prints for s.
func catV(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			b.WriteString("M-")
			c -= 0x80
		}
		switch {
		case c == '\n' || c == '\t':
			b.WriteByte(c)
		case c < 0x20:
			b.WriteByte('^')
			b.WriteByte(c + 0x40)
		case c == 0x7f:
			b.WriteString("^?")
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// rawPane starts a session running rawCat and returns the pane and an open
// stream of it.
func rawPane(t *testing.T, s *testServer, term *Terminal, cmd []string) (ports.PaneID, ports.OutputStream) {
	t.Helper()
	p := s.session("raw", cmd)
	// Wait until stty has run: cat is the foreground program.
	eventually(t, 5*time.Second, "cat to run", func() bool {
		return strings.TrimSpace(s.tmux("display-message", "-p", "-t", string(p), "#{pane_current_command}")) == "cat"
	})
	stream, err := term.OpenOutput(testContext(t), p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stream.Close() })
	return p, stream
}

func TestSendTextTypesLinesIntoShells(t *testing.T) {
	t.Parallel()
	for name, cmd := range map[string][]string{"bash": bashCmd, "dash": dashCmd} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := newTestServer(t)
			p := s.session("main", cmd)
			s.waitPrompt(p)
			term := s.terminal(Options{})
			// A framed command spread over lines, as the domain types
			// it: each line feed must end a line for the shell.
			text := "echo one\nif true; then\n  echo two\nfi\n"
			if err := term.SendText(testContext(t), p, text); err != nil {
				t.Fatalf("SendText: %v", err)
			}
			// dash echoes typed-ahead lines at once, so its "> "
			// continuation prompts end up before the output.
			s.waitScreen(p, "the output of both commands", func(screen string) bool {
				rows := strings.Split(screen, "\n")
				return slices.Contains(rows, "one") && slices.ContainsFunc(rows, func(r string) bool {
					return strings.HasSuffix(r, "two") && !strings.Contains(r, "echo")
				})
			})
		})
	}
}

func TestSendTextArrivesByteForByte(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	term := s.terminal(Options{})
	p, stream := rawPane(t, s, term, rawCat)
	// Key names, tmux syntax, semicolons where tmux splits commands, control
	// characters and a text long enough to need several chunks, with a
	// chunk boundary right after a ";".
	long := strings.Repeat("x", maxArgBytes-1) + ";" + strings.Repeat("é日😀", 700) + "end;"
	for _, text := range []string{
		"Enter C-c Escape {} #{pane_id} ~ %1 --",
		"a;", `b\;`, ";", `\\;`,
		"tab\tbell\acr\rlf\nesc\x1b[A del\x7f ctrl-c\x03",
		long,
	} {
		from := stream.End()
		if err := term.SendText(testContext(t), p, text); err != nil {
			t.Fatalf("SendText(%.40q): %v", text, err)
		}
		want := catV(text)
		got, missed, ended := readUntil(t, stream, from, fmt.Sprintf("%.40q", text), func(d []byte) bool { return len(d) >= len(want) })
		if string(got) != want || missed != 0 || ended != nil {
			t.Errorf("SendText(%.40q): pane read %.80q (missed %d, ended %v), want %.80q", text, got, missed, ended, want)
		}
	}
}

func TestSendKeysPressesNamedKeys(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	term := s.terminal(Options{})
	p, stream := rawPane(t, s, term, rawCat)
	from := stream.End()
	keys := []string{"a", "Enter", "C-c", "Escape", "Up", "Tab", "BSpace", ";", "Space", "M-x", "C-a", "é"}
	if err := term.SendKeys(testContext(t), p, keys); err != nil {
		t.Fatalf("SendKeys: %v", err)
	}
	want := catV("a\r\x03\x1b\x1b[A\t\x7f; \x1bx\x01é")
	got, _, _ := readUntil(t, stream, from, "the keys", func(d []byte) bool { return len(d) >= len(want) })
	if string(got) != want {
		t.Errorf("pane read %q, want %q", got, want)
	}
}

func TestSendKeysRefusesUnknownNamesBeforeSendingAnything(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	term := s.terminal(Options{})
	p, stream := rawPane(t, s, term, rawCat)
	from := stream.End()
	err := term.SendKeys(testContext(t), p, []string{"x", "Bogus", "Enter"})
	if !errors.Is(err, ports.ErrUnknownKey) || !strings.Contains(err.Error(), "Bogus") {
		t.Fatalf("SendKeys with an unknown name: err = %v, want ErrUnknownKey naming it", err)
	}
	// The next key is the first thing the pane reads.
	if err := term.SendKeys(testContext(t), p, []string{"y"}); err != nil {
		t.Fatal(err)
	}
	got, _, _ := readUntil(t, stream, from, "the y key", contains("y"))
	if string(got) != "y" {
		t.Errorf("pane read %q after the refused keys, want just %q", got, "y")
	}
}

// tmuxKeyNames are the key names validKey knows, as tmux's documentation
// spells them.
var tmuxKeyNames = []string{
	"F1", "F2", "F3", "F4", "F5", "F6", "F7", "F8", "F9", "F10", "F11", "F12",
	"IC", "Insert", "DC", "Delete", "Home", "End", "NPage", "PageDown", "PgDn", "PPage", "PageUp", "PgUp",
	"Up", "Down", "Left", "Right", "Tab", "BTab", "BSpace", "Enter", "Escape", "Space",
	"KP/", "KP*", "KP-", "KP7", "KP8", "KP9", "KP+", "KP4", "KP5", "KP6", "KP1", "KP2", "KP3", "KPEnter", "KP0", "KP.",
}

// A modified is a key name under a combination of modifiers: the prefix
// spelling them (or another spelling of the same combination) and the key.
type modified struct {
	prefix            string
	ctrl, meta, shift bool
}

// modifierCombinations are every combination of the three modifiers, in
// the order their prefixes are written.
var modifierCombinations = []modified{
	{"", false, false, false}, {"S-", false, false, true}, {"C-", true, false, false}, {"M-", false, true, false},
	{"C-S-", true, false, true}, {"M-S-", false, true, true}, {"C-M-", true, true, false}, {"C-M-S-", true, true, true},
}

// otherSpellings are tmux's other ways of writing some of them: "^" for
// Ctrl, lower case, another order.
var otherSpellings = []modified{
	{"^", true, false, false}, {"^M-", true, true, false}, {"c-m-s-", true, true, true}, {"S-M-C-", true, true, true},
}

// combination is the prefix of modifierCombinations for the modifiers.
func combination(ctrl, meta, shift bool) string {
	for _, m := range modifierCombinations {
		if m.ctrl == ctrl && m.meta == meta && m.shift == shift {
			return m.prefix
		}
	}
	panic("no such combination")
}

// xtermKey is what a terminal sends for key with the modifiers, as tmux
// 3.3a sends it: xterm's sequences, with the modifier parameter (1 plus 1
// for Shift, 2 for Meta, 4 for Ctrl) for the cursor, editing and function
// keys, ESC before the rest for Meta, and Ctrl as the control character
// ASCII (or, for - / 2 6 without Meta, xterm) has for the key. ok is false
// for the combinations that have no such code.
func xtermKey(key string, ctrl, meta, shift bool) (code string, ok bool) {
	param := 1
	if shift {
		param++
	}
	if meta {
		param += 2
	}
	if ctrl {
		param += 4
	}
	lower := strings.ToLower(key)
	if c, found := map[string]byte{"up": 'A', "down": 'B', "right": 'C', "left": 'D', "home": 'H', "end": 'F',
		"f1": 'P', "f2": 'Q', "f3": 'R', "f4": 'S'}[lower]; found {
		switch {
		case param > 1:
			return fmt.Sprintf("\x1b[1;%d%c", param, c), true
		case c == 'H':
			return "\x1b[1~", true
		case c == 'F':
			return "\x1b[4~", true
		case c >= 'P':
			return "\x1bO" + string(c), true
		}
		return "\x1b[" + string(c), true
	}
	if n, found := map[string]int{"ic": 2, "insert": 2, "dc": 3, "delete": 3, "ppage": 5, "pageup": 5, "pgup": 5,
		"npage": 6, "pagedown": 6, "pgdn": 6, "f5": 15, "f6": 17, "f7": 18, "f8": 19, "f9": 20, "f10": 21, "f11": 23, "f12": 24}[lower]; found {
		if param > 1 {
			return fmt.Sprintf("\x1b[%d;%d~", n, param), true
		}
		return fmt.Sprintf("\x1b[%d~", n), true
	}
	if shift {
		return "", false
	}
	esc := ""
	if meta {
		esc = "\x1b"
	}
	if c, found := map[string]string{"enter": "\r", "escape": "\x1b", "tab": "\t", "btab": "\x1b[Z", "bspace": "\x7f", "kpenter": "\n"}[lower]; found {
		return esc + c, !ctrl
	}
	if strings.HasPrefix(lower, "kp") && len(lower) == 3 {
		return esc + lower[2:], !ctrl
	}
	if lower == "space" {
		key = " "
	}
	r, size := utf8.DecodeRuneInString(key)
	switch {
	case size != len(key):
		return "", false
	case !ctrl:
		return esc + key, true
	case r >= 'a' && r <= 'z':
		r -= 0x60
	case r >= '@' && r <= '_':
		r -= 0x40
	case r == '?':
		r = 0x7f
	case r == ' ', r == '2' && !meta:
		r = 0
	case (r == '-' || r == '/') && !meta:
		r = 0x1f
	case r == '6' && !meta:
		r = 0x1e
	default:
		return "", false
	}
	return esc + string(r), true
}

// pressEach presses each name in the pane with tmux send-keys itself, past
// validKey, and returns what the pane's cat -v printed for each.
func pressEach(t *testing.T, s *testServer, p ports.PaneID, stream ports.OutputStream, names []string) []string {
	t.Helper()
	// No key is printed as this, and no name holds it.
	const marker = "<<>>"
	var arrived []string
	for batch := range slices.Chunk(names, 100) {
		var args []string
		for _, name := range batch {
			args = append(args, "send-keys", "-t", string(p), "--", escapeArg(name), ";", "send-keys", "-t", string(p), "-l", marker, ";")
		}
		from := stream.End()
		s.tmux(args...)
		data, missed, ended := readUntil(t, stream, from, fmt.Sprintf("%d keys from %q", len(batch), batch[0]), func(d []byte) bool {
			return bytes.Count(d, []byte(marker)) >= len(batch)
		})
		if missed != 0 || ended != nil {
			t.Fatalf("reading the keys from %q: missed %d, ended %v", batch[0], missed, ended)
		}
		arrived = append(arrived, strings.SplitN(string(data), marker, len(batch)+1)[:len(batch)]...)
	}
	return arrived
}

// validKey's table against tmux itself: every key name it knows and every
// printable character (and some that are not ASCII), under every
// combination of modifiers and under tmux's other spellings of some, are
// pressed in a cat -v pane. A name validKey accepts must arrive as the
// key with all its modifiers, as a terminal sends it; one it refuses must
// arrive as its letters, as nothing, or as the key without one of its
// modifiers, or it is refused for nothing. Then the accepted names are
// pressed through SendKeys, all in one call.
func TestSendKeysModifiersArriveAsTheirKeys(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	term := s.terminal(Options{})
	p, stream := rawPane(t, s, term, rawCat)

	for _, k := range tmuxKeyNames {
		if keyNames[strings.ToLower(k)] == notAName {
			t.Errorf("validKey does not know %s", k)
		}
	}
	if len(tmuxKeyNames) != len(keyNames) {
		t.Errorf("validKey knows %d key names, the test %d", len(keyNames), len(tmuxKeyNames))
	}
	keys := slices.Clone(tmuxKeyNames)
	for c := ' '; c < 0x7f; c++ {
		keys = append(keys, string(c))
	}
	keys = append(keys, "é", "日", "😀")

	type press struct {
		key  string
		mods modified
	}
	var presses []press
	var names []string
	for _, key := range keys {
		for _, m := range append(slices.Clone(modifierCombinations), otherSpellings...) {
			presses = append(presses, press{key, m})
			names = append(names, m.prefix+key)
		}
	}
	arrived := map[string]string{}
	for i, got := range pressEach(t, s, p, stream, names) {
		arrived[names[i]] = got
	}

	var accepted []string
	var want strings.Builder
	for _, pr := range presses {
		name, m := pr.mods.prefix+pr.key, pr.mods
		got := arrived[name]
		if canonical := combination(m.ctrl, m.meta, m.shift) + pr.key; validKey(name) != validKey(canonical) {
			t.Errorf("validKey(%q) = %v, validKey(%q) = %v: the same key", name, validKey(name), canonical, validKey(canonical))
		}
		if validKey(name) {
			switch code, ok := xtermKey(pr.key, m.ctrl, m.meta, m.shift); {
			case !ok:
				t.Errorf("validKey accepts %q, which arrived as %q: a terminal has no code for it", name, got)
			case got != catV(code):
				t.Errorf("validKey accepts %q, which arrived as %q, want %q", name, got, catV(code))
			default:
				accepted = append(accepted, name)
				want.WriteString(code)
			}
			continue
		}
		warranted := got == catV(name) || got == ""
		for _, fewer := range modifierCombinations {
			fewerOf := (!fewer.ctrl || m.ctrl) && (!fewer.meta || m.meta) && (!fewer.shift || m.shift) &&
				(fewer.ctrl != m.ctrl || fewer.meta != m.meta || fewer.shift != m.shift)
			if fewerOf && got == arrived[fewer.prefix+pr.key] {
				warranted = true
			}
		}
		if !warranted {
			t.Errorf("validKey refuses %q, which arrived as %q: a key press of its own, all modifiers kept", name, got)
		}
	}

	from := stream.End()
	if err := term.SendKeys(testContext(t), p, accepted); err != nil {
		t.Fatalf("SendKeys(the %d names validKey accepts): %v", len(accepted), err)
	}
	wantCatV := catV(want.String())
	got, _, _ := readUntil(t, stream, from, "the accepted keys", func(d []byte) bool { return len(d) >= len(wantCatV) })
	if string(got) != wantCatV {
		t.Errorf("SendKeys(the %d names validKey accepts): the pane read %q, want %q", len(accepted), got, wantCatV)
	}
}

func TestPasteDeliversTextAsAPaste(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	term := s.terminal(Options{})
	p, stream := rawPane(t, s, term, rawCat)
	from := stream.End()
	text := "line one\nC-c Enter ;\ttab é"
	if err := term.Paste(testContext(t), p, text); err != nil {
		t.Fatalf("Paste: %v", err)
	}
	// A program that did not ask for bracketed paste gets the text,
	// line feeds as carriage returns, without markers.
	want := catV(strings.ReplaceAll(text, "\n", "\r"))
	got, _, _ := readUntil(t, stream, from, "the pasted text", func(d []byte) bool { return len(d) >= len(want) })
	if string(got) != want {
		t.Errorf("pane read %q, want %q", got, want)
	}
	if out := s.tmux("list-buffers"); out != "" {
		t.Errorf("buffers left after Paste: %q", out)
	}
}

func TestPasteIsBracketedWhenTheProgramAsksForIt(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	term := s.terminal(Options{})
	p, stream := rawPane(t, s, term, []string{"sh", "-c", `printf '\033[?2004h'; stty raw -echo; exec cat -v`})
	from := stream.End()
	noProcess(t, term, "a bracketed Paste", func() {
		if err := term.Paste(testContext(t), p, "a\nb"); err != nil {
			t.Fatalf("Paste: %v", err)
		}
	})
	want := catV("\x1b[200~a\rb\x1b[201~")
	got, _, _ := readUntil(t, stream, from, "the bracketed paste", func(d []byte) bool { return len(d) >= len(want) })
	if string(got) != want {
		t.Errorf("pane read %q, want %q", got, want)
	}
}

func TestPasteIntoBashIsEnteredWithEnter(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	p := s.session("main", bashCmd)
	s.waitPrompt(p)
	term := s.terminal(Options{})
	ctx := testContext(t)
	if err := term.Paste(ctx, p, "echo pasted-$((6*7))\necho second-$((2*3))"); err != nil {
		t.Fatalf("Paste: %v", err)
	}
	if err := term.SendKeys(ctx, p, []string{"Enter"}); err != nil {
		t.Fatal(err)
	}
	s.waitScreen(p, "both pasted lines to run", func(screen string) bool {
		rows := strings.Split(screen, "\n")
		return slices.Contains(rows, "pasted-42") && slices.Contains(rows, "second-6")
	})
}

func TestPasteOfAMegabyteArrivesWhole(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	term := s.terminal(Options{})
	const size = 1_000_000
	file := filepath.Join(t.TempDir(), "pasted")
	p := s.session("main", []string{"sh", "-c", fmt.Sprintf("stty raw -echo; echo READY; head -c %d > %s; echo; echo RECEIVED; sleep 600", size, file)})
	s.waitScreen(p, "the raw tty", func(screen string) bool { return strings.Contains(screen, "READY") })
	var text bytes.Buffer
	for i := 0; text.Len() < size; i++ {
		fmt.Fprintf(&text, "%07d: the quick brown fox jumps over the lazy dog; é 日 😀\n", i)
	}
	text.Truncate(size)
	if err := term.Paste(testContext(t), p, text.String()); err != nil {
		t.Fatalf("Paste: %v", err)
	}
	s.waitScreen(p, "head to receive a megabyte", func(screen string) bool { return strings.Contains(screen, "RECEIVED") })
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	want := bytes.ReplaceAll(text.Bytes(), []byte("\n"), []byte("\r"))
	if !bytes.Equal(got, want) {
		t.Errorf("the pane received %d bytes that differ from the %d pasted", len(got), len(want))
	}
}

func TestWritesToADeadPaneFail(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	p := s.session("main", bashCmd)
	s.tmux("set-option", "-w", "-t", string(p), "remain-on-exit", "on")
	s.tmux("send-keys", "-t", string(p), "exit", "Enter")
	eventually(t, 5*time.Second, "the pane to die", func() bool {
		return strings.TrimSpace(s.tmux("display-message", "-p", "-t", string(p), "#{pane_dead}")) == "1"
	})
	term := s.terminal(Options{})
	ctx := testContext(t)

	info, err := term.Pane(ctx, p)
	if err != nil || !info.Dead {
		t.Errorf("Pane of a dead pane: Dead = %v, err = %v", info.Dead, err)
	}
	if err := term.SendText(ctx, p, "echo hi\n"); !errors.Is(err, ports.ErrPaneDead) {
		t.Errorf("SendText: err = %v, want ErrPaneDead", err)
	}
	if err := term.SendKeys(ctx, p, []string{"Enter"}); !errors.Is(err, ports.ErrPaneDead) {
		t.Errorf("SendKeys: err = %v, want ErrPaneDead", err)
	}
	// tmux 3.3a crashes if paste-buffer writes to a dead pane.
	if err := term.Paste(ctx, p, "echo hi\n"); !errors.Is(err, ports.ErrPaneDead) {
		t.Errorf("Paste: err = %v, want ErrPaneDead", err)
	}
	if err := term.Ping(ctx); err != nil {
		t.Fatalf("the server is gone after pasting into a dead pane: %v", err)
	}
	if out := s.tmux("list-buffers"); out != "" {
		t.Errorf("buffers left after a refused paste: %q", out)
	}
	if rows, err := term.Capture(ctx, p, ports.CaptureRange{Start: 0, End: 23}); err != nil || len(rows) != 24 {
		t.Errorf("Capture of a dead pane: %d rows, err = %v; want its 24 rows", len(rows), err)
	}
	stream, err := term.OpenOutput(ctx, p)
	if err != nil {
		t.Fatalf("OpenOutput of a dead pane: %v", err)
	}
	defer stream.Close()
	if c := stream.ReadFrom(stream.End()); !errors.Is(c.Ended, ports.ErrPaneDead) {
		t.Errorf("stream of a dead pane: Ended = %v, want ErrPaneDead", c.Ended)
	}
}

func TestWritesToUnknownPanesFail(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	s.session("main", bashCmd)
	term := s.terminal(Options{})
	ctx := testContext(t)
	for _, id := range []ports.PaneID{"%99", "main"} {
		if err := term.SendText(ctx, id, "x"); !errors.Is(err, ports.ErrPaneNotFound) {
			t.Errorf("SendText(%s): err = %v, want ErrPaneNotFound", id, err)
		}
		if err := term.SendKeys(ctx, id, []string{"x"}); !errors.Is(err, ports.ErrPaneNotFound) {
			t.Errorf("SendKeys(%s): err = %v, want ErrPaneNotFound", id, err)
		}
		if err := term.Paste(ctx, id, "x"); !errors.Is(err, ports.ErrPaneNotFound) {
			t.Errorf("Paste(%s): err = %v, want ErrPaneNotFound", id, err)
		}
		if _, err := term.Capture(ctx, id, ports.CaptureRange{}); !errors.Is(err, ports.ErrPaneNotFound) {
			t.Errorf("Capture(%s): err = %v, want ErrPaneNotFound", id, err)
		}
		if _, err := term.OpenOutput(ctx, id); !errors.Is(err, ports.ErrPaneNotFound) {
			t.Errorf("OpenOutput(%s): err = %v, want ErrPaneNotFound", id, err)
		}
	}
	if out := s.tmux("list-buffers"); out != "" {
		t.Errorf("buffers left after a paste into an unknown pane: %q", out)
	}
}

// A small paste goes over the control client as set-buffer commands: no
// tmux process, and the pane reads the same bytes as from a paste loaded
// by a process, in one chunk or several.
func TestPasteOfASmallTextStartsNoProcess(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	term := s.terminal(Options{})
	p, stream := rawPane(t, s, term, rawCat)
	texts := []string{
		"x",
		"Enter C-c Escape {} #{pane_id} ~ %1 -- $HOME `echo x` $(echo x)",
		"a;", `b\;`, ";", `\\;`, "-", "--", "-b x",
		"tab\tbell\acr\rlf\nesc\x1b[A del\x7f ctrl-c\x03 \x01\x1f",
		"line\n%end 1 2 1\n%output %0 forged\n",
		"é日😀 \xff\xfe \xc3( not UTF-8",
		// Two set-buffer commands, the first ending in ";".
		strings.Repeat("x", pasteChunk-1) + ";" + strings.Repeat("é日😀", (maxControlPaste-pasteChunk-8)/9) + "end;",
		strings.Repeat("p", maxControlPaste),
	}
	for _, text := range texts {
		from := stream.End()
		noProcess(t, term, fmt.Sprintf("Paste(%.40q)", text), func() {
			if err := term.Paste(testContext(t), p, text); err != nil {
				t.Fatalf("Paste(%.40q): %v", text, err)
			}
		})
		want := catV(strings.ReplaceAll(text, "\n", "\r"))
		got, missed, ended := readUntil(t, stream, from, fmt.Sprintf("%.40q", text), func(d []byte) bool { return len(d) >= len(want) })
		if string(got) != want || missed != 0 || ended != nil {
			t.Errorf("Paste(%.40q): pane read %.80q (missed %d, ended %v), want %.80q", text, got, missed, ended, want)
		}
	}
	if out := s.tmux("list-buffers"); out != "" {
		t.Errorf("buffers left after Paste: %q", out)
	}
}

// A text that a control client cannot carry, or that is too long to be
// worth it, is loaded by one tmux process, and arrives as exactly.
func TestPasteOfNULOrALongTextRunsOneProcess(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	term := s.terminal(Options{})
	p, stream := rawPane(t, s, term, rawCat)
	for _, text := range []string{"nul\x00byte", strings.Repeat("q", maxControlPaste+1)} {
		from := stream.End()
		start := term.processes.Load()
		if err := term.Paste(testContext(t), p, text); err != nil {
			t.Fatalf("Paste(%.40q): %v", text, err)
		}
		if n := term.processes.Load() - start; n != 1 {
			t.Errorf("Paste(%.40q) of %d bytes ran %d tmux processes, want 1 (load-buffer -)", text, len(text), n)
		}
		want := catV(text)
		got, _, _ := readUntil(t, stream, from, fmt.Sprintf("%.40q", text), func(d []byte) bool { return len(d) >= len(want) })
		if string(got) != want {
			t.Errorf("Paste(%.40q): pane read %.80q, want %.80q", text, got, want)
		}
	}
	if out := s.tmux("list-buffers"); out != "" {
		t.Errorf("buffers left after Paste: %q", out)
	}
}

// Over the control client too, a paste never reaches a dead pane (tmux
// 3.3a would crash) and leaves no buffer behind.
func TestPasteOverTheControlClientRefusesADeadPane(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	p := s.session("main", bashCmd)
	s.tmux("set-option", "-w", "-t", string(p), "remain-on-exit", "on")
	term := s.terminal(Options{})
	ctx := testContext(t)
	stream, err := term.OpenOutput(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	s.tmux("send-keys", "-t", string(p), "exit", "Enter")
	eventually(t, 5*time.Second, "the pane to die", func() bool {
		return strings.TrimSpace(s.tmux("display-message", "-p", "-t", string(p), "#{pane_dead}")) == "1"
	})
	noProcess(t, term, "Paste into a dead pane", func() {
		if err := term.Paste(ctx, p, "echo hi\n"); !errors.Is(err, ports.ErrPaneDead) {
			t.Errorf("Paste: err = %v, want ErrPaneDead", err)
		}
	})
	if err := term.Ping(ctx); err != nil {
		t.Fatalf("the server is gone after pasting into a dead pane: %v", err)
	}
	if out := s.tmux("list-buffers"); out != "" {
		t.Errorf("buffers left after a refused paste: %q", out)
	}
}
