package scripts

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

func TestPutWritesAPrivateScriptUnderAFreshPath(t *testing.T) {
	d, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var built string
	a, err := d.Put(func(path string) []byte { built = path; return []byte("echo " + path) })
	if err != nil {
		t.Fatal(err)
	}
	b, _ := d.Put(func(string) []byte { return []byte("b") })
	if a != built || a == b || filepath.Dir(a) != d.Path() {
		t.Errorf("paths %q, %q (built for %q) in %q", a, b, built, d.Path())
	}
	got, err := os.ReadFile(a)
	if err != nil || string(got) != "echo "+a {
		t.Errorf("script holds %q, %v", got, err)
	}
	for _, p := range []string{d.Path(), a} {
		fi, err := os.Stat(p)
		if err != nil || fi.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s: mode %v, %v; want nobody but the user", p, fi.Mode(), err)
		}
	}
}

func TestRemoveTellsWhetherTheShellEmptiedTheScript(t *testing.T) {
	d, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	untouched, _ := d.Put(func(string) []byte { return []byte("x") })
	taken, _ := d.Put(func(string) []byte { return []byte("y") })
	ended, _ := d.Put(func(string) []byte { return []byte("a long script") })
	if err := os.WriteFile(taken, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	// A script that ran writes its status there.
	if err := os.WriteFile(ended, []byte("0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, ok, err := d.Read(ended); !ok || err != nil || string(b) != "0\n" {
		t.Errorf("Read = %q, %v, %v", b, ok, err)
	}
	if _, ok, err := d.Read("/etc/passwd"); ok || err != nil {
		t.Errorf("Read outside the directory = %v, %v", ok, err)
	}
	for _, c := range []struct {
		path string
		want ports.ScriptState
	}{
		{untouched, ports.ScriptUntouched},
		{taken, ports.ScriptTaken},
		{taken, ports.ScriptUnknown},              // gone already
		{"/etc/passwd", ports.ScriptUnknown},      // not the Dir's: left alone
		{d.Path() + "/../x", ports.ScriptUnknown}, // nor is this
	} {
		if got, err := d.Remove(c.path); got != c.want || err != nil {
			t.Errorf("Remove(%s) = %v, %v; want %v", c.path, got, err, c.want)
		}
	}
	if _, err := os.Stat(untouched); !os.IsNotExist(err) {
		t.Errorf("the script is still there: %v", err)
	}
	if _, err := os.Stat("/etc/passwd"); err != nil {
		t.Errorf("Remove reached outside its directory: %v", err)
	}
}

func TestCloseRemovesEverythingAndRefusesMore(t *testing.T) {
	d, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	d.Put(func(string) []byte { return []byte("x") })
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(d.Path()); !os.IsNotExist(err) {
		t.Errorf("the directory survived Close: %v", err)
	}
	if _, err := d.Put(func(string) []byte { return nil }); err == nil {
		t.Error("Put after Close succeeded")
	}
	if err := d.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestOpenSweepsWhatDeadProcessesLeft(t *testing.T) {
	base := t.TempDir()
	// A pid that no process has: larger than any pid_max.
	dead := filepath.Join(base, prefix+"99999999-abc")
	live := filepath.Join(base, prefix+strconv.Itoa(os.Getppid())+"-abc")
	other := filepath.Join(base, "unrelated")
	for _, p := range []string{dead, live, other} {
		if err := os.Mkdir(p, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	d, err := Open(base)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("the dead process's directory is still there")
	}
	for _, p := range []string{live, other} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was swept: %v", p, err)
		}
	}
}
