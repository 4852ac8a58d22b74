package test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/adapters/tmux"
	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/domain/policy"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// run_shell_command and what a shell really is in real tmux panes under
// every shell: the program that runs in front, whatever its name.

func TestTmuxRealShellsAreToldByWhatRuns(t *testing.T) {
	needTmux(t)
	for _, sh := range shells {
		t.Run(sh.name, func(t *testing.T) {
			t.Parallel()
			needShell(t, sh)
			testProgramNamedLikeTheShell(t, newRig(t, sh))
		})
	}
}

// testProgramNamedLikeTheShell starts, in front of the pane's terminal, a
// Python REPL whose argv[0] is the shell's name, as `exec -a bash python3
// -i -q` does (perl names it so from every shell; as a job of the shell,
// the REPL leads its own process group, as after an exec at a person's
// prompt): tmux names the pane's program after argv[0], and only the
// executable tells.
func testProgramNamedLikeTheShell(t *testing.T, r *rig) {
	python, err := filepath.EvalSymlinks("/usr/bin/python3")
	if err != nil {
		t.Skip("no /usr/bin/python3")
	}
	if _, err := os.Stat("/proc/self/exe"); err != nil {
		t.Skip("no /proc to read what runs from")
	}
	r.srv.tmux(t, "send-keys", "-t", string(r.pane), "-l",
		`perl -e 'exec {"/usr/bin/python3"} "`+r.sh.name+`", "-i", "-q"'`)
	r.srv.tmux(t, "send-keys", "-t", string(r.pane), "Enter")
	eventually(t, 10*time.Second, "the REPL's prompt", func() bool { return strings.HasSuffix(r.srv.screen(t, r.pane), ">>>") })
	if got := r.srv.tmux(t, "display-message", "-p", "-t", string(r.pane), "#{pane_current_command}"); got != r.sh.name {
		out, _ := exec.Command("ps", "-o", "pid,pgid,tpgid,comm,args", "-t", r.srv.tmux(t, "display-message", "-p", "-t", string(r.pane), "#{pane_tty}")).CombinedOutput()
		t.Fatalf("tmux names the REPL %q; the test needs it named %q\n%s\n%s", got, r.sh.name, out, r.srv.screen(t, r.pane))
	}
	term := r.srv.terminal(t, tmux.Options{})
	info, err := term.Pane(itContext(t), r.pane)
	if err != nil || info.Program != filepath.Base(python) || info.Command != r.sh.name {
		t.Errorf("Pane = %+v, %v; want the program %s named %s", info, err, filepath.Base(python), r.sh.name)
	}
	_, err = r.svc.RunShellCommand(itContext(t), domain.RunRequest{PaneID: r.pane, Command: "print('typed')", TimeoutMs: 5000})
	var refusal *fault.RefusalError
	if !errors.As(err, &refusal) || refusal.Why != fault.RefusedNotAShell || !strings.Contains(err.Error(), filepath.Base(python)) {
		t.Fatalf("run_shell_command into the REPL named %s: %v; want a not-a-shell refusal naming %s", r.sh.name, err, filepath.Base(python))
	}
	// What reaches the REPL after the refusal shows after anything the
	// refused call typed.
	r.srv.tmux(t, "send-keys", "-t", string(r.pane), "-l", "print('probe', 6*7)")
	r.srv.tmux(t, "send-keys", "-t", string(r.pane), "Enter")
	eventually(t, 10*time.Second, "the REPL to answer the probe", func() bool { return strings.Contains(r.srv.screen(t, r.pane), "probe 42") })
	if screen := r.srv.screen(t, r.pane); strings.Contains(screen, "typed") || strings.Contains(screen, "tmcp") {
		t.Errorf("the refused call typed into the REPL:\n%s", screen)
	}
}

// A history setting of a shell, with which a pane starts.
type historyCase struct {
	name  string
	sh    shellSpec
	setup string // rc lines (bash, zsh, mksh)
	// firstKept: the shell saves the first frame line typed into it
	// before anything of it runs (zsh without HIST_IGNORE_SPACE), which
	// is allowed to stay, without the command's text.
	firstKept bool
}

func historyCases() []historyCase {
	var cases []historyCase
	shell := func(name string) shellSpec {
		for _, sh := range shells {
			if sh.name == name {
				return sh
			}
		}
		panic(name)
	}
	for _, setup := range []string{"", "PROMPT_COMMAND='history -a'", "shopt -s histappend",
		"shopt -s histappend; PROMPT_COMMAND='history -a; history -c; history -r'",
		"HISTTIMEFORMAT='%F %T '; PROMPT_COMMAND='history -a'", "HISTCONTROL=ignorespace"} {
		cases = append(cases, historyCase{name: "bash " + setup, sh: shell("bash"), setup: setup})
	}
	for _, options := range []string{"", "inc_append_history", "share_history", "inc_append_history_time", "extended_history",
		"hist_ignore_space", "share_history hist_ignore_space", "inc_append_history extended_history hist_ignore_space",
		"inc_append_history_time hist_ignore_space"} {
		setup := ""
		if options != "" {
			setup = "setopt " + options
		}
		cases = append(cases, historyCase{name: "zsh " + options, sh: shell("zsh"), setup: setup,
			firstKept: !strings.Contains(options, "hist_ignore_space")})
	}
	for _, name := range []string{"fish", "mksh", "dash"} {
		cases = append(cases, historyCase{name: name, sh: shell(name)})
	}
	return cases
}

// TestTmuxRealHistoryHoldsNoFrame runs frames in real panes whose shells
// keep a real history file with the settings people use, between lines
// a person types, and reads what each shell holds in its history list
// and what it wrote to the file, during its life and when it exits.
func TestTmuxRealHistoryHoldsNoFrame(t *testing.T) {
	needTmux(t)
	for _, c := range historyCases() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			needShell(t, c.sh)
			testHistory(t, c)
		})
	}
}

func testHistory(t *testing.T, c historyCase) {
	srv, _ := newTmuxServer(t, c.sh)
	home := srv.home
	histfile := filepath.Join(home, "histfile")
	write := func(name, text string) string {
		path := filepath.Join(home, name)
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	rc := "PS1='$ '; HISTFILE=" + histfile + "; HISTSIZE=100; SAVEHIST=100\n" + c.setup + "\n"
	list := "fc -l 1" // what lists the history, as the person would type it
	env := []string{"PS1=$ "}
	var argv []string
	switch c.sh.name {
	case "bash":
		argv, list = []string{"bash", "--noprofile", "--rcfile", write("bashrc", rc), "-i"}, "history"
	case "zsh":
		zdot := filepath.Join(home, "zdot")
		if err := os.Mkdir(zdot, 0o700); err != nil {
			t.Fatal(err)
		}
		write("zdot/.zshrc", rc)
		// No global rc files, but not -f: without RCS zsh saves no
		// history when it exits.
		argv, env, list = []string{"zsh", "-d"}, append(env, "ZDOTDIR="+zdot), "fc -ln 1"
	case "fish":
		argv, env, list = c.sh.argv[:0:0], nil, "history"
		argv = append(argv, "fish", "-C", "set -g fish_greeting; function fish_prompt; echo -n '$ '; end")
		histfile = filepath.Join(home, "fish", "fish_history") // XDG_DATA_HOME is home
	case "mksh":
		argv, env = []string{"mksh", "-i"}, append(env, "HISTFILE="+histfile, "ENV="+write("mkshrc", "PS1='$ '\n"))
	case "dash":
		argv, env, list = []string{"dash", "-i"}, append(env, "HISTFILE="+histfile), ""
	}
	args := []string{"new-session", "-d", "-s", "hist", "-x", "120", "-y", "40", "-c", home, "-P", "-F", "#{pane_id}"}
	for _, kv := range env {
		args = append(args, "-e", kv)
	}
	pane := ports.PaneID(srv.tmux(t, append(append(args, "--"), argv...)...))
	srv.waitPrompt(t, pane)
	term := srv.terminal(t, tmux.Options{})
	// The shell back in front, leading its group: tmux names the pane's first program while the job of
	// a command that just ended is still being torn down, which a run
	// would refuse then.
	settle := func() {
		t.Helper()
		eventually(t, 10*time.Second, "the shell in front of "+string(pane), func() bool {
			fg, err := term.Foreground(itContext(t), pane)
			if err != nil || len(fg.Args) == 0 {
				return false
			}
			_, shell := policy.ShellOf(fg.Program, fg.Args[0])
			return shell
		})
	}
	typed := func(line, file string) {
		t.Helper()
		srv.tmux(t, "send-keys", "-t", string(pane), "-l", line)
		srv.tmux(t, "send-keys", "-t", string(pane), "Enter")
		eventually(t, 10*time.Second, "the person's line "+line, func() bool { _, err := os.Stat(filepath.Join(home, file)); return err == nil })
		settle()
	}
	typed("touch user-1", "user-1")
	first := service(t, term)
	// A second server meets the shell as a first: for zsh, after the
	// first server's frames.
	second := service(t, srv.terminal(t, tmux.Options{}))
	for i, svc := range []*domain.Service{first, first, second} {
		res, err := svc.RunShellCommand(itContext(t), domain.RunRequest{PaneID: pane, Command: fmt.Sprintf("echo framed-%d", i+1), TimeoutMs: 20_000})
		if err != nil {
			t.Fatal(err)
		}
		wantCompleted(t, res, fmt.Sprintf("framed-%d", i+1), 0)
		settle()
	}
	typed("touch user-2", "user-2")
	var listed []byte
	if list != "" {
		typed(list+" > listed.tmp && mv listed.tmp listed", "listed")
		listed, _ = os.ReadFile(filepath.Join(home, "listed"))
	}
	srv.tmux(t, "send-keys", "-t", string(pane), "-l", "exit")
	srv.tmux(t, "send-keys", "-t", string(pane), "Enter")
	eventually(t, 10*time.Second, "the shell to exit", func() bool { _, err := srv.tmuxErr("has-session", "-t", "hist"); return err != nil })
	saved, err := os.ReadFile(histfile)
	if c.sh.name == "dash" {
		if err == nil && len(saved) > 0 {
			t.Errorf("dash, which keeps no history, wrote %q", saved)
		}
		return
	}
	if err != nil {
		t.Fatalf("no history file: %v", err)
	}
	for what, text := range map[string]string{"the history list": string(listed), "the history file": string(saved)} {
		if !strings.Contains(text, "touch user-1") || !strings.Contains(text, "touch user-2") {
			t.Errorf("%s lacks the person's lines:\n%s", what, text)
		}
		var frames []string
		for _, line := range strings.Split(text, "\n") {
			if strings.Contains(line, "tmcp") || strings.Contains(line, "framed-") {
				frames = append(frames, line)
			}
		}
		switch {
		case c.firstKept && (len(frames) != 1 || strings.Contains(frames[0], "framed-")):
			t.Errorf("%s holds %q; want only the first frame's line, without the command", what, frames)
		case !c.firstKept && len(frames) != 0:
			t.Errorf("%s holds frame lines %q:\n%s", what, frames, text)
		}
	}
}

// A person typed `read -p 'Password: ' pw` at the prompt: the shell itself
// reads the next line, with nothing else in front. In the shells whose
// line editor is on at their prompt, the terminal tells: canonical while
// the shell reads, raw at its prompt. (fish reads with its line editor,
// and dash has none: there nothing tells, as docs/CONTRACT.md says.)
func TestTmuxRealShellReadingALineOfItsOwnIsNotTypedInto(t *testing.T) {
	needTmux(t)
	for _, sh := range shells {
		read := map[string]string{"bash": "read -r -p 'Password: ' pw", "zsh": "read -r 'pw?Password: '", "mksh": "read -r pw?'Password: '"}[sh.name]
		if read == "" {
			continue
		}
		t.Run(sh.name, func(t *testing.T) {
			t.Parallel()
			needShell(t, sh)
			r := newRig(t, sh)
			// Seen at its prompt first.
			wantCompleted(t, r.run(t, domain.RunRequest{Command: "echo at the prompt"}), "at the prompt", 0)
			r.settle(t, r.pane)
			got := filepath.Join(r.srv.home, "got")
			r.srv.tmux(t, "send-keys", "-t", string(r.pane), "-l", read+`; echo "got [$pw]" > '`+got+`'`)
			r.srv.tmux(t, "send-keys", "-t", string(r.pane), "Enter")
			term := r.srv.terminal(t, tmux.Options{})
			eventually(t, 10*time.Second, "the shell's read", func() bool {
				editing, err := term.LineEditing(itContext(t), r.pane)
				return err == nil && !editing && strings.HasSuffix(r.srv.screen(t, r.pane), "Password:")
			})
			_, err := r.svc.RunShellCommand(itContext(t), domain.RunRequest{PaneID: r.pane, Command: "echo typed", TimeoutMs: 20_000})
			var refusal *fault.RefusalError
			if !errors.As(err, &refusal) || refusal.Why != fault.RefusedReading {
				t.Fatalf("run_shell_command while the shell reads: %v; want a reading refusal", err)
			}
			r.srv.tmux(t, "send-keys", "-t", string(r.pane), "-l", "answer")
			r.srv.tmux(t, "send-keys", "-t", string(r.pane), "Enter")
			eventually(t, 10*time.Second, "the read's answer", func() bool {
				b, _ := os.ReadFile(got)
				return len(b) > 0
			})
			if b, _ := os.ReadFile(got); strings.TrimSpace(string(b)) != "got [answer]" {
				t.Errorf("the read got %q, want the person's answer alone", b)
			}
			freeAfter(t, r, "the shell's own read")
		})
	}
}
