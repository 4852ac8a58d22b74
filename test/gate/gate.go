// Package gate is the one switch between the unit tests and the tests
// that need the real machine: that start processes (a multiplexer, a
// shell, ssh, make, the Go toolchain, the built binary) or wait on the
// wall clock. Under `go test -short` none of the latter runs, so that the
// unit tests need nothing but Go and finish in seconds. Every such test
// calls Real before it starts anything; the architecture test checks that
// nothing else reads testing.Short, and TestShortTestsStartNoProcess
// traces every test binary under -short to prove that none starts a
// process.
//
// It is also the one place that decides what a test does when a program it
// needs is not installed (Need, Missing): on a developer's machine it
// skips, saying so; where the program is required (Required: in CI, every
// program that .ci/run installs) it fails, so that a package that did not
// install cannot pass for tests that passed.
package gate

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// Real skips the test under -short, saying what it needs.
func Real(t testing.TB, what string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("needs the real machine (%s): not under -short", what)
	}
}

// CIPrograms are the programs that .ci/run makes sure of, installing the
// Debian package of each that is missing: in CI every test that needs one
// fails without it (TestCIInstallsWhatTheGateRequires keeps the two lists
// the same).
var CIPrograms = []string{
	"tmux", "zsh", "fish", "mksh", "dash", // the shells the framing supports
	"screen",                    // the second backend
	"ssh", "ssh-keygen", "sshd", // -ssh, against a private sshd
	"strace",                    // proof that -short starts no process
	"script", "unshare", "make", // a client's terminal, sshd as root, make build
	"python3", "less", "vi", "sudo", // programs that ask on their terminal (awaiting input)
}

// Required reports whether a test that needs program must fail, not
// skip, when it is missing. TMUX_MCP_REQUIRE decides: a list, separated by
// commas or blanks, of programs and of "ci" (CIPrograms) or "all" (every
// program). Unset or empty, it is "ci" in CI (CI=true, as CI services set
// it) and nothing elsewhere; .ci/run sets "ci" itself.
func Required(program string) bool {
	req := os.Getenv("TMUX_MCP_REQUIRE")
	if req == "" && os.Getenv("CI") == "true" {
		req = "ci"
	}
	for _, name := range strings.FieldsFunc(req, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
		if name == program || name == "all" || (name == "ci" && slices.Contains(CIPrograms, program)) {
			return true
		}
	}
	return false
}

// Need returns the path of program, for a test that runs it: found on
// PATH, or else the first of elsewhere that exists (sshd lives in
// /usr/sbin, which a user's PATH may lack). Without it, Missing ends the
// test.
func Need(t testing.TB, program string, elsewhere ...string) string {
	t.Helper()
	if path, err := exec.LookPath(program); err == nil {
		return path
	}
	for _, p := range elsewhere {
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p
		}
	}
	Missing(t, program, program+" is not installed")
	return ""
}

// Missing ends a test that cannot run because program is missing or
// unusable, saying why: it skips, or fails where program is Required.
func Missing(t testing.TB, program, why string) {
	t.Helper()
	if Required(program) {
		t.Fatalf("%s; this machine must have %s (TMUX_MCP_REQUIRE=%q, CI=%q): install it, or see .ci/run",
			why, program, os.Getenv("TMUX_MCP_REQUIRE"), os.Getenv("CI"))
	}
	t.Skipf("%s (set TMUX_MCP_REQUIRE=%s to fail instead)", why, program)
}
