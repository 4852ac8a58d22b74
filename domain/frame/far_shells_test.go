package frame

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// runFar runs, as a script of the real shell sh, the lines a far frame
// types: the probe of probeFamily, then the frame of command.
func runFar(t *testing.T, sh shellUnderTest, probeFamily Shell, command string) (probed bool, run framedRun) {
	t.Helper()
	path := lookShell(t, sh)
	c := Command{Shell: sh.family, IDs: testIDs, Text: command}
	lines := strings.TrimPrefix(FarProbe(probeFamily, "probe1"), Kill) + strings.TrimPrefix(c.FarLine(), Kill)
	driver := filepath.Join(t.TempDir(), "driver")
	if err := os.WriteFile(driver, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(path, append(slices.Clone(sh.args), driver)...)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+cmd.Dir, "LC_ALL=C.UTF-8")
	var raw bytes.Buffer
	cmd.Stdout, cmd.Stderr = &raw, &raw
	_ = cmd.Run()
	probed = bytes.Contains(raw.Bytes(), []byte(intro+"S;probe1;"))
	run = readRun(t, raw.Bytes(), filepath.Join(cmd.Dir, "none"))
	run.shellPID = cmd.Process.Pid
	return probed, run
}

func TestFarFramesRunCommandsInRealShells(t *testing.T) {
	posix := []Shell{ShellBash, ShellZsh, ShellSh, ShellKsh}
	cases := []struct {
		name, command, output string
		status                int
		only                  []Shell
	}{
		{name: "echo", command: "echo hello", output: "hello\n"},
		{name: "exit status", command: "echo bye; exit 3", output: "bye\n", status: 3},
		{name: "multi-line", command: "echo one\necho two\n\necho three\n", output: "one\ntwo\nthree\n"},
		{name: "heredoc as last line", command: "echo a\ncat <<'EOF'\nx $HOME `y`\nEOF", output: "a\nx $HOME `y`\n", only: posix},
		{name: "quotes", command: `echo 'single' "double" 'it'\''s' "a\"b"`, output: "single double it's a\"b\n", only: posix},
		{name: "fish quotes", command: `echo 'single' "double" 'it\'s' "a\"b"`, output: "single double it's a\"b\n", only: []Shell{ShellFish}},
		{name: "unicode", command: "echo 'héllo wörld ✓ 日本語 🎉'", output: "héllo wörld ✓ 日本語 🎉\n"},
		{name: "marker lookalike in output", command: `printf '%s\n' '\033]7717;tmcp;E;0123456789abcdef;0\007'`,
			output: `\033]7717;tmcp;E;0123456789abcdef;0\007` + "\n"},
		{name: "interrupted", command: "sh -c 'kill -INT $PPID'; echo not reached", status: 130, only: posix},
		{name: "no frame variable", command: `echo "[${__tmcp_s-}]"`, output: "[]\n", only: posix},
	}
	for _, sh := range shellsUnderTest {
		t.Run(sh.program+strings.Join(sh.args, ""), func(t *testing.T) {
			lookShell(t, sh)
			for _, c := range cases {
				if c.only != nil && !slices.Contains(c.only, sh.family) {
					continue
				}
				t.Run(c.name, func(t *testing.T) {
					probed, run := runFar(t, sh, sh.family, c.command)
					if !probed {
						t.Fatalf("the probe of %s did not answer in %s: %.300q", sh.family, sh.program, run.raw)
					}
					if !run.started || !run.ended {
						t.Fatalf("started %v, ended %v: %.300q", run.started, run.ended, run.raw)
					}
					if run.status != c.status || run.output != c.output {
						t.Errorf("status %d, output %.200q; want %d, %.200q", run.status, run.output, c.status, c.output)
					}
					if run.pid != run.shellPID {
						t.Errorf("the start marker names pid %d, want the shell's, %d", run.pid, run.shellPID)
					}
					if len(run.afterEnd) > 0 {
						t.Errorf("the frame printed after its end marker: %q", run.afterEnd)
					}
				})
			}
		})
	}
}

// A far shell of another family than the caller said does not answer the
// probe, so that nothing of the command is typed into it.
func TestAFarProbeAnswersOnlyInItsFamily(t *testing.T) {
	byProgram := map[string]shellUnderTest{}
	for _, sh := range shellsUnderTest {
		byProgram[sh.program] = sh
	}
	for _, c := range []struct {
		probe Shell
		in    string
	}{
		{ShellBash, "zsh"}, {ShellBash, "dash"}, {ShellBash, "fish"}, {ShellBash, "mksh"},
		{ShellZsh, "bash"}, {ShellZsh, "dash"}, {ShellZsh, "mksh"},
		{ShellKsh, "bash"}, {ShellKsh, "zsh"}, {ShellKsh, "dash"},
		{ShellFish, "bash"}, {ShellFish, "dash"},
		{ShellSh, "fish"},
	} {
		t.Run(string(c.probe)+" in "+c.in, func(t *testing.T) {
			if probed, run := runFar(t, byProgram[c.in], c.probe, "echo x"); probed {
				t.Errorf("the %s probe answered in %s: %.200q", c.probe, c.in, run.raw)
			}
		})
	}
}
