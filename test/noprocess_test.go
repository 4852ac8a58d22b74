package test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/test/gate"
)

// `go test -short` is the unit tests alone: it needs nothing but Go and
// starts no process at all. This proves it rather than trusting every
// test to call gate.Real: each package's test binary runs under -short
// with strace watching, and any program it executes fails the test.
func TestShortTestsStartNoProcess(t *testing.T) {
	gate.Real(t, "the Go toolchain and strace")
	strace := gate.Need(t, "strace")
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}|{{.Dir}}|{{len .TestGoFiles}}{{len .XTestGoFiles}}",
		"github.com/tmux-mcp/tmux-mcp/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dir := t.TempDir()
	checked := 0
	for i, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "|")
		if len(f) != 3 || f[2] == "00" {
			continue
		}
		pkg, pkgDir := f[0], f[1]
		bin := filepath.Join(dir, fmt.Sprintf("p%d.test", i))
		if b, err := exec.Command("go", "test", "-c", "-o", bin, pkg).CombinedOutput(); err != nil {
			t.Fatalf("build the tests of %s: %v\n%s", pkg, err, b)
		}
		trace := bin + ".trace"
		run := exec.Command(strace, "-f", "-qq", "-e", "trace=execve", "-e", "signal=none", "-o", trace,
			bin, "-test.short", "-test.count=1")
		run.Dir = pkgDir
		if b, err := run.CombinedOutput(); err != nil {
			t.Errorf("%s: the unit tests failed under strace: %v\n%s", pkg, err, b)
			continue
		}
		for _, exe := range executed(t, trace) {
			if exe != bin {
				t.Errorf("%s: under -short the tests ran %s", pkg, exe)
			}
		}
		checked++
	}
	if checked < 10 {
		t.Fatalf("checked only %d packages; the proof would prove nothing", checked)
	}
}

// executed returns the program of every successful execve in an strace
// log.
func executed(t *testing.T, trace string) []string {
	t.Helper()
	b, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	var programs []string
	for _, line := range strings.Split(string(b), "\n") {
		_, call, ok := strings.Cut(line, "execve(\"")
		if !ok || !strings.HasSuffix(strings.TrimSpace(line), "= 0") {
			continue
		}
		program, _, _ := strings.Cut(call, "\"")
		programs = append(programs, program)
	}
	return programs
}
