package app

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestShellIntegrationIsOnByDefaultAndTheFlagWinsOverTheEnvironment(t *testing.T) {
	cases := []struct {
		args []string
		env  string
		want bool
	}{
		{nil, "", true},
		{nil, "0", false},
		{nil, "off", false},
		{nil, "true", true},
		{[]string{"-shell-integration=false"}, "1", false},
		{[]string{"-shell-integration"}, "0", true},
	}
	for _, c := range cases {
		cfg, err := ParseConfig(c.args, func(k string) string {
			if k == EnvShellIntegration {
				return c.env
			}
			return ""
		}, io.Discard)
		if err != nil || cfg.ShellIntegration != c.want {
			t.Errorf("%v with %s=%q: ShellIntegration = %v, %v; want %v", c.args, EnvShellIntegration, c.env, cfg.ShellIntegration, err, c.want)
		}
	}
	_, err := ParseConfig(nil, func(k string) string {
		if k == EnvShellIntegration {
			return "maybe"
		}
		return ""
	}, io.Discard)
	if !errors.Is(err, ErrInvalidSetting) || !strings.Contains(err.Error(), EnvShellIntegration) {
		t.Errorf("%s=maybe: %v; want an invalid setting naming it", EnvShellIntegration, err)
	}
}

func TestShellIntegrationMainPrintsTheSnippet(t *testing.T) {
	for _, sh := range []string{"bash", "zsh", "fish"} {
		var out, errs bytes.Buffer
		if code := ShellIntegrationMain([]string{sh}, &out, &errs); code != 0 || !strings.Contains(out.String(), "133;A") || errs.Len() != 0 {
			t.Errorf("shell-integration %s: status %d, stdout %d bytes, stderr %q", sh, code, out.Len(), errs.String())
		}
	}
	for _, args := range [][]string{nil, {"ksh"}, {"bash", "zsh"}} {
		var out, errs bytes.Buffer
		if code := ShellIntegrationMain(args, &out, &errs); code != 2 || out.Len() != 0 || errs.Len() == 0 {
			t.Errorf("shell-integration %q: status %d, stdout %q, stderr %q; want 2 and a usage on stderr", args, code, out.String(), errs.String())
		}
	}
	var out, errs bytes.Buffer
	if code := ShellIntegrationMain([]string{"-h"}, &out, &errs); code != 0 || !strings.Contains(errs.String(), "ssh HOST 'cat >> ~/.bashrc'") {
		t.Errorf("shell-integration -h: %d %q", code, errs.String())
	}
}
