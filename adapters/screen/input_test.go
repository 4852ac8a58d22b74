package screen

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// The input tests type into "cat" on a raw terminal, which writes every
// byte it reads to a file: what the program read is compared byte for
// byte with what was sent.

// awkward holds every byte screen's reading of a stuff argument could take
// for an escape, and more.
const awkward = "^a ^^ ^? \\ \\\\ \\101 \\000 \\^ \\$ $HOME ${HOME} $ ^ % %n '' \"x\" `id` ; # {} ~ " +
	"é€😀 \x01\x1b[A\x7f\r\n\t end\n"

func TestSendTextTypesEveryByteExactly(t *testing.T) {
	s := newSession(t, Options{})
	id := s.window()
	out := s.rawCat(id)
	text := awkward + "nul:\x00:" + strings.Repeat("0123456789^$\\", 40)
	if err := s.term.SendText(t.Context(), id, text); err != nil {
		t.Fatal(err)
	}
	fileHolds(t, out, []byte(text))
}

func TestSendTextOfManyPiecesWaitsForTheProgram(t *testing.T) {
	s := newSession(t, Options{})
	id := s.window()
	out := fmt.Sprintf("%s/typed", t.TempDir())
	// The program reads nothing for a second: far more than the terminal
	// and screen can hold is sent meanwhile, and must neither be lost
	// nor hang screen.
	s.typeLine(id, "stty raw -echo; sleep 1; exec cat >"+out)
	var b strings.Builder
	for i := 0; b.Len() < 60_000; i++ {
		fmt.Fprintf(&b, "%05d ^$\\ %s\n", i, strings.Repeat("x", 50))
	}
	if err := s.term.SendText(t.Context(), id, b.String()); err != nil {
		t.Fatal(err)
	}
	fileHolds(t, out, []byte(b.String()))
	if !s.alive() {
		t.Error("the session stopped answering")
	}
}

func TestSendTextGivesUpOnAProgramThatDoesNotRead(t *testing.T) {
	s := newSession(t, Options{InputTimeout: 300 * time.Millisecond})
	id := s.window()
	s.typeLine(id, "stty raw -echo; sleep 30")
	eventually(t, 10*time.Second, "sleep to run", func() bool {
		info, err := s.term.Pane(t.Context(), id)
		return err == nil && info.Command == "sleep"
	})
	err := s.term.SendText(t.Context(), id, strings.Repeat("y", 100_000))
	if err == nil || !strings.Contains(err.Error(), "unread") {
		t.Errorf("SendText to a program that reads nothing = %v, want an error saying input is left unread", err)
	}
	if !s.alive() {
		t.Error("the session stopped answering")
	}
}

func TestSendKeysTypesWhatATerminalSends(t *testing.T) {
	s := newSession(t, Options{})
	id := s.window()
	out := s.rawCat(id)
	keys := []string{"a", "Enter", "C-c", "Escape", "Up", "F5", "M-x", "C-\\", "BSpace", "Tab", "€"}
	if err := s.term.SendKeys(t.Context(), id, keys); err != nil {
		t.Fatal(err)
	}
	fileHolds(t, out, []byte("a\r\x03\x1b\x1b[A\x1b[15~\x1bx\x1c\x7f\t€"))
}

func TestSendKeysWithAnUnknownNameSendsNothing(t *testing.T) {
	s := newSession(t, Options{})
	id := s.window()
	out := s.rawCat(id)
	err := s.term.SendKeys(t.Context(), id, []string{"a", "NotAKeyName", "b"})
	if !errors.Is(err, ports.ErrUnknownKey) {
		t.Fatalf("SendKeys(a NotAKeyName b) = %v, want an error wrapping ErrUnknownKey", err)
	}
	if err := s.term.SendKeys(t.Context(), id, []string{"z"}); err != nil {
		t.Fatal(err)
	}
	// Had a or b been sent, they would come before z.
	fileHolds(t, out, []byte("z"))
}

func TestSendKeysFollowApplicationCursorMode(t *testing.T) {
	s := newSession(t, Options{})
	id := s.window()
	// The mode is read from the window's output, so a stream listens.
	stream, err := s.term.OpenOutput(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	out := fmt.Sprintf("%s/typed", t.TempDir())
	s.typeLine(id, `printf '\033[?1h'; stty raw -echo; exec cat >`+out)
	eventually(t, 10*time.Second, "cat to run", func() bool {
		_, err := os.Stat(out)
		return err == nil && bytes.Contains(stream.ReadFrom(0).Data, []byte("\x1b[?1h"))
	})
	if err := s.term.SendKeys(t.Context(), id, []string{"Up", "Left"}); err != nil {
		t.Fatal(err)
	}
	fileHolds(t, out, []byte("\x1bOA\x1bOD"))
}

func TestPasteDeliversAMegabyteWholeAndLeavesNothingBehind(t *testing.T) {
	s := newSession(t, Options{})
	id := s.window()
	out := s.rawCat(id)
	var b strings.Builder
	for i := 0; b.Len() < 1<<20; i++ {
		fmt.Fprintf(&b, "%06d ^$\\ '\" €😀 %s\r\n", i, strings.Repeat("p", 60))
	}
	start := time.Now()
	if err := s.term.Paste(t.Context(), id, b.String()); err != nil {
		t.Fatal(err)
	}
	t.Logf("pasted %d bytes in %v", b.Len(), time.Since(start))
	// As a terminal emulator pastes: a line ends in a carriage return.
	fileHolds(t, out, []byte(strings.ReplaceAll(b.String(), "\r\n", "\r")))

	// The registers are empty: pasting them again adds nothing.
	n, _ := parsePaneID(id)
	s.screen("-p", strconv.Itoa(n), "-X", "paste", regA+regB)
	s.screen("-p", strconv.Itoa(n), "-X", "stuff", "END")
	fileHolds(t, out, []byte(strings.ReplaceAll(b.String(), "\r\n", "\r")+"END"))
	ents, err := os.ReadDir(s.term.workDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Name() != "logs" && filepath.Join(s.term.workDir, e.Name()) != s.term.scripts.Path() {
			t.Errorf("left behind in the private directory: %s", e.Name())
		}
	}
}

func TestPasteBracketsWhenTheProgramAskedForIt(t *testing.T) {
	s := newSession(t, Options{})
	id := s.window()
	stream, err := s.term.OpenOutput(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	out := fmt.Sprintf("%s/typed", t.TempDir())
	s.typeLine(id, `printf '\033[?2004h'; stty raw -echo; exec cat >`+out)
	eventually(t, 10*time.Second, "cat to run", func() bool {
		_, err := os.Stat(out)
		return err == nil && bytes.Contains(stream.ReadFrom(0).Data, []byte("\x1b[?2004h"))
	})
	if err := s.term.Paste(t.Context(), id, "two\nlines"); err != nil {
		t.Fatal(err)
	}
	fileHolds(t, out, []byte("\x1b[200~two\rlines\x1b[201~"))
}

func TestWritesToAnUnknownPane(t *testing.T) {
	s := newSession(t, Options{})
	for name, err := range map[string]error{
		"SendText": s.term.SendText(t.Context(), "%77", "x"),
		"SendKeys": s.term.SendKeys(t.Context(), "%77", []string{"Enter"}),
		"Paste":    s.term.Paste(t.Context(), "%77", "x"),
	} {
		if !errors.Is(err, ports.ErrPaneNotFound) {
			t.Errorf("%s to %%77 = %v, want an error wrapping ErrPaneNotFound", name, err)
		}
	}
}

// A process on the window's terminal that reads a file all the while makes
// the read counts say the input was taken when it was not. screen 4.9 loops
// for ever on a stuff that does not fit the window's input buffer, so the
// adapter must not trust the counts alone: it gives up, and screen lives.
func TestSendTextToAProgramThatDoesNotReadWhileAnotherReadsAFile(t *testing.T) {
	s := newSession(t, Options{InputTimeout: 500 * time.Millisecond})
	id := s.window()
	pidFile := t.TempDir() + "/reader.pid"
	t.Cleanup(func() {
		// The reader runs in the background, where the window's end
		// may not reach it.
		if b, err := os.ReadFile(pidFile); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	s.typeLine(id, "stty raw -echo; cat /dev/zero >/dev/null & echo $! >"+pidFile+"; sleep 30")
	eventually(t, 10*time.Second, "sleep to run", func() bool {
		info, err := s.term.Pane(t.Context(), id)
		return err == nil && info.Command == "sleep"
	})
	err := s.term.SendText(t.Context(), id, strings.Repeat("z", 60_000))
	if err == nil || !strings.Contains(err.Error(), "unread") {
		t.Errorf("SendText = %v, want an error saying input is left unread", err)
	}
	if !s.alive() {
		t.Fatal("the session stopped answering")
	}
}
