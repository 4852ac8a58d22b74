package frame

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/test/gate"
)

// These tests run frames in real shells: the typed line (less the Kill
// byte, which only a line editor or a tty reads) in a script of the shell,
// the script file it sources beside it. The real-tmux tests in test/ type
// the same lines into interactive shells on a tty.

// A shellUnderTest is a shell binary that can run frames.
type shellUnderTest struct {
	program string
	family  Shell
	args    []string // before the driver script
}

var shellsUnderTest = []shellUnderTest{
	{"bash", ShellBash, []string{"--norc", "--noprofile"}},
	// A /bin/sh that links to bash runs it in its POSIX mode, and the
	// program that runs, bash, decides the frame.
	{"bash", ShellBash, []string{"--posix", "--norc", "--noprofile"}},
	{"dash", ShellSh, nil},
	{"zsh", ShellZsh, []string{"-f"}},
	{"ksh", ShellKsh, nil},
	{"mksh", ShellKsh, nil},
	{"fish", ShellFish, []string{"--no-config"}},
}

// framedRun is what running a frame in a real shell produced.
type framedRun struct {
	output   string
	status   int
	ended    bool
	started  bool
	pid      int // from the start marker
	shellPID int // of the shell that ran the driver
	unread   bool
	before   []byte // raw bytes before the start marker
	afterEnd []byte // raw bytes after the end marker
	foreign  bool
	raw      []byte
	leftover []byte // what the script file held afterwards
}

// stage writes the frame's files into dir, as a ScriptStore would, the
// script first named "script".
func stage(t *testing.T, c Command, dir string) Files {
	t.Helper()
	n := 0
	f, err := c.Stage(func(build func(string) []byte) (string, error) {
		name := "script"
		if c.NeedsTextFile() && n != 1 {
			name = fmt.Sprintf("file%d", n)
		}
		n++
		path := filepath.Join(dir, name)
		return path, os.WriteFile(path, build(path), 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// runFrame frames command for sh, runs the typed line followed by the
// shell code after, and reads the shell's output as a pane's stream is
// read.
func runFrame(t *testing.T, sh shellUnderTest, dir, command, after string) framedRun {
	t.Helper()
	return runFrameAfter(t, sh, dir, "", command, after)
}

// runFrameAfter is runFrame in a shell that ran setup first.
func runFrameAfter(t *testing.T, sh shellUnderTest, dir, setup, command, after string) framedRun {
	t.Helper()
	return runFrameWith(t, sh, Options{}, dir, setup, command, after)
}

// runFrameWith is runFrameAfter for a command framed with options o.
func runFrameWith(t *testing.T, sh shellUnderTest, o Options, dir, setup, command, after string) framedRun {
	t.Helper()
	path := lookShell(t, sh)
	stageDir := t.TempDir()
	command = strings.ReplaceAll(command, "@SCRIPT@", filepath.Join(stageDir, "script"))
	c := Command{Shell: sh.family, IDs: testIDs, Text: command, Options: o}
	files := stage(t, c, stageDir)
	driver := filepath.Join(t.TempDir(), "driver")
	line := strings.TrimPrefix(c.Line(files), Kill)
	if setup != "" {
		line = setup + "\n" + line
	}
	if err := os.WriteFile(driver, []byte(line+after+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(path, append(slices.Clone(sh.args), driver)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+dir, "LC_ALL=C.UTF-8")
	var raw bytes.Buffer
	cmd.Stdout, cmd.Stderr = &raw, &raw
	_ = cmd.Run() // the stream tells what happened
	run := readRun(t, raw.Bytes(), files.Script)
	run.shellPID = cmd.Process.Pid
	return run
}

func readRun(t *testing.T, raw []byte, script string) framedRun {
	t.Helper()
	var out bytes.Buffer
	sc := NewScanner(testIDs, &out)
	sc.Write(raw)
	run := framedRun{output: out.String(), started: sc.Started(), unread: sc.Unread(), foreign: sc.ForeignSeen(), raw: raw, pid: sc.ShellPID()}
	run.status, run.ended = sc.Ended()
	if i := bytes.Index(raw, []byte(intro+"S;"+testIDs.ID+";")); i >= 0 {
		run.before = raw[:i]
	}
	if run.ended {
		end := EndMarker(testIDs, run.status)
		run.afterEnd = raw[bytes.LastIndex(raw, end)+len(end):]
	}
	run.leftover, _ = os.ReadFile(script)
	return run
}

func lookShell(t *testing.T, sh shellUnderTest) string {
	t.Helper()
	gate.Real(t, "real shells")
	return gate.Need(t, sh.program)
}

func TestFrameRunsCommandsInRealShells(t *testing.T) {
	var bigHeredoc, bigHeredocOut strings.Builder
	bigHeredoc.WriteString("cat <<'EOF'\n")
	for i := 0; bigHeredocOut.Len() < 64<<10; i++ {
		fmt.Fprintf(&bigHeredocOut, "line %05d of a sixty-four kilobyte here-document\n", i)
	}
	bigHeredoc.WriteString(bigHeredocOut.String() + "EOF")

	posix := []Shell{ShellBash, ShellZsh, ShellSh, ShellKsh}
	cases := []struct {
		name    string
		command string
		output  string
		status  int
		only    []Shell // the families whose syntax the command uses; nil: all
	}{
		{name: "echo", command: "echo hello", output: "hello\n"},
		{name: "empty command", command: "", output: ""},
		{name: "exit status", command: "echo bye; exit 3", output: "bye\n", status: 3},
		{name: "failing command", command: "false", status: 1},
		{name: "status of the last command", command: "false\ntrue", output: ""},
		{name: "multi-line", command: "echo one\necho two\n\necho three\n", output: "one\ntwo\nthree\n"},
		{name: "heredoc as last line", command: "echo a\ncat <<'EOF'\nx $HOME `y`\nEOF", output: "a\nx $HOME `y`\n", only: posix},
		{name: "expanding heredoc as last line", command: "v=1\ncat <<EOF\nv=$v\nEOF", output: "v=1\n", only: posix},
		{name: "trailing comment", command: "echo hi # not printed", output: "hi\n"},
		{name: "comment only", command: "# nothing", output: ""},
		{name: "quotes", command: `echo 'single' "double" 'it'\''s' "a\"b"`, output: "single double it's a\"b\n", only: posix},
		{name: "fish quotes", command: `echo 'single' "double" 'it\'s' "a\"b"`, output: "single double it's a\"b\n", only: []Shell{ShellFish}},
		{name: "dollar quotes", command: `echo $'a\tb\x41'`, output: "a\tbA\n", only: []Shell{ShellBash, ShellZsh, ShellKsh}},
		{name: "unicode", command: "echo 'héllo wörld ✓ 日本語 🎉'", output: "héllo wörld ✓ 日本語 🎉\n"},
		{name: "tabs", command: "echo 'a\tb'\n\techo indented", output: "a\tb\nindented\n"},
		{name: "control characters", command: "printf '%s\\n' '\x01\x02\x7f'", output: "\x01\x02\x7f\n"},
		{name: "history characters", command: "echo 'hi!' '!!' '!$'", output: "hi! !! !$\n"},
		{name: "no final newline", command: "printf 'no newline'", output: "no newline"},
		{name: "stderr", command: "echo out; echo err >&2", output: "out\nerr\n"},
		{name: "64 KB heredoc", command: bigHeredoc.String(), output: bigHeredocOut.String(), only: posix},
		{name: "64 KB of commands", command: strings.Repeat("echo 'a line of a long command, 48 bytes long'\n", 64<<10/48+1),
			output: strings.Repeat("a line of a long command, 48 bytes long\n", 64<<10/48+1)},
		{name: "256 KB of commands, more than one argument may hold", command: strings.Repeat("echo 'a line of a long command, 48 bytes long'\n", 256<<10/48+1),
			output: strings.Repeat("a line of a long command, 48 bytes long\n", 256<<10/48+1)},
		{name: "70 KB line", command: "echo " + strings.Repeat("x", 70000), output: strings.Repeat("x", 70000) + "\n"},
		{name: "marker lookalike in output", command: `printf '%s\n' '\033]7717;tmcp;E;0123456789abcdef;0\007'`,
			output: `\033]7717;tmcp;E;0123456789abcdef;0\007` + "\n"},
		{name: "interrupted", command: "sh -c 'kill -INT $PPID'; echo not reached", status: 130, only: posix},
		{name: "the script is empty before the command runs", command: "cat @SCRIPT@; echo done", output: "done\n"},
		{name: "no frame variable", command: `echo "[${__tmcp_h-}]"`, output: "[]\n", only: posix},
		{name: "arguments untouched", command: "echo $#", output: "0\n", only: posix},
	}
	for _, sh := range shellsUnderTest {
		t.Run(sh.program, func(t *testing.T) {
			lookShell(t, sh)
			for _, c := range cases {
				if c.only != nil && !slices.Contains(c.only, sh.family) {
					continue
				}
				t.Run(c.name, func(t *testing.T) {
					run := runFrame(t, sh, t.TempDir(), c.command, "")
					if !run.ended || !run.started {
						t.Fatalf("started %v, ended %v; stream: %.300q", run.started, run.ended, run.raw)
					}
					if run.status != c.status {
						t.Errorf("status = %d, want %d", run.status, c.status)
					}
					if run.pid != run.shellPID {
						t.Errorf("the start marker names pid %d, want the shell's, %d", run.pid, run.shellPID)
					}
					if run.output != c.output {
						t.Errorf("output = %.200q, want %.200q", run.output, c.output)
					}
					if len(run.before) > 0 || len(run.afterEnd) > 0 {
						t.Errorf("the frame printed outside its markers: before %q, after %q", run.before, run.afterEnd)
					}
					if run.foreign {
						t.Errorf("ForeignSeen for a stream with one frame")
					}
					if st, ok := ParseStatusFile(run.leftover); !ok || st != c.status {
						t.Errorf("the script holds %.80q after it ran, want the status %d and a line feed", run.leftover, c.status)
					}
				})
			}
		})
	}
}

// The user's shell may be set up in ways that change what a line does;
// the frame holds to its guarantees through all of these.
func TestFrameHoldsInAShellSetUpByItsUser(t *testing.T) {
	posix := []Shell{ShellBash, ShellZsh, ShellSh, ShellKsh}
	cases := []struct {
		name    string
		setup   map[Shell]string // by family; a family without one is not tried
		command string
		output  string
		status  int
	}{
		{name: "noclobber", setup: map[Shell]string{ShellBash: "set -C", ShellZsh: "set -C", ShellSh: "set -C", ShellKsh: "set -C"},
			command: "echo hi", output: "hi\n"},
		{name: "xtrace", setup: map[Shell]string{ShellBash: "set -x", ShellZsh: "set -x", ShellSh: "set -x", ShellKsh: "set -x"},
			command: "echo hi", output: "hi\n"},
		{name: "printf aliased", setup: map[Shell]string{
			ShellBash: "shopt -s expand_aliases; alias printf='printf >/dev/null'", ShellZsh: "alias printf='printf >/dev/null'",
			ShellSh: "alias printf='printf >/dev/null'", ShellKsh: "alias print='print >/dev/null'"},
			command: "echo hi", output: "hi\n"},
		{name: "printf a function", setup: map[Shell]string{
			ShellBash: "printf() { :; }", ShellZsh: "printf() { :; }", ShellSh: "printf() { :; }", ShellKsh: "print() { :; }",
			ShellFish: "function printf; end"},
			command: "echo hi", output: "hi\n"},
		// The command's own set -e stops it at its first failure, as in
		// any subshell.
		{name: "set -e in the command", setup: map[Shell]string{ShellBash: ":", ShellZsh: ":", ShellSh: ":", ShellKsh: ":"},
			command: "set -e; false; echo not reached", status: 1},
	}
	for _, sh := range shellsUnderTest {
		t.Run(sh.program, func(t *testing.T) {
			lookShell(t, sh)
			for _, c := range cases {
				setup, ok := c.setup[sh.family]
				if !ok {
					continue
				}
				t.Run(c.name, func(t *testing.T) {
					run := runFrameAfter(t, sh, t.TempDir(), setup, c.command, "\necho after")
					if !run.ended || !run.started {
						t.Fatalf("started %v, ended %v; stream: %.400q", run.started, run.ended, run.raw)
					}
					if run.status != c.status || run.output != c.output {
						t.Errorf("status %d, output %.300q; want %d, %q", run.status, run.output, c.status, c.output)
					}
					if st, ok := ParseStatusFile(run.leftover); !ok || st != c.status {
						t.Errorf("the script holds %.80q after it ran, want the status %d and a line feed", run.leftover, c.status)
					}
					if c.name == "xtrace" && slices.Contains(posix, sh.family) && !strings.Contains(string(run.afterEnd), "echo after") {
						t.Errorf("xtrace is not on again after the frame: after the end marker %q", run.afterEnd)
					}
				})
			}
		})
	}
}

func TestFrameRunsCommandsInAChildShell(t *testing.T) {
	for _, sh := range shellsUnderTest {
		t.Run(sh.program, func(t *testing.T) {
			dir := t.TempDir()
			// The frame's command changes directory, exports a variable
			// and exits; the shell that typed it must see none of it.
			command := "cd / && pwd; export TMCP_PROBE=set; TMCP_LOCAL=set; exit 4"
			after := "\necho \"$PWD ${TMCP_PROBE:-unset} ${TMCP_LOCAL:-unset}\""
			if sh.family == ShellFish {
				command = "cd /; and pwd; set -gx TMCP_PROBE set; set -g TMCP_LOCAL set; exit 4"
				after = "\necho $PWD (set -q TMCP_PROBE; and echo set; or echo unset) (set -q TMCP_LOCAL; and echo set; or echo unset)"
			}
			run := runFrame(t, sh, dir, command, after)
			if !run.ended || run.status != 4 || run.output != "/\n" {
				t.Fatalf("frame: ended %v, status %d, output %q; want true, 4, \"/\\n\"", run.ended, run.status, run.output)
			}
			real, err := filepath.EvalSymlinks(dir)
			if err != nil {
				t.Fatal(err)
			}
			got := strings.TrimSpace(string(run.afterEnd))
			if want := real + " unset unset"; got != want && got != dir+" unset unset" {
				t.Errorf("after the frame the shell has %q, want %q", got, want)
			}
		})
	}
}

func TestFrameWhoseScriptIsGoneRunsNothingAndSaysSo(t *testing.T) {
	for _, sh := range shellsUnderTest {
		t.Run(sh.program, func(t *testing.T) {
			path := lookShell(t, sh)
			c := Command{Shell: sh.family, IDs: testIDs, Text: "echo must not run"}
			dir := t.TempDir()
			missing := Files{Script: filepath.Join(dir, "withdrawn")}
			if c.NeedsTextFile() {
				missing.Text, missing.End = filepath.Join(dir, "t"), filepath.Join(dir, "e")
			}
			driver := filepath.Join(t.TempDir(), "driver")
			line := strings.TrimPrefix(c.Line(missing), Kill)
			if err := os.WriteFile(driver, []byte(line+"echo after\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(path, append(slices.Clone(sh.args), driver)...)
			var raw bytes.Buffer
			cmd.Stdout, cmd.Stderr = &raw, &raw
			_ = cmd.Run()
			run := readRun(t, raw.Bytes(), missing.Script)
			if !run.unread || run.started || run.ended || bytes.Contains(raw.Bytes(), []byte("must not run")) {
				t.Errorf("unread %v, started %v, ended %v; want only the unread marker; stream %q", run.unread, run.started, run.ended, raw.Bytes())
			}
			// bash in its POSIX mode exits at a failed ".", a special
			// built-in, when it is not interactive, as here; a pane's
			// interactive shell goes on.
			if !bytes.HasSuffix(raw.Bytes(), []byte("after\n")) && !slices.Contains(sh.args, "--posix") {
				t.Errorf("the shell did not go on after the unread script: %q", raw.Bytes())
			}
		})
	}
}

func TestFramesOfTwoCallsInOneShellAreTold(t *testing.T) {
	for _, sh := range shellsUnderTest {
		t.Run(sh.program, func(t *testing.T) {
			path := lookShell(t, sh)
			first := Command{Shell: sh.family, IDs: IDs{ID: "first", Secret: "s1", Unread: "u1"}, Text: "echo one"}
			second := Command{Shell: sh.family, IDs: IDs{ID: "second", Secret: "s2", Unread: "u2"}, Text: "echo two; exit 2"}
			var driver strings.Builder
			for _, c := range []Command{first, second} {
				f := stage(t, c, t.TempDir())
				driver.WriteString(strings.TrimPrefix(c.Line(f), Kill))
			}
			file := filepath.Join(t.TempDir(), "driver")
			if err := os.WriteFile(file, []byte(driver.String()), 0o600); err != nil {
				t.Fatal(err)
			}
			var raw bytes.Buffer
			cmd := exec.Command(path, append(slices.Clone(sh.args), file)...)
			cmd.Stdout, cmd.Stderr = &raw, &raw
			_ = cmd.Run()
			for _, want := range []struct {
				ids    IDs
				output string
				status int
			}{{first.IDs, "one\n", 0}, {second.IDs, "two\n", 2}} {
				var out bytes.Buffer
				sc := NewScanner(want.ids, &out)
				sc.Write(raw.Bytes())
				status, ok := sc.Ended()
				if !ok || status != want.status || out.String() != want.output || sc.ForeignSeen() {
					t.Errorf("frame %s: ended %v, status %d, output %q, foreign %v; want true, %d, %q, false",
						want.ids.ID, ok, status, out.String(), sc.ForeignSeen(), want.status, want.output)
				}
			}
		})
	}
}

func TestBashFrameDeletesItsOwnHistoryEntryOnly(t *testing.T) {
	sh := shellsUnderTest[0]
	path := lookShell(t, sh)
	for _, c := range []struct{ name, histcontrol, setup string }{
		{"HISTCONTROL=", "", ""},
		{"HISTCONTROL=ignorespace", "ignorespace", ""},
		{"HISTCONTROL=ignoreboth", "ignoreboth", ""},
		// Each prompt appends the new entries to $HISTFILE: the frame's
		// is gone before the next prompt.
		{"PROMPT_COMMAND='history -a'", "", "PROMPT_COMMAND='history -a'"},
		{"histappend", "", "shopt -s histappend"},
		{"history shared through the file", "", "shopt -s histappend; PROMPT_COMMAND='history -a; history -c; history -r'"},
		{"timestamps", "", "HISTTIMEFORMAT='%F %T '; PROMPT_COMMAND='history -a'"},
	} {
		histcontrol, setup := c.histcontrol, c.setup
		t.Run(c.name, func(t *testing.T) {
			home := t.TempDir()
			// The command lists the history itself: its line is gone by
			// the time it runs.
			c := Command{Shell: ShellBash, IDs: testIDs, Text: "echo framed; history"}
			f := stage(t, c, t.TempDir())
			// An interactive bash reading a pipe records every line it is
			// given, as it does at a prompt.
			typed := setup + "\necho before\n" + strings.TrimPrefix(c.Line(f), Kill) + "echo after\nhistory\n"
			cmd := exec.Command(path, "--norc", "--noprofile", "-i")
			cmd.Dir = home
			cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "TERM=dumb", "HISTCONTROL=" + histcontrol,
				"HISTFILE=" + filepath.Join(home, "history"), "LC_ALL=C.UTF-8", "PS1=$ "}
			cmd.Stdin = strings.NewReader(typed)
			var raw bytes.Buffer
			cmd.Stdout, cmd.Stderr = &raw, &raw
			_ = cmd.Run()
			run := readRun(t, raw.Bytes(), f.Script)
			during, found := strings.CutPrefix(run.output, "framed\n")
			if !run.ended || !found {
				t.Fatalf("frame: ended %v, output %q; stream %q", run.ended, run.output, raw.Bytes())
			}
			if strings.Contains(during, f.Script) || !strings.Contains(during, "echo before") {
				t.Errorf("history while the command ran: %q; want the user's line and not the frame's", during)
			}
			history := string(run.afterEnd)
			if strings.Contains(history, f.Script) || !strings.Contains(history, "echo before") || !strings.Contains(history, "echo after") {
				t.Errorf("history after the frame: %q; want the user's lines and not the frame's", history)
			}
			// What bash wrote to $HISTFILE, at each prompt or when it
			// exited.
			saved, err := os.ReadFile(filepath.Join(home, "history"))
			if err != nil || strings.Contains(string(saved), f.Script) || !strings.Contains(string(saved), "echo before") ||
				!strings.Contains(string(saved), "echo after") {
				t.Errorf("$HISTFILE after the frame: %q, %v; want the user's lines and not the frame's", saved, err)
			}
		})
	}
}

// zsh saves a line as it accepts it, before any of it runs: the first
// frame typed into a zsh without HIST_IGNORE_SPACE is saved like any
// line, and its script sets up the hook that keeps every later frame line
// out of the history list and $HISTFILE, whatever the history options. An
// interactive zsh reading a pipe saves the lines it reads as at a prompt.
func TestZshFrameKeepsLaterLinesOutOfTheHistory(t *testing.T) {
	sh := shellsUnderTest[slices.IndexFunc(shellsUnderTest, func(s shellUnderTest) bool { return s.family == ShellZsh })]
	path := lookShell(t, sh)
	for _, options := range []string{"", "inc_append_history", "share_history", "inc_append_history_time",
		"extended_history", "hist_ignore_space", "share_history hist_ignore_space", "inc_append_history extended_history"} {
		t.Run("options="+options, func(t *testing.T) {
			home := t.TempDir()
			histfile := filepath.Join(home, "history")
			var typed strings.Builder
			typed.WriteString("HISTFILE=" + histfile + "; SAVEHIST=100; HISTSIZE=100\n")
			if options != "" {
				typed.WriteString("setopt " + options + "\n")
			}
			typed.WriteString("echo before\n")
			var files []Files
			for i, text := range []string{"echo framed-first", "echo framed-second", "echo framed-third"} {
				c := Command{Shell: ShellZsh, IDs: IDs{ID: fmt.Sprintf("id%d", i), Secret: fmt.Sprintf("secret%d", i), Unread: fmt.Sprintf("unread%d", i)}, Text: text}
				f := stage(t, c, t.TempDir())
				files = append(files, f)
				typed.WriteString(strings.TrimPrefix(c.Line(f), Kill))
				typed.WriteString(fmt.Sprintf("echo between-%d\n", i))
			}
			typed.WriteString("fc -ln 1\nexit\n")
			// No rc files, but not -f: zsh without RCS saves no history
			// when it exits.
			cmd := exec.Command(path, "-d", "-i")
			cmd.Dir = home
			cmd.Env = []string{"HOME=" + home, "ZDOTDIR=" + home, "PATH=" + os.Getenv("PATH"), "TERM=dumb", "LC_ALL=C.UTF-8", "PS1=", "PROMPT_EOL_MARK="}
			cmd.Stdin = strings.NewReader(typed.String())
			var raw bytes.Buffer
			cmd.Stdout, cmd.Stderr = &raw, &raw
			_ = cmd.Run()
			saved, err := os.ReadFile(histfile)
			if err != nil {
				t.Fatalf("no history file: %v; stream %q", err, raw.Bytes())
			}
			end := EndMarker(IDs{ID: "id2", Secret: "secret2"}, 0)
			listed := string(raw.Bytes()[bytes.LastIndex(raw.Bytes(), end)+len(end):])
			for what, text := range map[string]string{"the history list": listed, "the history file": string(saved)} {
				if !strings.Contains(text, "echo between-1") || !strings.Contains(text, "echo between-2") {
					t.Errorf("%s lacks the user's lines: %q", what, text)
				}
				for i, f := range files {
					leaked := strings.Contains(text, f.Script)
					// The first line came before any hook: only
					// HIST_IGNORE_SPACE keeps it out.
					allowed := i == 0 && !strings.Contains(options, "hist_ignore_space")
					if leaked && !allowed {
						t.Errorf("%s holds frame %d's line: %q", what, i+1, text)
					}
					if !leaked && allowed {
						t.Errorf("%s lacks the first frame's line, which zsh saved before its script ran: has zsh changed? %q", what, text)
					}
				}
			}
		})
	}
}
