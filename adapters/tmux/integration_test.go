package tmux

import (
	"maps"
	"slices"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/adapters/internal/shellinit"
)

func TestParseProbeReadsTheShellTheCommandAndTheEnvironment(t *testing.T) {
	out := "I" + sep + "/bin/zsh" + sep + "\nZDOTDIR=/g\nA=1\n-B\nZDOTDIR=/s\n-A\n"
	shell, command, env, ok := parseProbe(out, false)
	if !ok || shell != "/bin/zsh" || command != "" || !maps.Equal(env, map[string]string{"ZDOTDIR": "/s"}) {
		t.Errorf("parseProbe = %q %q %v %v", shell, command, env, ok)
	}
	shell, command, env, ok = parseProbe("/bin/bash\nexec zsh\nX=y=z\n", true)
	if !ok || shell != "/bin/bash" || command != "exec zsh" || env["X"] != "y=z" {
		t.Errorf("parseProbe global = %q %q %v %v", shell, command, env, ok)
	}
	if _, _, _, ok := parseProbe("garbage\n", false); ok {
		t.Error("parseProbe took a line that is no probe's")
	}
	if _, _, _, ok := parseProbe("/bin/bash\n", true); ok {
		t.Error("parseProbe took a global probe without the default command")
	}
}

func TestStartArgsEndTheOptionsBeforeTheShell(t *testing.T) {
	got := startArgs(shellinit.Start{Argv: []string{"/bin/zsh", "-l", "end;"}, Env: []string{"ZDOTDIR=/d"}})
	want := []string{"-e", "ZDOTDIR=/d", "--", "/bin/zsh", "-l", `end\;`}
	if !slices.Equal(got, want) {
		t.Errorf("startArgs = %q, want %q", got, want)
	}
}

func TestShellIntegrationIsTheEmbeddedSnippet(t *testing.T) {
	for _, sh := range ShellIntegrationShells() {
		text, ok := ShellIntegration(sh)
		want, _ := shellinit.Snippet(sh)
		if !ok || string(text) != string(want) {
			t.Errorf("ShellIntegration(%q) is not the snippet", sh)
		}
	}
	if _, ok := ShellIntegration("dash"); ok {
		t.Error("ShellIntegration(dash) has a snippet")
	}
}
