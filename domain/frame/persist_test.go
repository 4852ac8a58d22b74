package frame

import (
	"strings"
	"testing"
)

// Options on paper: every option's frame is parsed back as written, and
// says what it does.

func TestAgentEnvironmentIsWhatTheFramesExport(t *testing.T) {
	if want := "export " + strings.Join(AgentEnvironment, " ") + "; "; envExport != want {
		t.Errorf("envExport = %q, want %q", envExport, want)
	}
	for _, v := range []string{"PAGER=cat", "GIT_PAGER=cat", "MANPAGER=cat", "SYSTEMD_PAGER=", "GIT_TERMINAL_PROMPT=0"} {
		if !strings.Contains(envExport, " "+v+" ") && !strings.Contains(envExport, " "+v+";") {
			t.Errorf("the agent's environment lacks %s", v)
		}
	}
}

func TestEveryOptionIsParsedBackAsWritten(t *testing.T) {
	for _, sh := range shells {
		for _, o := range []Options{{}, {AgentEnv: true}, {Persist: true}, {Persist: true, AgentEnv: true}} {
			c := testCommand(sh, "echo 'hi'\ncat <<EOF\nx\nEOF")
			c.Options = o
			files := testFiles(sh)
			line := c.Line(files)
			preview, f, unread, ok := ParseLine(sh, line)
			if !ok || f != files || unread != testIDs.Unread || preview != Preview(c.Text) {
				t.Errorf("%s %+v: ParseLine(%q) = %q, %+v, %q, %v", sh, o, line, preview, f, unread, ok)
			}
			gotOpts, ok := LineOptions(sh, line)
			wantLine, wantScript := o.Normalize(), o.Normalize()
			if c.NeedsTextFile() {
				wantScript = Options{}
			} else {
				wantLine = Options{}
			}
			if !ok || gotOpts != wantLine {
				t.Errorf("%s %+v: LineOptions = %+v, %v; want %+v", sh, o, gotOpts, ok, wantLine)
			}
			got, _, ok := ParseScript(sh, c.Script(files))
			if !ok || got.Options != wantScript {
				t.Errorf("%s %+v: ParseScript options = %+v, %v; want %+v", sh, o, got.Options, ok, wantScript)
			}
		}
	}
}

func TestOnlyTheDefaultFrameRunsTheCommandInAChildShell(t *testing.T) {
	for _, sh := range shells {
		c := testCommand(sh, "make")
		files := testFiles(sh)
		child := string(c.Script(files)) + c.Line(files)
		c.Persist = true
		own := string(c.Script(files)) + c.Line(files)
		if sh == ShellFish {
			if !strings.Contains(child, fishChild) || strings.Contains(own, "sh -c") || !strings.Contains(own, "&& source '"+files.Text+"'") {
				t.Errorf("fish: default line %q, persist line %q", c.Line(files), own)
			}
			continue
		}
		if !strings.Contains(child, "(trap 'exit 130' INT; eval ") || strings.Contains(own, "(trap") || !strings.Contains(own, "; eval 'make\n'; { __tmcp_s=$?;") {
			t.Errorf("%s: default script %q, persist script %q", sh, child, own)
		}
		c.Persist, c.AgentEnv = false, true
		if env := string(c.Script(files)) + c.Line(files); !strings.Contains(env, envExport) {
			t.Errorf("%s: AgentEnv frame %q does not export the agent's environment", sh, env)
		}
		c.Persist = true
		if env := string(c.Script(files)) + c.Line(files); strings.Contains(env, "PAGER") {
			t.Errorf("%s: a persisting frame %q changes the shell's environment", sh, env)
		}
	}
}

// Options in real shells.

func TestPersistedCommandChangesTheShellItRunsIn(t *testing.T) {
	for _, sh := range shellsUnderTest {
		t.Run(sh.program, func(t *testing.T) {
			dir := t.TempDir()
			command := "cd / && pwd; export TMCP_PROBE=set; TMCP_LOCAL=set; tmcp_fn() { echo fn; }; false"
			after := "\necho \"$PWD ${TMCP_PROBE:-unset} ${TMCP_LOCAL:-unset}\"; tmcp_fn"
			if sh.family == ShellFish {
				command = "cd /; and pwd; set -gx TMCP_PROBE set; set -g TMCP_LOCAL set; function tmcp_fn; echo fn; end; false"
				after = "\necho $PWD (set -q TMCP_PROBE; and echo set; or echo unset) (set -q TMCP_LOCAL; and echo set; or echo unset); tmcp_fn"
			}
			run := runFrameWith(t, sh, Options{Persist: true}, dir, "", command, after)
			if !run.ended || run.status != 1 || run.output != "/\n" {
				t.Fatalf("frame: ended %v, status %d, output %q; want true, 1, \"/\\n\"", run.ended, run.status, run.output)
			}
			if got := strings.TrimSpace(string(run.afterEnd)); got != "/ set set\nfn" {
				t.Errorf("after the frame the shell has %q, want %q", got, "/ set set\nfn")
			}
			if string(run.leftover) != "1\n" {
				t.Errorf("the script's file holds %q, want the status", run.leftover)
			}
		})
	}
}

func TestPersistedCommandKeepsTheFramesGuarantees(t *testing.T) {
	for _, sh := range shellsUnderTest {
		t.Run(sh.program, func(t *testing.T) {
			// A here-document on the last line, unicode, a status of
			// its own; set -u in the shell does not trouble the end.
			command := "set -u; printf 'h\\303\\251llo\\n'; cat <<EOF\nx  y\nEOF\n(exit 7)"
			want := "héllo\nx  y\n"
			if sh.family == ShellFish {
				command = "printf 'h\\303\\251llo\\n'; printf 'x  y\\n'; sh -c 'exit 7'"
			}
			run := runFrameWith(t, sh, Options{Persist: true}, t.TempDir(), "", command, "")
			if !run.ended || run.status != 7 || run.output != want || run.foreign {
				t.Errorf("frame: ended %v, status %d, output %q, foreign %v; want true, 7, %q, false", run.ended, run.status, run.output, run.foreign, want)
			}
		})
	}
}

func TestPersistedExitEndsThePOSIXShellAndFishsFile(t *testing.T) {
	for _, sh := range shellsUnderTest {
		t.Run(sh.program, func(t *testing.T) {
			run := runFrameWith(t, sh, Options{Persist: true}, t.TempDir(), "", "echo bye; exit 5", "\necho still-here")
			if sh.family == ShellFish {
				if !run.ended || run.status != 5 || !strings.Contains(string(run.afterEnd), "still-here") {
					t.Errorf("fish: ended %v, status %d, after %q; want its file ended with 5 and the shell going on", run.ended, run.status, run.afterEnd)
				}
				return
			}
			if run.ended || !run.started || strings.Contains(string(run.raw), "still-here") || !strings.Contains(run.output, "bye") {
				t.Errorf("ended %v, started %v, raw %q; want the shell gone after bye, no end", run.ended, run.started, run.raw)
			}
		})
	}
}

func TestPersistedXtraceStaysOnWithoutTracingTheEnd(t *testing.T) {
	for _, sh := range shellsUnderTest {
		if sh.family == ShellFish {
			continue // fish has no xtrace
		}
		t.Run(sh.program, func(t *testing.T) {
			run := runFrameWith(t, sh, Options{Persist: true}, t.TempDir(), "", "set -x; echo traced", "\necho after")
			// ksh traces to the shell's own stderr, whatever the frame
			// redirects: the end's first commands show, but never the
			// secret.
			traced := strings.Contains(run.output, "__tmcp") && sh.family != ShellKsh
			if !run.ended || run.status != 0 || traced || strings.Contains(run.output, testIDs.Secret) || !strings.Contains(run.output, "echo traced\ntraced\n") {
				t.Errorf("frame: ended %v, status %d, output %q; want the command's trace only", run.ended, run.status, run.output)
			}
			if after := string(run.afterEnd); !strings.Contains(after, "echo after") {
				t.Errorf("after the frame %q: xtrace is off again", after)
			}
		})
	}
}

func TestAgentEnvironmentIsTheChildShellsOnly(t *testing.T) {
	const probe = `echo "${PAGER-unset}|${GIT_PAGER-unset}|${MANPAGER-unset}|${SYSTEMD_PAGER-unset}|${GIT_TERMINAL_PROMPT-unset}"`
	for _, sh := range shellsUnderTest {
		t.Run(sh.program, func(t *testing.T) {
			setup, command, after := "unset PAGER GIT_PAGER MANPAGER SYSTEMD_PAGER GIT_TERMINAL_PROMPT", probe, "\n"+probe
			if sh.family == ShellFish {
				setup = "set -e PAGER GIT_PAGER MANPAGER SYSTEMD_PAGER GIT_TERMINAL_PROMPT"
				command = `sh -c '` + probe + `'`
				after = "\n" + command
			}
			const unset = "unset|unset|unset|unset|unset"
			for _, c := range []struct {
				o    Options
				want string
			}{
				{Options{AgentEnv: true}, "cat|cat|cat||0"},
				{Options{}, unset},
				{Options{AgentEnv: true, Persist: true}, unset},
			} {
				run := runFrameWith(t, sh, c.o, t.TempDir(), setup, command, after)
				if !run.ended || run.output != c.want+"\n" {
					t.Errorf("%+v: ended %v, output %q; want %q", c.o, run.ended, run.output, c.want)
				}
				if got := strings.TrimSpace(string(run.afterEnd)); got != unset {
					t.Errorf("%+v: the shell has %q after the frame, want its own %q", c.o, got, unset)
				}
			}
		})
	}
}
