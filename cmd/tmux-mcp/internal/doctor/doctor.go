// Package doctor is `tmux-mcp doctor`: it checks, one line each, what the
// server needs on this machine (tmux and its version, the tmux server
// the settings name, a shell run_shell_command can frame commands in, a
// private directory for its scripts, the -ssh destination) and which MCP
// clients have it configured, and says how to fix what does not hold.
package doctor

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/tmux-mcp/tmux-mcp/app"
	"github.com/tmux-mcp/tmux-mcp/cmd/tmux-mcp/internal/clients"
)

// Minimum tmux version the server runs on.
const minMajor, minMinor = 3, 2

// Status is how a check came out.
type Status string

// Statuses: a check that fails fails the doctor (exit status 1); a
// warning does not, nor does a note.
const (
	OK   Status = "ok"
	Warn Status = "warn"
	Fail Status = "FAIL"
	Note Status = "--"
)

// Result is one line of the report.
type Result struct {
	Status Status
	Name   string // what was checked
	Detail string // what was found
	Fix    string // what to do; empty when nothing
}

func (r Result) String() string {
	s := fmt.Sprintf("%-4s  %s: %s", r.Status, r.Name, r.Detail)
	if r.Fix != "" {
		s += " — fix: " + r.Fix
	}
	return s
}

// Doctor holds what the checks look at: the server's settings, the
// environment, the binary's own path and where the clients' files are.
type Doctor struct {
	Config  app.Config
	Getenv  func(string) string
	Exe     string
	Clients clients.Env
	// Timeout bounds each program the checks run.
	Timeout time.Duration
}

// Shells are the shells run_shell_command frames commands in, by the
// names doctor looks for.
var Shells = []string{"bash", "dash", "zsh", "mksh", "fish"}

// Usage is the help of `tmux-mcp doctor`.
const Usage = `Usage: tmux-mcp doctor [--home DIR] [SERVER FLAGS...]

Checks what the server needs, one line each with the fix: tmux and its
version, the tmux server the socket settings name, the shells, the private
directory for scripts, the -ssh destination, and which MCP clients have
tmux-mcp configured. Give the flags the server is started with (such as
-socket-name agents or -ssh host) to check those. Exit status 0 when all
that the server needs holds, 1 when something does not, 2 for a bad flag.
`

// Main runs `tmux-mcp doctor` with args (those after "doctor") and
// returns its exit status.
func Main(args []string, getenv func(string) string, exe string, out, errOut io.Writer) int {
	var home string
	var serverArgs []string
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-h" || a == "-help" || a == "--help":
			fmt.Fprint(out, Usage)
			return 0
		case a == "--home" || a == "-home":
			if i+1 == len(args) {
				fmt.Fprintf(errOut, "tmux-mcp doctor: %s needs a directory\n", a)
				return 2
			}
			home = args[i+1]
			i++
		case strings.HasPrefix(a, "--home=") || strings.HasPrefix(a, "-home="):
			home = a[strings.Index(a, "=")+1:]
		default:
			serverArgs = append(serverArgs, a)
		}
	}
	cfg, err := app.ParseConfig(serverArgs, getenv, io.Discard)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(out, Usage)
			return 0
		}
		fmt.Fprintf(errOut, "tmux-mcp doctor: %v\n", err)
		return 2
	}
	env := clients.EnvFrom(getenv)
	if home != "" {
		env = clients.Env{Home: home, OS: env.OS}
	}
	d := Doctor{Config: cfg, Getenv: getenv, Exe: exe, Clients: env, Timeout: 10 * time.Second}
	failed := false
	for _, r := range d.Run() {
		fmt.Fprintln(out, r)
		failed = failed || r.Status == Fail
	}
	if failed {
		fmt.Fprintln(out, "Something the server needs does not hold: see the lines marked FAIL.")
		return 1
	}
	fmt.Fprintln(out, "Everything the server needs holds.")
	return 0
}

// Run makes every check, in the order a person would fix them.
func (d Doctor) Run() []Result {
	var rs []Result
	switch {
	case d.Config.Backend == app.BackendFake:
		rs = append(rs, Result{Status: Note, Name: "backend", Detail: "fake: an in-memory terminal; tmux is not needed"})
	case d.Config.Backend == app.BackendScreen:
		r := Result{Name: "GNU screen", Status: OK}
		if path, err := exec.LookPath("screen"); err != nil {
			r.Status, r.Detail, r.Fix = Fail, "not found on PATH", "install it (apt-get install screen, brew install screen), or use -backend tmux"
		} else {
			r.Detail = path
		}
		rs = append(rs, r)
	case d.Config.SSH != "":
		rs = append(rs, d.ssh(d.Config.SSH)...)
	case len(d.Config.Hosts) > 0:
		// Every host of a server of several, one after the other.
		for _, h := range d.Config.Hosts {
			rs = append(rs, d.ssh(h.Destination)...)
		}
	default:
		tmux := d.tmux()
		rs = append(rs, tmux)
		if tmux.Status != Fail {
			rs = append(rs, d.socket())
		}
		rs = append(rs, d.shells())
	}
	rs = append(rs, d.stateDir())
	rs = append(rs, d.clients()...)
	return rs
}

// run runs a program for at most d.Timeout, returning what it printed
// (standard output and error together).
func (d Doctor) run(name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	var b bytes.Buffer
	cmd.Stdout, cmd.Stderr = &b, &b
	cmd.Stdin = nil
	err := cmd.Run()
	if ctx.Err() != nil {
		err = fmt.Errorf("no answer within %s", d.Timeout)
	}
	return strings.TrimSpace(b.String()), err
}

func (d Doctor) tmuxBin() string {
	if d.Config.TmuxBin != "" {
		return d.Config.TmuxBin
	}
	return "tmux"
}

var versionRe = regexp.MustCompile(`(\d+)\.(\d+)`)

// tooOld reports whether tmux -V's text names a version below the
// minimum; ok is false when it names none.
func tooOld(v string) (old, ok bool) {
	m := versionRe.FindStringSubmatch(v)
	if m == nil {
		return false, false
	}
	major, _ := strconv.Atoi(m[1])
	minor, _ := strconv.Atoi(m[2])
	return major < minMajor || major == minMajor && minor < minMinor, true
}

func (d Doctor) tmux() Result {
	r := Result{Name: "tmux"}
	path, err := exec.LookPath(d.tmuxBin())
	if err != nil {
		r.Status = Fail
		if d.Config.TmuxBin == "" {
			r.Detail, r.Fix = "not found on PATH", "install it (apt-get install tmux, brew install tmux) or pass -tmux-bin PATH"
		} else {
			r.Detail, r.Fix = fmt.Sprintf("-tmux-bin %q cannot be run (%v)", d.Config.TmuxBin, errors.Unwrap(err)), "name the tmux binary (`command -v tmux` prints its path)"
		}
		return r
	}
	out, err := d.run(path, "-V")
	if err != nil {
		r.Status, r.Detail, r.Fix = Fail, fmt.Sprintf("%s -V failed: %v %s", path, err, out), "reinstall tmux, or pass -tmux-bin PATH to another one"
		return r
	}
	old, ok := tooOld(out)
	switch {
	case !ok:
		r.Status, r.Detail, r.Fix = Warn, fmt.Sprintf("%s reports %q, which names no version", path, out), fmt.Sprintf("use tmux %d.%d or newer", minMajor, minMinor)
	case old:
		r.Status, r.Detail, r.Fix = Fail, fmt.Sprintf("%s is %s, older than %d.%d", path, out, minMajor, minMinor),
			fmt.Sprintf("install tmux %d.%d or newer (brew install tmux; on Debian/Ubuntu a current release), or pass -tmux-bin PATH", minMajor, minMinor)
	default:
		r.Status, r.Detail = OK, fmt.Sprintf("%s (%s)", path, out)
	}
	return r
}

// socket checks the tmux server the settings name answers, or, with
// none named, that a private server can be started and stopped.
func (d Doctor) socket() Result {
	r := Result{Name: "tmux server"}
	bin := d.tmuxBin()
	switch {
	case d.Config.SocketName != "" || d.Config.SocketPath != "":
		flagArgs := []string{"-L", d.Config.SocketName}
		where := "socket name " + d.Config.SocketName
		if d.Config.SocketPath != "" {
			flagArgs, where = []string{"-S", d.Config.SocketPath}, "socket "+d.Config.SocketPath
		}
		out, err := d.run(bin, append(flagArgs, "list-sessions")...)
		switch {
		case err == nil:
			r.Status, r.Detail = OK, fmt.Sprintf("%s answers (%d sessions)", where, strings.Count(out, "\n")+1)
		case strings.Contains(out, "no server running") || strings.Contains(out, "error connecting"):
			r.Status, r.Detail = Warn, where+": no tmux server runs there yet; the tools fail until one does"
			r.Fix = fmt.Sprintf("tmux %s new-session -d (or call create_session, which starts one)", strings.Join(flagArgs, " "))
		default:
			r.Status, r.Detail, r.Fix = Fail, fmt.Sprintf("%s: %v: %s", where, err, out), "check the socket's path and its permissions (tmux makes it 0700 for its user)"
		}
	default:
		name := fmt.Sprintf("tmux-mcp-doctor-%d", os.Getpid())
		out, err := d.run(bin, "-L", name, "-f", os.DevNull, "new-session", "-d", "-s", "doctor", "sleep 30")
		_, _ = d.run(bin, "-L", name, "kill-server")
		if err != nil {
			r.Status, r.Detail, r.Fix = Fail, fmt.Sprintf("a private tmux server does not start: %v: %s", err, out), "run `tmux new-session` by hand to see why (TMUX_TMPDIR must be writable)"
			return r
		}
		r.Status, r.Detail = OK, "no socket named: each server process starts a private tmux server, and one started and stopped here"
	}
	return r
}

func (d Doctor) shells() Result {
	r := Result{Name: "shells"}
	var found []string
	for _, s := range Shells {
		if _, err := exec.LookPath(s); err == nil {
			found = append(found, s)
		}
	}
	if len(found) == 0 {
		r.Status, r.Detail, r.Fix = Fail, "none of "+strings.Join(Shells, ", ")+" is on PATH", "install bash (apt-get install bash, brew install bash)"
		return r
	}
	r.Status, r.Detail = OK, strings.Join(found, ", ")
	want := d.Config.Shell
	from := "-shell"
	if want == "" {
		want, from = d.Getenv("SHELL"), "your login shell ($SHELL)"
	}
	if want != "" && !supported(filepath.Base(want)) {
		r.Status = Warn
		r.Detail += fmt.Sprintf("; %s is %s, in which run_shell_command refuses to run", from, want)
		r.Fix = "pass -shell bash (or another of them) for the private server's panes"
	} else if want != "" {
		r.Detail += fmt.Sprintf("; the panes run %s (%s)", want, from)
	}
	return r
}

// supported says whether run_shell_command runs commands in a shell of
// this name.
func supported(name string) bool {
	switch name {
	case "bash", "zsh", "sh", "dash", "ksh", "mksh", "fish":
		return true
	}
	return false
}

// stateDir checks that the server can make its private directory of
// scripts, where it makes it: the first of $XDG_RUNTIME_DIR, /dev/shm and
// the temporary directory that takes one.
func (d Doctor) stateDir() Result {
	r := Result{Name: "private directory"}
	var tried []string
	for _, base := range []string{d.Getenv("XDG_RUNTIME_DIR"), "/dev/shm", os.TempDir()} {
		if base == "" {
			continue
		}
		if fi, err := os.Stat(base); err != nil || !fi.IsDir() {
			continue
		}
		dir, err := os.MkdirTemp(base, "tmux-mcp-doctor-")
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, "probe"), []byte("true\n"), 0o600)
			os.RemoveAll(dir)
		}
		if err == nil {
			r.Status, r.Detail = OK, "scripts go in a private directory under "+base
			return r
		}
		tried = append(tried, fmt.Sprintf("%s (%v)", base, err))
	}
	r.Status, r.Detail = Fail, "no directory takes the server's scripts: "+strings.Join(tried, "; ")
	r.Fix = "make $TMPDIR (or $XDG_RUNTIME_DIR) a directory you can write"
	return r
}

// ssh checks an ssh destination (-ssh, or a host of several) answers in
// batch mode and runs tmux.
func (d Doctor) ssh(dest string) []Result {
	base := []string{"-o", "BatchMode=yes", "-o", "ConnectTimeout=5"}
	if d.Config.SSHConfig != "" {
		base = append(base, "-F", d.Config.SSHConfig)
	}
	r := Result{Name: "ssh " + dest}
	if _, err := exec.LookPath("ssh"); err != nil {
		r.Status, r.Detail, r.Fix = Fail, "ssh is not on PATH", "install OpenSSH's client (apt-get install openssh-client)"
		return []Result{r}
	}
	out, err := d.run("ssh", append(base, dest, "true")...)
	if err != nil {
		r.Status, r.Detail = Fail, fmt.Sprintf("cannot log in without asking: %v: %s", err, firstLine(out))
		r.Fix = fmt.Sprintf("run `ssh %s` once by hand to accept its host key, and have a key in your agent or named by IdentityFile", dest)
		return []Result{r}
	}
	r.Status, r.Detail = OK, "logs in with BatchMode=yes"
	t := Result{Name: "tmux on " + dest}
	out, err = d.run("ssh", append(base, dest, d.tmuxBin(), "-V")...)
	old, ok := tooOld(out)
	switch {
	case err != nil:
		t.Status, t.Detail, t.Fix = Fail, fmt.Sprintf("%s -V failed there: %s", d.tmuxBin(), firstLine(out)), "install tmux 3.2 or newer there, or pass -tmux-bin PATH (its path there)"
	case !ok || old:
		t.Status, t.Detail, t.Fix = Fail, fmt.Sprintf("%q is older than %d.%d or names no version", out, minMajor, minMinor), "install tmux 3.2 or newer there"
	default:
		t.Status, t.Detail = OK, firstLine(out)
	}
	return []Result{r, t}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// clients reports each client's configuration of the server: the path
// it starts, and whether that is there and is this binary.
func (d Doctor) clients() []Result {
	var rs []Result
	for _, c := range clients.All {
		r := Result{Name: c.Title}
		target, ok, err := clients.Configured(c, d.Clients)
		switch {
		case err != nil:
			r.Status, r.Detail, r.Fix = Warn, err.Error(), ""
		case !ok:
			r.Status, r.Detail, r.Fix = Note, "not configured ("+c.Path(d.Clients)+")", "tmux-mcp setup "+c.Name
		case strings.HasPrefix(target, "http://") || strings.HasPrefix(target, "https://"):
			r.Status, r.Detail = OK, "reaches "+target+" (over HTTP: start that server yourself)"
		case target == "":
			r.Status, r.Detail, r.Fix = Warn, "configured with no command", "tmux-mcp setup "+c.Name
		default:
			r.Status, r.Detail = OK, "runs "+target
			if _, err := os.Stat(target); err != nil {
				r.Status, r.Detail, r.Fix = Fail, "runs "+target+", which is not there", "tmux-mcp setup "+c.Name+" (writes this binary's path)"
			} else if !sameFile(target, d.Exe) {
				r.Status, r.Detail, r.Fix = Warn, "runs "+target+", not this binary ("+d.Exe+")", "tmux-mcp setup "+c.Name+" if it should run this one"
			}
		}
		rs = append(rs, r)
	}
	return rs
}

func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}
