package clients

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/tmux-mcp/tmux-mcp/app"
)

// SetupUsage is the help of `tmux-mcp setup`.
const SetupUsage = `Usage: tmux-mcp setup CLIENT [--print] [--http URL [--token-file FILE]] [-- SERVER FLAGS...]

Writes this tmux-mcp into CLIENT's user configuration, one of:
  claude-code, claude-desktop, cursor, vscode, codex
It keeps the file's other servers and settings, writes a backup
(FILE.bak-TIME) of a file it changes, and changes nothing when the server
is configured already. Server flags after -- are passed to the server
(for example: -- -socket-name agents).

  --print           show the file and the entry, write nothing
  --http URL        configure the client to reach a server already serving
                    -transport http at URL (not for claude-desktop)
  --token-file FILE the bearer token the client is to send (with --http);
                    a file that is not there is made, with a new token
  --home DIR        the home directory to configure (default $HOME)
`

// Setup runs `tmux-mcp setup` with args (those after "setup"), the
// environment, the absolute path of this binary, and the current time
// (for backups' names). It returns the exit status: 0 done, 1 a file
// could not be read or written, 2 a wrong argument or a file setup will
// not edit.
func Setup(args []string, getenv func(string) string, exe string, now time.Time, out, errOut io.Writer) int {
	fs := flag.NewFlagSet("setup", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	printOnly := fs.Bool("print", false, "")
	httpURL := fs.String("http", "", "")
	tokenFile := fs.String("token-file", "", "")
	home := fs.String("home", "", "")
	var positional []string
	rest := args
	// The client's name may come before or after the flags; the server's
	// flags come after --.
	var serverArgs []string
	for {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprint(out, SetupUsage)
				return 0
			}
			fmt.Fprintf(errOut, "tmux-mcp setup: %v\n\n%s", err, SetupUsage)
			return 2
		}
		rest = fs.Args()
		if len(rest) == 0 {
			break
		}
		if isDashDash(args, rest) {
			serverArgs = rest
			break
		}
		positional = append(positional, rest[0])
		rest = rest[1:]
	}
	if len(positional) != 1 {
		fmt.Fprintf(errOut, "tmux-mcp setup: name one client (%s)\n\n%s", strings.Join(Names(), ", "), SetupUsage)
		return 2
	}
	c, err := Find(positional[0])
	if err != nil {
		fmt.Fprintf(errOut, "tmux-mcp setup: %v\n", err)
		return 2
	}
	env := EnvFrom(getenv)
	if *home != "" {
		abs, err := filepath.Abs(*home)
		if err != nil {
			fmt.Fprintf(errOut, "tmux-mcp setup: --home: %v\n", err)
			return 2
		}
		env = Env{Home: abs, OS: env.OS}
	}
	if env.Home == "" {
		fmt.Fprintf(errOut, "tmux-mcp setup: HOME is not set; pass --home DIR\n")
		return 2
	}

	var e Entry
	var newToken bool
	switch {
	case *httpURL != "":
		if len(serverArgs) > 0 {
			fmt.Fprintf(errOut, "tmux-mcp setup: server flags are for a server the client starts; with --http, give them to the server you start\n")
			return 2
		}
		if err := checkURL(*httpURL); err != nil {
			fmt.Fprintf(errOut, "tmux-mcp setup: --http %q: %v\n", *httpURL, err)
			return 2
		}
		e.URL = *httpURL
		if *tokenFile != "" {
			e.Token, newToken, err = readOrMakeToken(*tokenFile, *printOnly)
			if err != nil {
				fmt.Fprintf(errOut, "tmux-mcp setup: %v\n", err)
				return 2
			}
		}
	case *tokenFile != "":
		fmt.Fprintf(errOut, "tmux-mcp setup: --token-file is for --http; a server the client starts on stdio needs no token\n")
		return 2
	default:
		if _, err := app.ParseConfig(serverArgs, func(string) string { return "" }, io.Discard); err != nil {
			fmt.Fprintf(errOut, "tmux-mcp setup: the server flags after --: %v\n", err)
			return 2
		}
		e.Command, e.Args = exe, serverArgs
		if e.Args == nil {
			e.Args = []string{}
		}
		if bin := appTmux(c, env, serverArgs, getenv); bin != "" {
			e.Args = append(e.Args, "-tmux-bin", bin)
			fmt.Fprintf(out, "With -tmux-bin %s: %s, started from the Dock, does not see your shell's PATH, where tmux is.\n", bin, c.Title)
		}
	}

	ch, err := Plan(c, env, e)
	if err != nil {
		fmt.Fprintf(errOut, "tmux-mcp setup %s: %v\n", c.Name, err)
		var ce *ConfigError
		if errors.As(err, &ce) {
			fmt.Fprintf(errOut, "The entry to add, once the file reads again:\n%s", Snippet(c, e))
		}
		return 2
	}
	if *printOnly {
		verb := "would add to"
		switch {
		case !ch.Exists:
			verb = "would create"
		case !ch.Changed:
			verb = "already configured in"
		}
		fmt.Fprintf(out, "%s: %s %s (nothing written):\n%s", c.Title, verb, ch.Path, ch.Snippet)
		if newToken {
			fmt.Fprintf(out, "The token file %s is not there; setup without --print makes it.\n", *tokenFile)
		}
		return 0
	}
	if newToken {
		if err := writeToken(*tokenFile, e.Token); err != nil {
			fmt.Fprintf(errOut, "tmux-mcp setup: %v\n", err)
			return 1
		}
		fmt.Fprintf(out, "Wrote a new bearer token to %s (mode 0600).\n", *tokenFile)
	}
	r, err := Apply(ch, now)
	if err != nil {
		fmt.Fprintf(errOut, "tmux-mcp setup %s: %v\n", c.Name, err)
		return 1
	}
	switch {
	case !r.Changed:
		fmt.Fprintf(out, "%s: already configured in %s; nothing changed.\n", c.Title, r.Path)
		return 0
	case !r.Exists:
		fmt.Fprintf(out, "%s: created %s with the server %q.\n", c.Title, r.Path, ServerName)
	default:
		fmt.Fprintf(out, "%s: set the server %q in %s (the file as it was: %s).\n", c.Title, ServerName, r.Path, r.Backup)
	}
	if e.HTTPEntry() {
		fmt.Fprintf(out, "It reaches %s", e.URL)
		if e.Token != "" {
			fmt.Fprintf(out, " with the token of %s; start the server with: %s -transport http -listen %s -token-file %s\n", *tokenFile, exe, hostPort(e.URL), *tokenFile)
		} else {
			fmt.Fprintf(out, "; start the server with: %s -transport http -listen %s\n", exe, hostPort(e.URL))
		}
		if e.Token != "" {
			fmt.Fprintf(out, "The file now holds the token: keep it private.\n")
		}
	} else {
		fmt.Fprintf(out, "It runs %s", e.Command)
		if len(e.Args) > 0 {
			fmt.Fprintf(out, " %s", strings.Join(e.Args, " "))
		}
		fmt.Fprintln(out, ".")
	}
	fmt.Fprintf(out, "To load it: %s.\n", c.Reload)
	return 0
}

// launchdPath is the PATH macOS gives an app started from the Dock or
// Finder.
var launchdPath = []string{"/usr/bin", "/bin", "/usr/sbin", "/sbin"}

// lookPath finds a program on the PATH of the process; tests replace it.
var lookPath = exec.LookPath

// appTmux is the -tmux-bin a desktop app on macOS needs: the tmux on the
// user's PATH when it is not on launchd's (Homebrew's /opt/homebrew/bin,
// /usr/local/bin), so that the server the app starts finds it. It is ""
// elsewhere, and when the flags or the environment name a tmux already.
func appTmux(c Client, env Env, serverArgs []string, getenv func(string) string) string {
	if !c.app || env.OS != "darwin" || getenv(app.EnvTmuxBin) != "" {
		return ""
	}
	for _, a := range serverArgs {
		if a == "-tmux-bin" || a == "--tmux-bin" || strings.HasPrefix(a, "-tmux-bin=") || strings.HasPrefix(a, "--tmux-bin=") {
			return ""
		}
	}
	bin, err := lookPath("tmux")
	if err != nil {
		return ""
	}
	if abs, err := filepath.Abs(bin); err == nil {
		bin = abs
	}
	if slices.Contains(launchdPath, filepath.Dir(bin)) {
		return ""
	}
	return bin
}

// isDashDash reports whether rest, what the flag set left of args,
// followed a "--" in args.
func isDashDash(args, rest []string) bool {
	i := len(args) - len(rest)
	return i > 0 && args[i-1] == "--"
}

// EnvFrom reads Env from the process's environment.
func EnvFrom(getenv func(string) string) Env {
	return Env{Home: getenv("HOME"), XDGConfigHome: getenv("XDG_CONFIG_HOME"), CodexHome: getenv("CODEX_HOME"), OS: goos}
}

func checkURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return errors.New("want an http:// or https:// URL, such as http://127.0.0.1:8808/mcp")
	}
	return nil
}

func hostPort(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return app.DefaultListen
	}
	return u.Host
}

// readOrMakeToken reads the bearer token in file, as the server would;
// when there is no such file it returns a new token to be written there
// (made reports it).
func readOrMakeToken(file string, dry bool) (token string, made bool, err error) {
	if _, err := os.Stat(file); errors.Is(err, os.ErrNotExist) {
		b := make([]byte, 32)
		_, _ = rand.Read(b) // crypto/rand.Read never fails
		return hex.EncodeToString(b), true, nil
	}
	token, err = app.LoadToken(file, "", zap.NewNop())
	if err != nil {
		return "", false, fmt.Errorf("--token-file: %w", err)
	}
	return token, false, nil
}

func writeToken(file, token string) error {
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return err
	}
	return writeNew(file, []byte(token+"\n"), 0o600)
}
