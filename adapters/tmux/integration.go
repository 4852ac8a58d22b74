package tmux

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/adapters/internal/shellinit"
)

// The shell integration of the panes the Terminal makes (see
// Options.ShellIntegration and internal/shellinit): create_session,
// create_window and split_window start the pane's shell themselves, as
// tmux would start it, but reading the integration's start-up files,
// which read the user's and then add the prompt marks. Only a pane that
// tmux would start with its default shell gets it, and only when that
// shell is bash, zsh or fish: a server whose default-command says what
// its panes run (a person's choice, such as a wrapper) keeps it, and a
// pane given a command runs that command. A pane the Terminal did not
// make is never touched.

// ShellIntegration returns the marks of the shell family sh ("bash",
// "zsh" or "fish"), as text to add at the end of that shell's start-up
// file on another host, so that a shell there marks its prompt as the
// panes this adapter makes do; ok is false for any other family.
func ShellIntegration(sh string) (text []byte, ok bool) { return shellinit.Snippet(sh) }

// ShellIntegrationShells lists the families ShellIntegration knows.
func ShellIntegrationShells() []string { return append([]string(nil), shellinit.Shells...) }

// probeFormat prints what tmux would start a new pane with.
var probeFormat = strings.Join([]string{"I", clean("default-shell"), clean("default-command")}, sep)

// shellStart returns what a creating command adds, before its other
// arguments end, so that the new pane's shell reads the integration: -e
// for each variable to set and then "--" and the shell's arguments. It
// returns nil, and the pane starts as tmux would start it, when the
// integration is off, or when tmux would not start the default shell, or
// that shell has none, or what tmux would start cannot be told: target
// is the session or pane the new pane is made at, "" for a new session
// (whose options and environment are the global ones).
func (t *terminal) shellStart(ctx context.Context, target string) []string {
	if t.integ == nil {
		return nil
	}
	var l cmdList
	if target == "" {
		l = tmuxCmd("show-options", "-gv", "default-shell").
			then("show-options", "-gv", "default-command").
			then("show-environment", "-g")
	} else {
		l = tmuxCmd("display-message", "-p", "-t", target, probeFormat).
			then("show-environment", "-g").
			then("show-environment", "-t", target)
	}
	out, err := t.exec(ctx, route{}, l)
	if err != nil {
		t.debug("no shell integration for the new pane: what tmux would start is not known", "error", err)
		return nil
	}
	shell, command, env, ok := parseProbe(out, target == "")
	if !ok || command != "" || !strings.HasPrefix(shell, "/") {
		return nil
	}
	zdotdir, has := env["ZDOTDIR"]
	start, ok := t.integ.Launch(shell, zdotdir, has)
	if !ok {
		return nil
	}
	return startArgs(start)
}

// startArgs is start as arguments of new-session, new-window or
// split-window.
func startArgs(start shellinit.Start) []string {
	var args []string
	for _, e := range start.Env {
		args = append(args, "-e", escapeArg(e))
	}
	args = append(args, "--")
	for _, a := range start.Argv {
		args = append(args, escapeArg(a))
	}
	return args
}

// parseProbe reads what shellStart's commands printed: the default shell
// and command, and the environment a new pane gets (the global one, and
// the session's over it; a "-NAME" line removes NAME). global says the
// first two came from show-options, one line each, rather than from the
// probe's format.
func parseProbe(out string, global bool) (shell, command string, env map[string]string, ok bool) {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if global {
		if len(lines) < 2 {
			return "", "", nil, false
		}
		shell, command, lines = lines[0], lines[1], lines[2:]
	} else {
		f := tagged(out, "I", 2)
		if len(f) != 1 {
			return "", "", nil, false
		}
		shell, command = f[0][0], f[0][1]
	}
	env = map[string]string{}
	for _, line := range lines {
		if name, value, found := strings.Cut(line, "="); found && name != "" && !strings.Contains(name, sep) {
			env[name] = value
		} else if name, removed := strings.CutPrefix(line, "-"); removed {
			delete(env, name)
		}
	}
	return shell, command, env, true
}

// installIntegration writes the integration's files when opts ask for
// it, and returns them; nil, logged, where they cannot be written: the
// panes then start as tmux starts them.
func installIntegration(opts Options) *shellinit.Dir {
	if !opts.ShellIntegration || opts.SSH != "" {
		return nil
	}
	d, err := shellinit.Install(opts.ShellIntegrationDir)
	if err != nil {
		if opts.Logger != nil {
			opts.Logger.Warn("the panes this server makes start without the shell integration: its files cannot be written", "error", err)
		}
		return nil
	}
	return d
}

// privateStart is shellStart for the first pane of StartPrivate's
// session, which nothing can be asked about before it exists: its shell
// is opts.Shell, or else what tmux takes for its default shell, $SHELL
// from env when it is an absolute path to a program (tmux's other
// choices, the password database's shell and /bin/sh, get no
// integration here).
func privateStart(opts Options, env []string) []string {
	lookup := func(name string) (string, bool) {
		for i := len(env) - 1; i >= 0; i-- {
			if v, ok := strings.CutPrefix(env[i], name+"="); ok {
				return v, true
			}
		}
		return "", false
	}
	shell := opts.Shell
	if shell != "" {
		path, err := exec.LookPath(shell)
		if err == nil {
			path, err = filepath.Abs(path)
		}
		if err != nil {
			return nil
		}
		shell = path
	} else if s, _ := lookup("SHELL"); filepath.IsAbs(s) {
		if fi, err := os.Stat(s); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			shell = s
		}
	}
	if shell == "" {
		return nil
	}
	d := installIntegration(opts)
	if d == nil {
		return nil
	}
	zdotdir, has := lookup("ZDOTDIR")
	start, ok := d.Launch(shell, zdotdir, has)
	if !ok {
		return nil
	}
	return startArgs(start)
}
