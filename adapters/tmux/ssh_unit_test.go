package tmux

import (
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/ports"
	"github.com/tmux-mcp/tmux-mcp/test/gate"
)

// Pure parts of the ssh transport: quoting for the remote shell, the ssh
// command lines, and what ssh's and the remote shell's failures become.
// No process runs here, except in TestShellQuoteSurvivesRealShells.

// posixWords reads line as a POSIX shell reads the words of a simple
// command made only of quoted text: single quotes keep every byte up to
// the next single quote, a backslash outside quotes keeps the next byte,
// and unquoted blanks separate words. Anything else a shell would expand
// ($, `, globs, ; and the like outside quotes) is reported as an error, so
// that a quoting that leaves such a byte exposed cannot pass.
func posixWords(line string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case c == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("unterminated single quote")
			}
			cur.WriteString(line[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '\\':
			if i+1 == len(line) {
				return nil, errors.New("backslash at the end")
			}
			cur.WriteByte(line[i+1])
			i++
			inWord = true
		case c == ' ':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case 'a' <= c && c <= 'z':
			cur.WriteByte(c)
			inWord = true
		default:
			return nil, errors.New("unquoted " + string(c))
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// Strings that a shell would read otherwise if any of them were exposed.
var quotingCases = []string{
	"", "tmux", "it's", "''", "'", `\`, `a\b\\c\'d`, "x\ny", "\t", "$HOME", "$(id)", "`id`",
	"a;b", "a|b", "a&b", "*", "?", "[a]", "~", "#c", "!x", "-L", "%1", "#{pane_id}", "\"q\"",
	"ünï", "\xff\xfe", "semi\\;", "\x1b[31m", "two  spaces",
}

func TestShellQuoteIsReadBackAsGiven(t *testing.T) {
	for _, s := range quotingCases {
		words, err := posixWords(shellQuote(s))
		if err != nil || len(words) != 1 || words[0] != s {
			t.Errorf("shellQuote(%q) = %s, read back as %q (%v)", s, shellQuote(s), words, err)
		}
	}
	if got := shellQuote("it's"); got != `'it'\''s'` {
		t.Errorf("shellQuote(it's) = %s, want 'it'\\''s'", got)
	}
}

func FuzzShellQuote(f *testing.F) {
	for _, s := range quotingCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		words, err := posixWords(shellQuote(s))
		if err != nil || len(words) != 1 || words[0] != s {
			t.Errorf("shellQuote(%q) = %s, read back as %q (%v)", s, shellQuote(s), words, err)
		}
	})
}

func TestRemoteCommandExecsArgvQuoted(t *testing.T) {
	argv := []string{"tmux", "-L", "my sock", "display-message", "-p", "it's #{pane_id}; $(x)"}
	line, err := remoteCommand(argv)
	if err != nil {
		t.Fatal(err)
	}
	words, err := posixWords(line)
	if err != nil || !slices.Equal(words, append([]string{"exec"}, argv...)) {
		t.Errorf("remoteCommand(%q) = %s, read back as %q (%v)", argv, line, words, err)
	}
	if _, err := remoteCommand([]string{"tmux", "a\x00b"}); err == nil {
		t.Error("remoteCommand with a NUL byte succeeded")
	}
}

func TestCheckDestination(t *testing.T) {
	for _, ok := range []string{"host", "user@host", "build-box.example.com", "ssh://me@host:2222", "10.0.0.1", "[::1]"} {
		if err := checkDestination(ok); err != nil {
			t.Errorf("checkDestination(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", "-oProxyCommand=x", "-F", "host name", "host\n", "tab\there", "a\x00b"} {
		if err := checkDestination(bad); err == nil {
			t.Errorf("checkDestination(%q) accepted it", bad)
		}
	}
}

// option returns the value of ssh's "-o NAME=value" in args.
func option(args []string, name string) (string, bool) {
	for i := 0; i+1 < len(args); i++ {
		if args[i] == "-o" {
			if v, ok := strings.CutPrefix(args[i+1], name+"="); ok {
				return v, true
			}
		}
	}
	return "", false
}

func TestSSHCommandLines(t *testing.T) {
	s := &sshLink{dest: "me@box", config: "/etc/tmcp/ssh config", ctl: "/tmp/d%x/ctl"}
	line := "exec 'tmux' '-V'"
	for name, args := range map[string][]string{"master": s.masterArgs(), "client": s.clientArgs(line)} {
		// Options win over the configuration: ssh keeps the first value.
		for opt, want := range map[string]string{
			"BatchMode": "yes", "ConnectTimeout": "10", "ServerAliveInterval": "15", "ServerAliveCountMax": "3",
			"ClearAllForwardings": "yes", "ForwardAgent": "no", "ForwardX11": "no", "PermitLocalCommand": "no",
		} {
			if got, ok := option(args, opt); !ok || got != want {
				t.Errorf("%s: -o %s=%q (%v), want %q", name, opt, got, ok, want)
			}
		}
		if i := slices.Index(args, "-F"); i < 0 || args[i+1] != s.config {
			t.Errorf("%s: %q has no -F %s", name, args, s.config)
		}
		// ssh expands % in the control path.
		if i := slices.Index(args, "-S"); i < 0 || args[i+1] != "/tmp/d%%x/ctl" {
			t.Errorf("%s: %q: want -S with %% doubled", name, args)
		}
		// Nothing after "--" is read as an option: the destination, then
		// (for a client) the command line as one argument.
		dash := slices.Index(args, "--")
		if dash < 0 || args[dash+1] != s.dest {
			t.Errorf("%s: %q: want -- before the destination", name, args)
		}
	}
	master := s.masterArgs()
	if v, _ := option(master, "ControlMaster"); v != "yes" || !slices.Contains(master, "-N") {
		t.Errorf("master %q: want ControlMaster=yes and -N", master)
	}
	if v, ok := option(master, "ControlPersist"); !ok || v != "600" {
		t.Errorf("master %q: want ControlPersist=600", master)
	}
	if master[len(master)-1] != s.dest {
		t.Errorf("master %q runs a command", master)
	}
	client := s.clientArgs(line)
	if v, _ := option(client, "ControlMaster"); v != "no" {
		t.Errorf("client %q: want ControlMaster=no", client)
	}
	if i := slices.Index(client, "-e"); i < 0 || client[i+1] != "none" || !slices.Contains(client, "-T") {
		t.Errorf("client %q: want -T and -e none", client)
	}
	if client[len(client)-1] != line || client[len(client)-2] != s.dest {
		t.Errorf("client %q: want the destination and then the line as one argument", client)
	}
	if args := (&sshLink{dest: "h", ctl: "/c"}).clientArgs(line); slices.Contains(args, "-F") {
		t.Errorf("without a configuration file: %q has -F", args)
	}
}

func TestSSHErrorsSayWhatToDo(t *testing.T) {
	for msg, want := range map[string]string{
		"Host key verification failed.": "host key",
		"No ED25519 host key is known for [127.0.0.1]:2222 and you have requested strict checking.": "host key",
		"@@@@ WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED! @@@@":                                "host key",
		"root@127.0.0.1: Permission denied (publickey).":                                            "cannot log in",
		"ssh: Could not resolve hostname nowhere: Name or service not known":                        "cannot be reached",
		"ssh: connect to host 127.0.0.1 port 9: Connection refused":                                 "cannot be reached",
		"ssh: connect to host 10.1.1.1 port 22: Connection timed out":                               "cannot be reached",
		"channel 2: open failed: administratively prohibited: open failed":                          "MaxSessions",
		"mux_client_read_packet: read header failed: Broken pipe":                                   "connects again",
		"Connection to box closed by remote host.":                                                  "connects again",
	} {
		err := error(&SSHError{Destination: "box", Message: msg})
		if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), msg) {
			t.Errorf("SSHError for %q = %q; want it to say %q", msg, err, want)
		}
		if !errors.Is(err, ports.ErrUnavailable) || !isLinkError(err) {
			t.Errorf("SSHError for %q does not wrap ErrUnavailable", msg)
		}
	}
	if got := (&SSHError{Destination: "box", Message: "something new"}).Error(); got != "ssh box: something new" {
		t.Errorf("an unknown message = %q, want it as it is", got)
	}
}

func TestCheckProbe(t *testing.T) {
	n := len(shellProbe)
	ok := []string{
		"ok " + strconv.Itoa(n) + "\n",
		"Welcome, friend\nok " + strconv.Itoa(n) + "\n", // a chatty start-up file
	}
	for _, out := range ok {
		if err := checkProbe(out); err != nil {
			t.Errorf("checkProbe(%q) = %v", out, err)
		}
	}
	bad := []string{
		"",
		"ok " + strconv.Itoa(n-1) + "\n", // fish: "\\" read as "\"
		"fish: Unsupported use of '='. In fish, please use 'set tmux_mcp_probe ...'.\n",
		"Unmatched '''.\n", // csh
	}
	for _, out := range bad {
		if err := checkProbe(out); err == nil || !strings.Contains(err.Error(), "POSIX") {
			t.Errorf("checkProbe(%q) = %v, want a refusal naming POSIX shells", out, err)
		}
	}
}

func TestLauncherFailures(t *testing.T) {
	local := launcher{bin: "/usr/bin/tmux"}
	if err := local.failed("list-panes", 255, "x"); err != nil {
		t.Errorf("locally, exit 255 = %v, want tmux's own failure (nil)", err)
	}
	remote := launcher{bin: "tmux", ssh: &sshLink{dest: "box"}}
	if err := remote.failed("list-panes", 1, "no server running on /tmp/tmux-0/default"); err != nil {
		t.Errorf("over ssh, exit 1 = %v, want tmux's own failure (nil)", err)
	}
	var se *SSHError
	if err := remote.failed("list-panes", 255, "Connection closed by 10.0.0.1 port 22\n"); !errors.As(err, &se) || se.Message != "Connection closed by 10.0.0.1 port 22" {
		t.Errorf("over ssh, exit 255 = %v, want an *SSHError with ssh's message", err)
	}
	for _, code := range []int{126, 127} {
		err := remote.failed("-V", code, "bash: line 1: exec: tmux: not found\n")
		if !errors.Is(err, ports.ErrUnavailable) || !strings.Contains(err.Error(), "-tmux-bin") || !strings.Contains(err.Error(), "not found") {
			t.Errorf("over ssh, exit %d = %v, want ErrUnavailable saying tmux is missing there", code, err)
		}
	}

	noServer := &CommandError{Command: "list-panes", Message: "no server running on /tmp/tmux-0/default", kind: ports.ErrUnavailable}
	if err := local.explain(noServer); err != error(noServer) {
		t.Errorf("locally, explain = %v, want the error as it is", err)
	}
	err := remote.explain(noServer)
	if !errors.Is(err, ports.ErrUnavailable) || !errors.As(err, new(*CommandError)) || !strings.Contains(err.Error(), "create_session") || !strings.Contains(err.Error(), "box") {
		t.Errorf("over ssh, explain(no server) = %v, want how to start one on box", err)
	}
	other := &CommandError{Command: "list-panes", Message: "can't find pane: %9"}
	if err := remote.explain(other); err != error(other) {
		t.Errorf("explain(%v) = %v, want it as it is", other, err)
	}
	if isLinkError(noServer) {
		t.Error("a tmux error taken for a lost connection")
	}
}

// The quoting holds in the shells that sshd may run the commands with:
// each reads a quoted word back byte for byte. This test runs the shells.
func TestShellQuoteSurvivesRealShells(t *testing.T) {
	gate.Real(t, "shells")
	for _, sh := range []string{"sh", "dash", "bash", "zsh", "mksh", "ksh"} {
		t.Run(sh, func(t *testing.T) {
			path := gate.Need(t, sh)
			for _, s := range quotingCases {
				// printf is not built into mksh; /usr/bin/printf is here.
				script := "x=" + shellQuote(s) + "; printf %s \"$x\""
				cmd := exec.Command(path, "-c", script)
				cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=/nonexistent", "LC_ALL=C"}
				out, err := cmd.Output()
				if err != nil || string(out) != s {
					t.Errorf("%s read shellQuote(%q) as %q (%v)", sh, s, out, err)
				}
			}
		})
	}
}

// A master counts as gone only when its socket is missing or refuses
// connections; one that listens is kept. No process: the "master" is a
// listener of this test.
func TestMasterGone(t *testing.T) {
	dir := t.TempDir()
	s := &sshLink{ctl: filepath.Join(dir, "ctl")}
	if !s.gone() {
		t.Error("gone() = false without a socket")
	}
	l, err := net.Listen("unix", s.ctl)
	if err != nil {
		t.Fatal(err)
	}
	if s.gone() {
		t.Error("gone() = true while a listener serves the socket")
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	l.Close()
	if _, err := os.Stat(s.ctl); err != nil {
		t.Fatalf("the socket file should be left behind, as a killed master leaves it: %v", err)
	}
	if !s.gone() {
		t.Error("gone() = false for a socket nobody listens on")
	}
}

// A failed connect is not retried for sshRetryAfter: calls meanwhile fail
// at once with its error. The ssh binary does not exist, so no process
// starts.
func TestEnsureWaitsBeforeConnectingAgain(t *testing.T) {
	s := &sshLink{bin: filepath.Join(t.TempDir(), "no-ssh"), dest: "box", dir: t.TempDir()}
	s.ctl = filepath.Join(s.dir, "ctl")
	ctx := t.Context()
	first := s.ensure(ctx)
	var se *SSHError
	if !errors.As(first, &se) {
		t.Fatalf("ensure with no ssh = %v, want an *SSHError", first)
	}
	if err := s.ensure(ctx); err != first || s.connects.Load() != 1 {
		t.Errorf("ensure right after a failure = %v after %d connects; want the same error, one connect", err, s.connects.Load())
	}
	s.failedAt = s.failedAt.Add(-sshRetryAfter)
	if s.ensure(ctx); s.connects.Load() != 2 {
		t.Errorf("%d connects once sshRetryAfter has passed, want 2", s.connects.Load())
	}
	s.close()
	if err := s.ensure(ctx); !errors.Is(err, ErrTerminalClosed) {
		t.Errorf("ensure after close = %v, want ErrTerminalClosed", err)
	}
}
