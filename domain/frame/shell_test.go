package frame

import "testing"

func TestShellForMapsProgramNamesToFamilies(t *testing.T) {
	cases := []struct {
		program string
		want    Shell
		ok      bool
	}{
		{"bash", ShellBash, true},
		{"-bash", ShellBash, true},
		{"/bin/bash", ShellBash, true},
		{"/usr/local/bin/bash5.2", ShellBash, true},
		{"bash-5.2", ShellBash, true},
		{"zsh", ShellZsh, true},
		{"-zsh", ShellZsh, true},
		{"zsh-5.9", ShellZsh, true},
		{"sh", ShellSh, true},
		{"-sh", ShellSh, true},
		{"/bin/sh", ShellSh, true},
		{"dash", ShellSh, true},
		{"/bin/dash", ShellSh, true},
		{"ash", ShellSh, true},
		{"yash", ShellSh, true},
		{"posh", ShellSh, true},
		{"ksh", ShellKsh, true},
		{"ksh93", ShellKsh, true},
		{"mksh", ShellKsh, true},
		{"lksh", ShellKsh, true},
		{"pdksh", ShellKsh, true},
		{"oksh", ShellKsh, true},
		{"fish", ShellFish, true},
		{"-fish", ShellFish, true},
		{"/opt/homebrew/bin/fish", ShellFish, true},
		{"/bash", ShellBash, true}, // in the root directory: its "/" goes too

		{"", "", false},
		{"-", "", false},
		{"vim", "", false},
		{"nvim", "", false},
		{"python3", "", false},
		{"less", "", false},
		{"ssh", "", false},
		{"tmux", "", false},
		{"busybox", "", false}, // may be any applet
		{"rbash", "", false},   // forbids the frame's redirections
		{"bashful", "", false},
		{"Bash", "", false},
		{"/bin/", "", false},
		{"5.2", "", false},
		{"bash/vim", "", false},
	}
	for _, c := range cases {
		got, ok := ShellFor(c.program)
		if got != c.want || ok != c.ok {
			t.Errorf("ShellFor(%q) = %q, %v; want %q, %v", c.program, got, ok, c.want, c.ok)
		}
	}
}
