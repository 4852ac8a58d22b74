package input_test

import (
	"testing"

	"github.com/tmux-mcp/tmux-mcp/domain/input"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

func TestWhatACommandThatReadsItsTerminalAsksFor(t *testing.T) {
	line := ports.Reading{Blocked: true, Echo: true, Canonical: true}
	secret := ports.Reading{Blocked: true, Canonical: true}
	raw := func(program, command string) ports.Reading {
		return ports.Reading{Blocked: true, Echo: false, Program: program, Command: command}
	}
	for _, c := range []struct {
		name   string
		r      ports.Reading
		prompt string
		want   input.Kind
	}{
		{"read -s: echo off, a line at a time", secret, "Password: ", input.Secret},
		{"a secret's prompt may look like a question", secret, "Overwrite key (y/n)? ", input.Secret},
		{"ssh's passphrase, by the mode alone", secret, "", input.Secret},
		{"read -p with a y/N question", line, "Continue? [y/N] ", input.Confirm},
		{"apt's question", line, "Do you want to continue? [Y/n] ", input.Confirm},
		{"(yes/no)", line, "Are you sure you want to continue connecting (yes/no/[fingerprint])? ", input.Confirm},
		{"y/n?", line, "Proceed y/n?", input.Confirm},
		{"a plain line", line, "Name: ", input.Line},
		{"python3 -c input() reads a line", ports.Reading{Blocked: true, Echo: true, Canonical: true, Program: "python3.11"}, "", input.Line},
		{"a word holding y and n is no question", line, "yarn/npm: ", input.Line},
		{"less", raw("less", "less"), ":", input.Pager},
		{"man's pager, by its name", raw("", "man"), "Manual page ls(1) line 1", input.Pager},
		{"vim as Debian installs it", raw("vim.basic", "vi"), "~", input.Editor},
		{"nano", raw("nano", "nano"), "^G Help", input.Editor},
		{"an editor's y/n stays an editor", raw("nvim", "nvim"), "Save changes (y/n)?", input.Editor},
		{"python with readline", raw("python3.11", "python3"), ">>> ", input.REPL},
		{"irb, by the name it was started under", raw("ruby3.1", "irb"), "irb(main):001:0> ", input.REPL},
		{"psql", raw("psql", "psql"), "postgres=# ", input.REPL},
		{"sqlite3", raw("sqlite3", "sqlite3"), "sqlite> ", input.REPL},
		{"a shell's line editor", raw("bash", "bash"), "$ ", input.REPL},
		{"read -n 1 with a question", raw("bash", "bash"), "Really? [y/N]", input.Confirm},
		{"sudo reads its password a key at a time", raw("sudo", "sudo"), "[sudo] password for me:", input.Secret},
		{"a raw read whose prompt asks for a password", raw("", ""), "Enter PIN: ", input.Secret},
		{"a REPL's echo off is no secret", raw("python3.11", "python3"), ">>> ", input.REPL},
		{"a program not told apart", raw("htop", "htop"), "F10Quit", input.Unknown},
		{"nothing known", raw("", ""), "", input.Unknown},
	} {
		if got := input.Classify(c.r, c.prompt); got != c.want {
			t.Errorf("%s: Classify(%+v, %q) = %s, want %s", c.name, c.r, c.prompt, got, c.want)
		}
	}
}

func TestAProgramsBaseNameDropsItsVersionAndVariant(t *testing.T) {
	for in, want := range map[string]string{
		"python3.11": "python", "python3": "python", "vim.basic": "vim", "vim.tiny": "vim", "lua5.4": "lua",
		"sqlite3": "sqlite", "/usr/bin/less": "less", "-bash": "bash", "ghc-9.4.7": "ghc", "R": "R",
		"node": "node", "redis-cli": "redis-cli", "": "",
		// A name's first character is never cut: a directory's slash
		// is, a leading dot or digit is not.
		"/bash": "bash", ".hidden": ".hidden", "7z": "7z",
	} {
		if got := input.Base(in); got != want {
			t.Errorf("Base(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestThePromptIsTheLastLineThatIsNotBlank(t *testing.T) {
	if got := input.Prompt([]string{"$ run", "Password: ", "", "   "}, 100); got != "Password:" {
		t.Errorf("Prompt = %q", got)
	}
	if got := input.Prompt([]string{"", ""}, 100); got != "" {
		t.Errorf("Prompt of a blank screen = %q", got)
	}
	if got := input.Prompt([]string{"ééééé?"}, 5); got != "…éé?" {
		t.Errorf("a long prompt keeps its end, cut at a character: %q", got)
	}
	if got := input.Prompt([]string{"abc"}, 3); got != "abc" {
		t.Errorf("a prompt of exactly the bound is kept whole: %q", got)
	}
	if got := input.Prompt([]string{"aé"}, 1); got != "…" {
		t.Errorf("a cut inside the last character keeps none of it: %q", got)
	}
}
