package shellinit

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestSnippetsAreEmbeddedAndMarkAllFour(t *testing.T) {
	for _, sh := range Shells {
		text, ok := Snippet(sh)
		if !ok || len(text) == 0 {
			t.Fatalf("Snippet(%q) = %d bytes, %v", sh, len(text), ok)
		}
		for _, m := range []string{"133;A", "133;B", "133;C", "133;D;"} {
			if !bytes.Contains(text, []byte(m)) {
				t.Errorf("the %s snippet has no %s mark", sh, m)
			}
		}
		if !bytes.Contains(text, []byte("__tmux_mcp_marks")) {
			t.Errorf("the %s snippet has no guard against a second reading", sh)
		}
	}
	for _, sh := range []string{"", "sh", "dash", "ksh", "Bash"} {
		if _, ok := Snippet(sh); ok {
			t.Errorf("Snippet(%q) has a snippet", sh)
		}
	}
}

func TestInstallWritesThePrivateFilesOnceAndRefusesAnOpenDirectory(t *testing.T) {
	base := filepath.Join(t.TempDir(), "a", "b")
	d, err := Install(base)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(d.Path()) != base || !strings.HasPrefix(filepath.Base(d.Path()), "v-") {
		t.Errorf("Path = %s, want a version under %s", d.Path(), base)
	}
	for name, want := range files() {
		p := filepath.Join(d.Path(), name)
		fi, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v, want 0600", name, fi.Mode().Perm())
		}
		if got, _ := os.ReadFile(p); !bytes.Equal(got, want) {
			t.Errorf("%s does not hold the embedded file", name)
		}
	}
	for _, dir := range []string{base, d.Path(), filepath.Join(d.Path(), "zsh")} {
		if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
			t.Errorf("%s has mode %v, want 0700", dir, fi.Mode().Perm())
		}
	}
	// A file changed since is put back; the rest stay.
	os.WriteFile(filepath.Join(d.Path(), "marks.bash"), []byte("echo evil\n"), 0o600)
	if _, err := Install(base); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(d.Path(), "marks.bash")); !bytes.Equal(got, marksBash) {
		t.Errorf("Install again left a changed file: %q", got)
	}
	if left, _ := filepath.Glob(filepath.Join(d.Path(), ".new-*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}

	open := filepath.Join(t.TempDir(), "open")
	os.Mkdir(open, 0o700)
	os.Chmod(open, 0o777)
	if _, err := Install(open); err == nil || !strings.Contains(err.Error(), "written by others") {
		t.Errorf("Install into a directory others may write = %v; want a refusal", err)
	}
	link := filepath.Join(t.TempDir(), "link")
	os.Symlink(base, link)
	if _, err := Install(link); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("Install through a link = %v; want a refusal", err)
	}
}

func TestVersionChangesWithAnyFile(t *testing.T) {
	v := version()
	old := marksZsh
	t.Cleanup(func() { marksZsh = old })
	marksZsh = append(slices.Clone(old), '\n')
	if version() == v {
		t.Error("the version did not change with marks.zsh")
	}
}

func TestLaunchStartsEachShellWithItsFilesAndNoOther(t *testing.T) {
	d := &Dir{path: "/x/it's"}
	cases := []struct {
		shell         string
		zdotdir       string
		has           bool
		argv, env     []string
		noIntegration bool
	}{
		{shell: "/bin/bash", argv: []string{"/bin/bash", "--init-file", "/x/it's/init.bash"}},
		{shell: "/usr/local/bin/bash5.2", argv: []string{"/usr/local/bin/bash5.2", "--init-file", "/x/it's/init.bash"}},
		{shell: "/bin/zsh", argv: []string{"/bin/zsh", "-l"}, env: []string{"ZDOTDIR=/x/it's/zsh"}},
		{shell: "/bin/zsh-5.9", zdotdir: "/home/u/.config/zsh", has: true, argv: []string{"/bin/zsh-5.9", "-l"},
			env: []string{"ZDOTDIR=/x/it's/zsh", "__TMUX_MCP_ZDOTDIR=/home/u/.config/zsh"}},
		{shell: "/bin/zsh", has: true, argv: []string{"/bin/zsh", "-l"}, env: []string{"ZDOTDIR=/x/it's/zsh", "__TMUX_MCP_ZDOTDIR="}},
		{shell: "/usr/bin/fish", argv: []string{"/usr/bin/fish", "-l", "--init-command", `source '/x/it\'s/marks.fish'`}},
		{shell: "/bin/sh", noIntegration: true},
		{shell: "/bin/dash", noIntegration: true},
		{shell: "/usr/bin/bashful", noIntegration: true},
	}
	for _, c := range cases {
		s, ok := d.Launch(c.shell, c.zdotdir, c.has)
		if ok == c.noIntegration || !slices.Equal(s.Argv, c.argv) || !slices.Equal(s.Env, c.env) {
			t.Errorf("Launch(%q, %q, %v) = %q %q %v; want %q %q", c.shell, c.zdotdir, c.has, s.Argv, s.Env, ok, c.argv, c.env)
		}
	}
}

func TestFishQuoteKeepsBackslashesAndQuotes(t *testing.T) {
	for in, want := range map[string]string{`a b`: `'a b'`, `it's`: `'it\'s'`, `a\b`: `'a\\b'`, `$x`: `'$x'`} {
		if got := fishQuote(in); got != want {
			t.Errorf("fishQuote(%q) = %s, want %s", in, got, want)
		}
	}
}
