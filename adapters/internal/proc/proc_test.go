package proc

import (
	"os"
	"path/filepath"
	"testing"
)

func TestThisProcessRunsAndAPidBeyondAnyLimitDoesNot(t *testing.T) {
	if !Runs(os.Getpid()) {
		t.Error("this process does not run, says Runs")
	}
	// Linux's pid_max is at most 2^22; no process has a pid above it.
	if Runs(1 << 30) {
		t.Error("pid 2^30 runs, says Runs")
	}
}

func TestAFileThisProcessMadeIsMine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if !Mine(fi) {
		t.Error("a file this process made is not its user's, says Mine")
	}
}
