package scripts

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// shellRuns does to the script at path what a supported shell does with
// it: opens it and reads it, then empties it by name (": >|path").
func shellRuns(t *testing.T, path string) {
	t.Helper()
	if _, err := os.ReadFile(path); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
}

func openDir(t *testing.T, base string) *Dir {
	t.Helper()
	d, err := Open(base)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func exposed(t *testing.T, d *Dir, path string) bool {
	t.Helper()
	e, err := d.Exposed(path)
	if err != nil {
		t.Fatalf("Exposed(%s): %v", path, err)
	}
	return e
}

func bases(t *testing.T) []string {
	b := []string{t.TempDir()} // a disk's file system
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		b = append(b, "/dev/shm")
	}
	return b
}

func TestTheShellAloneReadingAScriptDoesNotExposeIt(t *testing.T) {
	for _, base := range bases(t) {
		d := openDir(t, base)
		p, err := d.Put(func(string) []byte { return []byte("secret") })
		if err != nil {
			t.Fatal(err)
		}
		if exposed(t, d, p) {
			t.Errorf("%s: a script nobody read is exposed", base)
		}
		// The server reads it back, before and after the shell ran it.
		if b, ok, err := d.Read(p); !ok || err != nil || string(b) != "secret" {
			t.Fatalf("Read = %q, %v, %v", b, ok, err)
		}
		shellRuns(t, p)
		if b, ok, err := d.Read(p); !ok || err != nil || len(b) != 0 {
			t.Fatalf("Read after the shell emptied it = %q, %v, %v", b, ok, err)
		}
		// Once emptied, nothing secret is left to read.
		if _, err := os.ReadFile(p); err != nil {
			t.Fatal(err)
		}
		if exposed(t, d, p) {
			t.Errorf("%s: the shell's own reads expose the script", base)
		}
	}
}

func TestAnotherReaderBeforeTheShellExposesTheScript(t *testing.T) {
	for _, base := range bases(t) {
		d := openDir(t, base)
		before, _ := d.Put(func(string) []byte { return []byte("a") })
		after, _ := d.Put(func(string) []byte { return []byte("b") })
		// Something reads the first before the shell does, the second
		// while the shell has read it but not yet emptied it.
		if _, err := os.ReadFile(before); err != nil {
			t.Fatal(err)
		}
		shellRuns(t, before)
		if _, err := os.ReadFile(after); err != nil {
			t.Fatal(err)
		}
		shellRuns(t, after)
		for _, p := range []string{before, after} {
			if !exposed(t, d, p) {
				t.Errorf("%s: a script read by two processes is not exposed", base)
			}
		}
	}
}

func TestAReaderThroughTheServersOwnFileExposesTheScript(t *testing.T) {
	for _, base := range bases(t) {
		d := openDir(t, base)
		p, _ := d.Put(func(string) []byte { return []byte("a") })
		d.mu.Lock()
		fd := d.put[p].file.Fd()
		d.mu.Unlock()
		// Another process of the user may open /proc/PID/fd/N of this one.
		if _, err := os.ReadFile("/proc/self/fd/" + strconv.Itoa(int(fd))); err != nil {
			t.Fatal(err)
		}
		if !exposed(t, d, p) {
			t.Errorf("%s: a script read through the server's own descriptor is not exposed", base)
		}
	}
}

func TestChangingTheDirectoryExposesItsScriptsAndMovesOn(t *testing.T) {
	d := openDir(t, t.TempDir())
	live, _ := d.Put(func(string) []byte { return []byte("a") })
	done, _ := d.Put(func(string) []byte { return []byte("b") })
	shellRuns(t, done)
	first := d.Path()
	// To list or watch it, another process of the user must give it
	// read permission first.
	if err := os.Chmod(first, 0o700); err != nil {
		t.Fatal(err)
	}
	if !exposed(t, d, live) {
		t.Error("a script in a directory that was changed is not exposed")
	}
	if exposed(t, d, done) {
		t.Error("a script the shell had emptied before the change is exposed")
	}
	next, err := d.Put(func(string) []byte { return []byte("c") })
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(next) == first {
		t.Errorf("the next script went into the changed directory %s", first)
	}
	if exposed(t, d, next) {
		t.Error("a script in the new directory is exposed")
	}
	// Scripts of the old directory are still the Dir's.
	if st, err := d.Remove(live); err != nil || st != ports.ScriptUntouched {
		t.Errorf("Remove(old) = %v, %v", st, err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{first, filepath.Dir(next)} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s survived Close: %v", p, err)
		}
	}
}

func TestListingTheDirectoryExposesItsScripts(t *testing.T) {
	d := openDir(t, t.TempDir())
	p, _ := d.Put(func(string) []byte { return []byte("a") })
	// Root (or anyone, after a chmod) may list it.
	f, err := os.Open(d.Path())
	if err != nil {
		t.Skipf("cannot list the directory as this user: %v", err)
	}
	f.Close()
	if !exposed(t, d, p) {
		t.Error("a script in a directory that was listed is not exposed")
	}
}

func TestTheDirectoryCannotBeListed(t *testing.T) {
	d := openDir(t, t.TempDir())
	fi, err := os.Stat(d.Path())
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != dirMode {
		t.Errorf("mode %v, want %v", fi.Mode().Perm(), os.FileMode(dirMode))
	}
}
