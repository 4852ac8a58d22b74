package frame

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// testIDs are the ids of the frames these tests build.
var testIDs = IDs{ID: "0123456789abcdef", Secret: "fedcba9876543210fedcba9876543210", Unread: "u0123456"}

const testScript = "/run/tmux-mcp-1/s1"

// testFiles are files of a frame for sh, as Stage would name them.
func testFiles(sh Shell) Files {
	f := Files{Script: testScript}
	if (Command{Shell: sh}).NeedsTextFile() {
		f.Text, f.End = "/run/tmux-mcp-1/t1", "/run/tmux-mcp-1/e1"
	}
	return f
}

func testCommand(sh Shell, text string) Command {
	return Command{Shell: sh, IDs: testIDs, Text: text}
}

func TestMarkersAreOSCStringsWithTheirFields(t *testing.T) {
	if got, want := string(StartMarker("abc", 4321)), "\x1b]7717;tmcp;S;abc;4321\x07"; got != want {
		t.Errorf("StartMarker = %q, want %q", got, want)
	}
	if got, want := string(EndMarker(IDs{ID: "abc", Secret: "xyz"}, -3)), "\x1b]7717;tmcp;E;abc;xyz;-3\x07"; got != want {
		t.Errorf("EndMarker = %q, want %q", got, want)
	}
	if got, want := string(UnreadMarker("u")), "\x1b]7717;tmcp;X;u\x07"; got != want {
		t.Errorf("UnreadMarker = %q, want %q", got, want)
	}
}

func TestIDsAreValidOnlyWhenThreeDifferentIDs(t *testing.T) {
	for _, c := range []struct {
		ids  IDs
		want bool
	}{
		{testIDs, true},
		{IDs{"a", "b", "c"}, true},
		{IDs{"a-_Z9", strings.Repeat("b", 64), "c"}, true},
		{IDs{"", "b", "c"}, false},
		{IDs{"a", "", "c"}, false},
		{IDs{"a", "b", ""}, false},
		{IDs{"a", "a", "c"}, false},
		{IDs{"a", "b", "a"}, false},
		{IDs{"a", "b", "b"}, false},
		{IDs{"a'b", "b", "c"}, false},
		{IDs{"a", "b;c", "d"}, false},
		{IDs{"a", "b", "c d"}, false},
		{IDs{strings.Repeat("a", 65), "b", "c"}, false},
	} {
		if got := c.ids.Valid(); got != c.want {
			t.Errorf("%+v.Valid() = %v, want %v", c.ids, got, c.want)
		}
	}
}

func TestLineIsShortSaysWhatRunsAndHoldsNoMarkerID(t *testing.T) {
	long := strings.Repeat("echo 'a line of a long command, 48 bytes long'\n", 2000)
	for _, sh := range shells {
		for _, text := range []string{"make test", long, "printf '\\033]7717;tmcp;S;x\\007'"} {
			line := testCommand(sh, text).Line(testFiles(sh))
			if !strings.HasPrefix(line, Kill+" ") || !strings.HasSuffix(line, "\n") || strings.Count(line, "\n") != 1 {
				t.Errorf("%s: line %q does not start with C-u and a space and end with its only line feed", sh, line)
			}
			if len(line) > 256 {
				t.Errorf("%s: line for a %d-byte command is %d bytes long; want a short line", sh, len(text), len(line))
			}
			if !strings.Contains(line, quoter(sh)(Preview(text))) {
				t.Errorf("%s: line %q does not show the command's preview %q", sh, line, Preview(text))
			}
			for _, secret := range []string{testIDs.ID, testIDs.Secret} {
				if strings.Contains(line, secret) {
					t.Errorf("%s: the typed line %q holds %q, which a screen grep could use to forge a marker", sh, line, secret)
				}
			}
			if strings.ContainsAny(line[len(Kill):len(line)-1], "\x1b\x07\t\r") {
				t.Errorf("%s: line %q holds a control character", sh, line)
			}
		}
	}
}

func TestScriptIsOneLineThatEmptiesItselfFirst(t *testing.T) {
	for _, sh := range shells {
		c := testCommand(sh, "echo 'it''s'\ncat <<EOF\nx\nEOF")
		f := Files{Script: testScript, Text: "/run/tmux-mcp-1/t1"}
		script := string(c.Script(f))
		if sh != ShellFish && strings.Count(script, "\n") != strings.Count(c.Text, "\n")+2 {
			t.Errorf("%s: script %q is not one line around the quoted text", sh, script)
		}
		if !strings.HasPrefix(script, scriptLead(sh)+"'"+testScript+"'; ") {
			t.Errorf("%s: script %q does not empty itself first", sh, script)
		}
		wants := []string{`tmcp;S;` + testIDs.ID + `;`, `tmcp;E;` + testIDs.ID + `;` + testIDs.Secret + `;`}
		if sh == ShellFish {
			wants[1] = "__tmcp_k " + testIDs.Secret + ";"
		}
		for _, want := range wants {
			if !strings.Contains(script, want) {
				t.Errorf("%s: script %q lacks %q", sh, script, want)
			}
		}
		if strings.Contains(script, testIDs.Unread) {
			t.Errorf("%s: script holds the unread id", sh)
		}
		if strings.ContainsAny(script, "\x1b\x07") {
			t.Errorf("%s: script %q holds marker bytes, not their escapes", sh, script)
		}
	}
}

// The typed line of bash starts with a space, which keeps it out of the
// history only with HISTCONTROL=ignorespace or ignoreboth; so the script
// deletes it, before the command runs, and only if the newest entry is
// this very line (the one that names the script): with the line kept out
// of the history, the newest entry is the user's. The real bash is
// TestBashFrameDeletesItsOwnHistoryEntryOnly.
func TestBashScriptDeletesItsTypedLineFromTheHistoryBeforeTheCommandRuns(t *testing.T) {
	script := string(testCommand(ShellBash, "echo hi").Script(Files{Script: testScript}))
	path := "'" + testScript + "'"
	steps := []string{
		"history 1 >|" + path,               // the newest entry, into the emptied script file
		"read -r __tmcp_h <" + path,         // read back with a builtin
		": >|" + path,                       // and the file emptied again
		"case $__tmcp_h in *" + path + "*)", // only an entry naming this script
		"history -d -1",                     // is deleted
		"esac; unset __tmcp_h",              // leaving no variable to the command
		"tmcp;S;",                           // all before the start marker
	}
	at := 0
	for _, step := range steps {
		i := strings.Index(script[at:], step)
		if i < 0 {
			t.Fatalf("the bash script %q does not %q after byte %d", script, step, at)
		}
		at += i + len(step)
	}
	for _, sh := range shells {
		if sh == ShellBash || sh == ShellZsh {
			continue
		}
		if s := string(testCommand(sh, "echo hi").Script(testFiles(sh))); strings.Contains(s, "history") {
			t.Errorf("%s: script %q touches the history, which only bash's and zsh's need", sh, s)
		}
	}
}

// zsh has saved the typed line before anything of it runs, so its script
// sets up the hook that keeps the next lines out (zshHistoryHook), with
// xtrace off and before the command runs; the real zsh is
// TestZshFrameKeepsLaterLinesOutOfTheHistory and the real-pane tests.
func TestZshScriptSetsUpItsHistoryHookBeforeTheCommandRuns(t *testing.T) {
	script := string(testCommand(ShellZsh, "echo hi").Script(Files{Script: testScript}))
	at := 0
	for _, step := range []string{"set +x; ", "__tmcp_nohist() {", "builtin fc -p", "zshaddhistory_functions=(__tmcp_nohist", "tmcp;S;", "eval "} {
		i := strings.Index(script[at:], step)
		if i < 0 {
			t.Fatalf("the zsh script %q does not %q after byte %d", script, step, at)
		}
		at += i + len(step)
	}
	// The hook knows a frame's line by what Line writes.
	line := testCommand(ShellZsh, "echo hi").Line(Files{Script: testScript})
	if !strings.HasPrefix(strings.TrimPrefix(line, Kill), " : '") || !strings.Contains(line, `\033]7717;tmcp;X;`) {
		t.Errorf("the zsh line %q is not one the hook knows", line)
	}
}

func TestFishRunsTheTextFileFromTheLineAndOthersEvalTheText(t *testing.T) {
	for _, sh := range shells {
		c := testCommand(sh, "echo hi")
		f := testFiles(sh)
		script, line := string(c.Script(f)), c.Line(f)
		if c.NeedsTextFile() != (sh == ShellFish) {
			t.Errorf("%s: NeedsTextFile = %v", sh, c.NeedsTextFile())
		}
		if sh == ShellFish {
			if !strings.Contains(line, `fish "$1"' sh '/run/tmux-mcp-1/t1'; source '/run/tmux-mcp-1/e1'`) || strings.Contains(script, "echo hi") {
				t.Errorf("fish line %q does not run the text file between the scripts", line)
			}
			if got := string(c.TextFile()); got != "echo hi\n" {
				t.Errorf("TextFile = %q", got)
			}
			end := string(c.EndScript(f))
			if strings.Contains(end, testIDs.Secret) || !strings.Contains(end, "$__tmcp_k") || !strings.Contains(end, ">'"+testScript+"'") {
				t.Errorf("fish's end script %q holds the secret, or does not write the status into the script", end)
			}
			if !strings.Contains(script, "set -g __tmcp_k "+testIDs.Secret) {
				t.Errorf("fish's script %q does not keep the secret in a variable", script)
			}
		} else if !strings.Contains(script, "eval 'echo hi\n'") {
			t.Errorf("%s: script %q does not eval the quoted text", sh, script)
		}
	}
}

func TestStageNamesEachFileOnceAndTheScriptKnowsItsPath(t *testing.T) {
	for _, sh := range shells {
		c := testCommand(sh, "echo staged")
		got := map[string][]byte{}
		f, err := c.Stage(func(build func(string) []byte) (string, error) {
			path := fmt.Sprintf("/s/%d", len(got))
			got[path] = build(path)
			return path, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(f.Paths()) || f.Paths()[len(f.Paths())-1] != f.Script {
			t.Errorf("%s: staged %d files, Paths %q", sh, len(got), f.Paths())
		}
		if want := c.Script(f); !bytes.Equal(got[f.Script], want) {
			t.Errorf("%s: the script staged is %q, want %q", sh, got[f.Script], want)
		}
		if c.NeedsTextFile() && (!bytes.Equal(got[f.Text], c.TextFile()) || !bytes.Equal(got[f.End], c.EndScript(f))) {
			t.Errorf("%s: text %q, end %q", sh, got[f.Text], got[f.End])
		}
	}
}

func TestFrameFramesAnUnknownFamilyAsSh(t *testing.T) {
	c := Command{Shell: "tcsh", IDs: testIDs, Text: "echo hi"}
	sh := testCommand(ShellSh, "echo hi")
	if c.Line(testFiles("tcsh")) != sh.Line(testFiles(ShellSh)) || !bytes.Equal(c.Script(Files{Script: testScript}), sh.Script(Files{Script: testScript})) {
		t.Error("an unknown family is not framed as sh")
	}
}

// everyIDByte holds each byte an id may hold once: 64 of them, as many as
// an id may be long.
const everyIDByte = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_-"

// longestIDs are three different ids of MaxIDLen bytes that use every
// byte an id may hold.
var longestIDs = IDs{ID: everyIDByte, Secret: everyIDByte[32:] + everyIDByte[:32], Unread: everyIDByte[1:] + everyIDByte[:1]}

func TestIDsOfEveryIDByteAtTheLongestLengthAreFramed(t *testing.T) {
	if len(everyIDByte) != MaxIDLen || !longestIDs.Valid() {
		t.Fatalf("%q (%d bytes) are not valid ids of the longest length, %d", everyIDByte, len(everyIDByte), MaxIDLen)
	}
	for _, sh := range shells {
		c := Command{Shell: sh, IDs: longestIDs, Text: "echo longest"}
		f := testFiles(sh)
		if _, gotFiles, unread, ok := ParseLine(sh, c.Line(f)); !ok || gotFiles != f || unread != longestIDs.Unread {
			t.Errorf("%s: ParseLine of a line with the longest ids = %+v, %q, %v", sh, gotFiles, unread, ok)
		}
		got, _, ok := ParseScript(sh, c.Script(f))
		if !ok || got.ID != longestIDs.ID || got.Secret != longestIDs.Secret {
			t.Errorf("%s: ParseScript of a script with the longest ids = %+v, %v", sh, got, ok)
		}
	}
	longer := everyIDByte + "a"
	for _, ids := range []IDs{{longer, "b", "c"}, {"a", longer, "c"}, {"a", "b", longer}} {
		if ids.Valid() {
			t.Errorf("%+v: an id of %d bytes is valid; the longest is %d", ids, len(longer), MaxIDLen)
		}
	}
}

func TestFramePanicsOnWhatItCannotFrame(t *testing.T) {
	for name, f := range map[string]func(){
		"bad id":     func() { Command{IDs: IDs{"a'", "b", "c"}}.Line(Files{Script: "/p"}) },
		"same ids":   func() { Command{IDs: IDs{"a", "a", "c"}}.Line(Files{Script: "/p"}) },
		"NUL":        func() { testCommand(ShellBash, "a\x00b").Line(Files{Script: "/p"}) },
		"bad secret": func() { Command{IDs: IDs{"a", "b c", "c"}}.Script(Files{Script: "/p"}) },
		"NUL script": func() { testCommand(ShellBash, "\x00").Script(Files{Script: "/p"}) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

func TestPreviewShowsTheFirstLineSafely(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"make test", "make test"},
		{"make test\n", "make test"},
		{"make\ntest", "make…"},
		{"a\tb\x1b[31m", "a?b?[31m"},
		{strings.Repeat("x", 60), strings.Repeat("x", 60)}, // 60 bytes fit
		{strings.Repeat("é", 30), strings.Repeat("é", 30)},
		{strings.Repeat("x", 61), strings.Repeat("x", 60) + "…"},
		// No character starts in the first 60 bytes: none is shown.
		{strings.Repeat("\x80", 70), "…"},
		{strings.Repeat("x", 59) + "é", strings.Repeat("x", 59) + "…"},
		{"", ""},
		{"\xff", "?"},
	} {
		if got := Preview(c.in); got != c.want {
			t.Errorf("Preview(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestParseLineInvertsLine(t *testing.T) {
	for _, sh := range shells {
		for _, text := range []string{"make test", "echo 'quoted' \\ back", "a\nb", ""} {
			c := testCommand(sh, text)
			for _, path := range []string{testScript, "/tmp/it's here/s"} {
				files := testFiles(sh)
				files.Script = path
				line := c.Line(files)
				for _, typed := range []string{line, strings.TrimPrefix(line, Kill), strings.TrimSuffix(line, "\n"), strings.TrimSuffix(line, "\n") + "\r"} {
					preview, f, unread, ok := ParseLine(sh, typed)
					if !ok || f != files || unread != testIDs.Unread || preview != Preview(text) {
						t.Errorf("%s: ParseLine(%q) = %q, %+v, %q, %v; want %q, %+v, %q, true",
							sh, typed, preview, f, unread, ok, Preview(text), files, testIDs.Unread)
					}
				}
			}
		}
	}
}

func TestParseLineRejectsWhatLineDidNotWrite(t *testing.T) {
	line := strings.TrimSuffix(testCommand(ShellBash, "make").Line(testFiles(ShellBash)), "\n")
	for name, typed := range map[string]string{
		"empty":             "",
		"a plain command":   "echo hi",
		"another family":    testCommand(ShellSh, "make").Line(testFiles(ShellSh)),
		"no preview quotes": strings.Replace(line, "'make'", "make", 1),
		"two words":         strings.Replace(line, "'make'", "'make' 'x'", 1),
		"bad unread id":     strings.Replace(line, testIDs.Unread, "u'1", 1),
		"more after":        line + "; rm -rf /",
		"unquoted path":     strings.Replace(line, "'"+testScript+"'", testScript, 1),
		"two paths":         strings.Replace(line, "'"+testScript+"'", "'/elsewhere'", 1),
	} {
		if preview, f, u, ok := ParseLine(ShellBash, typed); ok {
			t.Errorf("%s: ParseLine(%q) = %q, %+v, %q, true; want ok=false", name, typed, preview, f, u)
		}
	}
}

func TestParseLineRejectsEveryLineCutShort(t *testing.T) {
	for _, sh := range shells {
		// The preview holds the characters fish escapes in its quotes.
		c := testCommand(sh, `it's a \ test`)
		files := testFiles(sh)
		files.Script = "/tmp/it's here/s"
		line := strings.TrimSuffix(strings.TrimPrefix(c.Line(files), Kill), "\n")
		for n := range len(line) {
			if preview, f, u, ok := ParseLine(sh, line[:n]); ok {
				t.Errorf("%s: ParseLine of the first %d of %d bytes = %q, %+v, %q, true; want ok=false", sh, n, len(line), preview, f, u)
			}
		}
	}
}

func TestParseScriptInvertsScript(t *testing.T) {
	for _, sh := range shells {
		for _, text := range []string{"echo hi", "echo 'it''s'\n\tcat <<EOF\n$HOME\nEOF", "", "'"} {
			c := testCommand(sh, text)
			f := Files{Script: "/tmp/a'b/s"}
			script := c.Script(f)
			if c.NeedsTextFile() {
				script = c.Script(Files{Script: f.Script, Text: "/t", End: "/e"})
			}
			got, gotFiles, ok := ParseScript(sh, script)
			want := c
			want.Unread = ""
			if want.NeedsTextFile() {
				want.Text = ""
			}
			if !ok || got != want || gotFiles != f {
				t.Errorf("%s: ParseScript(Script(%q)) = %+v, %+v, %v; want %+v, %+v, true", sh, text, got, gotFiles, ok, want, f)
			}
		}
	}
}

func TestParseScriptRejectsWhatScriptDidNotWrite(t *testing.T) {
	script := string(testCommand(ShellBash, "echo hi").Script(Files{Script: testScript}))
	for name, s := range map[string]string{
		"empty":          "",
		"another family": string(testCommand(ShellZsh, "echo hi").Script(Files{Script: testScript})),
		"no trap":        strings.Replace(script, "(trap 'exit 130' INT; ", "(", 1),
		"another path":   strings.Replace(script, "history 1 >|'"+testScript, "history 1 >|'/elsewhere", 1),
		"no end":         script[:strings.Index(script, "tmcp;E;")],
		"a second line":  script + "echo more\n",
	} {
		if c, f, ok := ParseScript(ShellBash, []byte(s)); ok {
			t.Errorf("%s: ParseScript = %+v, %+v, true; want ok=false", name, c, f)
		}
	}
}

func TestParseStatusFileReadsOnlyAStatusLine(t *testing.T) {
	for in, want := range map[string]int{"0\n": 0, "130\n": 130, "-1\n": -1} {
		if got, ok := ParseStatusFile([]byte(in)); !ok || got != want {
			t.Errorf("ParseStatusFile(%q) = %d, %v; want %d, true", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "\n", "-\n", "0", "00\n", "x\n", "1 \n", ": >'/p'; printf ...\n", "12345678901\n"} {
		if got, ok := ParseStatusFile([]byte(in)); ok {
			t.Errorf("ParseStatusFile(%q) = %d, true; want false", in, got)
		}
	}
}

func BenchmarkFrame(b *testing.B) {
	c := testCommand(ShellBash, strings.Repeat("echo 'a line of a long command, 48 bytes long'\n", 64<<10/48+1))
	b.SetBytes(int64(len(c.Text)))
	b.ReportAllocs()
	for b.Loop() {
		c.Script(Files{Script: testScript})
		c.Line(testFiles(ShellBash))
	}
}

func TestALineWithoutPreviewHoldsNoTextOfTheCommand(t *testing.T) {
	for _, sh := range shells {
		c := testCommand(sh, "export TOKEN=hunter2")
		c.NoPreview = true
		f := testFiles(sh)
		line := c.Line(f)
		if strings.Contains(line, "TOKEN") || strings.Contains(line, "hunter2") {
			t.Errorf("%s: the line %q shows the command", sh, line)
		}
		preview, got, unread, ok := ParseLine(sh, line)
		if !ok || preview != "" || got != f || unread != testIDs.Unread {
			t.Errorf("%s: ParseLine(%q) = %q, %+v, %q, %v; want no preview and the same files", sh, line, preview, got, unread, ok)
		}
		c.NoPreview = false
		if !strings.Contains(c.Line(f), "TOKEN=hunter2") {
			t.Errorf("%s: the line with a preview does not show the command", sh)
		}
	}
}
