package tty

import (
	"os"
	"path/filepath"
	"testing"
)

func TestProgramFromTakesTheExecutableAndNotTheName(t *testing.T) {
	const stat = "42 (bash) S 1 42 42 34816 42 4194560 0 0"
	for _, tt := range []struct {
		name, exe, stat, want string
	}{
		// exec -a bash python3 -i -q: the kernel runs python.
		{"a REPL named bash", "/usr/bin/python3.11", stat, "python3.11"},
		{"a shell", "/usr/bin/bash", stat, "bash"},
		{"/bin/sh, a link the kernel resolved", "/usr/bin/dash", "7 (sh) S 1 7 7 34816 7 0", "dash"},
		// A shell whose package was upgraded under it, or a program run
		// from memory: the deleted file's name is not trusted, the name
		// the kernel gave the process is.
		{"a deleted executable", "/usr/bin/bash (deleted)", stat, "bash"},
		{"a program run from memory", "/memfd:bash (deleted)", "9 (3) S 1 9 9 0 -1 0", "3"},
		// Another user's process (sudo -s): its exe cannot be read.
		{"an unreadable executable", "", stat, "bash"},
		{"a name with parentheses and spaces", "", "5 (a (b) c) R 1 5 5 0 -1 0", "a (b) c"},
		{"a zombie", "", "42 (bash) Z 1 42 42 34816 42 0", ""},
		{"a dead process", "", "42 (bash) X 1 42 42 34816 42 0", ""},
		{"nothing read", "", "", ""},
		{"a stat cut short", "", "42 (bash", ""},
		{"a stat with no state", "", "42 (bash)", ""},
	} {
		if got := ProgramFrom(tt.exe, tt.stat); got != tt.want {
			t.Errorf("%s: ProgramFrom(%q, %q) = %q, want %q", tt.name, tt.exe, tt.stat, got, tt.want)
		}
	}
}

func TestProgramOfThisProcessAndOfNone(t *testing.T) {
	if _, err := os.Stat("/proc/self/exe"); err != nil {
		t.Skip("no /proc")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		t.Fatal(err)
	}
	if got := Program(os.Getpid()); got != filepath.Base(exe) {
		t.Errorf("Program of this process = %q, want %q", got, filepath.Base(exe))
	}
	if got := Program(1 << 30); got != "" {
		t.Errorf("Program of no process = %q, want \"\"", got)
	}
	st, err := ReadStat(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if got := FrontProgram(os.Getpid(), st.TTYNr+1); got != "" {
		t.Errorf("FrontProgram through another terminal = %q, want \"\"", got)
	}
}
