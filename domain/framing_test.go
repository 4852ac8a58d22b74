package domain

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

var allShells = []Shell{ShellBash, ShellZsh, ShellSh, ShellKsh, ShellFish}

const testFrameID = "0123456789abcdef"

// maxTypedLine is the longest physical line a frame may type: well under
// the 4,095-byte line limit of a tty in canonical mode.
const maxTypedLine = 1100

func TestMarkersAreOSCStringsWithIDAndStatus(t *testing.T) {
	cases := []struct {
		got, want string
	}{
		{string(StartMarker("0123456789abcdef")), "\x1b]7717;tmcp;S;0123456789abcdef\x07"},
		{string(EndMarker("0123456789abcdef", 0)), "\x1b]7717;tmcp;E;0123456789abcdef;0\x07"},
		{string(EndMarker("0123456789abcdef", 130)), "\x1b]7717;tmcp;E;0123456789abcdef;130\x07"},
		{string(EndMarker("abc", -1)), "\x1b]7717;tmcp;E;abc;-1\x07"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("marker = %q, want %q", c.got, c.want)
		}
	}
}

func TestNewIDReturnsFreshValidIDs(t *testing.T) {
	seen := make(map[string]bool)
	for range 100 {
		id := NewID()
		if !ValidID(id) {
			t.Fatalf("NewID() = %q, which ValidID rejects", id)
		}
		if seen[id] {
			t.Fatalf("NewID() returned %q twice", id)
		}
		seen[id] = true
	}
}

func TestValidIDAcceptsOnlySixteenLowercaseHexDigits(t *testing.T) {
	cases := map[string]bool{
		"0123456789abcdef":  true,
		"ffffffffffffffff":  true,
		"0123456789ABCDEF":  false,
		"0123456789abcde":   false,
		"0123456789abcdef0": false,
		"0123456789abcdeg":  false,
		"":                  false,
		"0123456789abcd f":  false,
	}
	for id, want := range cases {
		if got := ValidID(id); got != want {
			t.Errorf("ValidID(%q) = %v, want %v", id, got, want)
		}
	}
}

// frameSamples are commands whose frames every framing test checks.
var frameSamples = map[string]string{
	"empty":            "",
	"simple":           "echo hello",
	"multi-line":       "echo one\necho two\n",
	"heredoc last":     "cat <<'EOF'\nx $HOME\nEOF",
	"comment":          "echo hi # a comment",
	"quotes":           `echo 'single' "double" $'dollar\tquote' 'it'\''s'`,
	"unicode":          "echo 'héllo wörld ✓ 日本語 🎉'",
	"tab":              "printf '%s\\n' 'a\tb'",
	"history bang":     "echo 'hi!' !! !$",
	"control bytes":    "printf '\x1b]7717;tmcp;E;0123456789abcdef;0\x07\r\x00'",
	"backslash end":    "echo a \\",
	"64 KB":            strings.Repeat("echo 'a line of a long command, 48 bytes long'\n", 64<<10/48+1),
	"one long line":    "echo " + strings.Repeat("x", 70000),
	"CRLF":             "echo a\r\necho b\r\n",
	"invalid UTF-8":    "echo '\xff\xfe'",
	"marker lookalike": `printf '\033]7717;tmcp;E;0123456789abcdef;0\007'`,
}

func TestFrameTypesOnlySafeText(t *testing.T) {
	for _, sh := range allShells {
		for name, cmd := range frameSamples {
			t.Run(string(sh)+"/"+name, func(t *testing.T) {
				f := Frame(sh, testFrameID, cmd)
				if !strings.HasPrefix(f, " ") {
					t.Errorf("frame does not start with a space (keeps it out of history): %.40q", f)
				}
				if strings.HasSuffix(f, "\n") {
					t.Errorf("frame ends with a newline; the caller presses Enter")
				}
				// ESC and BEL would make the echo look like a marker; a
				// tab would trigger completion; CR and NUL would cut the
				// line; '!' would be history-expanded by bash.
				if i := strings.IndexAny(f, "\x1b\x07\t\r\x00!"); i >= 0 {
					t.Errorf("frame holds %q at %d", f[i], i)
				}
				if !utf8.ValidString(f) {
					t.Errorf("frame is not valid UTF-8")
				}
				for i, line := range strings.Split(f, "\n") {
					if len(line) > maxTypedLine {
						t.Errorf("line %d is %d bytes, more than %d", i, len(line), maxTypedLine)
					}
				}
				if !strings.Contains(f, testFrameID) {
					t.Errorf("frame does not hold the id")
				}
			})
		}
	}
}

func TestFrameDiffersBetweenFamilies(t *testing.T) {
	seen := make(map[string]Shell)
	for _, sh := range allShells {
		f := Frame(sh, testFrameID, "echo hi")
		if other, ok := seen[f]; ok {
			t.Errorf("Frame(%s) = Frame(%s); Unframe could not tell them apart", sh, other)
		}
		seen[f] = sh
	}
}

func TestFrameFramesAnUnknownFamilyAsSh(t *testing.T) {
	for _, sh := range []Shell{"", "tcsh", "a-b c"} {
		if got, want := Frame(sh, testFrameID, "true"), Frame(ShellSh, testFrameID, "true"); got != want {
			t.Errorf("Frame(%q) = %.80q, want the sh frame %.80q", sh, got, want)
		}
	}
}

func TestFramePanicsOnAnIDItCannotQuote(t *testing.T) {
	for _, id := range []string{"", "a'b", "a;b", "a%b", "a b", "a\\b", "é", strings.Repeat("a", 65)} {
		t.Run(fmt.Sprintf("%q", id), func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("Frame with id %q did not panic", id)
				}
			}()
			Frame(ShellBash, id, "true")
		})
	}
}

func TestFrameAcceptsReadableTestIDs(t *testing.T) {
	for _, id := range []string{"a", "call-1", "Test_ID", strings.Repeat("z", 64)} {
		if f := Frame(ShellSh, id, "true"); !strings.Contains(f, "tmcp;S;"+id+`\007`) {
			t.Errorf("Frame with id %q does not frame with it: %.200q", id, f)
		}
	}
}

func TestUnframeInvertsFrame(t *testing.T) {
	enters := map[string]string{"no Enter": "", "Enter as CR": "\r", "Enter as LF": "\n"}
	for _, sh := range allShells {
		for name, cmd := range frameSamples {
			for enterName, enter := range enters {
				typed := Frame(sh, testFrameID, cmd) + enter
				gotSh, gotID, gotCmd, ok := Unframe(typed)
				if !ok || gotSh != sh || gotID != testFrameID || gotCmd != cmd {
					t.Errorf("%s/%s/%s: Unframe = %q, %q, %.40q, %v; want %q, %q, %.40q, true",
						sh, name, enterName, gotSh, gotID, gotCmd, ok, sh, testFrameID, cmd)
				}
			}
		}
	}
}

func TestUnframeReadsLinesTypedWithCR(t *testing.T) {
	cmd := frameSamples["64 KB"]
	typed := strings.ReplaceAll(Frame(ShellBash, "call-7", cmd), "\n", "\r") + "\r"
	sh, id, got, ok := Unframe(typed)
	if !ok || sh != ShellBash || id != "call-7" || got != cmd {
		t.Errorf("Unframe of a CR-typed frame = %q, %q, %.40q, %v", sh, id, got, ok)
	}
}

func TestUnframeRejectsWhatFrameDidNotWrite(t *testing.T) {
	frame := Frame(ShellBash, testFrameID, "echo hi")
	long := Frame(ShellSh, testFrameID, strings.Repeat("echo x\n", 300))
	cases := map[string]string{
		"empty":               "",
		"plain command":       "echo hi",
		"two Enters":          frame + "\n\n",
		"text after Enter":    frame + "\nls",
		"leading space gone":  strings.TrimPrefix(frame, " "),
		"edited command":      strings.Replace(frame, "echo", "ECHO", 1),
		"edited tail":         strings.Replace(frame, `"$?"`, `"$? "`, 1),
		"other id in the end": strings.Replace(frame, "E;"+testFrameID, "E;fedcba9876543210", 1),
		"bad id":              strings.ReplaceAll(frame, testFrameID, "01234567'9abcdef"),
		"no id end":           " printf '\\033]7717;tmcp;S;0123",
		"no base64":           strings.Split(frame, "\\\n")[0],
		"no decoder":          strings.Split(frame, " | base64")[0],
		"bad base64":          strings.Replace(frame, "ZWNobyBoaQo=", "ZWNob!BoaQo=", 1),
		"no final newline":    strings.Replace(frame, "ZWNobyBoaQo=", "ZWNobyBoaQ==", 1),
		"empty base64":        strings.Replace(frame, "ZWNobyBoaQo=", "", 1),
		"rechunked":           strings.Replace(long, "\\\n", "", 1),
	}
	for name, typed := range cases {
		if sh, id, cmd, ok := Unframe(typed); ok {
			t.Errorf("%s: Unframe(%.60q) = %q, %q, %q, true; want ok=false", name, typed, sh, id, cmd)
		}
	}
}

// A shellUnderTest is a shell binary that can run frames from a script.
type shellUnderTest struct {
	program string
	family  Shell
	args    []string // before the script or -c
}

var shellsUnderTest = []shellUnderTest{
	{"bash", ShellBash, []string{"--norc", "--noprofile"}},
	{"dash", ShellSh, nil},
	{"zsh", ShellZsh, []string{"-f"}},
	{"ksh", ShellKsh, nil},
	{"mksh", ShellKsh, nil},
	{"fish", ShellFish, []string{"--no-config"}},
}

// framedRun is what running a frame in a real shell produced.
type framedRun struct {
	output    string // the command's output, normalized
	status    int
	ended     bool
	before    []byte // raw bytes before the start marker
	afterEnd  []byte // raw bytes after the end marker
	foreign   bool
	rawStream []byte
}

// runFrame runs Frame(sh.family, id, command), followed by the shell code
// after, as a script of the shell sh, and reads the shell's combined
// output as a pane's stream is read.
func runFrame(t *testing.T, sh shellUnderTest, dir, id, command, after string) framedRun {
	t.Helper()
	skipShortRealShells(t)
	path, err := exec.LookPath(sh.program)
	if err != nil {
		t.Skipf("%s is not installed", sh.program)
	}
	// A script file rather than -c: an argument holds at most 128 KB.
	script := filepath.Join(t.TempDir(), "script")
	if err := os.WriteFile(script, []byte(Frame(sh.family, id, command)+after+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(path, append(append([]string(nil), sh.args...), script)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+dir, "LC_ALL=C.UTF-8")
	var raw bytes.Buffer
	cmd.Stdout, cmd.Stderr = &raw, &raw
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s <frame>: %v\n%s", sh.program, err, raw.String())
	}
	var text bytes.Buffer
	norm := NewTextNormalizer(&text)
	sc := NewFrameScanner(id, norm)
	sc.Write(raw.Bytes())
	norm.Flush()
	run := framedRun{output: text.String(), foreign: sc.ForeignSeen(), rawStream: raw.Bytes()}
	run.status, run.ended = sc.Ended()
	if i := bytes.Index(raw.Bytes(), StartMarker(id)); i >= 0 {
		run.before = raw.Bytes()[:i]
	}
	if run.ended {
		end := EndMarker(id, run.status)
		run.afterEnd = raw.Bytes()[bytes.LastIndex(raw.Bytes(), end)+len(end):]
	}
	return run
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
		{name: "quotes", command: `echo 'single' "double" 'it'\''s' "a\"b"`, output: "single double it's a\"b\n"},
		{name: "dollar quotes", command: `echo $'a\tb\x41'`, output: "a\tbA\n", only: []Shell{ShellBash, ShellZsh, ShellKsh}},
		{name: "unicode", command: "echo 'héllo wörld ✓ 日本語 🎉'", output: "héllo wörld ✓ 日本語 🎉\n"},
		{name: "tabs", command: "echo 'a\tb'\n\techo indented", output: "a\tb\nindented\n"},
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
		{name: "frame variable is gone", command: `echo "[${__tmcp_bash-}${__tmcp_sh-}${__tmcp_zsh-}${__tmcp_ksh-}]"`, output: "[]\n", only: posix},
		{name: "arguments untouched", command: "echo $#", output: "0\n", only: posix},
	}
	for _, sh := range shellsUnderTest {
		t.Run(sh.program, func(t *testing.T) {
			skipShortRealShells(t)
			if _, err := exec.LookPath(sh.program); err != nil {
				t.Skipf("%s is not installed", sh.program)
			}
			for _, c := range cases {
				if c.only != nil && !containsShell(c.only, sh.family) {
					continue
				}
				t.Run(c.name, func(t *testing.T) {
					run := runFrame(t, sh, t.TempDir(), testFrameID, c.command, "")
					if !run.ended {
						t.Fatalf("no end marker; stream: %.300q", run.rawStream)
					}
					if run.status != c.status {
						t.Errorf("status = %d, want %d", run.status, c.status)
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
			run := runFrame(t, sh, dir, testFrameID, command, after)
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

func TestFrameOutputOfTwoCallsInOneShellIsAttributed(t *testing.T) {
	for _, sh := range shellsUnderTest {
		t.Run(sh.program, func(t *testing.T) {
			skipShortRealShells(t)
			path, err := exec.LookPath(sh.program)
			if err != nil {
				t.Skipf("%s is not installed", sh.program)
			}
			script := Frame(sh.family, "first", "echo one") + "\n" + Frame(sh.family, "second", "echo two; exit 2")
			var raw bytes.Buffer
			cmd := exec.Command(path, append(append([]string(nil), sh.args...), "-c", script)...)
			cmd.Stdout, cmd.Stderr = &raw, &raw
			if err := cmd.Run(); err != nil {
				t.Fatalf("%s: %v", sh.program, err)
			}
			for _, want := range []struct {
				id, output string
				status     int
			}{{"first", "one\n", 0}, {"second", "two\n", 2}} {
				var out bytes.Buffer
				sc := NewFrameScanner(want.id, &out)
				sc.Write(raw.Bytes())
				status, ok := sc.Ended()
				if !ok || status != want.status || out.String() != want.output {
					t.Errorf("frame %s: ended %v, status %d, output %q; want true, %d, %q", want.id, ok, status, out.String(), want.status, want.output)
				}
			}
		})
	}
}

func containsShell(list []Shell, sh Shell) bool {
	for _, s := range list {
		if s == sh {
			return true
		}
	}
	return false
}

func BenchmarkFrame(b *testing.B) {
	cmd := strings.Repeat("echo 'a line of a long command, 48 bytes long'\n", 64<<10/48+1)
	b.SetBytes(int64(len(cmd)))
	b.ReportAllocs()
	for b.Loop() {
		Frame(ShellBash, testFrameID, cmd)
	}
}

// skipShortRealShells keeps the tests that run real shells out of the
// unit tests (go test -short), which start no processes.
func skipShortRealShells(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs real shells; not in -short")
	}
}
