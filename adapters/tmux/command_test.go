package tmux

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// Commands over a control client: the same argv, the same errors and the
// same effect as the subprocess path, for whatever bytes the arguments
// hold.

// nastyStrings are arguments that tmux's command syntax, tmux's argument
// splitting, tmux's format expansion, a line protocol or UTF-8 could each
// get wrong.
var nastyStrings = []string{
	"", " ", "  two  spaces  ", "a b", "'", "''", `"`, `\`, `\\`, `\;`, ";", "a;", `a\;`, `a\\;`, ";;", " ; ",
	"$HOME", "${HOME}", "$(echo x)", "`echo x`", "~", "~/x", "~root", "x~",
	"#", "##", "#{pane_id}", "#(echo ran)", "#[fg=red]", "{", "}", "{ display-message x }",
	"%1", "%if 1", "%endif", "%hidden x=1", "--", "-t", "-",
	"\n", "a\nb", "trailing\n", "\\\n", "line\n%end 1 2 1\n%output %0 x",
	"\r", "\r\n", "\t", "\x1b[A", "\x7f", "\x01\x02\x1f", "\a\b\f\v",
	"é", "日本", "😀", "e\u0301", "\u00a0", "\u2028",
	"\xff", "\xfe\xff", "\xc3", "\xc3(", "\xed\xa0\x80", "\xf4\x90\x80\x80",
	`\n`, `\001`, `\u00e9`, `\e`, `\x41`,
	strings.Repeat("é日😀;#$~\\\"'\n", 300),
}

func TestSplitCommandsReadsArgumentsAsTmuxDoes(t *testing.T) {
	cases := []struct {
		args []string
		want [][]string
	}{
		{[]string{"list-panes"}, [][]string{{"list-panes"}}},
		{[]string{"a", "x", ";", "b", "y"}, [][]string{{"a", "x"}, {"b", "y"}}},
		{[]string{"a", "x;", "b"}, [][]string{{"a", "x"}, {"b"}}},
		{[]string{"a", `x\;`, "b"}, [][]string{{"a", "x;", "b"}}},
		{[]string{"a", `\;`}, [][]string{{"a", ";"}}},
		{[]string{"a", `x\\;`}, [][]string{{"a", `x\;`}}},
		{[]string{"a", ";", ";", "b"}, [][]string{{"a"}, {"b"}}},
		{[]string{"a", ";"}, [][]string{{"a"}}},
		{[]string{"a", "", "b;c"}, [][]string{{"a", "", "b;c"}}},
	}
	for _, c := range cases {
		if got := splitCommands(c.args); !slices.EqualFunc(got, c.want, slices.Equal) {
			t.Errorf("splitCommands(%q) = %q, want %q", c.args, got, c.want)
		}
	}
	// escapeArg, as the subprocess path applies it, and splitCommands
	// undo each other.
	for _, s := range nastyStrings {
		got := splitCommands([]string{"set-option", escapeArg(s)})
		if len(got) != 1 || len(got[0]) != 2 || got[0][1] != s {
			t.Errorf("splitCommands of escapeArg(%.40q) = %.80q", s, got)
		}
	}
}

func TestCommandLineIsOneLineOfQuotedArguments(t *testing.T) {
	line, ok := commandLine([][]string{{"send-keys", "-t", "%1", "-l", "--", "a \"b\"\n#{x};$~\\é"}, {"list-panes"}})
	want := `"send-keys" "-t" "%1" "-l" "--" "a \042b\042\012\043\173x\175\073\044\176\134\303\251" ; "list-panes"`
	if !ok || line != want {
		t.Errorf("commandLine = %q, %v\nwant %q", line, ok, want)
	}
	// Whatever the bytes, the line has no line end, and every quote and
	// backslash in it is tmux syntax, not text.
	all := make([]byte, 0, 255)
	for b := 1; b < 256; b++ {
		all = append(all, byte(b))
	}
	line, ok = commandLine([][]string{{"display-message", string(all)}})
	if !ok || strings.ContainsAny(line, "\n\r'$~#;{}") || strings.Count(line, `"`) != 4 {
		t.Errorf("commandLine of every byte = %q, %v", line, ok)
	}
	for _, bs := range strings.Split(line, `\`)[1:] {
		if len(bs) < 3 || !isOctal(bs[0]) || bs[0] > '3' || !isOctal(bs[1]) || !isOctal(bs[2]) {
			t.Errorf("backslash not followed by an octal byte in %q", line)
			break
		}
	}
}

func TestCommandLineKeepsOtherCommandsOffTheControlPath(t *testing.T) {
	refused := [][][]string{
		{{"capture-pane", "-p", "-t", "%1"}},
		{{"capture-pane", "-t", "%1", "-Jp"}},
		{{"list-panes"}, {"capture-pane", "-p"}},
		{{"save-buffer", "-b", "x", "-"}},
		{{"save-buffer", "-b", "x"}},
		{{"save-buffer", "-b", "x", "relative/file"}},
		{{"show-buffer", "-b", "x"}},
		{{"if-shell", "true", "display-message x"}},
		{{"load-buffer", "-"}},
		{{"show-options", "-v", "@x"}},
		{{"kill-pane", "-t", "%1"}},
		{{"new-session", "-d"}},
		{{"send-keys", "-l", "nul\x00byte"}},
		nil,
	}
	for _, cmds := range refused {
		if line, ok := commandLine(cmds); ok {
			t.Errorf("commandLine(%q) = %q, want it refused", cmds, line)
		}
	}
	allowed := [][][]string{
		{{"capture-pane", "-t", "%1", "-S", "-10", "-E", "-1", "-J", "-b", "tmux-mcp-1"}, {"save-buffer", "-b", "tmux-mcp-1", "/tmp/x"}, {"delete-buffer", "-b", "tmux-mcp-1"}},
		{{"list-panes", "-t", "%1", "-F", "x"}, {"send-keys", "-t", "%1", "-l", "--", "-p"}},
	}
	for _, cmds := range allowed {
		if _, ok := commandLine(cmds); !ok {
			t.Errorf("commandLine(%q) refused, want a line", cmds)
		}
	}
}

// controlled returns a Terminal with a control client attached to the
// session of a shell pane, and the pane.
func controlled(t *testing.T, s *testServer) (*Terminal, ports.PaneID) {
	t.Helper()
	p := s.session("main", bashCmd)
	term := s.terminal(Options{})
	stream, err := term.OpenOutput(testContext(t), p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stream.Close() })
	return term, p
}

// noProcess runs f and fails the test if it ran a tmux process.
func noProcess(t *testing.T, term *Terminal, what string, f func()) {
	t.Helper()
	start := term.processes.Load()
	f()
	if n := term.processes.Load() - start; n != 0 {
		t.Errorf("%s ran %d tmux processes, want none: every command over the control client", what, n)
	}
}

func TestControlPathGivesTmuxTheSameArguments(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	term, p := controlled(t, s)
	ctx := testContext(t)
	show := func(option string) string {
		out, err := term.run(ctx, nil, "show-options", "-p", "-v", "-t", string(p), option)
		if err != nil {
			t.Fatalf("show-options %s: %v", option, err)
		}
		return out
	}
	for _, str := range nastyStrings {
		args := func(option string) []string {
			return []string{"set-option", "-p", "-t", string(p), option, escapeArg(str)}
		}
		if _, err := term.run(ctx, nil, args("@by-process")...); err != nil {
			t.Fatalf("set-option %.40q as a process: %v", str, err)
		}
		noProcess(t, term, fmt.Sprintf("set-option %.40q", str), func() {
			if _, err := term.command(ctx, route{pane: p}, args("@by-control")...); err != nil {
				t.Fatalf("set-option %.40q over the control client: %v", str, err)
			}
		})
		byProcess, byControl := show("@by-process"), show("@by-control")
		if byControl != byProcess || byProcess != str+"\n" {
			t.Errorf("option set to %.60q: by a process %.60q, over the control client %.60q", str, byProcess, byControl)
		}
	}
	// A format that prints the arguments back: the commands' output is
	// the same too.
	for _, str := range nastyStrings {
		if strings.IndexByte(str, '#') >= 0 {
			continue // a format of its own
		}
		args := []string{"display-message", "-p", "-t", string(p), escapeArg(str)}
		byProcess, err1 := term.run(ctx, nil, args...)
		var byControl string
		var err2 error
		noProcess(t, term, fmt.Sprintf("display-message %.40q", str), func() {
			byControl, err2 = term.command(ctx, route{pane: p}, args...)
		})
		if err1 != nil || err2 != nil || byControl != byProcess {
			t.Errorf("display-message %.40q: by a process %.60q (%v), over the control client %.60q (%v)", str, byProcess, err1, byControl, err2)
		}
	}
}

func TestControlPathTypesTheSameBytes(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	term := s.terminal(Options{})
	p, stream := rawPane(t, s, term, rawCat)
	ctx := testContext(t)
	// typed types str by both paths, each time followed by a mark typed
	// by a process, and returns what the pane read before each mark.
	n := 0
	typed := func(str string, viaControl bool) string {
		t.Helper()
		n++
		mark := fmt.Sprintf("<MARK%d>", n)
		from := stream.End()
		args := []string{"send-keys", "-t", string(p), "-l", "--", escapeArg(str)}
		var err error
		if viaControl {
			noProcess(t, term, fmt.Sprintf("send-keys %.40q", str), func() {
				_, err = term.command(ctx, route{pane: p, typing: true}, args...)
			})
		} else {
			_, err = term.run(ctx, nil, args...)
		}
		if err != nil {
			t.Fatalf("send-keys %.40q: %v", str, err)
		}
		if _, err := term.run(ctx, nil, "send-keys", "-t", string(p), "-l", mark); err != nil {
			t.Fatal(err)
		}
		data, _, _ := readUntil(t, stream, from, mark, contains(mark))
		return strings.TrimSuffix(string(data), mark)
	}
	for _, str := range nastyStrings {
		byProcess, byControl := typed(str, false), typed(str, true)
		if byControl != byProcess {
			t.Errorf("send-keys -l %.40q: the pane read %.60q from a process, %.60q over the control client", str, byProcess, byControl)
		}
		if utf8.ValidString(str) && byControl != catV(str) {
			t.Errorf("send-keys -l %.40q: the pane read %.60q, want %.60q", str, byControl, catV(str))
		}
	}
}

func TestControlPathErrorsAreTheSubprocessPaths(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	term, p := controlled(t, s)
	ctx := testContext(t)
	cases := []struct {
		args []string
		kind error
	}{
		{[]string{"list-panes", "-t", "%99", "-F", "x"}, ports.ErrPaneNotFound},
		{[]string{"send-keys", "-t", "%99", "x"}, ports.ErrPaneNotFound},
		{[]string{"list-panes", "-t", string(p), "-F", "x", ";", "send-keys", "-t", "%99", "x"}, ports.ErrPaneNotFound},
		{[]string{"list-panes", "-Z"}, nil},
		{[]string{"if-shell", "-F", "-t", string(p), "1", "set-option -p -t %99 @x 1"}, nil},
	}
	for _, c := range cases {
		out1, err1 := term.run(ctx, nil, c.args...)
		var out2 string
		var err2 error
		noProcess(t, term, fmt.Sprintf("%q", c.args), func() { out2, err2 = term.command(ctx, route{pane: p}, c.args...) })
		var ce1, ce2 *CommandError
		if !errors.As(err1, &ce1) || !errors.As(err2, &ce2) {
			t.Errorf("%q: errors %v and %v, want a *CommandError from both paths", c.args, err1, err2)
			continue
		}
		if ce2.Command != ce1.Command || !strings.HasSuffix(ce2.Message, ce1.Message) || out1 != "" || out2 != "" {
			t.Errorf("%q: over the control client %q (%q), as a process %q (%q)", c.args, err2, out2, err1, out1)
		}
		if c.kind != nil && (!errors.Is(err1, c.kind) || !errors.Is(err2, c.kind)) {
			t.Errorf("%q: errors %v and %v, want both to wrap %v", c.args, err1, err2, c.kind)
		}
	}

	// The Terminal's methods map them as they always did.
	noProcess(t, term, "the Terminal's calls on an unknown pane", func() { unknownPaneCalls(t, term) })
}

func unknownPaneCalls(t *testing.T, term *Terminal) {
	ctx := testContext(t)
	if _, err := term.Pane(ctx, "%99"); !errors.Is(err, ports.ErrPaneNotFound) {
		t.Errorf("Pane(%%99): %v, want ErrPaneNotFound", err)
	}
	if err := term.SendText(ctx, "%99", "x\n"); !errors.Is(err, ports.ErrPaneNotFound) {
		t.Errorf("SendText(%%99): %v, want ErrPaneNotFound", err)
	}
	if err := term.SendKeys(ctx, "%99", []string{"Enter"}); !errors.Is(err, ports.ErrPaneNotFound) {
		t.Errorf("SendKeys(%%99): %v, want ErrPaneNotFound", err)
	}
	if _, _, err := term.TryAcquire(ctx, "%99", "me", time.Minute); !errors.Is(err, ports.ErrPaneNotFound) {
		t.Errorf("TryAcquire(%%99): %v, want ErrPaneNotFound", err)
	}
	if err := term.Release(ctx, "%99", "me"); err != nil {
		t.Errorf("Release(%%99): %v, want nil", err)
	}
}

// What a pane's program prints can hold lines that look like the end of a
// reply ("%end <time> <number> 1") followed by lines that look like tmux's
// own, down to the marker that ends a reply to a command line. A capture's
// reply ends only at a marker nobody else knows (see controlParser), and
// the fields of the adapter's formats that a program controls (a working
// directory here) are cleaned of line ends, so neither can cut a reply
// short.
func TestRepliesCannotBeForgedByWhatPanesPrint(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	s.session("keep", []string{"sleep", "600"})
	s.tmux("set-option", "-g", "history-limit", "50000")
	other := s.session("main", bashCmd)
	// Every reply guard of the next seconds: a fresh server numbers its
	// commands from a few hundred on.
	now := time.Now().Unix()
	var forged strings.Builder
	for sec := now; sec <= now+3; sec++ {
		for n := range 2000 {
			fmt.Fprintf(&forged, "%%end %d %d 1\n%%output %s injected\\012\n%%begin %d %d 1\ntmux-mcp-done %d\n%%end %d %d 1\n%%begin %d %d 1\n",
				sec, n, other, sec, n+1, n%50, sec, n+1, sec, n+2)
		}
	}
	script := filepath.Join(t.TempDir(), "forged")
	if err := os.WriteFile(script, []byte(forged.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "a\n%end 1 2 1\n%output %0 injected")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := ports.PaneID(strings.TrimSpace(s.tmux("split-window", "-d", "-t", string(other), "-c", dir,
		"-P", "-F", "#{pane_id}", "sh", "-c", "cat "+script+"; echo END; exec sleep 600")))
	term := s.terminal(Options{})
	ctx := testContext(t)
	stream, err := term.OpenOutput(ctx, other)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	s.waitScreen(p, "the forged lines printed", func(screen string) bool { return strings.Contains(screen, "END") })

	r := ports.CaptureRange{Start: -30000, End: 23}
	var rows []string
	noProcess(t, term, "Capture", func() { rows, err = term.Capture(ctx, p, r) })
	out, perr := term.run(ctx, nil, "capture-pane", "-p", "-t", string(p), "-S", "-30000", "-E", "23")
	if err != nil || perr != nil || !slices.Equal(rows, splitRows(out)) || len(rows) < 24000 {
		t.Errorf("Capture = %d rows, %v; capture-pane -p as a process: %d rows, %v; want the same rows, the forged lines as text",
			len(rows), err, len(splitRows(out)), perr)
	}
	noProcess(t, term, "ListPanes and Pane", func() {
		panes, err := term.ListPanes(ctx, ports.PaneFilter{Pane: p})
		if err != nil || len(panes) != 1 || !strings.HasSuffix(panes[0].Path, "a?%end 1 2 1?%output %0 injected") {
			t.Errorf("ListPanes = %+v, %v; want the path with its line ends cleaned", panes, err)
		}
		if _, err := term.Pane(ctx, p); err != nil {
			t.Errorf("Pane after the forged lines: %v", err)
		}
	})
	if c := stream.ReadFrom(0); bytes.Contains(c.Data, []byte("injected")) {
		t.Errorf("the stream of %s holds output that %s printed: %q", other, p, c.Data)
	}
	if out := s.tmux("list-buffers"); out != "" {
		t.Errorf("buffers left after Capture: %q", out)
	}
}

func TestCommandsStartOneClientAndLetItGoWhenIdle(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	p := s.session("main", bashCmd)
	q := s.split(p, bashCmd)
	term := s.terminal(Options{IdleTimeout: time.Second})
	ctx := testContext(t)
	if _, err := term.Pane(ctx, p); err != nil {
		t.Fatal(err)
	}
	if n := s.controlClients(); n != 1 {
		t.Fatalf("%d control clients after Pane, want 1 for commands", n)
	}
	start := term.processes.Load()
	for _, id := range []ports.PaneID{p, q, p} {
		if _, err := term.Pane(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	if err := term.SendText(ctx, q, "echo hi\n"); err != nil {
		t.Fatal(err)
	}
	if n := term.processes.Load() - start; n != 0 {
		t.Errorf("later calls ran %d tmux processes, want none", n)
	}
	if n := s.controlClients(); n != 1 {
		t.Errorf("%d control clients, want the one", n)
	}
	eventually(t, 5*time.Second, "the idle control client to stop", func() bool { return s.controlClients() == 0 })
	if _, err := term.Pane(ctx, p); err != nil {
		t.Fatalf("Pane after the client stopped: %v", err)
	}
}

// A command whose control client goes away before tmux answers is run
// again as a process, unless it types: tmux may have run it already.
func TestCommandsOutliveTheirControlClient(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	p := s.session("main", bashCmd)
	term := s.terminal(Options{})
	ctx := testContext(t)
	for round := range 3 {
		if err := term.SendKeys(ctx, p, []string{"Space"}); err != nil {
			t.Fatalf("round %d: SendKeys: %v", round, err)
		}
		term.mu.Lock()
		detached := slices.Collect(maps.Values(term.clients))
		term.mu.Unlock()
		for _, name := range strings.Fields(s.tmux("list-clients", "-F", "#{client_name}")) {
			s.tmuxErr("detach-client", "-t", name)
		}
		if _, err := term.Pane(ctx, p); err != nil {
			t.Fatalf("round %d: Pane just after its control client was detached: %v", round, err)
		}
		// Typing waits until the Terminal has seen the client leave.
		eventually(t, 5*time.Second, "the Terminal to see its client leave", func() bool {
			term.mu.Lock()
			defer term.mu.Unlock()
			return !slices.ContainsFunc(detached, func(c *controlClient) bool { return term.clients[c.session] == c })
		})
	}
}

func TestUTF8FlagOnlyOutsideAUTF8Locale(t *testing.T) {
	cases := []struct {
		env  []string
		want bool
	}{
		{nil, true},
		{[]string{"LANG=C"}, true},
		{[]string{"LANG=en_US.UTF-8"}, false},
		{[]string{"LANG=C.utf8"}, false},
		{[]string{"LANG=en_US.UTF-8", "LC_ALL=C"}, true},
		{[]string{"LANG=C", "LC_CTYPE=C.UTF-8"}, false},
		{[]string{"LC_ALL=", "LC_CTYPE=", "LANG=C.UTF-8"}, false},
		{[]string{"LANG=C", "LANG=C.UTF-8"}, false}, // the last wins, as for exec
	}
	for _, c := range cases {
		if got := utf8Flag(c.env) != nil; got != c.want {
			t.Errorf("utf8Flag(%q) gives -u: %v, want %v", c.env, got, c.want)
		}
	}
}

// Outside a UTF-8 locale tmux would print "_" for every byte of a client's
// output outside printable ASCII, the adapter's field separator included.
func TestTheAdapterWorksOutsideAUTF8Locale(t *testing.T) {
	t.Setenv("LC_ALL", "C")
	t.Setenv("LANG", "C")
	s := newTestServer(t)
	p := s.session("main", []string{"sh", "-c", "printf 'caf\\303\\251 \\346\\227\\245\\n'; exec sleep 600"})
	term := s.terminal(Options{})
	ctx := testContext(t)
	s.waitScreen(p, "the text", func(screen string) bool { return strings.Contains(screen, "caf") })
	out, err := term.run(ctx, nil, paneArgs(p)...)
	if info, perr := parsePaneInfo(p, out, selfPane{}); err != nil || perr != nil || info.Width != 80 {
		t.Errorf("Pane's commands as a process: %+v, %v, %v", info, err, perr)
	}
	if info, err := term.Pane(ctx, p); err != nil || info.Width != 80 {
		t.Errorf("Pane = %+v, %v", info, err)
	}
	if rows, err := term.Capture(ctx, p, ports.CaptureRange{Start: 0, End: 0}); err != nil || len(rows) != 1 || rows[0] != "café 日" {
		t.Errorf("Capture = %q, %v; want %q", rows, err, "café 日")
	}
}

// A tmux server that is stopped (SIGSTOP) answers nothing: every command
// fails within CommandTimeout with ErrUnavailable, over a control client
// and as a process, a capture does not then try again as a process, and
// once the server goes on, so do the commands.
func TestCommandsToAServerThatDoesNotAnswerEndAtTheirTimeout(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	p := s.session("main", bashCmd)
	const timeout = 300 * time.Millisecond
	term := s.terminal(Options{CommandTimeout: timeout})
	fresh := s.terminal(Options{CommandTimeout: timeout}) // no control client yet
	ctx := testContext(t)
	if _, err := term.Pane(ctx, p); err != nil { // attaches a control client
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(s.tmux("display-message", "-p", "#{pid}")))
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	stopped := true
	defer func() {
		if stopped {
			syscall.Kill(pid, syscall.SIGCONT)
		}
	}()
	for _, c := range []struct {
		name  string
		call  func() error
		limit time.Duration
	}{
		{"Pane over the control client", func() error { _, err := term.Pane(ctx, p); return err }, 4 * timeout},
		{"CaptureScreen over the control client", func() error { _, _, err := term.CaptureScreen(ctx, p, false); return err }, 4 * timeout},
		// One timeout, of the process that finds the pane's session to
		// attach a client to (and the second a killed process is given
		// to close its output); not a second one trying a process.
		{"Pane on a Terminal without a client", func() error { _, err := fresh.Pane(ctx, p); return err }, 4*timeout + time.Second},
		{"CaptureScreen on a Terminal without a client", func() error { _, _, err := fresh.CaptureScreen(ctx, p, false); return err }, 4*timeout + time.Second},
	} {
		start := time.Now()
		err := c.call()
		if took := time.Since(start); !errors.Is(err, ports.ErrNoAnswer) || !errors.Is(err, ports.ErrUnavailable) || took > c.limit ||
			!strings.Contains(err.Error(), "may still run it") {
			t.Errorf("%s on a stopped server: %v after %v; want ErrNoAnswer within %v, saying tmux may still run it", c.name, err, took, c.limit)
		}
	}
	syscall.Kill(pid, syscall.SIGCONT)
	stopped = false
	eventually(t, 10*time.Second, "commands to work again", func() bool {
		_, err1 := term.Pane(ctx, p)
		_, _, err2 := term.CaptureScreen(ctx, p, false)
		_, err3 := fresh.Pane(ctx, p)
		return err1 == nil && err2 == nil && err3 == nil
	})
}
