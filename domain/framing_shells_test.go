//go:build shells

// These tests type frames into interactive shells (their standard input
// is a pipe, not a terminal, so they show prompts and, for bash, readline's
// echo, but no job control). Run them with: go test -tags shells ./domain/
package domain

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var interactiveShells = []shellUnderTest{
	{"bash", ShellBash, []string{"--norc", "--noprofile", "-i"}},
	{"dash", ShellSh, []string{"-i"}},
	{"zsh", ShellZsh, []string{"-f", "-i"}},
	{"mksh", ShellKsh, []string{"-i"}},
	{"fish", ShellFish, []string{"--no-config", "-i"}},
}

func TestFramesTypedIntoInteractiveShells(t *testing.T) {
	for _, sh := range interactiveShells {
		t.Run(sh.program, func(t *testing.T) {
			path, err := exec.LookPath(sh.program)
			if err != nil {
				t.Skipf("%s is not installed", sh.program)
			}
			home := t.TempDir()
			calls := []struct {
				id, command, output string
				status              int
			}{
				{"first", "echo 'hi!' # comment\nprintf 'a\\tb\\n'", "hi!\na\tb\n", 0},
				{"second", "echo two; exit 5", "two\n", 5},
				{"third", strings.Repeat("echo 'a line of a long command, 48 bytes long'\n", 2000),
					strings.Repeat("a line of a long command, 48 bytes long\n", 2000), 0},
			}
			var typed strings.Builder
			for _, c := range calls {
				typed.WriteString(Frame(sh.family, c.id, c.command) + "\n")
				typed.WriteString("echo between\n")
			}
			typed.WriteString("history\n")

			cmd := exec.Command(path, sh.args...)
			cmd.Dir = home
			cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "TERM=dumb", "HISTCONTROL=",
				"HISTFILE=" + filepath.Join(home, "history"), "XDG_CONFIG_HOME=" + home, "LC_ALL=C.UTF-8"}
			cmd.Stdin = strings.NewReader(typed.String())
			var raw bytes.Buffer
			cmd.Stdout, cmd.Stderr = &raw, &raw
			_ = cmd.Run() // some shells end with a status; the stream tells

			for _, c := range calls {
				var out bytes.Buffer
				norm := NewTextNormalizer(&out)
				sc := NewFrameScanner(c.id, norm)
				sc.Write(raw.Bytes())
				norm.Flush()
				status, ok := sc.Ended()
				if !ok || status != c.status || out.String() != c.output {
					t.Errorf("frame %s: ended %v, status %d, output %.80q; want true, %d, %.80q\nstream: %.2000q",
						c.id, ok, status, out.String(), c.status, c.output, raw.String())
				}
			}
			if sh.family == ShellBash {
				// HISTCONTROL is empty, so bash recorded each frame; the
				// frame deleted its own entry and nothing else.
				end := EndMarker("third", 0)
				after := raw.Bytes()[bytes.LastIndex(raw.Bytes(), end)+len(end):]
				if bytes.Contains(after, []byte("tmcp")) || !bytes.Contains(after, []byte("echo between")) {
					t.Errorf("history after the frames: %q; want the echo lines and no frame", after)
				}
			}
		})
	}
}
