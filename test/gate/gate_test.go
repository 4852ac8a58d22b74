package gate

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
)

func TestRequiredIsWhatTMUX_MCP_REQUIRESaysOrCIsPrograms(t *testing.T) {
	for _, c := range []struct {
		require, ci, program string
		want                 bool
	}{
		{"", "", "tmux", false},
		{"", "false", "tmux", false},
		{"", "true", "tmux", true},
		{"", "true", "sshd", true},
		{"", "true", "npx", false}, // .ci/run does not install it
		{"ci", "", "zsh", true},
		{"ci", "", "npx", false},
		{"all", "", "npx", true},
		{"none", "true", "tmux", false},
		{"zsh,fish", "", "fish", true},
		{"zsh fish", "", "fish", true},
		{"zsh, npx", "", "npx", true},
		{"zsh,fish", "true", "tmux", false}, // named, the list is the whole list
		{"zshx", "", "zsh", false},
	} {
		t.Setenv("TMUX_MCP_REQUIRE", c.require)
		t.Setenv("CI", c.ci)
		if got := Required(c.program); got != c.want {
			t.Errorf("TMUX_MCP_REQUIRE=%q CI=%q: Required(%q) = %v, want %v", c.require, c.ci, c.program, got, c.want)
		}
	}
}

// ended is how a gate function ended a test: failed or skipped, and what
// it said.
type ended struct {
	testing.TB
	failed, skipped string
}

func (e *ended) Helper() {}

func (e *ended) Fatalf(format string, args ...any) {
	e.failed = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (e *ended) Skipf(format string, args ...any) {
	e.skipped = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// endOf runs f as a test would, and returns how it ended and what it
// returned.
func endOf(t *testing.T, f func(testing.TB) string) (*ended, string) {
	e := &ended{TB: t}
	var got string
	done := make(chan struct{})
	go func() {
		defer close(done)
		got = f(e)
	}()
	<-done
	return e, got
}

func TestNeedSkipsOrFailsWithoutTheProgram(t *testing.T) {
	const missing = "tmcp-no-such-program"
	need := func(tb testing.TB) string { return Need(tb, missing) }

	t.Setenv("CI", "")
	t.Setenv("TMUX_MCP_REQUIRE", "")
	if e, _ := endOf(t, need); e.failed != "" || !strings.Contains(e.skipped, missing+" is not installed") {
		t.Errorf("on a developer's machine: failed %q, skipped %q; want skipped, naming the program", e.failed, e.skipped)
	}
	t.Setenv("TMUX_MCP_REQUIRE", missing)
	if e, _ := endOf(t, need); e.skipped != "" || !strings.Contains(e.failed, missing+" is not installed") {
		t.Errorf("required: failed %q, skipped %q; want failed, naming the program", e.failed, e.skipped)
	}
	t.Setenv("TMUX_MCP_REQUIRE", "")
	t.Setenv("CI", "true")
	if e, _ := endOf(t, need); e.failed != "" || e.skipped == "" {
		t.Errorf("in CI, a program CI does not install: failed %q, skipped %q; want skipped", e.failed, e.skipped)
	}

	// Found, on PATH or where else it may be, the path is returned.
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if e, got := endOf(t, func(tb testing.TB) string { return Need(tb, missing, "/nonexistent/"+missing, self) }); got != self || e.failed+e.skipped != "" {
		t.Errorf("Need with the program elsewhere = %q (failed %q, skipped %q), want %s", got, e.failed, e.skipped, self)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, missing), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	if e, got := endOf(t, need); got != filepath.Join(dir, missing) || e.failed+e.skipped != "" {
		t.Errorf("Need with the program on PATH = %q (failed %q, skipped %q)", got, e.failed, e.skipped)
	}
}

// .ci/run installs every program that CI requires, and fails when it
// cannot: its checks and CIPrograms name the same programs, no install
// may fail quietly, and the tests run with TMUX_MCP_REQUIRE=ci.
func TestCIInstallsWhatTheGateRequires(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	script := string(b)
	var checked []string
	for _, m := range regexp.MustCompile(`(?m)^\s*(?:want (\S+) \S+|\{ command -v (\S+) )`).FindAllStringSubmatch(script, -1) {
		checked = append(checked, m[1]+m[2])
	}
	slices.Sort(checked)
	checked = slices.Compact(checked)
	want := slices.Sorted(slices.Values(CIPrograms))
	if !slices.Equal(checked, want) {
		t.Errorf(".ci/run checks for %q; gate.CIPrograms is %q: each program CI requires must be installed by it, and only those", checked, want)
	}
	if !strings.Contains(script, "\nset -euo pipefail\n") {
		t.Error(".ci/run does not stop at the first command that fails (set -euo pipefail)")
	}
	for _, line := range strings.Split(script, "\n") {
		if strings.Contains(line, "apt-get install") && strings.Contains(line, "||") {
			t.Errorf(".ci/run goes on when an install fails: %s", strings.TrimSpace(line))
		}
	}
	if !strings.Contains(script, "export TMUX_MCP_REQUIRE=\"${TMUX_MCP_REQUIRE:-ci}\"\nmake test") {
		t.Error(".ci/run does not run make test with TMUX_MCP_REQUIRE=ci")
	}
}
