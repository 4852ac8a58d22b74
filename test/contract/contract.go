// Package contract is the test suite that every ports.Terminal adapter
// passes: the in-memory fake, tmux, and any other multiplexer backend. An
// adapter's own test supplies a Harness and calls Run.
//
// Every assertion here holds for a real multiplexer running a real POSIX
// shell (bash or sh) on a real tty, so nothing in it depends on the fake's
// conveniences: commands are typed and entered, output is awaited with
// Harness.Eventually, and line ends are compared after the tty's "\r\n"
// is read as "\n". Each subtest starts its own panes.
package contract

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/domain/frame"
	"github.com/tmux-mcp/tmux-mcp/domain/policy"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// Harness is what an adapter's test supplies to run the suite against it.
type Harness interface {
	// Terminal returns the Terminal under test.
	Terminal() ports.Terminal

	// NewShellPane starts a pane running a POSIX shell (sh or bash) with a
	// plain environment and prompt, and returns its id once the shell
	// reads input. The pane is removed by t.Cleanup.
	NewShellPane(t *testing.T) ports.PaneID

	// KillPane makes the pane's process exit.
	KillPane(t *testing.T, id ports.PaneID)

	// Attach makes a person-like client watch the pane and returns what
	// makes it stop. It may t.Skip, naming the capability the backend
	// lacks.
	Attach(t *testing.T, id ports.PaneID) (detach func())

	// Synchronize makes input to any of the panes reach all of them. It
	// may t.Skip, naming the capability the backend lacks.
	Synchronize(t *testing.T, ids ...ports.PaneID)

	// EnterMode puts the pane in a mode, such as copy mode, in which input
	// would not reach its program. It may t.Skip.
	EnterMode(t *testing.T, id ports.PaneID)

	// Eventually returns once cond reports true and fails the test (with
	// t.Fatal, naming what) if it never does. A synchronous fake re-checks
	// a bounded number of times without waiting; a real backend polls with
	// short waits for up to a few seconds.
	Eventually(t *testing.T, cond func() bool, what string)
}

// Run runs the whole suite against the harness's Terminal.
func Run(t *testing.T, h Harness) {
	for _, tc := range []struct {
		name string
		test func(*testing.T, Harness)
	}{
		{"UnknownPaneIsNotFound", testUnknownPane},
		{"FreshShellPane", testFreshShellPane},
		{"TypedCommandRunsOnEnter", testTypedCommand},
		{"SendTextTypesKeyNamesAsText", testTextIsLiteral},
		{"UnknownKeySendsNothing", testUnknownKey},
		{"CtrlCAbandonsTypedLine", testCtrlC},
		{"PasteMultiLineArrivesWhole", testPasteMultiLine},
		{"PasteLargeArrivesWhole", testPasteLarge},
		{"FramedCommandsReportStatus", testFramedCommands},
		{"ScriptsAreReadByTheShell", testScripts},
		{"RemovedScriptIsGone", testRemovedScript},
		{"JobControlTellsTheForeground", testForeground},
		{"ProcessWatcherTellsWhatWasLeftRunning", testProcessesSince},
		{"LineEditingAtThePrompt", testLineEditing},
		{"SignalerSignalsACommandNeverTheShell", testSignaler},
		{"InputWatcherSeesAReadOfTheTerminal", testReading},
		{"CaptureRowsFollowTheRowConvention", testCaptureRows},
		{"CaptureJoinsWrappedRows", testJoinWrapped},
		{"ScreenCaptureIsPaneThenCaptureOfTheScreen", testCaptureScreen},
		{"EscapesReachTheStreamNotTheCapture", testEscapes},
		{"StreamOffsets", testStreamOffsets},
		{"StreamChangedSignalsOutput", testChanged},
		{"ClosedStreamEnds", testClose},
		{"KilledPane", testKilledPane},
		{"AttachedClientWatches", testAttach},
		{"SynchronizedPanesAlsoReach", testSynchronize},
		{"ModeIsReported", testMode},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.test(t, h) })
	}
}

// A pane id that no backend has handed out in a test.
const unknownPane = ports.PaneID("%999999")

func testUnknownPane(t *testing.T, h Harness) {
	term, ctx := h.Terminal(), t.Context()
	calls := map[string]func() error{
		"Pane":     func() error { _, err := term.Pane(ctx, unknownPane); return err },
		"SendText": func() error { return term.SendText(ctx, unknownPane, "x") },
		"SendKeys": func() error { return term.SendKeys(ctx, unknownPane, []string{"Enter"}) },
		"Paste":    func() error { return term.Paste(ctx, unknownPane, "x") },
		"Capture":  func() error { _, err := term.Capture(ctx, unknownPane, ports.CaptureRange{}); return err },
		"OpenOutput": func() error {
			s, err := term.OpenOutput(ctx, unknownPane)
			if s != nil {
				s.Close()
			}
			return err
		},
	}
	if sc, ok := term.(ports.ScreenCapturer); ok {
		calls["CaptureScreen"] = func() error { _, _, err := sc.CaptureScreen(ctx, unknownPane, false); return err }
	}
	for name, call := range calls {
		if err := call(); !errors.Is(err, ports.ErrPaneNotFound) {
			t.Errorf("%s(%s) = %v, want an error wrapping ErrPaneNotFound", name, unknownPane, err)
		}
	}
}

func testFreshShellPane(t *testing.T, h Harness) {
	id := h.NewShellPane(t)
	var info ports.PaneInfo
	h.Eventually(t, func() bool {
		info = describe(t, h, id)
		_, isShell := frame.ShellFor(info.Command)
		return isShell || !known(info, ports.FactCommand)
	}, fmt.Sprintf("pane %s to report a shell as its command", id))

	if info.ID != id {
		t.Errorf("ID = %q, want %q", info.ID, id)
	}
	if info.Dead {
		t.Error("Dead = true for a fresh pane")
	}
	if known(info, ports.FactMode) && info.Mode != "" {
		t.Errorf("Mode = %q, want none", info.Mode)
	}
	if info.Width <= 0 || info.Height <= 0 {
		t.Errorf("size = %dx%d, want both positive", info.Width, info.Height)
	}
	if info.HistoryLimit < 0 || info.HistorySize < 0 || info.HistorySize > info.HistoryLimit {
		t.Errorf("HistorySize = %d, HistoryLimit = %d, want 0 <= size <= limit", info.HistorySize, info.HistoryLimit)
	}
	if known(info, ports.FactWatched) && (len(info.Watchers) > 0 || info.Attended) {
		t.Errorf("Watchers = %q, Attended = %v, want nobody watching a test pane", info.Watchers, info.Attended)
	}
	if known(info, ports.FactAlsoReaches) && len(info.AlsoReaches) > 0 {
		t.Errorf("AlsoReaches = %q, want none", info.AlsoReaches)
	}
	if known(info, ports.FactSelf) && info.Self {
		t.Error("Self = true for a pane the test started")
	}
}

// known reports whether the backend could tell fact f about the pane.
func known(info ports.PaneInfo, f ports.Fact) bool { return !slices.Contains(info.Unknown, f) }

func testTypedCommand(t *testing.T, h Harness) {
	id := h.NewShellPane(t)
	out := follow(t, h, id)
	// Typed in two parts: had the first SendText pressed Enter, the
	// second part would be a command of its own and the line below would
	// not appear. The output differs from the echo of what was typed.
	sendText(t, h, id, "echo contract-$((6*7))")
	sendText(t, h, id, " and-$((1+1))")
	sendKeys(t, h, id, "Enter")
	out.waitFor(t, h, "contract-42 and-2\n")
	waitForRow(t, h, id, "contract-42 and-2")
}

func testTextIsLiteral(t *testing.T, h Harness) {
	id := h.NewShellPane(t)
	out := follow(t, h, id)
	sendText(t, h, id, "echo literal-$((1+1)) 'C-c' Enter Escape 'M-x'")
	sendKeys(t, h, id, "Enter")
	out.waitFor(t, h, "literal-2 C-c Enter Escape M-x\n")
}

func testUnknownKey(t *testing.T, h Harness) {
	id := h.NewShellPane(t)
	out := follow(t, h, id)
	sendText(t, h, id, "echo unknown-$((2*3))")
	// A modifier before a key that has no code with it is no key either:
	// tmux would type the name as text, or send the key without it.
	for _, name := range []string{"NotAKeyName", "S-Tab", "S-a", "S-Enter", "C-S-a", "C-é", "C-Enter"} {
		err := h.Terminal().SendKeys(t.Context(), id, []string{"Enter", name})
		if !errors.Is(err, ports.ErrUnknownKey) {
			t.Fatalf("SendKeys(Enter, %s) = %v, want an error wrapping ErrUnknownKey", name, err)
		}
	}
	// Had the Enter before the unknown name been pressed, "unknown-6"
	// would stand alone and " tail-7" would be a command of its own.
	sendText(t, h, id, " tail-$((3+4))")
	sendKeys(t, h, id, "Enter")
	out.waitFor(t, h, "unknown-6 tail-7\n")
}

func testCtrlC(t *testing.T, h Harness) {
	id := h.NewShellPane(t)
	out := follow(t, h, id)
	sendText(t, h, id, "echo abandoned-$((1+1))")
	sendKeys(t, h, id, "C-c")
	// A shell that is still handling the interrupt may drop what is typed
	// meanwhile, as a person would see when typing too fast; so type the
	// next line again (after clearing it) until it runs.
	polls := 0
	typeNext := func() {
		sendKeys(t, h, id, "C-u")
		sendText(t, h, id, "echo kept-$((2+2))")
		sendKeys(t, h, id, "Enter")
	}
	typeNext()
	h.Eventually(t, func() bool {
		out.poll()
		if strings.Contains(out.text(), "kept-4\n") {
			return true
		}
		if polls++; polls%25 == 0 {
			typeNext()
		}
		return false
	}, `"kept-4" in the pane's output`)
	if strings.Contains(out.text(), "abandoned-2") {
		t.Errorf("the line abandoned with C-c ran: output %q", out.text())
	}
}

func testPasteMultiLine(t *testing.T, h Harness) {
	text := "first line of the paste\n" +
		"second: 'single' \"double\" $HOME `tick` \\ back; not run\n" +
		"key names stay text: C-c Enter Escape M-x\n" +
		"ünïcödé ✓\n"
	pasteThroughCat(t, h, text)
}

func testPasteLarge(t *testing.T, h Harness) {
	// Lines well under the 4,095-byte limit of a tty in canonical mode,
	// each distinct so that a lost or repeated line shows.
	var b strings.Builder
	for i := 0; b.Len() < 200_000; i++ {
		fmt.Fprintf(&b, "%06d %s\n", i, strings.Repeat("abcdefghij", 9))
	}
	pasteThroughCat(t, h, b.String())
}

// pasteThroughCat pastes text while cat reads the terminal, and checks
// that what cat received, and printed, arrives whole in the output stream.
// A shell's line editor would redraw a paste in its own way; cat in
// canonical mode reads every byte as it arrives, the same for every shell.
// The tty's echo is turned off where the terminal has stty, because a
// kernel drops echo (never a program's output) when the pane is not read
// fast enough; where the echo stays on, the text appears twice, which the
// check allows. The command prints a marker first, after which the
// terminal is certainly in canonical mode, so that none of the paste can
// reach the line editor.
func pasteThroughCat(t *testing.T, h Harness, text string) {
	id := h.NewShellPane(t)
	out := follow(t, h, id)
	sendText(t, h, id, "stty -echo 2>/dev/null; echo paste-rea''dy; cat")
	sendKeys(t, h, id, "Enter")
	out.waitFor(t, h, "paste-ready\n")
	from := len(out.data)
	if err := h.Terminal().Paste(t.Context(), id, text); err != nil {
		t.Fatalf("Paste: %v", err)
	}
	h.Eventually(t, func() bool {
		out.poll()
		return strings.Contains(normalize(out.data[from:]), text)
	}, fmt.Sprintf("the %d-byte paste, whole, printed by cat in the output of pane %s", len(text), id))
	if out.missed > 0 {
		t.Errorf("the stream missed %d bytes of cat's output", out.missed)
	}
	sendKeys(t, h, id, "C-d") // the end of cat's input
}

func testFramedCommands(t *testing.T, h Harness) {
	for _, tc := range []struct {
		name    string
		command string
		output  string
		status  int
	}{
		{"printf then exit 3", "printf hello; exit 3", "hello", 3},
		{"echo", "echo framed-$((20+1))", "framed-21\n", 0},
		{"false", "false", "", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := h.NewShellPane(t)
			sh := shellOf(t, h, id)
			out := follow(t, h, id)
			name := strings.ReplaceAll(tc.name, " ", "-")
			ids := frame.IDs{ID: "contract-" + name, Secret: "secret-" + name, Unread: "unread-" + name}
			cmd := frame.Command{Shell: sh, IDs: ids, Text: tc.command}
			files, err := cmd.Stage(func(build func(string) []byte) (string, error) {
				return putScript(t, h, id, build), nil
			})
			if err != nil {
				t.Fatal(err)
			}
			sendText(t, h, id, cmd.Line(files))

			end := frame.EndMarker(ids, tc.status)
			out.waitFor(t, h, string(end))
			raw := out.data
			var got bytes.Buffer
			sc := frame.NewScanner(ids, &got)
			sc.Write(raw)
			if status, ok := sc.Ended(); !sc.Started() || !ok || status != tc.status {
				t.Errorf("started %v, ended %v with %d; want a start and an end with %d", sc.Started(), ok, status, tc.status)
			}
			if sc.ShellPID() <= 0 {
				t.Errorf("the start marker names pid %d", sc.ShellPID())
			}
			if n := bytes.Count(raw, end); n != 1 {
				t.Errorf("end marker appears %d times, want once", n)
			}
			if normalize(got.Bytes()) != tc.output {
				t.Errorf("output between the markers = %q, want %q", normalize(got.Bytes()), tc.output)
			}
			if state := removeScript(t, h, id, files.Script); state == ports.ScriptUntouched {
				t.Errorf("RemoveScript after the frame ran = untouched, want taken (or unknown)")
			}
		})
	}
}

// shellOf waits for the pane to report a shell the framing supports.
func shellOf(t *testing.T, h Harness, id ports.PaneID) frame.Shell {
	t.Helper()
	var sh frame.Shell
	h.Eventually(t, func() bool {
		var ok bool
		sh, ok = frame.ShellFor(describe(t, h, id).Command)
		return ok
	}, fmt.Sprintf("pane %s to report a shell the framing supports", id))
	return sh
}

func putScript(t *testing.T, h Harness, id ports.PaneID, build func(string) []byte) string {
	t.Helper()
	called := 0
	path, err := h.Terminal().PutScript(t.Context(), id, func(path string) []byte {
		called++
		return build(path)
	})
	if err != nil {
		t.Fatalf("PutScript(%s): %v", id, err)
	}
	if called != 1 {
		t.Fatalf("PutScript called build %d times, want once", called)
	}
	t.Cleanup(func() { h.Terminal().RemoveScript(t.Context(), id, path) })
	return path
}

func removeScript(t *testing.T, h Harness, id ports.PaneID, path string) ports.ScriptState {
	t.Helper()
	state, err := h.Terminal().RemoveScript(t.Context(), id, path)
	if err != nil {
		t.Fatalf("RemoveScript(%s, %s): %v", id, path, err)
	}
	return state
}

// sourceLine is a line that makes a POSIX shell read the script at path.
func sourceLine(path string) string { return "command . '" + path + "' || echo unreadable-script\n" }

func testScripts(t *testing.T, h Harness) {
	id := h.NewShellPane(t)
	shellOf(t, h, id)
	var named string
	path := putScript(t, h, id, func(p string) []byte {
		named = p
		return []byte("echo staged-$((40+2))\n")
	})
	if path != named || !strings.HasPrefix(path, "/") {
		t.Errorf("PutScript returned %q after building for %q; want the same absolute path", path, named)
	}
	other := putScript(t, h, id, func(string) []byte { return []byte("echo other\n") })
	if other == path {
		t.Errorf("two scripts share the path %q", path)
	}
	out := follow(t, h, id)
	sendText(t, h, id, sourceLine(path))
	out.waitFor(t, h, "staged-42\n")
	if state := removeScript(t, h, id, path); state == ports.ScriptTaken {
		t.Errorf("RemoveScript of a script the shell read but did not empty = taken, want untouched (or unknown)")
	}
	if state := removeScript(t, h, id, path); state != ports.ScriptUnknown && state != ports.ScriptUntouched {
		// A script that is gone has nothing to tell.
		t.Errorf("RemoveScript of a removed script = %v", state)
	}
}

func testRemovedScript(t *testing.T, h Harness) {
	id := h.NewShellPane(t)
	shellOf(t, h, id)
	path := putScript(t, h, id, func(string) []byte { return []byte("echo must-not-run\n") })
	removeScript(t, h, id, path)
	out := follow(t, h, id)
	sendText(t, h, id, sourceLine(path)+"echo after-removal\n")
	out.waitFor(t, h, "after-removal\n")
	if strings.Contains(strings.ReplaceAll(out.text(), "echo must-not-run", ""), "must-not-run") {
		t.Errorf("a removed script ran: %q", out.text())
	}
	if !strings.Contains(out.text(), "unreadable-script\n") {
		t.Errorf("the shell could read a removed script: %q", out.text())
	}
}

// A ProcessWatcher lists a process started in the background on the
// pane's terminal after the mark, and nothing started before it.
func testProcessesSince(t *testing.T, h Harness) {
	pw, ok := h.Terminal().(ports.ProcessWatcher)
	if !ok {
		t.Skip("the backend is no ports.ProcessWatcher")
	}
	id := h.NewShellPane(t)
	shellOf(t, h, id)
	ctx := t.Context()
	if _, err := pw.ProcessMark(ctx, id); errors.Is(err, ports.ErrUnsupported) {
		t.Skip("the backend cannot tell a pane's processes")
	}
	sendText(t, h, id, "sleep 61 &\n")
	var first ports.Process
	h.Eventually(t, func() bool {
		ps, err := pw.ProcessesSince(ctx, id, ports.ProcessMark{})
		for _, p := range ps {
			if err == nil && strings.Contains(p.Command, "sleep 61") {
				first = p
				return true
			}
		}
		return false
	}, "the first sleep to be listed since the start")
	mark, err := pw.ProcessMark(ctx, id)
	if err != nil {
		t.Fatalf("ProcessMark = %v", err)
	}
	sendText(t, h, id, "sleep 62 &\n")
	h.Eventually(t, func() bool {
		ps, err := pw.ProcessesSince(ctx, id, mark)
		if err != nil {
			return false
		}
		var second bool
		for _, p := range ps {
			if p.PID == first.PID {
				t.Fatalf("ProcessesSince the mark lists %+v, which started before it", p)
			}
			second = second || strings.Contains(p.Command, "sleep 62") && !p.Young
		}
		return second
	}, "the second sleep to be listed since the mark")
}

func testForeground(t *testing.T, h Harness) {
	id := h.NewShellPane(t)
	shellOf(t, h, id)
	out := follow(t, h, id)
	// The echo of the typed line shows "$$", the output the number.
	sendText(t, h, id, "echo pid=$$.\n")
	var pid int
	h.Eventually(t, func() bool {
		out.poll()
		for _, line := range strings.Split(out.text(), "\n") {
			if i := strings.Index(line, "pid="); i >= 0 {
				if _, err := fmt.Sscanf(line[i:], "pid=%d.", &pid); err == nil && pid > 0 {
					return true
				}
			}
		}
		return false
	}, "the shell to print its pid")
	term, ctx := h.Terminal(), t.Context()
	fg, err := term.Foreground(ctx, id)
	if errors.Is(err, ports.ErrUnsupported) {
		t.Skip("the backend cannot tell a pane's foreground")
	}
	if err != nil || fg.Group != pid {
		t.Fatalf("Foreground of a shell at its prompt = %+v, %v; want the shell's group, %d", fg, err, pid)
	}
	// The command line, when told, is the shell's, one that reads its
	// commands from the terminal: what run_shell_command types into.
	if fg.Args != nil {
		if len(fg.Args) == 0 {
			t.Errorf("Foreground of a shell at its prompt has Args empty, as of a leader that has exited")
		} else if sh, ok := frame.ShellFor(fg.Args[0]); !ok || !policy.ReadsTerminal(sh, fg.Args[1:]) {
			t.Errorf("Foreground of a shell at its prompt has Args %q, want a shell that reads the terminal", fg.Args)
		}
	}
	// The program, when told, is what runs: a shell's executable, which
	// the pane's description tells alike.
	if fg.Program != "" {
		name := fg.Program
		if len(fg.Args) > 0 {
			name = fg.Args[0]
		}
		if _, ok := policy.ShellOf(fg.Program, name); !ok {
			t.Errorf("Foreground of a shell at its prompt has Program %q (Args %q), want a shell's executable", fg.Program, fg.Args)
		}
		if info := describe(t, h, id); info.Program != "" && info.Program != fg.Program {
			t.Errorf("Pane says the program in front is %q, Foreground %q", info.Program, fg.Program)
		}
	}
	idle, shellArgs, shellProgram := fg.Children, fg.Args, fg.Program
	sendText(t, h, id, "sleep 1; echo slept\n")
	h.Eventually(t, func() bool {
		fg, err := term.Foreground(ctx, id)
		// sleep's; for a moment, those of the shell's fork that is about
		// to run it; or none once sleep has exited, before the shell
		// takes the terminal back.
		if err == nil && fg.Group != pid && len(fg.Args) > 0 && !slices.Equal(fg.Args, []string{"sleep", "1"}) && !slices.Equal(fg.Args, shellArgs) {
			t.Errorf("Foreground while sleep 1 runs has Args %q, want sleep's command line or nil", fg.Args)
		}
		if err == nil && fg.Group != pid && fg.Program != "" && fg.Program != "sleep" && fg.Program != shellProgram {
			t.Errorf("Foreground while sleep 1 runs has Program %q, want sleep or the shell's fork", fg.Program)
		}
		return err == nil && fg.Group != pid
	}, "a group other than the shell's in front while sleep runs")
	out.waitFor(t, h, "slept\n")
	h.Eventually(t, func() bool {
		fg, err := term.Foreground(ctx, id)
		return err == nil && fg.Group == pid && (idle == nil || len(fg.Children) <= len(idle))
	}, "the shell back in front, without its child")
	if _, err := term.Foreground(ctx, unknownPane); !errors.Is(err, ports.ErrPaneNotFound) {
		t.Errorf("Foreground(%s) = %v, want ErrPaneNotFound", unknownPane, err)
	}
}

func testLineEditing(t *testing.T, h Harness) {
	id := h.NewShellPane(t)
	sh := shellOf(t, h, id)
	term, ctx := h.Terminal(), t.Context()
	editing, err := term.LineEditing(ctx, id)
	if errors.Is(err, ports.ErrUnsupported) {
		t.Skip("the backend cannot tell how a pane's terminal is set")
	}
	if err != nil {
		t.Fatalf("LineEditing: %v", err)
	}
	if sh == frame.ShellSh && editing {
		t.Errorf("LineEditing = true for %s, which has no line editor", describe(t, h, id).Command)
	}
	if sh != frame.ShellSh {
		h.Eventually(t, func() bool {
			editing, err := term.LineEditing(ctx, id)
			return err == nil && editing
		}, "the shell's line editor to show")
	}
	out := follow(t, h, id)
	sendText(t, h, id, "sleep 1; echo slept\n")
	h.Eventually(t, func() bool {
		editing, err := term.LineEditing(ctx, id)
		return err == nil && !editing
	}, "the terminal to be in canonical mode while sleep runs")
	out.waitFor(t, h, "slept\n")
	if _, err := term.LineEditing(ctx, unknownPane); !errors.Is(err, ports.ErrPaneNotFound) {
		t.Errorf("LineEditing(%s) = %v, want ErrPaneNotFound", unknownPane, err)
	}
}

// testReading checks a Terminal that tells who reads a pane's terminal
// (ports.InputWatcher): cat reading it, a line at a time with echo, and
// with echo off after stty -echo; nothing reading it while sleep runs.
func testReading(t *testing.T, h Harness) {
	iw, ok := h.Terminal().(ports.InputWatcher)
	if !ok {
		t.Skip("the backend does not tell who reads a pane's terminal")
	}
	id := h.NewShellPane(t)
	ctx := t.Context()
	if _, err := iw.Reading(ctx, id); errors.Is(err, ports.ErrUnsupported) {
		t.Skip("the backend cannot tell who reads a pane's terminal")
	}
	out := follow(t, h, id)
	sendText(t, h, id, "sleep 1; echo slept\n")
	var last ports.Reading
	var lastErr error
	h.Eventually(t, func() bool {
		last, lastErr = iw.Reading(ctx, id)
		return lastErr == nil && !last.Blocked
	}, "nothing reading the terminal while sleep runs")
	out.waitFor(t, h, "slept\n")
	for _, c := range []struct {
		line string
		echo bool
	}{{"cat\n", true}, {"stty -echo; cat; stty echo\n", false}} {
		sendText(t, h, id, c.line)
		h.Eventually(t, func() bool {
			last, lastErr = iw.Reading(ctx, id)
			return lastErr == nil && last.Blocked && last.Canonical && last.Echo == c.echo && last.PID > 0
		}, fmt.Sprintf("%q blocked reading the terminal, a line at a time, echo %v (last: %+v, %v)", c.line, c.echo, last, lastErr))
		if last.Program != "" && last.Program != "cat" {
			t.Errorf("the reading program of %q is %q, want cat", c.line, last.Program)
		}
		sendKeys(t, h, id, "C-d")
		h.Eventually(t, func() bool {
			last, lastErr = iw.Reading(ctx, id)
			return lastErr == nil && (!last.Blocked || last.Program != "cat")
		}, "cat to have ended at C-d")
	}
	if _, err := iw.Reading(ctx, unknownPane); !errors.Is(err, ports.ErrPaneNotFound) {
		t.Errorf("Reading(%s) = %v, want ErrPaneNotFound", unknownPane, err)
	}
}

func testCaptureRows(t *testing.T, h Harness) {
	id := h.NewShellPane(t)
	info := describe(t, h, id)
	if info.HistoryLimit == 0 {
		t.Skip("the pane keeps no history")
	}
	n := info.Height + 10
	args := make([]string, n)
	for i := range args {
		args[i] = fmt.Sprint(i + 1)
	}
	out := follow(t, h, id)
	sendText(t, h, id, "printf 'fill-%s\\n' "+strings.Join(args, " "))
	sendKeys(t, h, id, "Enter")
	last := fmt.Sprintf("fill-%d\n", n)
	out.waitFor(t, h, last)

	// The screen may still change (the prompt comes back), so the checks
	// are retried until a snapshot taken while the history held still
	// passes them all.
	var problems []string
	explainOnFailure(t, func() string { return strings.Join(problems, "\n") })
	h.Eventually(t, func() bool {
		problems = captureProblems(t, h, id, n)
		return len(problems) == 0
	}, fmt.Sprintf("captures of pane %s to agree with each other and with the row convention", id))
}

// explainOnFailure logs what explain returns if the test has failed by
// the time it ends: Eventually ends a test without saying what it saw.
func explainOnFailure(t *testing.T, explain func() string) {
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(explain())
		}
	})
}

// captureProblems captures the pane's history and screen in several
// ranges and says what is wrong with them, if anything. The pane has
// printed fill-1 to fill-n, more rows than its screen has.
func captureProblems(t *testing.T, h Harness, id ports.PaneID, n int) []string {
	ctx := t.Context()
	before := describe(t, h, id)
	hs, ht := before.HistorySize, before.Height
	if hs < 2 || ht < 2 {
		return []string{fmt.Sprintf("HistorySize = %d after %d lines on a %d-row screen", hs, n, ht)}
	}
	full, err1 := h.Terminal().Capture(ctx, id, ports.CaptureRange{Start: -hs, End: ht - 1})
	screen, err2 := h.Terminal().Capture(ctx, id, ports.CaptureRange{Start: 0, End: ht - 1})
	oldest, err3 := h.Terminal().Capture(ctx, id, ports.CaptureRange{Start: -hs, End: -hs})
	seam, err4 := h.Terminal().Capture(ctx, id, ports.CaptureRange{Start: -2, End: 1})
	after := describe(t, h, id)
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		return []string{fmt.Sprintf("capture: %v", err)}
	}
	if after.HistorySize != hs {
		return []string{"the history changed while capturing"}
	}
	if len(full) != hs+ht {
		return []string{fmt.Sprintf("rows -%d..%d: got %d rows, want %d", hs, ht-1, len(full), hs+ht)}
	}
	var p []string
	if !slices.Equal(screen, full[hs:]) {
		p = append(p, fmt.Sprintf("rows 0..%d = %q, want the last %d rows of the full capture, %q", ht-1, screen, ht, full[hs:]))
	}
	if !slices.Equal(oldest, full[:1]) {
		p = append(p, fmt.Sprintf("row -%d = %q, want the first row of the full capture, %q", hs, oldest, full[:1]))
	}
	if !slices.Equal(seam, full[hs-2:hs+2]) {
		p = append(p, fmt.Sprintf("rows -2..1 = %q, want %q", seam, full[hs-2:hs+2]))
	}
	// fill-1 scrolled off the screen; unless the history is too short to
	// hold it, it is in a history row.
	if first := slices.Index(full, "fill-1"); before.HistoryLimit > n && (first < 0 || first >= hs) {
		p = append(p, fmt.Sprintf("fill-1 is at index %d of the full capture, want it in history (before index %d)", first, hs))
	}
	if !slices.Contains(full, fmt.Sprintf("fill-%d", n)) {
		p = append(p, fmt.Sprintf("fill-%d is not in the full capture", n))
	}
	return p
}

func testJoinWrapped(t *testing.T, h Harness) {
	id := h.NewShellPane(t)
	info := describe(t, h, id)
	w := info.Width
	// A backend that cannot tell wrapped rows says so, as the port asks,
	// rather than guessing; the capability is then missing, not broken.
	if _, err := h.Terminal().Capture(t.Context(), id, ports.CaptureRange{Start: 0, End: info.Height - 1, JoinWrapped: true}); errors.Is(err, ports.ErrUnsupported) {
		t.Skipf("the backend cannot tell which rows were wrapped (Capture with JoinWrapped: %v)", err)
	}
	tail := strings.Repeat("x", w+15) + "-end"
	line := "wrap-2-" + tail
	out := follow(t, h, id)
	sendText(t, h, id, "echo wrap-$((1+1))-"+tail)
	sendKeys(t, h, id, "Enter")
	out.waitFor(t, h, line+"\n")

	var joined, plain []string
	explainOnFailure(t, func() string { return fmt.Sprintf("joined rows: %q", joined) })
	h.Eventually(t, func() bool {
		joined = captureAll(t, h, id, true)
		plain = captureAll(t, h, id, false)
		return slices.Contains(joined, line)
	}, fmt.Sprintf("a joined row of pane %s to hold the whole %d-character line", id, len(line)))
	if !slices.Contains(plain, line[:w]) || !slices.Contains(plain, line[w:]) {
		t.Errorf("without JoinWrapped the rows are %q, want %q and %q among them", plain, line[:w], line[w:])
	}
	if slices.Contains(plain, line) {
		t.Errorf("without JoinWrapped a row holds the whole line %q, wider than the pane", line)
	}
}

// A backend that describes and captures the screen in one exchange
// (ports.ScreenCapturer) returns what Pane and a Capture of rows 0 to
// Height-1 return, wrapped rows joined when asked.
func testCaptureScreen(t *testing.T, h Harness) {
	sc, ok := h.Terminal().(ports.ScreenCapturer)
	if !ok {
		t.Skip("the backend does not describe and capture the screen in one exchange")
	}
	id := h.NewShellPane(t)
	info := describe(t, h, id)
	tail := strings.Repeat("y", info.Width+7) + "-end"
	line := "screen-3-" + tail
	out := follow(t, h, id)
	sendText(t, h, id, "echo screen-$((1+2))-"+tail)
	sendKeys(t, h, id, "Enter")
	out.waitFor(t, h, line+"\n")

	for _, join := range []bool{false, true} {
		var got, want []string
		var gotInfo ports.PaneInfo
		explainOnFailure(t, func() string {
			return fmt.Sprintf("join %v: CaptureScreen rows %q, Capture rows %q", join, got, want)
		})
		// The prompt may still be drawn, so the two are compared until
		// they agree on a screen that holds still.
		h.Eventually(t, func() bool {
			var err error
			gotInfo, got, err = sc.CaptureScreen(t.Context(), id, join)
			if err != nil {
				t.Fatalf("CaptureScreen(%s, %v): %v", id, join, err)
			}
			now := describe(t, h, id)
			want, err = h.Terminal().Capture(t.Context(), id, ports.CaptureRange{Start: 0, End: now.Height - 1, JoinWrapped: join})
			if errors.Is(err, ports.ErrUnsupported) && join {
				t.Skipf("the backend cannot tell which rows were wrapped: %v", err)
			}
			if err != nil {
				t.Fatalf("Capture: %v", err)
			}
			return slices.Equal(got, want) && gotInfo.ID == now.ID && gotInfo.Height == now.Height &&
				gotInfo.Width == now.Width && gotInfo.Generation == now.Generation && gotInfo.HistorySize == now.HistorySize
		}, fmt.Sprintf("CaptureScreen of pane %s (join %v) to agree with Pane and Capture", id, join))
		if join && !slices.Contains(got, line) {
			t.Errorf("CaptureScreen with joinWrapped: rows %q, want one that holds the whole line %q", got, line)
		}
		if !join && (len(got) != gotInfo.Height || !slices.Contains(got, line[:gotInfo.Width])) {
			t.Errorf("CaptureScreen: %d rows %q; want the %d rows of the screen, the line wrapped", len(got), got, gotInfo.Height)
		}
	}
}

func testEscapes(t *testing.T, h Harness) {
	id := h.NewShellPane(t)
	out := follow(t, h, id)
	sendText(t, h, id, `printf '\033[1mbold\033[0m-%s\n' plain`)
	sendKeys(t, h, id, "Enter")
	out.waitFor(t, h, "\x1b[1mbold\x1b[0m-plain\n")
	waitForRow(t, h, id, "bold-plain")
}

// captureAll captures the pane's whole history and screen.
func captureAll(t *testing.T, h Harness, id ports.PaneID, join bool) []string {
	info := describe(t, h, id)
	rows, err := h.Terminal().Capture(t.Context(), id, ports.CaptureRange{Start: -info.HistorySize, End: info.Height - 1, JoinWrapped: join})
	if err != nil {
		t.Fatalf("Capture: %v", err)
	}
	return rows
}

func testStreamOffsets(t *testing.T, h Harness) {
	id := h.NewShellPane(t)
	s1 := open(t, h, id)
	e0 := s1.End()
	sendText(t, h, id, "echo offsets-$((3*3))")
	sendKeys(t, h, id, "Enter")
	last := e0
	h.Eventually(t, func() bool {
		e := s1.End()
		if e < last {
			t.Fatalf("End went back from %d to %d", last, e)
		}
		last = e
		return strings.Contains(normalize(s1.ReadFrom(e0).Data), "offsets-9\n")
	}, fmt.Sprintf("offsets-9 in pane %s's stream from offset %d", id, e0))

	e1 := s1.End()
	c := s1.ReadFrom(e0)
	if c.Offset != e0 || c.Missed != 0 {
		t.Errorf("ReadFrom(%d) = offset %d, missed %d; want offset %d, missed 0", e0, c.Offset, c.Missed, e0)
	}
	if got := c.Offset + int64(len(c.Data)); got < e1 {
		t.Errorf("ReadFrom(%d) reaches %d, short of End() = %d read before it", e0, got, e1)
	}
	if len(c.Data) > 3 {
		c3 := s1.ReadFrom(e0 + 3)
		if c3.Offset != e0+3 || !bytes.HasPrefix(c3.Data, c.Data[3:]) {
			t.Errorf("ReadFrom(%d) = offset %d, %q; want offset %d and the bytes of ReadFrom(%d) from the fourth on, %q",
				e0+3, c3.Offset, c3.Data, e0+3, e0, c.Data[3:])
		}
	}
	end := s1.End()
	if c := s1.ReadFrom(end); c.Offset != end || c.Missed != 0 {
		t.Errorf("ReadFrom(End() = %d) = offset %d, missed %d; want offset %d, missed 0", end, c.Offset, c.Missed, end)
	}

	// A second stream counts on the same scale.
	s2 := open(t, h, id)
	m := s2.End()
	if m < e1 {
		t.Errorf("a stream opened later has End() = %d, before the first stream's %d", m, e1)
	}
	sendText(t, h, id, "echo second-$((4*4))")
	sendKeys(t, h, id, "Enter")
	for _, s := range []ports.OutputStream{s1, s2} {
		h.Eventually(t, func() bool {
			return strings.Contains(normalize(s.ReadFrom(m).Data), "second-16\n")
		}, fmt.Sprintf("second-16 in both streams of pane %s from offset %d", id, m))
	}
	a, b := s1.ReadFrom(m), s2.ReadFrom(m)
	n := min(len(a.Data), len(b.Data))
	if a.Offset != m || b.Offset != m || !bytes.Equal(a.Data[:n], b.Data[:n]) {
		t.Errorf("from offset %d the streams differ: first %d %q, second %d %q", m, a.Offset, a.Data, b.Offset, b.Data)
	}
}

func testChanged(t *testing.T, h Harness) {
	id := h.NewShellPane(t)
	s := open(t, h, id)
	drain(s)
	sendText(t, h, id, "echo changed-$((5*5))")
	sendKeys(t, h, id, "Enter")
	h.Eventually(t, func() bool {
		select {
		case <-s.Changed():
			return true
		default:
			return false
		}
	}, fmt.Sprintf("a value on Changed after pane %s printed", id))
}

func drain(s ports.OutputStream) {
	for {
		select {
		case <-s.Changed():
		default:
			return
		}
	}
}

func testClose(t *testing.T, h Harness) {
	id := h.NewShellPane(t)
	s := open(t, h, id)
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if c := s.ReadFrom(s.End()); c.Ended == nil {
		t.Error("ReadFrom after Close: Ended is nil, want the stream ended")
	}
}

func testKilledPane(t *testing.T, h Harness) {
	id := h.NewShellPane(t)
	out := follow(t, h, id)
	drain(out.s)
	h.KillPane(t, id)

	signalled := false
	h.Eventually(t, func() bool {
		select {
		case <-out.s.Changed():
			signalled = true
		default:
		}
		out.poll()
		return out.ended != nil && signalled
	}, fmt.Sprintf("the stream of killed pane %s to end and say so on Changed", id))
	if !goneErr(out.ended) {
		t.Errorf("Ended = %v, want it to wrap ErrPaneDead or ErrPaneNotFound", out.ended)
	}

	h.Eventually(t, func() bool {
		info, err := h.Terminal().Pane(t.Context(), id)
		if err != nil && !errors.Is(err, ports.ErrPaneNotFound) {
			t.Fatalf("Pane(%s) = %v, want Dead or ErrPaneNotFound", id, err)
		}
		return err != nil || info.Dead
	}, fmt.Sprintf("pane %s to report Dead or be gone", id))

	ctx := t.Context()
	for name, err := range map[string]error{
		"SendText": h.Terminal().SendText(ctx, id, "echo x"),
		"SendKeys": h.Terminal().SendKeys(ctx, id, []string{"Enter"}),
		"Paste":    h.Terminal().Paste(ctx, id, "x"),
	} {
		if !goneErr(err) {
			t.Errorf("%s to a killed pane = %v, want an error wrapping ErrPaneDead or ErrPaneNotFound", name, err)
		}
	}
}

func goneErr(err error) bool {
	return errors.Is(err, ports.ErrPaneDead) || errors.Is(err, ports.ErrPaneNotFound)
}

func testAttach(t *testing.T, h Harness) {
	id := h.NewShellPane(t)
	detach := h.Attach(t, id)
	if !known(describe(t, h, id), ports.FactWatched) {
		detach()
		t.Skip("the backend cannot tell who watches a pane")
	}
	h.Eventually(t, func() bool {
		info := describe(t, h, id)
		return len(info.Watchers) > 0 && info.Attended
	}, fmt.Sprintf("pane %s to list a watcher and be attended once a client watches it", id))
	detach()
	h.Eventually(t, func() bool {
		return len(describe(t, h, id).Watchers) == 0
	}, fmt.Sprintf("pane %s to list no watcher once the client detached", id))
}

func testSynchronize(t *testing.T, h Harness) {
	a, b := h.NewShellPane(t), h.NewShellPane(t)
	h.Synchronize(t, a, b)
	if !known(describe(t, h, a), ports.FactAlsoReaches) {
		t.Skip("the backend cannot tell where input reaches")
	}
	h.Eventually(t, func() bool {
		return slices.Contains(describe(t, h, a).AlsoReaches, b) && slices.Contains(describe(t, h, b).AlsoReaches, a)
	}, fmt.Sprintf("synchronized panes %s and %s to list each other in AlsoReaches", a, b))
	if reach := describe(t, h, a).AlsoReaches; slices.Contains(reach, a) {
		t.Errorf("AlsoReaches of %s = %q, lists the pane itself", a, reach)
	}
}

func testMode(t *testing.T, h Harness) {
	id := h.NewShellPane(t)
	h.EnterMode(t, id)
	if !known(describe(t, h, id), ports.FactMode) {
		t.Skip("the backend cannot tell a pane's mode")
	}
	h.Eventually(t, func() bool { return describe(t, h, id).Mode != "" },
		fmt.Sprintf("pane %s to report its mode", id))
}

// describe returns the pane's PaneInfo or fails the test.
func describe(t *testing.T, h Harness, id ports.PaneID) ports.PaneInfo {
	t.Helper()
	info, err := h.Terminal().Pane(t.Context(), id)
	if err != nil {
		t.Fatalf("Pane(%s): %v", id, err)
	}
	return info
}

func sendText(t *testing.T, h Harness, id ports.PaneID, text string) {
	t.Helper()
	if err := h.Terminal().SendText(t.Context(), id, text); err != nil {
		t.Fatalf("SendText(%s, %q): %v", id, text, err)
	}
}

func sendKeys(t *testing.T, h Harness, id ports.PaneID, keys ...string) {
	t.Helper()
	if err := h.Terminal().SendKeys(t.Context(), id, keys); err != nil {
		t.Fatalf("SendKeys(%s, %q): %v", id, keys, err)
	}
}

// waitForRow waits until a row of the visible screen reads exactly want.
func waitForRow(t *testing.T, h Harness, id ports.PaneID, want string) {
	t.Helper()
	h.Eventually(t, func() bool {
		info := describe(t, h, id)
		rows, err := h.Terminal().Capture(t.Context(), id, ports.CaptureRange{Start: 0, End: info.Height - 1})
		return err == nil && slices.Contains(rows, want)
	}, fmt.Sprintf("a row of pane %s's screen to read %q", id, want))
}

// open opens the pane's output stream, closed when the test ends.
func open(t *testing.T, h Harness, id ports.PaneID) ports.OutputStream {
	t.Helper()
	s, err := h.Terminal().OpenOutput(t.Context(), id)
	if err != nil {
		t.Fatalf("OpenOutput(%s): %v", id, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// follower reads a pane's stream from where it was opened on, keeping
// every byte, as a careful reader would: it moves its offset on by what
// it read and counts what it missed.
type follower struct {
	s      ports.OutputStream
	next   int64
	data   []byte
	missed int64
	ended  error
}

func follow(t *testing.T, h Harness, id ports.PaneID) *follower {
	t.Helper()
	s := open(t, h, id)
	f := &follower{s: s, next: s.End()}
	t.Cleanup(func() {
		if t.Failed() {
			const keep = 2000
			tail := f.data[max(0, len(f.data)-keep):]
			t.Logf("the last %d bytes pane %s wrote: %q", len(tail), id, tail)
		}
	})
	return f
}

func (f *follower) poll() {
	c := f.s.ReadFrom(f.next)
	f.missed += c.Missed
	f.data = append(f.data, c.Data...)
	f.next = max(f.next, c.Offset+int64(len(c.Data)))
	f.ended = c.Ended
}

// text returns what was read, with "\r\n" read as "\n".
func (f *follower) text() string { return normalize(f.data) }

func (f *follower) waitFor(t *testing.T, h Harness, want string) {
	t.Helper()
	h.Eventually(t, func() bool {
		f.poll()
		return strings.Contains(f.text(), want)
	}, fmt.Sprintf("%q in the pane's output", want))
}

func normalize(b []byte) string { return strings.ReplaceAll(string(b), "\r\n", "\n") }

// testSignaler holds a ports.Signaler to its contract: the group of a
// command the shell runs gets the signal and ends, the group of the
// pane's own process is refused and lives on; and a ports.ProcessChecker
// to its: the shell exists, the ended command does not.
func testSignaler(t *testing.T, h Harness) {
	sg, ok := h.Terminal().(ports.Signaler)
	if !ok {
		t.Skip("the backend cannot send signals")
	}
	id := h.NewShellPane(t)
	shellOf(t, h, id)
	term, ctx := h.Terminal(), t.Context()
	fg, err := term.Foreground(ctx, id)
	if errors.Is(err, ports.ErrUnsupported) {
		t.Skip("the backend cannot tell a pane's foreground")
	}
	if err != nil {
		t.Fatal(err)
	}
	shell := fg.Group
	if _, err := sg.SignalGroup(ctx, id, shell, ports.SignalTERM); !errors.Is(err, ports.ErrNoGroup) {
		t.Fatalf("SignalGroup of the shell's own group: %v, want ErrNoGroup", err)
	}
	out := follow(t, h, id)
	sendText(t, h, id, "sleep 30\n")
	var group int
	h.Eventually(t, func() bool {
		fg, err := term.Foreground(ctx, id)
		group = fg.Group
		return err == nil && fg.Group != shell && fg.Group > 0 && (fg.Args == nil || slices.Equal(fg.Args, []string{"sleep", "30"}))
	}, "sleep 30 in front")
	procs, err := sg.SignalGroup(ctx, id, group, ports.SignalTERM)
	if err != nil || len(procs) == 0 || !slices.ContainsFunc(procs, func(p ports.Process) bool { return p.PID == group }) {
		t.Fatalf("SignalGroup of sleep's group %d = %+v, %v; want its processes, its leader among them", group, procs, err)
	}
	h.Eventually(t, func() bool {
		fg, err := term.Foreground(ctx, id)
		return err == nil && fg.Group == shell
	}, "the shell back in front once sleep got TERM")
	// The shell lives on.
	sendText(t, h, id, "echo still-$((6*7))\n")
	out.waitFor(t, h, "still-42")
	if _, err := sg.SignalGroup(ctx, id, group, ports.SignalTERM); !errors.Is(err, ports.ErrNoGroup) {
		t.Errorf("SignalGroup of a group that ended: %v, want ErrNoGroup", err)
	}
	if _, err := sg.SignalGroup(ctx, unknownPane, group, ports.SignalTERM); !errors.Is(err, ports.ErrPaneNotFound) {
		t.Errorf("SignalGroup(%s) = %v, want ErrPaneNotFound", unknownPane, err)
	}
	// A ProcessChecker tells the shell from sleep, which has ended.
	if pc, ok := term.(ports.ProcessChecker); ok {
		if exists, err := pc.ProcessExists(ctx, id, shell); err != nil || !exists {
			t.Errorf("ProcessExists of the pane's shell = %v, %v; want true", exists, err)
		}
		h.Eventually(t, func() bool {
			exists, err := pc.ProcessExists(ctx, id, group)
			return err == nil && !exists
		}, "sleep, ended, no longer to exist")
	}
}
