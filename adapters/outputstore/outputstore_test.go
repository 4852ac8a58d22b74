package outputstore_test

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/adapters/outputstore"
	"github.com/tmux-mcp/tmux-mcp/ports"
	"github.com/tmux-mcp/tmux-mcp/test/contract"
)

func open(t *testing.T, base string) *outputstore.Dir {
	t.Helper()
	d, err := outputstore.Open(base)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// The directory of files passes the suite every OutputStore passes.
func TestContract(t *testing.T) {
	contract.RunOutputStore(t, func(t *testing.T) ports.OutputStore { return open(t, t.TempDir()) })
}

// Only the user may enter the directory or read a run's file.
func TestPrivate(t *testing.T) {
	base := filepath.Join(t.TempDir(), "state", "tmux-mcp", "runs")
	d := open(t, base)
	for path, want := range map[string]os.FileMode{base: 0o700, d.Path(): 0o700} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s has mode %o, want %o", path, got, want)
		}
	}
	w, err := d.Create("abc123")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	fi, err := os.Stat(filepath.Join(d.Path(), "abc123"))
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != 0o600 {
		t.Errorf("a run's file has mode %o, want 600", got)
	}
	if filepath.Dir(d.Path()) != base {
		t.Errorf("the directory %s is not under %s", d.Path(), base)
	}
}

// Close removes everything the store holds.
func TestCloseRemovesTheDirectory(t *testing.T) {
	d := open(t, t.TempDir())
	w, err := d.Create("abc")
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("x\n"))
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(d.Path()); !os.IsNotExist(err) {
		t.Errorf("after Close the directory is still there: %v", err)
	}
	if _, err := d.Create("def"); err == nil {
		t.Error("Create after Close succeeded")
	}
	if err := d.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}
}

// A directory a process that no longer runs left behind is removed by
// the next Open; those of running processes, and other names, stay.
func TestOpenSweepsWhatDeadProcessesLeft(t *testing.T) {
	base := t.TempDir()
	// No process has a pid past Linux's and the BSDs' limits.
	dead := filepath.Join(base, strconv.Itoa(1<<31-1)+"-x1")
	alive := filepath.Join(base, strconv.Itoa(os.Getppid())+"-x2")
	other := filepath.Join(base, "notes")
	for _, dir := range []string{dead, alive, other} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "f"), []byte("x"), 0o600)
	}
	open(t, base)
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("the directory of a dead process stayed: %v", err)
	}
	for _, dir := range []string{alive, other} {
		if _, err := os.Stat(dir); err != nil {
			t.Errorf("%s was removed: %v", dir, err)
		}
	}
}

// The default base is the user's state directory.
func TestDefaultBase(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "/srv/state")
	if got, want := outputstore.DefaultBase(), "/srv/state/tmux-mcp/runs"; got != want {
		t.Errorf("DefaultBase() = %s, want %s", got, want)
	}
	t.Setenv("XDG_STATE_HOME", "relative/is/ignored")
	t.Setenv("HOME", "/home/someone")
	if got, want := outputstore.DefaultBase(), "/home/someone/.local/state/tmux-mcp/runs"; got != want {
		t.Errorf("DefaultBase() = %s, want %s", got, want)
	}
}

// A base that is a file is refused.
func TestOpenRefusesAFileAsBase(t *testing.T) {
	f := filepath.Join(t.TempDir(), "file")
	os.WriteFile(f, nil, 0o600)
	if _, err := outputstore.Open(f); err == nil {
		t.Error("Open on a file succeeded")
	}
}
