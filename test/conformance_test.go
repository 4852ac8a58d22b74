package test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/test/gate"
)

// test/conformance/run.sh, the last step of make test, where the machine
// cannot give it the suite: a clone's make test must pass offline, and say
// why the suite did not run, but must not hide a suite that breaks.

// runConformance runs run.sh on the built binary with env added to a clean
// environment, and returns its output and exit code.
func runConformance(t *testing.T, env ...string) (string, int) {
	t.Helper()
	cmd := exec.Command("sh", filepath.Join("conformance", "run.sh"), serverBinary(t))
	cmd.Env = append(cleanEnv(os.Environ()), env...)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return string(out), exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return string(out), 0
}

// toolDir returns a directory holding links to the named programs from
// PATH (those that exist) and the given scripts, to be the whole PATH.
func toolDir(t *testing.T, programs []string, scripts map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for _, p := range programs {
		if path, err := exec.LookPath(p); err == nil {
			if err := os.Symlink(path, filepath.Join(dir, p)); err != nil {
				t.Fatal(err)
			}
		}
	}
	for name, body := range scripts {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

var shellTools = []string{"sh", "mktemp", "rm", "grep", "sed", "cat", "head", "tail", "sleep", "kill", "timeout"}

func TestConformanceIsSkippedWhenNoRegistryAnswers(t *testing.T) {
	t.Parallel()
	gate.Need(t, "npx")
	out, code := runConformance(t, "npm_config_registry=http://127.0.0.1:9", "CONFORMANCE_FETCH_TIMEOUT=30")
	if code != 0 || !strings.Contains(out, "SKIPPED") || !strings.Contains(out, "http://127.0.0.1:9") {
		t.Errorf("run.sh with an unreachable registry exited %d:\n%s\nwant it to pass, saying it skipped the suite and why", code, out)
	}
}

func TestConformanceIsSkippedWithoutNpx(t *testing.T) {
	t.Parallel()
	out, code := runConformance(t, "PATH="+toolDir(t, shellTools, nil))
	if code != 0 || !strings.Contains(out, "SKIPPED: npx is not installed") {
		t.Errorf("run.sh without npx exited %d:\n%s\nwant it to pass, saying npx is missing", code, out)
	}
}

func TestConformanceFailsWhenTheSuiteCannotStartForAnotherReason(t *testing.T) {
	t.Parallel()
	path := toolDir(t, shellTools, map[string]string{
		"npx": "echo 'npm error code EACCES' >&2\necho 'npm error permission denied, mkdir /root/.npm' >&2\nexit 1\n",
		"npm": "exit 1\n",
	})
	out, code := runConformance(t, "PATH="+path)
	if code != 1 || !strings.Contains(out, "EACCES") || strings.Contains(out, "SKIPPED") {
		t.Errorf("run.sh with an npx that fails for want of permissions exited %d:\n%s\nwant it to fail and show why", code, out)
	}
}

func TestConformanceIsSkippedWhenTheRegistryCannotBeReached(t *testing.T) {
	t.Parallel()
	// An npx that fails as npm does when the network is down.
	path := toolDir(t, shellTools, map[string]string{
		"npx": "echo 'npm error code ENOTFOUND' >&2\necho 'npm error network request to https://registry.npmjs.org/node failed' >&2\nexit 1\n",
		"npm": "echo https://registry.npmjs.org/\n",
	})
	out, code := runConformance(t, "PATH="+path)
	if code != 0 || !strings.Contains(out, "SKIPPED") || !strings.Contains(out, "ENOTFOUND") {
		t.Errorf("run.sh offline exited %d:\n%s\nwant it to pass, saying it skipped the suite and why", code, out)
	}
}
