package fake_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
	"github.com/tmux-mcp/tmux-mcp/domain/frame"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// shellPane returns a fresh bash pane and a stream opened after its first
// prompt.
func shellPane(t *testing.T) (*fake.Terminal, ports.PaneID, ports.OutputStream) {
	t.Helper()
	term := fake.New()
	id := term.AddPane(fake.PaneSpec{})
	return term, id, openStream(t, term, id)
}

func TestShellPrintsItsPromptAtStart(t *testing.T) {
	term := fake.New()
	id := term.AddPane(fake.PaneSpec{Prompt: "% "})
	if got := string(term.Output(id)); got != "% " {
		t.Errorf("output = %q, want the prompt %q", got, "% ")
	}
	if got := screen(t, term, id)[0]; got != "%" {
		t.Errorf("row 0 = %q, want the prompt without its trailing blank", got)
	}
}

// The shell at its prompt, byte for byte: what is typed is echoed, and
// Enter runs it.
func TestShellLineEditing(t *testing.T) {
	for _, tc := range []struct {
		name  string
		input func(t *testing.T, term *fake.Terminal, id ports.PaneID)
		want  string // the stream after the first prompt
	}{
		{"echo and run", func(t *testing.T, term *fake.Terminal, id ports.PaneID) {
			typeLine(t, term, id, "echo hi")
		}, "echo hi\r\nhi\r\n$ "},
		{"empty line", func(t *testing.T, term *fake.Terminal, id ports.PaneID) {
			pressKeys(t, term, id, "Enter", "Enter")
		}, "\r\n$ \r\n$ "},
		{"newline in text enters", func(t *testing.T, term *fake.Terminal, id ports.PaneID) {
			term.SendText(ctx, id, "echo a\necho b\r")
		}, "echo a\r\na\r\n$ echo b\r\nb\r\n$ "},
		{"backspace", func(t *testing.T, term *fake.Terminal, id ports.PaneID) {
			term.SendText(ctx, id, "echo abX")
			pressKeys(t, term, id, "BSpace")
			term.SendText(ctx, id, "c")
			pressKeys(t, term, id, "Enter")
		}, "echo abX\b \bc\r\nabc\r\n$ "},
		{"backspace erases a whole character", func(t *testing.T, term *fake.Terminal, id ports.PaneID) {
			term.SendText(ctx, id, "echo é")
			pressKeys(t, term, id, "C-h", "Enter")
		}, "echo é\b \b\r\n\r\n$ "},
		{"backspace on an empty line", func(t *testing.T, term *fake.Terminal, id ports.PaneID) {
			pressKeys(t, term, id, "BSpace")
		}, ""},
		{"C-c abandons the line", func(t *testing.T, term *fake.Terminal, id ports.PaneID) {
			term.SendText(ctx, id, "echo no")
			pressKeys(t, term, id, "C-c")
			typeLine(t, term, id, "echo yes")
		}, "echo no^C\r\n$ echo yes\r\nyes\r\n$ "},
		{"C-d on a non-empty line does nothing", func(t *testing.T, term *fake.Terminal, id ports.PaneID) {
			term.SendText(ctx, id, "echo x")
			pressKeys(t, term, id, "C-d", "Enter")
		}, "echo x\r\nx\r\n$ "},
		{"cursor and function keys are ignored", func(t *testing.T, term *fake.Terminal, id ports.PaneID) {
			term.SendText(ctx, id, "echo ")
			pressKeys(t, term, id, "Up", "Left", "F1", "F5", "M-x", "Tab")
			term.SendText(ctx, id, "ok")
			pressKeys(t, term, id, "Enter")
		}, "echo ok\r\nok\r\n$ "},
		{"backslash continues the line", func(t *testing.T, term *fake.Terminal, id ports.PaneID) {
			typeLine(t, term, id, `echo one\`)
			typeLine(t, term, id, "two")
		}, "echo one\\\r\n> two\r\nonetwo\r\n$ "},
		{"a doubled backslash does not", func(t *testing.T, term *fake.Terminal, id ports.PaneID) {
			typeLine(t, term, id, `echo a\\`)
		}, "echo a\\\\\r\na\\\r\n$ "},
		{"unknown command", func(t *testing.T, term *fake.Terminal, id ports.PaneID) {
			typeLine(t, term, id, "vim notes.txt")
		}, "vim notes.txt\r\nbash: vim: command not found\r\n$ "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			term, id, s := shellPane(t)
			tc.input(t, term, id)
			if got := string(everything(s)); got != tc.want {
				t.Errorf("stream = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestShellExits(t *testing.T) {
	for name, input := range map[string]func(t *testing.T, term *fake.Terminal, id ports.PaneID){
		"exit":                    func(t *testing.T, term *fake.Terminal, id ports.PaneID) { typeLine(t, term, id, "exit 4") },
		"C-d on an empty line":    func(t *testing.T, term *fake.Terminal, id ports.PaneID) { pressKeys(t, term, id, "C-d") },
		"exit after other output": func(t *testing.T, term *fake.Terminal, id ports.PaneID) { typeLine(t, term, id, "echo bye; exit") },
	} {
		t.Run(name, func(t *testing.T) {
			term, id, _ := shellPane(t)
			input(t, term, id)
			if !describe(t, term, id).Dead {
				t.Error("the pane is alive after its shell exited")
			}
		})
	}
}

func TestFramedCommandRunsInTheInterpreterByDefault(t *testing.T) {
	term, id, s := shellPane(t)
	typeFramed(t, term, id, "c1", "printf hello; exit 3")
	out, status, ended := framed(t, s, "c1")
	if out != "hello" || status != 3 || !ended {
		t.Errorf("framed command: output %q, status %d, ended %v; want %q, 3, true", out, status, ended, "hello")
	}
	if describe(t, term, id).Dead {
		t.Error("exit in a framed command ended the pane's shell; the frame runs it in a subshell")
	}
	if got, want := term.Commands(id), []string{"printf hello; exit 3"}; !slices.Equal(got, want) {
		t.Errorf("Commands() = %q, want %q", got, want)
	}
	if data := string(everything(s)); !strings.HasSuffix(data, "$ ") {
		t.Errorf("stream %q does not end with a new prompt", data)
	}
}

// The typed frame's echo never holds the markers: the shell builds them
// from printf escapes.
func TestFramedCommandMarkersAppearOnce(t *testing.T) {
	term, id, s := shellPane(t)
	typeFramed(t, term, id, "c1", "echo x")
	data := string(everything(s))
	for _, m := range [][]byte{frame.StartMarker("c1", 1001), frame.EndMarker(idsFor("c1"), 0)} {
		if n := strings.Count(data, string(m)); n != 1 {
			t.Errorf("marker %q appears %d times in %q, want once", m, n, data)
		}
	}
}

func TestScriptedCommandFollowsTheClock(t *testing.T) {
	term, id, s := shellPane(t)
	clock := term.Clock()
	term.Expect(id, fake.Run{
		Output:  "compiling\n",
		Steps:   []fake.Step{{At: 2 * time.Second, Output: "linking\n"}, {At: 3 * time.Second, Output: "testing\n"}},
		Delay:   5 * time.Second,
		Status:  2,
		Command: "make",
	})
	typeFramed(t, term, id, "m1", "make test")

	check := func(when, wantOut string, wantEnded bool, wantCommand string) {
		t.Helper()
		out, status, ended := framed(t, s, "m1")
		if out != wantOut || ended != wantEnded {
			t.Errorf("%s: output %q, ended %v; want %q, %v", when, out, ended, wantOut, wantEnded)
		}
		if ended && status != 2 {
			t.Errorf("%s: status %d, want 2", when, status)
		}
		if got := describe(t, term, id).Command; got != wantCommand {
			t.Errorf("%s: Command = %q, want %q", when, got, wantCommand)
		}
	}
	check("at the start", "compiling\n", false, "make")
	clock.Advance(1999 * time.Millisecond)
	check("just before the first step", "compiling\n", false, "make")
	clock.Advance(time.Millisecond)
	check("at the first step", "compiling\nlinking\n", false, "make")
	clock.Advance(time.Second)
	check("at the second step", "compiling\nlinking\ntesting\n", false, "make")
	clock.Advance(2 * time.Second)
	check("at the end", "compiling\nlinking\ntesting\n", true, "bash")
}

func TestScriptsAreUsedInOrder(t *testing.T) {
	term, id, s := shellPane(t)
	term.Expect(id, fake.Run{Output: "first"}, fake.Run{Output: "second", Status: 1})
	var seen []string
	term.Script(id, func(command string) fake.Run {
		seen = append(seen, command)
		return fake.Run{Output: "scripted " + command}
	})
	for i, cmd := range []string{"a", "b", "c", "d"} {
		typeFramed(t, term, id, "k"+string(rune('0'+i)), cmd)
	}
	term.Script(id, nil)
	typeFramed(t, term, id, "k4", "echo interpreted")

	for _, want := range []struct {
		id, out string
		status  int
	}{{"k0", "first", 0}, {"k1", "second", 1}, {"k2", "scripted c", 0}, {"k3", "scripted d", 0}, {"k4", "interpreted\n", 0}} {
		if out, status, _ := framed(t, s, want.id); out != want.out || status != want.status {
			t.Errorf("%s: output %q, status %d; want %q, %d", want.id, out, status, want.out, want.status)
		}
	}
	if want := []string{"c", "d"}; !slices.Equal(seen, want) {
		t.Errorf("the script saw %q, want %q", seen, want)
	}
}

func TestInterruptingAFramedCommand(t *testing.T) {
	for _, tc := range []struct {
		name       string
		run        fake.Run
		wantEnded  bool
		wantStatus int
	}{
		{"ends it with status 130", fake.Run{Output: "working", Delay: time.Hour}, true, 130},
		{"ends a hanging command", fake.Run{Output: "working", Hang: true}, true, 130},
		{"is ignored when the command ignores it", fake.Run{Output: "working", Delay: time.Hour, IgnoreInterrupt: true}, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			term, id, s := shellPane(t)
			term.Expect(id, tc.run)
			typeFramed(t, term, id, "i1", "work")
			pressKeys(t, term, id, "C-c")
			out, status, ended := framed(t, s, "i1")
			if out != "working^C" || ended != tc.wantEnded || (ended && status != tc.wantStatus) {
				t.Errorf("output %q, ended %v, status %d; want %q, %v, %d", out, ended, status, "working^C", tc.wantEnded, tc.wantStatus)
			}
		})
	}
}

func TestIgnoredInterruptLetsTheCommandFinish(t *testing.T) {
	term, id, s := shellPane(t)
	term.Expect(id, fake.Run{Delay: time.Second, Status: 7, IgnoreInterrupt: true})
	typeFramed(t, term, id, "i1", "stubborn")
	pressKeys(t, term, id, "C-c")
	term.Clock().Advance(time.Second)
	if _, status, ended := framed(t, s, "i1"); !ended || status != 7 {
		t.Errorf("ended %v, status %d; want it to end with its own status 7", ended, status)
	}
}

func TestHangingCommandNeverEndsByItself(t *testing.T) {
	term, id, s := shellPane(t)
	term.Expect(id, fake.Run{Steps: []fake.Step{{At: time.Second, Output: "tick"}}, Hang: true, Command: "tail"})
	typeFramed(t, term, id, "h1", "tail -f log")
	term.Clock().Advance(24 * time.Hour)
	if out, _, ended := framed(t, s, "h1"); ended || out != "tick" {
		t.Errorf("output %q, ended %v; want its step and no end", out, ended)
	}
	if got := describe(t, term, id).Command; got != "tail" {
		t.Errorf("Command = %q while hanging, want %q", got, "tail")
	}
}

// What is typed while a command runs is echoed by the tty at once and
// read by the shell when the command ends; C-c throws it away.
func TestTypeAhead(t *testing.T) {
	t.Run("runs after the command", func(t *testing.T) {
		term, id, s := shellPane(t)
		term.Expect(id, fake.Run{Delay: time.Second})
		typeFramed(t, term, id, "t1", "slow")
		mark := len(everything(s))
		typeLine(t, term, id, "echo next")
		if got, want := string(everything(s)[mark:]), "echo next\r\n"; got != want {
			t.Errorf("while the command runs the stream got %q, want the tty's echo %q", got, want)
		}
		term.Clock().Advance(time.Second)
		end := string(frame.EndMarker(idsFor("t1"), 0))
		if got, want := string(everything(s)[mark:]), "echo next\r\n"+end+"$ echo next\r\nnext\r\n$ "; got != want {
			t.Errorf("after the command the stream got %q, want %q", got, want)
		}
	})
	t.Run("is thrown away by C-c", func(t *testing.T) {
		term, id, s := shellPane(t)
		term.Expect(id, fake.Run{Delay: time.Second})
		typeFramed(t, term, id, "t1", "slow")
		typeLine(t, term, id, "echo never-$((1+1))")
		pressKeys(t, term, id, "C-c")
		term.Clock().Advance(time.Second)
		if got := normalize(everything(s)); strings.Contains(got, "never-2") {
			t.Errorf("type-ahead ran after C-c: %q", got)
		}
	})
	t.Run("is echoed as the tty echoes controls", func(t *testing.T) {
		term, id, s := shellPane(t)
		term.Expect(id, fake.Run{Hang: true})
		typeFramed(t, term, id, "t1", "slow")
		mark := len(everything(s))
		term.SendText(ctx, id, "ab")
		pressKeys(t, term, id, "BSpace", "Escape", "Tab")
		if got, want := string(everything(s)[mark:]), "ab\b \b^[\t"; got != want {
			t.Errorf("echo = %q, want %q", got, want)
		}
	})
}

func TestCatReadsTheTerminalUntilCtrlD(t *testing.T) {
	term, id, s := shellPane(t)
	typeLine(t, term, id, "echo ready; cat; echo done")
	if got := describe(t, term, id).Command; got != "cat" {
		t.Errorf("Command = %q while cat runs, want cat", got)
	}
	mark := len(everything(s))
	term.Paste(ctx, id, "line 1\nline 2\n")
	term.SendText(ctx, id, "partial")
	pressKeys(t, term, id, "C-d") // sends the partial line without ending cat
	pressKeys(t, term, id, "C-d") // the end of cat's input
	want := "line 1\r\nline 1\r\nline 2\r\nline 2\r\npartialpartialdone\r\n$ "
	if got := string(everything(s)[mark:]); got != want {
		t.Errorf("stream = %q, want %q", got, want)
	}
	if got := describe(t, term, id).Command; got != "bash" {
		t.Errorf("Command = %q after cat, want bash", got)
	}
}

func TestCatToDevNullOnlyEchoes(t *testing.T) {
	term, id, s := shellPane(t)
	typeLine(t, term, id, "cat >/dev/null")
	mark := len(everything(s))
	term.Paste(ctx, id, "secret\r")
	pressKeys(t, term, id, "C-c")
	if got, want := string(everything(s)[mark:]), "secret\r\n^C\r\n$ "; got != want {
		t.Errorf("stream = %q, want %q", got, want)
	}
}

func TestSleepWaitsOnTheClock(t *testing.T) {
	term, id, s := shellPane(t)
	typeLine(t, term, id, "sleep 2; echo woke-$((1+1))")
	if got := describe(t, term, id).Command; got != "sleep" {
		t.Errorf("Command = %q while sleeping, want sleep", got)
	}
	term.Clock().Advance(1999 * time.Millisecond)
	if strings.Contains(normalize(everything(s)), "woke-2") {
		t.Fatal("woke before the sleep was over")
	}
	term.Clock().Advance(time.Millisecond)
	if !strings.Contains(normalize(everything(s)), "woke-2\n$ ") {
		t.Errorf("stream = %q, want woke and a prompt after 2s", everything(s))
	}
}

func TestProgramOutputGetsTheTtysLineEnds(t *testing.T) {
	term, id, s := shellPane(t)
	term.Expect(id, fake.Run{Output: "a\nb\r\n"})
	typeFramed(t, term, id, "o1", "x")
	data := string(everything(s))
	start := string(frame.StartMarker("o1", 1001))
	if i := strings.Index(data, start); i < 0 || !strings.HasPrefix(data[i+len(start):], "a\r\nb\r\r\n") {
		t.Errorf("stream = %q, want the output as %q after the start marker", data, "a\r\nb\r\r\n")
	}
}

func TestCommandFramedForAnotherShellIsNotRun(t *testing.T) {
	term, id, s := shellPane(t) // bash
	typeFramedFor(t, term, id, frame.ShellFish, "f1", "echo hi")
	data := string(everything(s))
	if strings.Contains(data, "tmcp;S;f1") {
		t.Errorf("a command framed for fish ran in bash: %q", data)
	}
	if !strings.Contains(data, "framed for fish") {
		t.Errorf("stream = %q, want an error naming the shell it was framed for", data)
	}
}

func TestInputThatReachesNoProgram(t *testing.T) {
	for name, setup := range map[string]func(term *fake.Terminal, id ports.PaneID){
		"in a mode":             func(term *fake.Terminal, id ports.PaneID) { term.SetMode(id, "copy-mode") },
		"under another program": func(term *fake.Terminal, id ports.PaneID) { term.SetCommand(id, "vim") },
	} {
		t.Run(name, func(t *testing.T) {
			term, id, s := shellPane(t)
			setup(term, id)
			typeLine(t, term, id, "echo lost")
			term.Paste(ctx, id, "pasted\n")
			if data := everything(s); len(data) != 0 {
				t.Errorf("stream = %q, want nothing", data)
			}
			want := []fake.Input{{Kind: fake.InputText, Text: "echo lost"}, {Kind: fake.InputKeys, Keys: []string{"Enter"}}, {Kind: fake.InputPaste, Text: "pasted\n"}}
			if got := term.Sent(id); !equalInputs(got, want) {
				t.Errorf("Sent() = %+v, want %+v", got, want)
			}
		})
	}
}

func equalInputs(a, b []fake.Input) bool {
	return slices.EqualFunc(a, b, func(x, y fake.Input) bool {
		return x.Kind == y.Kind && x.Text == y.Text && slices.Equal(x.Keys, y.Keys) && x.Via == y.Via
	})
}

func TestSetCommandToAShellKeepsTheShell(t *testing.T) {
	term, id, s := shellPane(t)
	term.SetCommand(id, "zsh")
	typeFramed(t, term, id, "z1", "echo in zsh")
	if got := between(t, s, "z1"); got != "in zsh\n" {
		t.Errorf("output = %q, want %q", got, "in zsh\n")
	}
	term.SetCommand(id, "")
	if got := describe(t, term, id).Command; got != "bash" {
		t.Errorf("Command = %q after SetCommand(\"\"), want bash", got)
	}
}

func TestBracketedPaste(t *testing.T) {
	for _, tc := range []struct {
		name      string
		setup     func(term *fake.Terminal, id ports.PaneID)
		runsEarly bool // the pasted lines run before Enter is pressed
	}{
		{"off: each pasted line runs", func(*fake.Terminal, ports.PaneID) {}, true},
		{"turned on by the test", func(term *fake.Terminal, id ports.PaneID) { term.SetBracketedPaste(id, true) }, false},
		{"asked for by the program", func(term *fake.Terminal, id ports.PaneID) { term.Inject(id, []byte("\x1b[?2004h")) }, false},
		{"turned off again", func(term *fake.Terminal, id ports.PaneID) {
			term.SetBracketedPaste(id, true)
			term.Inject(id, []byte("\x1b[?2004l"))
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			term, id, s := shellPane(t)
			tc.setup(term, id)
			term.Paste(ctx, id, "echo one-$((0+1))\necho two-$((1+1))\n")
			if ran := strings.Contains(normalize(everything(s)), "one-1\n"); ran != tc.runsEarly {
				t.Fatalf("before Enter the pasted lines ran: %v, want %v; stream %q", ran, tc.runsEarly, everything(s))
			}
			pressKeys(t, term, id, "Enter")
			if got := normalize(everything(s)); !strings.Contains(got, "one-1\n") || !strings.Contains(got, "two-2\n") {
				t.Errorf("after Enter the stream is %q, want both lines run", got)
			}
		})
	}
}

func TestKillingThePaneAbandonsItsCommand(t *testing.T) {
	term, id, s := shellPane(t)
	term.Expect(id, fake.Run{Output: "started", Delay: time.Second})
	typeFramed(t, term, id, "d1", "doomed")
	term.KillPane(id)
	term.Clock().Advance(time.Minute)
	if out, _, ended := framed(t, s, "d1"); ended || out != "started" {
		t.Errorf("output %q, ended %v; a killed shell prints no end marker", out, ended)
	}
}
