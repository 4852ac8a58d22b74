package tmux

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// These tests need no tmux: they pin down the parts of the adapter that are
// pure functions of tmux's text.

// validKey's table, as tmux 3.3a sends the keys
// (TestSendKeysModifiersArriveAsTheirKeys checks it against tmux).
func TestValidKey(t *testing.T) {
	valid := []string{
		"Enter", "enter", "ENTER", "Escape", "Tab", "BTab", "Space", "BSpace",
		"Up", "Down", "Left", "Right", "Home", "End", "PageUp", "PgDn", "PPage", "NPage",
		"IC", "DC", "Insert", "Delete", "F1", "F12", "KP0", "KPEnter", "KP*",
		"C-c", "c-c", "M-x", "S-Up", "C-M-Left", "M-C-S-F5", "c-m-s-pgup", "S-C-Home", "C-\\", "C--", "C-/", "C-2", "C-6",
		"C-?", "C-@", "C-[", "C-_", "C-A", "C-M-a", "M-C-?", "C-Space", "C-M-Space", "M-Space", "C- ", "M- ",
		"M-Tab", "M-BTab", "M-Enter", "M-Escape", "M-BSpace", "M-KP1", "M-é", "M-1", "M-;", "M-~",
		"a", "Z", ";", "-", "^", "é", "日", "😀", "^c", "^[", "^Up", "^M-a", "^?", "^2", "^ ",
	}
	for _, k := range valid {
		if !validKey(k) {
			t.Errorf("validKey(%q) = false, want true", k)
		}
	}
	invalid := []string{
		"", "Bogus", "Entr", "F13", "F0", "C-", "X-c", "a-b", "--", "C-Bogus",
		"ab", "None", "Any", "MouseDown1Pane", "WheelUpPane", "FocusIn", "0x41",
		"\x00", "\x01", "\x7f", "M-\x01", "\xff", "C-\xff", "Enter ", " Enter",
		// Typed as text by tmux: Shift outside the cursor, editing and
		// function keys, Ctrl with most punctuation, and C-M- with the
		// characters Ctrl alone makes a control character of.
		"S-Tab", "S-a", "S-A", "S-Enter", "S-Space", "S-BSpace", "S-Escape", "S-BTab", "S-KP1", "S-1", "S-;", "s-tab",
		"C-S-a", "C-S-Tab", "M-S-Tab", "M-S-a", "C-M-S-a", "S- ", "C-{", "C-~", `C-"`, "C-M-2", "C-M--", "C-M-/", "C-M-6",
		"C-M-Tab", "C-M-Enter", "M-^a",
		// Sent without their Ctrl or Shift, or not at all.
		"C-é", "^é", "S-é", "C-S-é", "C-M-é", "M-S-é", "C-日", "C-Tab", "C-Enter", "C-Escape", "C-BSpace", "C-BTab",
		"C-KP1", "C-KPEnter", "^Tab", "C-1", "C-;", "C-!", "C-`", "C-0", "C-9", "^1",
	}
	for _, k := range invalid {
		if validKey(k) {
			t.Errorf("validKey(%q) = true, want false", k)
		}
	}
}

func TestEscapeArgSurvivesTmuxCommandSplitting(t *testing.T) {
	// unsplit is what tmux 3.3a does to an argument before running the
	// command: a trailing ";" ends the command and is dropped, a trailing
	// "\;" becomes ";" (checked against tmux by
	// TestSendTextDeliversSemicolons).
	unsplit := func(arg string) string {
		if !strings.HasSuffix(arg, ";") {
			return arg
		}
		arg = arg[:len(arg)-1]
		if strings.HasSuffix(arg, `\`) {
			return arg[:len(arg)-1] + ";"
		}
		return arg
	}
	for _, s := range []string{"", "a", ";", "a;", `a\;`, `\\;`, ";;", "x; y", "C-;"} {
		if got := unsplit(escapeArg(s)); got != s {
			t.Errorf("escapeArg(%q) reaches tmux as %q", s, got)
		}
	}
}

func TestChunkTextCutsAtCharacterBoundaries(t *testing.T) {
	cases := []struct {
		name string
		text string
		max  int
	}{
		{"short", "hello", 8},
		{"exact", "12345678", 8},
		{"ascii", strings.Repeat("abc", 10), 8},
		{"two-byte", strings.Repeat("é", 20), 7},
		{"four-byte", strings.Repeat("😀", 9), 10},
		{"mixed", strings.Repeat("aé日😀", 30), 9},
		{"invalid", strings.Repeat("\xff\xfe", 9), 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			chunks := chunkText(c.text, c.max)
			if got := strings.Join(chunks, ""); got != c.text {
				t.Fatalf("chunks join to %q, want %q", got, c.text)
			}
			for i, ch := range chunks {
				if len(ch) == 0 || len(ch) > c.max {
					t.Errorf("chunk %d is %d bytes, want 1..%d", i, len(ch), c.max)
				}
				if utf8.ValidString(c.text) && !utf8.ValidString(ch) {
					t.Errorf("chunk %d %q splits a character", i, ch)
				}
			}
		})
	}
}

func TestParseVersion(t *testing.T) {
	cases := []struct {
		v            string
		major, minor int
		ok           bool
	}{
		{"3.3a", 3, 3, true},
		{"3.2", 3, 2, true},
		{"3.2-rc2", 3, 2, true},
		{"3.1c", 3, 1, true},
		{"2.9a", 2, 9, true},
		{"next-3.4", 3, 4, true},
		{"master", 99, 0, true},
		{"openbsd-7.4", 3, 2, true},
		{"openbsd-6.8", 0, 0, true},
		{"", 0, 0, false},
		{"3", 0, 0, false},
		{"x.y", 0, 0, false},
		{"3.x", 0, 0, false},
	}
	for _, c := range cases {
		major, minor, ok := parseVersion(c.v)
		if major != c.major || minor != c.minor || ok != c.ok {
			t.Errorf("parseVersion(%q) = %d, %d, %v; want %d, %d, %v", c.v, major, minor, ok, c.major, c.minor, c.ok)
		}
	}
}

func TestUnescapeOutput(t *testing.T) {
	cases := map[string]string{
		``:                     "",
		`plain text`:           "plain text",
		`a\015\012b`:           "a\r\nb",
		`\033[1m`:              "\x1b[1m",
		`back\134slash`:        `back\slash`,
		`\134\134`:             `\\`,
		"raw \xc3\xa9 utf8":    "raw \xc3\xa9 utf8",
		`\01`:                  `\01`,
		`\999`:                 `\999`,
		`trailing \`:           `trailing \`,
		`\000\001\037\177\377`: "\x00\x01\x1f\x7f\xff",
	}
	for in, want := range cases {
		if got := string(unescape([]byte(in))); got != want {
			t.Errorf("unescape(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestControlParser(t *testing.T) {
	type reply struct {
		lines []string
		err   string
	}
	var outputs []string
	var replies []reply
	var notes []string
	var attaches []string
	var exit string
	var paused []ports.PaneID
	p := controlParser{
		output: func(id ports.PaneID, data []byte) { outputs = append(outputs, string(id)+"="+string(data)) },
		paused: func(id ports.PaneID) { paused = append(paused, id) },
		reply: func(lines []string, err error) {
			r := reply{lines: lines}
			if err != nil {
				r.err = err.Error()
			}
			replies = append(replies, r)
		},
		notify: func(name string) { notes = append(notes, name) },
		attached: func(err error) {
			if err != nil {
				attaches = append(attaches, err.Error())
			} else {
				attaches = append(attaches, "ok")
			}
		},
		exit: func(reason string) { exit = reason },
	}
	for _, line := range []string{
		"%begin 1 10 0", // the reply to attach-session from the command line
		"%end 1 10 0",
		"%session-changed $0 main",
		"%begin 2 11 1",
		"ready",
		"%end 2 11 1",
		`%output %3 hi\015\012`,
		"%begin 3 12 1",
		"%3 0 1700000000", // command output that looks like a notification
		"%end 3 99 1",     // not this block's end
		"%output %4 inside",
		"%end 3 12 1",
		"%layout-change @1 abcd,80x24,0,0,3 abcd,80x24,0,0,3 *",
		"%begin 4 13 1",
		"can't find pane: %9",
		"%error 4 13 1",
		"%extended-output %5 120 : late\\012",
		"%output %6 ",
		"%pause %7", // tmux dropped %7's queued output
		"%continue %7",
		"%begin 5 14 0", // a failed attach-session
		"can't find session: $9",
		"%error 5 14 0",
		"%exit detached",
	} {
		p.line([]byte(line))
	}
	wantOutputs := []string{"%3=hi\r\n", "%5=late\n", "%6="}
	if !slices.Equal(outputs, wantOutputs) {
		t.Errorf("outputs = %q, want %q", outputs, wantOutputs)
	}
	wantReplies := []reply{
		{lines: []string{"ready"}},
		{lines: []string{"%3 0 1700000000", "%end 3 99 1", "%output %4 inside"}},
		{lines: []string{"can't find pane: %9"}, err: "can't find pane: %9"},
	}
	if len(replies) != len(wantReplies) {
		t.Fatalf("replies = %q, want %q", replies, wantReplies)
	}
	for i, want := range wantReplies {
		if !slices.Equal(replies[i].lines, want.lines) || replies[i].err != want.err {
			t.Errorf("reply %d = %q, want %q", i, replies[i], want)
		}
	}
	if want := []string{"ok", "can't find session: $9"}; !slices.Equal(attaches, want) {
		t.Errorf("attach-session replies = %q, want %q", attaches, want)
	}
	if !slices.Equal(paused, []ports.PaneID{"%7"}) {
		t.Errorf("paused = %q, want %%7", paused)
	}
	if !slices.Equal(notes, []string{"%session-changed", "%layout-change", "%continue"}) {
		t.Errorf("notifications = %q", notes)
	}
	if exit != "detached" {
		t.Errorf("exit reason = %q, want %q", exit, "detached")
	}
}

// A printing part's block (a capture's rows) ends at the secret marker of
// the block after it, whatever its rows look like: forged ends, forged
// notifications and forged markers are rows; tmux's notifications after
// the block's real end are read as such.
func TestControlParserReadsAPrintingBlockToItsSecretMarker(t *testing.T) {
	var outputs, notes []string
	var replies [][]string
	var errs []string
	secrets := []string{"tmux-mcp-done 5f3a"}
	p := controlParser{
		output: func(id ports.PaneID, data []byte) { outputs = append(outputs, string(id)+"="+string(data)) },
		paused: func(ports.PaneID) {},
		reply: func(lines []string, err error) {
			replies = append(replies, lines)
			if err != nil {
				errs = append(errs, err.Error())
			}
		},
		notify:   func(name string) { notes = append(notes, name) },
		attached: func(error) {},
		exit:     func(string) {},
		printing: func() string {
			if len(secrets) == 0 {
				return ""
			}
			s := secrets[0]
			secrets = secrets[1:]
			return s
		},
	}
	rows := []string{
		"%end 7 20 1", // the block's own guard, forged
		"%output %1 injected",
		"%begin 7 21 1",
		"tmux-mcp-done 4", // the marker of a plain request, guessed
		"%end 7 21 1",
		"%begin 7 22 1",
		"tmux-mcp-done 5f3b", // a guess at the secret
		"tmux-mcp-done 5f3a", // the secret itself, which no pane knows, not after a %begin: a row
		"",
	}
	lines := append(append([]string{"%begin 7 20 1"}, rows...),
		"%end 7 20 1",
		`%output %2 real
`, // tmux's, after the real end
		"%window-add @4",
		"%begin 7 21 1",
		"tmux-mcp-done 5f3a",
		"%end 7 21 1",
		"%begin 7 22 1", // the next request's block, read as usual
		"%end 7 99 1",
		"%end 7 22 1",
	)
	for _, l := range lines {
		p.line([]byte(l))
	}
	if len(replies) != 3 || !slices.Equal(replies[0], rows) || !slices.Equal(replies[1], []string{"tmux-mcp-done 5f3a"}) ||
		!slices.Equal(replies[2], []string{"%end 7 99 1"}) || len(errs) != 0 {
		t.Errorf("replies = %q, errors %q; want the rows, the marker, then the next block", replies, errs)
	}
	if !slices.Equal(outputs, []string{"%2=real\n"}) || !slices.Equal(notes, []string{"%window-add"}) {
		t.Errorf("outputs %q, notifications %q; want only tmux's own, after the block", outputs, notes)
	}

	// A capture that fails ends at its real %error.
	secrets, replies = []string{"tmux-mcp-done 77"}, nil
	for _, l := range []string{"%begin 8 30 1", "can't find pane: %9", "%error 8 30 1",
		"%begin 8 31 1", "tmux-mcp-done 77", "%end 8 31 1"} {
		p.line([]byte(l))
	}
	if len(errs) != 1 || errs[0] != "can't find pane: %9" || len(replies) != 2 {
		t.Errorf("a failed capture: replies %q, errors %q", replies, errs)
	}
}

func TestParsePaneInfo(t *testing.T) {
	pane := func(id, sync, window, zoomed string) string {
		f := make([]string, paneFieldCount)
		f[pID], f[pPID], f[pDead], f[pInMode], f[pMode] = id, "100", "0", "0", ""
		f[pWidth], f[pHeight], f[pHistorySize], f[pHistoryLimit] = "80", "24", "7", "2000"
		f[pSynchronized], f[pWindow], f[pZoomed] = sync, window, zoomed
		f[pSocket], f[pServerPID], f[pServerStart], f[pCommand] = "/tmp/tmux-0/s", "42", "1700000000", "we?ird cmd"
		return "P" + sep + strings.Join(f, sep)
	}
	client := func(tty, control, window, active, flags string) string {
		f := make([]string, clientFieldCount)
		f[cName], f[cTTY], f[cControl], f[cWindow], f[cPane], f[cFlags] = "client-1", tty, control, window, active, flags
		f[cSession] = "$" + window[1:] // each test window is the current one of its own session
		return "C" + sep + strings.Join(f, sep)
	}
	window := func(session, window string) string { return "W" + sep + session + sep + window }
	t.Run("plain", func(t *testing.T) {
		out := strings.Join([]string{
			pane("%1", "0", "@1", "0"), pane("%2", "0", "@1", "0"),
			client("/dev/pts/3", "0", "@1", "%2", "attached"),
			client("/dev/pts/4", "0", "@2", "%5", "attached"),
			client("", "1", "@1", "%2", "attached,control-mode"),
		}, "\n") + "\n"
		info, err := parsePaneInfo("%1", out, selfPane{})
		if err != nil {
			t.Fatal(err)
		}
		want := ports.PaneInfo{
			ID: "%1", Generation: "100@42.1700000000", Command: "we?ird cmd",
			Width: 80, Height: 24, HistorySize: 7, HistoryLimit: 2000,
			Watchers: []string{"/dev/pts/3"}, Attended: true,
		}
		if !equalInfo(info, want) {
			t.Errorf("info = %+v\nwant %+v", info, want)
		}
	})
	t.Run("zoomed window shows only the zoomed pane", func(t *testing.T) {
		out := strings.Join([]string{
			pane("%1", "0", "@1", "1"), pane("%2", "0", "@1", "1"),
			client("/dev/pts/3", "0", "@1", "%2", "attached"),
			client("/dev/pts/5", "0", "@1", "%2", "attached,active-pane"),
		}, "\n")
		info, err := parsePaneInfo("%1", out, selfPane{})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(info.Watchers, []string{"/dev/pts/5"}) {
			t.Errorf("watchers of the hidden pane = %q, want only the active-pane client", info.Watchers)
		}
		info, _ = parsePaneInfo("%2", out, selfPane{})
		if !slices.Equal(info.Watchers, []string{"/dev/pts/3", "/dev/pts/5"}) {
			t.Errorf("watchers of the zoomed pane = %q", info.Watchers)
		}
	})
	t.Run("attended through another window of a session", func(t *testing.T) {
		out := strings.Join([]string{
			pane("%1", "0", "@1", "0"),
			window("$1", "@1"), window("$2", "@2"), window("$2", "@1"), window("$3", "@3"),
			client("/dev/pts/4", "0", "@2", "%5", "attached"), // session $2 shows @2, also holds @1
		}, "\n")
		info, _ := parsePaneInfo("%1", out, selfPane{})
		if !info.Attended || len(info.Watchers) != 0 {
			t.Errorf("pane in a linked window off screen: Attended = %v, Watchers = %q; want attended, unwatched", info.Attended, info.Watchers)
		}
		out = strings.Join([]string{
			pane("%1", "0", "@1", "0"),
			window("$1", "@1"), window("$3", "@3"),
			client("/dev/pts/4", "0", "@3", "%5", "attached"),
			client("", "1", "@1", "%1", "attached,control-mode"),
		}, "\n")
		info, _ = parsePaneInfo("%1", out, selfPane{})
		if info.Attended || len(info.Watchers) != 0 {
			t.Errorf("pane of a session only a control client attaches to: Attended = %v, Watchers = %q", info.Attended, info.Watchers)
		}
	})
	t.Run("synchronized panes", func(t *testing.T) {
		// %9 is synchronized too, in another window, as a listing of
		// every pane (ListPanes) shows it: input to %1 does not reach it.
		out := strings.Join([]string{
			pane("%1", "1", "@1", "0"), pane("%2", "1", "@1", "0"), pane("%3", "0", "@1", "0"), pane("%4", "1", "@1", "0"),
			pane("%9", "1", "@2", "0"),
		}, "\n")
		info, _ := parsePaneInfo("%1", out, selfPane{})
		if !slices.Equal(info.AlsoReaches, []ports.PaneID{"%2", "%4"}) {
			t.Errorf("AlsoReaches of a synchronized pane = %q", info.AlsoReaches)
		}
		info, _ = parsePaneInfo("%3", out, selfPane{})
		if len(info.AlsoReaches) != 0 {
			t.Errorf("AlsoReaches of an unsynchronized pane = %q", info.AlsoReaches)
		}
	})
	t.Run("one parse describes every pane of a listing as each alone", func(t *testing.T) {
		out := strings.Join([]string{
			pane("%1", "1", "@1", "1"), pane("%2", "1", "@1", "1"), pane("%3", "0", "@2", "0"),
			window("$1", "@1"), window("$2", "@2"), window("$2", "@1"),
			client("/dev/pts/3", "0", "@1", "%2", "attached"),
			client("/dev/pts/4", "0", "@2", "%3", "attached"),
		}, "\n")
		d := parseDescriptions(out)
		for _, id := range []ports.PaneID{"%1", "%2", "%3"} {
			once, err1 := d.info(id, selfPane{})
			alone, err2 := parsePaneInfo(id, out, selfPane{})
			if err1 != nil || err2 != nil || !equalInfo(once, alone) {
				t.Errorf("%s: from the shared parse %+v (%v), alone %+v (%v)", id, once, err1, alone, err2)
			}
		}
		if _, err := d.info("%7", selfPane{}); !errors.Is(err, ports.ErrPaneNotFound) {
			t.Errorf("a pane the listing lacks: %v, want ErrPaneNotFound", err)
		}
	})
	t.Run("self", func(t *testing.T) {
		out := pane("%1", "0", "@1", "0")
		cases := []struct {
			self selfPane
			want bool
		}{
			{parseSelf("/tmp/tmux-0/s,42,0", "%1"), true},
			{parseSelf("/tmp/tmux-0/s,42,0", "%2"), false},
			{parseSelf("/tmp/tmux-0/other,42,0", "%1"), false},
			{parseSelf("/tmp/tmux-0/s,43,0", "%1"), false},
			{parseSelf("", "%1"), false},
		}
		for _, c := range cases {
			info, _ := parsePaneInfo("%1", out, c.self)
			if info.Self != c.want {
				t.Errorf("self %+v: Self = %v, want %v", c.self, info.Self, c.want)
			}
		}
	})
	t.Run("pane missing from the listing", func(t *testing.T) {
		_, err := parsePaneInfo("%9", pane("%1", "0", "@1", "0"), selfPane{})
		if !errors.Is(err, ports.ErrPaneNotFound) {
			t.Errorf("err = %v, want ErrPaneNotFound", err)
		}
	})
}

func TestParseSelfReadsSocketPathsWithCommas(t *testing.T) {
	s := parseSelf("/tmp/a,b/default,123,4", "%7")
	if s.socket != "/tmp/a,b/default" || s.pid != "123" || s.pane != "%7" {
		t.Errorf("parseSelf = %+v", s)
	}
	if s := parseSelf("garbage", "%7"); s.socket != "" {
		t.Errorf("parseSelf(garbage) = %+v, want zero", s)
	}
}

func TestCheckPaneIDRejectsOtherTargets(t *testing.T) {
	for _, id := range []ports.PaneID{"", "%", "3", "%3a", "s:1", "=x", "%-1", "%3 "} {
		if err := checkPaneID(id); !errors.Is(err, ports.ErrPaneNotFound) {
			t.Errorf("checkPaneID(%q) = %v, want ErrPaneNotFound", id, err)
		}
	}
	for _, id := range []ports.PaneID{"%0", "%12345"} {
		if err := checkPaneID(id); err != nil {
			t.Errorf("checkPaneID(%q) = %v", id, err)
		}
	}
}

func TestSplitRowsKeepsEmptyRowsAndTrimsBlanks(t *testing.T) {
	cases := []struct {
		out  string
		want []string
	}{
		{"", nil},
		{"\n", []string{""}},
		{"a\n\n\n", []string{"a", "", ""}},
		{"$ ls   \nx\n", []string{"$ ls", "x"}},
	}
	for _, c := range cases {
		if got := splitRows(c.out); !slices.Equal(got, c.want) {
			t.Errorf("splitRows(%q) = %q, want %q", c.out, got, c.want)
		}
	}
}

func equalInfo(a, b ports.PaneInfo) bool {
	return a.ID == b.ID && a.Generation == b.Generation && a.Dead == b.Dead && a.Mode == b.Mode &&
		a.Command == b.Command && a.Width == b.Width && a.Height == b.Height &&
		a.HistorySize == b.HistorySize && a.HistoryLimit == b.HistoryLimit &&
		slices.Equal(a.AlsoReaches, b.AlsoReaches) && slices.Equal(a.Watchers, b.Watchers) &&
		a.Attended == b.Attended && a.Self == b.Self && slices.Equal(a.Unknown, b.Unknown)
}

func TestPasteArgsFillTheBufferInChunksThenPasteGuarded(t *testing.T) {
	const name = "tmux-mcp-1-ab-2"
	// Long enough for three chunks, with a ";" where a chunk ends, which
	// tmux would otherwise take for the end of a command.
	text := strings.Repeat("x", pasteChunk-1) + ";" + strings.Repeat("é日", pasteChunk/5) + "end;"
	cmds := splitCommands(pasteArgs("%7", name, text))
	if len(cmds) < 4 || cmds[0][0] != "list-panes" {
		t.Fatalf("pasteArgs = %q, want the probe first", cmds)
	}
	var got strings.Builder
	sets := cmds[1 : len(cmds)-1]
	for i, c := range sets {
		want := []string{"set-buffer", "-a", "-b", name, "--"}
		if i == 0 {
			want = []string{"set-buffer", "-b", name, "--"}
		}
		if len(c) != len(want)+1 || !slices.Equal(c[:len(want)], want) {
			t.Fatalf("command %d = %q, want %q and a chunk", i+1, c, want)
		}
		if len(c[len(want)]) > pasteChunk {
			t.Errorf("chunk %d holds %d bytes, more than %d", i, len(c[len(want)]), pasteChunk)
		}
		got.WriteString(c[len(want)])
	}
	if len(sets) < 3 || got.String() != text {
		t.Errorf("%d set-buffer commands holding %d bytes, want the %d bytes of the text in at least 3", len(sets), got.Len(), len(text))
	}
	guard := cmds[len(cmds)-1]
	wantGuard := []string{"if-shell", "-F", "-t", "%7", "#{pane_dead}",
		"delete-buffer -b " + name + " ; display-message -p " + deadMark, "paste-buffer -d -p -b " + name + " -t %7"}
	if !slices.Equal(guard, wantGuard) {
		t.Errorf("last command = %q, want %q", guard, wantGuard)
	}
	if _, ok := commandLine(cmds); !ok {
		t.Error("the paste's commands cannot travel over a control client")
	}
	if _, ok := commandLine(splitCommands(pasteArgs("%7", name, "nul\x00byte"))); ok {
		t.Error("a text with a NUL byte was put on a control client's command line")
	}
	// Without text, the buffer is loaded from standard input, which a
	// control client cannot give.
	stdin := splitCommands(pasteArgs("%7", name, ""))
	if len(stdin) != 3 || !slices.Equal(stdin[1], []string{"load-buffer", "-b", name, "-"}) {
		t.Errorf("pasteArgs without text = %q, want the probe, load-buffer from standard input and the guard", stdin)
	}
	if _, ok := commandLine(stdin); ok {
		t.Error("load-buffer from standard input was put on a control client's command line")
	}
}

// A remote script of any size is written in command lists that each fit
// in one tmux message (16 KiB), which a command sent as a process must;
// together they hold the script exactly.
func TestRemoteScriptsAreWrittenInListsThatFitATmuxMessage(t *testing.T) {
	for _, size := range []int{0, 10, remoteChunk, remoteChunk + 1, 70 << 10} {
		content := []byte(strings.Repeat("x;'\"$\\", size/6+1)[:size])
		lists := writeLists("buf", "/tmp/tmux-1000/tmux-mcp-x-1", content)
		var got []byte
		for i, args := range lists {
			n := 0
			for _, a := range args {
				n += len(a) + 1
			}
			if n > 16<<10-512 {
				t.Errorf("size %d: list %d is %d bytes, too long for one tmux message", size, i, n)
			}
			chunk := args[slices.Index(args, "--")+1]
			got = append(got, strings.TrimSuffix(chunk, `\;`)...)
			if strings.HasSuffix(chunk, `\;`) {
				got = append(got, ';')
			}
		}
		if string(got) != string(content) {
			t.Errorf("size %d: the lists carry %d bytes, not the script", size, len(got))
		}
		last := lists[len(lists)-1]
		if !slices.Contains(last, "save-buffer") || slices.Contains(lists[0][:5], "-a") || (len(lists) > 1 && lists[1][1] != "-a") {
			t.Errorf("size %d: lists %q; want set, appends, then save-buffer last", size, lists)
		}
	}
}

// A private server's socket file is swept only when everything says it
// was left behind: its name is exactly a private server's, the process it
// names is gone, it is a socket and nothing answers on it.
func TestSweepRemovesOnlyTheSocketsOfGoneProcesses(t *testing.T) {
	dir := t.TempDir()
	const gone = 1 << 30 // above any pid_max: no such process
	deadSocket := func(name string) string {
		t.Helper()
		path := filepath.Join(dir, name)
		l, err := net.Listen("unix", path)
		if err != nil {
			t.Fatal(err)
		}
		l.(*net.UnixListener).SetUnlinkOnClose(false)
		l.Close() // the file stays; nothing answers on it
		return path
	}
	left := deadSocket(fmt.Sprintf("tmux-mcp-%d-0123456789ab", gone))
	mine := deadSocket(fmt.Sprintf("tmux-mcp-%d-0123456789ab", os.Getpid()))
	foreign := deadSocket("agents")
	oddNames := []string{
		deadSocket(fmt.Sprintf("tmux-mcp-%d-0123456789", gone)),    // too short
		deadSocket(fmt.Sprintf("tmux-mcp-%d-0123456789AB", gone)),  // not as it is made
		deadSocket(fmt.Sprintf("tmux-mcp-0%d-0123456789ab", gone)), // a pid is not written so
	}
	answering := filepath.Join(dir, fmt.Sprintf("tmux-mcp-%d-ba9876543210", gone))
	l, err := net.Listen("unix", answering)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	plain := filepath.Join(dir, fmt.Sprintf("tmux-mcp-%d-aaaaaaaaaaaa", gone))
	if err := os.WriteFile(plain, nil, 0o600); err != nil {
		t.Fatal(err)
	}

	sweepSockets(dir)

	if _, err := os.Lstat(left); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the socket a gone process left is still there (%v)", err)
	}
	for _, kept := range append([]string{mine, foreign, answering, plain}, oddNames...) {
		if _, err := os.Lstat(kept); err != nil {
			t.Errorf("%s was removed (%v), but nothing says it was left behind", filepath.Base(kept), err)
		}
	}
}

// A process's time grows with its input, read at 64 KiB/s at worst: a
// 16 MiB paste (the longest message a client can send) over a slow ssh
// link is not cut off at the 30 s of a command.
func TestCommandTimeoutGrowsWithTheInput(t *testing.T) {
	base := 30 * time.Second
	for _, tt := range []struct {
		stdin io.Reader
		want  time.Duration
	}{
		{nil, base},
		{strings.NewReader(""), base},
		{strings.NewReader(strings.Repeat("x", 64<<10)), base + time.Second},
		{bytes.NewReader(make([]byte, 16<<20)), base + 256*time.Second},
		{io.MultiReader(), base}, // a length it cannot know
	} {
		if got := commandTimeout(base, tt.stdin); got != tt.want {
			t.Errorf("commandTimeout(%T) = %v, want %v", tt.stdin, got, tt.want)
		}
	}
}

// parsePaneInfo builds the PaneInfo of pane id from the output of Pane's
// invocation.
func parsePaneInfo(id ports.PaneID, out string, self selfPane) (ports.PaneInfo, error) {
	return parseDescriptions(out).info(id, self)
}
