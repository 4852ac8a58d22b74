package test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/adapters/tmux"
	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/ports"
	"github.com/tmux-mcp/tmux-mcp/test/tmuxtest"
)

// The shell integration of the panes the server makes (-shell-integration,
// tmux.Options.ShellIntegration): in real tmux, with real bash, zsh and
// fish whose start-up files set a prompt, a prompt hook and a history
// file of their own, the panes create_session, create_window,
// split_window and the private session make mark their prompts (OSC 133)
// and keep all of that; a pane the server did not make, and every pane
// with the setting off, gets no mark; run_shell_command is exact in the
// marked panes.

// The marks.
const (
	markA = "\x1b]133;A\x07"
	markB = "\x1b]133;B\x07"
	markC = "\x1b]133;C\x07"
	mark  = "\x1b]133;"
)

// A marksShell is a shell with start-up files of a user's that set a
// prompt ("u", the last status, "$ "), a hook that prints "pcSTATUS|"
// before each prompt, and a history file.
type marksShell struct {
	sh shellSpec
	// files are the user's start-up files, by their path under the home.
	files map[string]string
	// zdotdir, when set, is the ZDOTDIR (under the home) the server's
	// environment gives the shell, where its files are.
	zdotdir string
	// status is how the shell says the last status on a typed line.
	status string
	// flush is a line that makes the shell write its history file now,
	// or "".
	flush string
	// history is the history file, under the home, and histLines reads
	// the lines it holds.
	history   string
	histLines func([]byte) []string
}

func marksShells() []marksShell {
	plain := func(b []byte) []string { return strings.Split(strings.TrimRight(string(b), "\n"), "\n") }
	return []marksShell{
		{
			sh: shellSpec{name: "bash", argv: []string{"bash", "--norc", "--noprofile"}, env: []string{"PS1=$ "}},
			files: map[string]string{".bash_profile": `PS1='u$?$ '
PROMPT_COMMAND='printf "pc%s|" "$?"'
HISTFILE=$HOME/bash-history
`},
			status: `$?`, flush: "history -a", history: "bash-history", histLines: plain,
		},
		{
			sh:      shellSpec{name: "zsh", argv: []string{"zsh", "-f"}, env: []string{"PS1=$ "}},
			zdotdir: "zdot",
			files: map[string]string{"zdot/.zshrc": `PS1='u%?$ '
user_precmd() { printf 'pc%s|' $? }
precmd_functions+=(user_precmd)
HISTFILE=$ZDOTDIR/zsh-history SAVEHIST=100 HISTSIZE=100
setopt inc_append_history
`},
			status: `$?`, history: "zdot/zsh-history", histLines: plain,
		},
		{
			sh: shells[3],
			files: map[string]string{"fish/config.fish": `set -g fish_greeting
function fish_prompt; printf 'u%s$ ' $status; end
function user_post --on-event fish_postexec; printf 'pc%s|' $status; end
`},
			status: `$status`, history: "fish/fish_history",
			histLines: func(b []byte) []string {
				var cmds []string
				for _, l := range strings.Split(string(b), "\n") {
					if c, ok := strings.CutPrefix(l, "- cmd: "); ok {
						cmds = append(cmds, c)
					}
				}
				return cmds
			},
		},
	}
}

// withSnippet is m with the marks (tmux-mcp shell-integration SHELL)
// added as the documentation says to add them to a shell's start-up file
// on another host: at the end of the file for bash and zsh, a file of
// their own in conf.d for fish (which reads it before config.fish).
func (m marksShell) withSnippet(t *testing.T) marksShell {
	t.Helper()
	text, ok := tmux.ShellIntegration(m.sh.name)
	if !ok {
		t.Fatalf("no snippet for %s", m.sh.name)
	}
	files := map[string]string{}
	for name, f := range m.files {
		if m.sh.name != "fish" {
			f += string(text)
		}
		files[name] = f
	}
	if m.sh.name == "fish" {
		files["fish/conf.d/tmux-mcp.fish"] = string(text)
	}
	m.files = files
	return m
}

// setUp writes the user's files under home.
func (m marksShell) setUp(t *testing.T, home string) {
	t.Helper()
	for name, text := range m.files {
		path := filepath.Join(home, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// path is the shell's absolute path.
func (m marksShell) path(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath(m.sh.name)
	if err != nil {
		t.Fatalf("%s: %v", m.sh.name, err)
	}
	p, err = filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// lines are what the test types into a pane: a command that prints "hi"
// and ends with status 3, one that prints the status the shell then has,
// and the history flush, each with a comment that tells them from the
// lines typed into another pane (fish keeps one of lines typed twice).
func (m marksShell) lines(tag string) []string {
	l := []string{`echo hi; sh -c 'exit 3'`, `echo "st=` + m.status + `"`}
	if m.flush != "" {
		l = append(l, m.flush)
	}
	for i := range l {
		l[i] += " # " + tag
	}
	return l
}

// marksServer starts a private tmux server whose default shell is m's,
// with m's files in the shells' home, and returns it. Its session "s"
// is a person's pane: a plain shell the server under test did not make.
func marksServer(t *testing.T, m marksShell) *tmuxServer {
	t.Helper()
	srv, _ := newTmuxServer(t, m.sh)
	m.setUp(t, srv.home)
	srv.tmux(t, "set-option", "-g", "default-shell", m.path(t))
	if m.zdotdir != "" {
		srv.tmux(t, "set-environment", "-g", "ZDOTDIR", filepath.Join(srv.home, m.zdotdir))
	}
	return srv
}

// makers are the ways the Terminal makes a pane, each returning it.
var makers = []struct {
	name string
	make func(ctx context.Context, term *tmux.Terminal) (ports.Created, error)
}{
	{"create_window", func(ctx context.Context, term *tmux.Terminal) (ports.Created, error) {
		return term.CreateWindow(ctx, "s", "")
	}},
	{"split_window", func(ctx context.Context, term *tmux.Terminal) (ports.Created, error) {
		panes, err := term.ListPanes(ctx, ports.PaneFilter{Session: "s"})
		if err != nil {
			return ports.Created{}, err
		}
		return term.SplitWindow(ctx, panes[0].ID, true, 0)
	}},
	{"create_session", func(ctx context.Context, term *tmux.Terminal) (ports.Created, error) {
		return term.CreateSession(ctx, ports.SessionSpec{Width: 120, Height: 40})
	}},
}

// typeLines types each line into p and waits, after each, for the pane's
// output stream to show the prompt that follows it ("$ ", and with marks
// the B after it); it returns what the stream held.
func typeLines(t *testing.T, srv *tmuxServer, term *tmux.Terminal, p ports.PaneID, lines []string, marked bool) string {
	t.Helper()
	ctx := itContext(t)
	s, err := term.OpenOutput(ctx, p)
	if err != nil {
		t.Fatalf("OpenOutput: %v", err)
	}
	defer s.Close()
	var data []byte
	offset := s.ReadFrom(0).Offset
	for i, line := range lines {
		srv.tmux(t, "send-keys", "-t", string(p), "-l", line)
		srv.tmux(t, "send-keys", "-t", string(p), "Enter")
		deadline := time.After(20 * time.Second)
		for {
			c := s.ReadFrom(offset)
			data = append(data, c.Data...)
			offset = c.Offset + int64(len(c.Data))
			if bytes.Count(data, []byte("$ ")) >= i+1 && (!marked || bytes.Count(data, []byte(markB)) >= i+1) {
				break
			}
			if c.Ended != nil {
				t.Fatalf("the stream of %s ended after %q: %v; read %q", p, line, c.Ended, data)
			}
			select {
			case <-s.Changed():
			case <-deadline:
				t.Fatalf("no prompt in the stream of %s after %q; read %q\nscreen:\n%s", p, line, data, srv.screen(t, p))
			}
		}
	}
	return string(data)
}

// inOrder reports whether each of parts occurs in s, each after the one
// before.
func inOrder(s string, parts ...string) bool {
	for _, p := range parts {
		i := strings.Index(s, p)
		if i < 0 {
			return false
		}
		s = s[i+len(p):]
	}
	return true
}

func TestTmuxShellIntegrationMarksThePanesTheServerMakes(t *testing.T) {
	needTmux(t)
	var cases []marksShell
	var names []string
	for _, m := range marksShells() {
		// The user's files may hold the marks too (as on a host the
		// shell is reached on): the shell marks once all the same.
		cases = append(cases, m, m.withSnippet(t))
		names = append(names, m.sh.name, m.sh.name+" with the snippet in its files")
	}
	for i, m := range cases {
		t.Run(names[i], func(t *testing.T) {
			t.Parallel()
			srv := marksServer(t, m)
			term := srv.terminal(t, tmux.Options{ShellIntegration: true, ShellIntegrationDir: t.TempDir()})
			for _, mk := range makers {
				t.Run(mk.name, func(t *testing.T) {
					c, err := mk.make(itContext(t), term)
					if err != nil {
						t.Fatalf("%s: %v", mk.name, err)
					}
					srv.waitPrompt(t, c.Pane)
					checkMarked(t, srv, term, m, c.Pane, true)
				})
			}
		})
	}
}

// checkMarked types m's lines into p, a pane with the integration, and
// checks the marks and what the user's files set. In a zsh pane the
// server made (ours), a line typed with a space first stays out of the
// history (HIST_IGNORE_SPACE).
func checkMarked(t *testing.T, srv *tmuxServer, term *tmux.Terminal, m marksShell, p ports.PaneID, ours bool) {
	t.Helper()
	lines := m.lines(strings.ReplaceAll(string(p), "%", "p"))
	typed := lines
	if ours && m.sh.name == "zsh" {
		typed = append([]string{" echo hidden"}, lines...)
	}
	out := typeLines(t, srv, term, p, typed, true)
	if len(typed) > len(lines) {
		out = out[strings.Index(out, "hidden\r\n")+len("hidden\r\n"):]
	}
	// The command's output between C and D;3, the user's hook seeing
	// 3, then the user's prompt, showing 3, between A and B.
	if !inOrder(out, markC, "hi", "\x1b]133;D;3\x07", markA, "u3$ ", markB) {
		t.Errorf("the marks around %q and its prompt are not all there, in order:\n%q", lines[0], out)
	}
	if !strings.Contains(out, "pc3|") {
		t.Errorf("the user's prompt hook did not see the status 3:\n%q", out)
	}
	if !inOrder(out, "\x1b]133;D;3\x07", markC, "st=3") {
		t.Errorf("the status the user sees after the prompt is not 3:\n%q", out)
	}
	if n := strings.Count(out, markC); n != len(lines) {
		t.Errorf("%d C marks for %d lines typed (sourced twice?):\n%q", n, len(lines), out)
	}
	// The history ends with the lines typed, and nothing between them.
	var got []string
	if !tmuxtest.Poll(10*time.Second, func() bool {
		b, _ := os.ReadFile(filepath.Join(srv.home, m.history))
		all := m.histLines(b)
		got = all[max(0, len(all)-len(lines)):]
		return slices.Equal(got, lines) && !bytes.Contains(b, []byte("hidden"))
	}) {
		t.Errorf("the history ends with %q; want the lines typed, %q, and no line typed with a space first", got, lines)
	}
}

// TestTmuxShellIntegrationSnippetMarksAShellOfItsOwn starts, as a person
// would, a shell whose start-up files end with the snippet that
// `tmux-mcp shell-integration` prints (what a far shell has): it marks
// its prompt as the panes the server makes do.
func TestTmuxShellIntegrationSnippetMarksAShellOfItsOwn(t *testing.T) {
	needTmux(t)
	for _, m := range marksShells() {
		t.Run(m.sh.name, func(t *testing.T) {
			t.Parallel()
			m = m.withSnippet(t)
			srv := marksServer(t, m)
			term := srv.terminal(t, tmux.Options{})
			p := ports.PaneID(srv.tmux(t, "new-window", "-d", "-t", "s:", "-P", "-F", "#{pane_id}"))
			srv.waitPrompt(t, p)
			checkMarked(t, srv, term, m, p, false)
		})
	}
}

func TestTmuxShellIntegrationOffAndAPersonsPaneGetNoMarks(t *testing.T) {
	needTmux(t)
	for _, m := range marksShells() {
		t.Run(m.sh.name, func(t *testing.T) {
			t.Parallel()
			srv := marksServer(t, m)
			on := srv.terminal(t, tmux.Options{ShellIntegration: true, ShellIntegrationDir: t.TempDir()})
			off := srv.terminal(t, tmux.Options{ShellIntegrationDir: t.TempDir()})
			// A pane made with the setting off runs what tmux starts,
			// which reads the same files of the user's.
			c, err := off.CreateWindow(itContext(t), "s", "")
			if err != nil {
				t.Fatal(err)
			}
			srv.waitPrompt(t, c.Pane)
			if out := typeLines(t, srv, off, c.Pane, m.lines("off")[:1], false); strings.Contains(out, mark) || !strings.Contains(out, "u3$ ") {
				t.Errorf("a pane made with the setting off printed a mark, or not the user's prompt:\n%q", out)
			}
			if got := srv.tmux(t, "display-message", "-p", "-t", string(c.Pane), "#{pane_start_command}"); got != "" {
				t.Errorf("with the setting off the pane started with %q, not tmux's default", got)
			}
			// The person's pane, which the server did not make, with a
			// Terminal whose setting is on.
			panes, err := on.ListPanes(itContext(t), ports.PaneFilter{Session: "s"})
			if err != nil {
				t.Fatal(err)
			}
			person := panes[0].ID
			if _, err := on.CreateWindow(itContext(t), "s", ""); err != nil {
				t.Fatal(err)
			}
			if out := typeLines(t, srv, on, person, []string{"echo hi"}, false); strings.Contains(out, mark) || !strings.Contains(out, "hi") {
				t.Errorf("the person's pane printed a mark:\n%q", out)
			}
			// A default-command says what the server's panes run: the
			// person's choice is kept.
			srv.tmux(t, "set-option", "-g", "default-command", "exec "+m.path(t)+" -l")
			c, err = on.CreateWindow(itContext(t), "s", "")
			if err != nil {
				t.Fatal(err)
			}
			srv.waitPrompt(t, c.Pane)
			if out := typeLines(t, srv, on, c.Pane, m.lines("dc")[:1], false); strings.Contains(out, mark) || !strings.Contains(out, "u3$ ") {
				t.Errorf("a pane of a server with a default-command printed a mark, or not the user's prompt:\n%q", out)
			}
		})
	}
}

func TestTmuxShellIntegrationRunShellCommandIsExact(t *testing.T) {
	needTmux(t)
	for _, m := range marksShells() {
		t.Run(m.sh.name, func(t *testing.T) {
			t.Parallel()
			srv := marksServer(t, m)
			term := srv.terminal(t, tmux.Options{ShellIntegration: true, ShellIntegrationDir: t.TempDir()})
			c, err := term.CreateWindow(itContext(t), "s", "")
			if err != nil {
				t.Fatal(err)
			}
			srv.waitPrompt(t, c.Pane)
			svc := service(t, term)
			r := &rig{srv: srv, sh: m.sh, pane: c.Pane, svc: svc}
			for i, cmd := range []string{`printf 'a\nb\n'; sh -c 'exit 4'`, `printf '\033]133;D;0\007x\n'`, `true`} {
				res := r.run(t, domain.RunRequest{Command: cmd})
				switch i {
				case 0:
					wantCompleted(t, res, "a\nb", 4)
				case 1:
					// A mark the command prints itself goes as every
					// escape sequence does: the output is the text.
					wantCompleted(t, res, "x", 0)
				default:
					wantCompleted(t, res, "", 0)
				}
				r.settle(t, c.Pane)
			}
			res := r.run(t, domain.RunRequest{Command: `echo kept`, Persist: true})
			wantCompleted(t, res, "kept", 0)
		})
	}
}

// TestTmuxShellIntegrationMarksThePrivateSession starts the private
// server as the server does, with each shell: its first pane is marked.
// It sets HOME for the process (the private server takes this process's
// environment), so it runs alone.
func TestTmuxShellIntegrationMarksThePrivateSession(t *testing.T) {
	bin := needTmux(t)
	for _, m := range marksShells() {
		t.Run(m.sh.name, func(t *testing.T) {
			needShell(t, m.sh)
			home := t.TempDir()
			if m.zdotdir != "" {
				// Without ZDOTDIR in the environment, zsh reads the
				// home's files.
				files := map[string]string{}
				for name, text := range m.files {
					files[filepath.Base(name)] = strings.ReplaceAll(text, "$ZDOTDIR", "$HOME")
				}
				m.files, m.zdotdir, m.history = files, "", filepath.Base(m.history)
			}
			m.setUp(t, home)
			for _, kv := range []string{"HOME=" + home, "XDG_CONFIG_HOME=" + home, "XDG_DATA_HOME=" + home, "XDG_CACHE_HOME=" + home,
				"HISTFILE=/dev/null", "LC_ALL=C.UTF-8", "ZDOTDIR=", "SHELL=/bin/sh", "TMUX=", "TMUX_PANE="} {
				name, value, _ := strings.Cut(kv, "=")
				t.Setenv(name, value)
				if value == "" {
					os.Unsetenv(name)
				}
			}
			name, session, stop, err := tmux.StartPrivate(tmux.Options{Bin: bin, Shell: m.sh.name, ShellIntegration: true})
			if err != nil {
				t.Fatalf("StartPrivate: %v", err)
			}
			t.Cleanup(func() { stop() })
			srv := &tmuxServer{bin: bin, sock: name, home: home, srv: &tmuxtest.Server{Bin: bin, Socket: name, Env: os.Environ()}}
			term := srv.terminal(t, tmux.Options{Bin: bin})
			panes, err := term.ListPanes(itContext(t), ports.PaneFilter{Session: session})
			if err != nil || len(panes) != 1 {
				t.Fatalf("the private session's panes: %v, %v", panes, err)
			}
			srv.waitPrompt(t, panes[0].ID)
			checkMarked(t, srv, term, m, panes[0].ID, true)
			if _, err := os.Stat(filepath.Join(home, "tmux-mcp", "shell-integration")); err != nil {
				t.Errorf("the integration's files are not in the user's cache directory: %v", err)
			}
		})
	}
}
