package frame

import (
	"strings"
	"testing"
)

func TestAFarLineIsReadBackAsTheCommandItFrames(t *testing.T) {
	ids := IDs{ID: "f1", Secret: "s3cr3t", Unread: "u1"}
	texts := []string{"echo hi", "printf '%s\\n' \"it's\"", "cat <<'EOF'\nline one\nEOF", "echo ünïcode; exit 3"}
	for _, sh := range shells {
		for _, text := range texts {
			for _, o := range []Options{{}, {AgentEnv: true}} {
				c := Command{Shell: sh, IDs: ids, Text: text, Options: o}
				line := c.FarLine()
				if !strings.HasPrefix(line, Kill+" ") || !strings.HasSuffix(line, "\n") {
					t.Fatalf("%s: %q does not start with Kill and a space and end in a line feed", sh, line)
				}
				got, ok := ParseFarLine(sh, line)
				if !ok || got.ID != ids.ID || got.Secret != ids.Secret || got.Text != text || got.Options != o {
					t.Errorf("%s %+v: ParseFarLine(%q) = %+v, %v", sh, o, line, got, ok)
				}
				// No echo of the line is a marker: the escapes are typed as
				// text, and printf makes them at run time.
				if strings.Contains(line, "\x1b") || strings.Contains(line, "\a") {
					t.Errorf("%s: the typed line holds a marker's bytes: %q", sh, line)
				}
				for _, other := range shells {
					if other == sh {
						continue
					}
					if _, ok := ParseFarLine(other, line); ok {
						t.Errorf("a %s line is read as %s's", sh, other)
					}
				}
			}
		}
	}
}

func TestAFarLineIsNotReadFromWhatOnlyResemblesOne(t *testing.T) {
	c := Command{Shell: ShellBash, IDs: IDs{ID: "f1", Secret: "s2", Unread: "u1"}, Text: "echo hi"}
	line := c.FarLine()
	for _, bad := range []string{
		strings.Replace(line, "echo hi", "echo hi; rm -rf x", 1), // the preview no longer fits
		strings.Replace(line, "trap 'exit 130' INT; ", "", 1),
		line[:len(line)/2],
		"echo hi",
	} {
		if got, ok := ParseFarLine(ShellBash, bad); ok {
			t.Errorf("ParseFarLine(%q) = %+v, want not a far line", bad, got)
		}
	}
}

func TestAFarProbeHoldsNothingButItsMarkerAndTheFamilysTest(t *testing.T) {
	for _, sh := range shells {
		p := FarProbe(sh, "p1")
		if id, ok := ParseFarProbe(sh, p); !ok || id != "p1" {
			t.Errorf("%s: ParseFarProbe(%q) = %q, %v", sh, p, id, ok)
		}
		if strings.Count(p, "\n") != 1 || strings.Contains(p, "\x1b") {
			t.Errorf("%s: the probe is not one line of text: %q", sh, p)
		}
		if _, ok := ParseFarLine(sh, p); ok {
			t.Errorf("%s: a probe is read as a frame", sh)
		}
	}
	if FarProbe(ShellBash, "p1") == FarProbe(ShellZsh, "p1") {
		t.Error("bash's and zsh's probes are alike: a zsh would answer for a bash")
	}
}

func TestAFarFrameDoesNotPersist(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("FarLine with Persist did not panic")
		}
	}()
	Command{Shell: ShellBash, IDs: IDs{ID: "a", Secret: "b", Unread: "c"}, Text: "cd /", Options: Options{Persist: true}}.FarLine()
}
