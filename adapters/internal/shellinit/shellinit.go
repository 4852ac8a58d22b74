// Package shellinit is the shell integration of the panes a backend makes
// itself: start-up files for bash, zsh and fish that read the user's own
// start-up files as the shell would, and then add prompt marks (OSC 133:
// A where the prompt starts, B where it ends, C before a command's output,
// D;STATUS after it), so that whoever reads the pane's output can tell a
// shell at its prompt from one running a command.
//
// The files are embedded in the binary. Install writes them into a
// directory of the user's alone, named by a digest of their contents, and
// never removes them: a pane outlives the process that made it (a tmux
// server named by the user goes on after tmux-mcp exits), and its shell,
// respawned later, still reads them from there. Launch says how to start
// a shell so that it reads them, without touching any file of the user's:
// bash with --init-file, zsh with ZDOTDIR pointing at a directory whose
// files put the user's ZDOTDIR back and read the user's files, fish with
// --init-command, which fish runs after its configuration.
//
// The marks alone (Snippet) are what a person adds to a remote shell's
// start-up file, so that a shell elsewhere marks its prompt too.
package shellinit

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/adapters/internal/proc"
)

var (
	//go:embed marks.bash
	marksBash []byte
	//go:embed marks.zsh
	marksZsh []byte
	//go:embed marks.fish
	marksFish []byte
	//go:embed init.bash
	initBash []byte
	//go:embed zsh/.zshenv
	zshenv []byte
	//go:embed zsh/.zprofile
	zprofile []byte
	//go:embed zsh/.zshrc
	zshrc []byte
	//go:embed zsh/.zlogin
	zlogin []byte
)

// Shell families with an integration.
const (
	Bash = "bash"
	Zsh  = "zsh"
	Fish = "fish"
)

// Shells lists the families Snippet and Launch know, in the order a
// person reads them.
var Shells = []string{Bash, Zsh, Fish}

// Snippet returns the marks for the shell family sh, as text to add at
// the end of that shell's start-up file (~/.bashrc, ~/.zshrc, or a file
// of its own in ~/.config/fish/conf.d); ok is false for a family that has
// none. The text is idempotent: read twice, it marks once.
func Snippet(sh string) (text []byte, ok bool) {
	switch sh {
	case Bash:
		return slices.Clone(marksBash), true
	case Zsh:
		return slices.Clone(marksZsh), true
	case Fish:
		return slices.Clone(marksFish), true
	}
	return nil, false
}

// files are the files of an installed directory, by their path in it.
func files() map[string][]byte {
	return map[string][]byte{
		"init.bash":     initBash,
		"marks.bash":    marksBash,
		"marks.zsh":     marksZsh,
		"marks.fish":    marksFish,
		"zsh/.zshenv":   zshenv,
		"zsh/.zprofile": zprofile,
		"zsh/.zshrc":    zshrc,
		"zsh/.zlogin":   zlogin,
	}
}

// version names the directory of this binary's files: a digest of them
// all, so that binaries with other files never share it, nor overwrite
// the files a running shell of another's reads.
func version() string {
	f := files()
	names := make([]string, 0, len(f))
	for name := range f {
		names = append(names, name)
	}
	slices.Sort(names)
	h := sha256.New()
	for _, name := range names {
		fmt.Fprintf(h, "%s\x00%d\x00", name, len(f[name]))
		h.Write(f[name])
	}
	return "v-" + hex.EncodeToString(h.Sum(nil))[:16]
}

// A Dir is an installed directory of the files.
type Dir struct{ path string }

// Path is the directory's absolute path.
func (d *Dir) Path() string { return d.path }

// DefaultBase is where Install puts the files when given no base: the
// user's cache directory (os.UserCacheDir, such as ~/.cache), under
// tmux-mcp/shell-integration.
func DefaultBase() (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("shell integration: %w", err)
	}
	return filepath.Join(cache, "tmux-mcp", "shell-integration"), nil
}

// Install writes the files into a directory under base (DefaultBase when
// empty) named by their digest, unless they are there already as they
// should be, and returns it. Every directory it makes is the user's alone
// (0700), every file readable by the user alone (0600), and each file is
// written whole before it takes its name, so that a shell starting
// meanwhile reads either the old file or the new one.
//
// Since a shell runs what these files say, Install refuses a directory
// that anyone else could have written to: base, and every directory on
// the way to the files, must be a directory (not a link) of this user's
// that neither group nor others may write.
func Install(base string) (*Dir, error) {
	if base == "" {
		b, err := DefaultBase()
		if err != nil {
			return nil, err
		}
		base = b
	}
	base, err := filepath.Abs(base)
	if err != nil {
		return nil, fmt.Errorf("shell integration: %w", err)
	}
	if err := os.MkdirAll(base, 0o700); err != nil {
		return nil, fmt.Errorf("shell integration: %w", err)
	}
	if err := private(base); err != nil {
		return nil, err
	}
	dir := filepath.Join(base, version())
	for _, d := range []string{dir, filepath.Join(dir, "zsh")} {
		if err := os.Mkdir(d, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("shell integration: %w", err)
		}
		if err := private(d); err != nil {
			return nil, err
		}
	}
	for name, content := range files() {
		if err := put(filepath.Join(dir, filepath.FromSlash(name)), content); err != nil {
			return nil, err
		}
	}
	return &Dir{path: dir}, nil
}

// private returns an error unless dir is a directory, not a link, of this
// user's that neither group nor others may write.
func private(dir string) error {
	fi, err := os.Lstat(dir)
	switch {
	case err != nil:
		return fmt.Errorf("shell integration: %w", err)
	case !fi.IsDir():
		return fmt.Errorf("shell integration: %s is not a directory", dir)
	case !proc.Mine(fi):
		return fmt.Errorf("shell integration: %s belongs to another user", dir)
	case fi.Mode().Perm()&0o022 != 0:
		return fmt.Errorf("shell integration: %s may be written by others (mode %v)", dir, fi.Mode().Perm())
	}
	return nil
}

// put makes path hold content, with mode 0600, unless it does already.
func put(path string, content []byte) error {
	if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() && proc.Mine(fi) && fi.Mode().Perm() == 0o600 {
		if have, err := os.ReadFile(path); err == nil && bytes.Equal(have, content) {
			return nil
		}
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".new-*")
	if err != nil {
		return fmt.Errorf("shell integration: %w", err)
	}
	_, err = f.Write(content)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o600)
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("shell integration: %w", err)
	}
	return nil
}

// Family returns the shell family of the shell at path (a name or path,
// such as /bin/bash, /usr/bin/zsh-5.9 or fish), and whether it has an
// integration.
func Family(path string) (string, bool) {
	name := filepath.Base(path)
	name = strings.TrimRight(name, "0123456789.")
	name = strings.TrimSuffix(name, "-")
	switch name {
	case Bash, Zsh, Fish:
		return name, true
	}
	return "", false
}

// A Start is how to start a shell with the marks: the program and its
// arguments, and environment variables (NAME=value) to set for it.
type Start struct {
	Argv []string
	Env  []string
}

// Launch returns how to start the shell at shell (an absolute path) as a
// login shell that reads the user's start-up files and adds the marks,
// and false for a shell with no integration. zdotdir is the ZDOTDIR the
// shell would have had, when hasZdotdir: a zsh is started with ZDOTDIR
// pointing into d, and its files put the user's back.
//
// bash cannot be both a login shell and told which file to read instead
// of ~/.bashrc: it starts as an interactive shell whose start-up file
// (init.bash) reads what a login bash reads. zsh and fish start with
// --login (-l).
func (d *Dir) Launch(shell, zdotdir string, hasZdotdir bool) (Start, bool) {
	family, ok := Family(shell)
	if !ok {
		return Start{}, false
	}
	switch family {
	case Bash:
		return Start{Argv: []string{shell, "--init-file", filepath.Join(d.path, "init.bash")}}, true
	case Zsh:
		s := Start{Argv: []string{shell, "-l"}, Env: []string{"ZDOTDIR=" + filepath.Join(d.path, "zsh")}}
		if hasZdotdir {
			s.Env = append(s.Env, "__TMUX_MCP_ZDOTDIR="+zdotdir)
		}
		return s, true
	default:
		return Start{Argv: []string{shell, "-l", "--init-command", "source " + fishQuote(filepath.Join(d.path, "marks.fish"))}}, true
	}
}

// fishQuote quotes s as one word for fish: in single quotes, where only
// a backslash and a single quote need one.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}
