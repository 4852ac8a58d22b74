package policy

import (
	"errors"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/domain/frame"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

func TestParseKey(t *testing.T) {
	good := map[string]string{
		"Enter": "Enter", "enter": "Enter", "C-c": "C-c", "M-x": "M-x", "C-M-Up": "C-M-Up", "S-Tab": "S-Tab",
		"F12": "F12", "a": "a", "é": "é", "BSpace": "BSpace", "pageup": "PageUp", `C-\`: `C-\`, "-": "-", "C--": "C--",
	}
	for in, want := range good {
		if got, ok := ParseKey(in); !ok || got != want {
			t.Errorf("ParseKey(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, bad := range []string{"", "Escpae", "F13", "C-C-c", "ab", "C-", "\x01", "hello world"} {
		if got, ok := ParseKey(bad); ok {
			t.Errorf("ParseKey(%q) = %q, accepted", bad, got)
		}
	}
	if _, err := ParseKeys("   "); !errors.Is(err, fault.ErrInvalidArgument) {
		t.Errorf("no keys: %v", err)
	}
}

func TestPolicyMessages(t *testing.T) {
	base := ports.PaneInfo{ID: "%1", Command: "zsh"}
	for _, f := range []ports.Fact{ports.FactWatched, ports.FactAlsoReaches, ports.FactSelf, ports.FactMode} {
		info := base
		info.Unknown = []ports.Fact{f}
		err := Check(info, Type, true, "")
		if !errors.Is(err, fault.ErrRefused) || !strings.Contains(err.Error(), "cannot tell") {
			t.Errorf("unknown %s: %v", f, err)
		}
	}
	info := base
	info.Unknown = []ports.Fact{ports.FactCommand}
	if err := Check(info, Type, false, ""); err != nil {
		t.Errorf("paste needs no command: %v", err)
	}
	if _, err := CheckRun(info, false); !errors.Is(err, fault.ErrRefused) {
		t.Errorf("run needs the command: %v", err)
	}
	if sh, err := CheckRun(base, false); err != nil || sh != frame.ShellZsh {
		t.Errorf("zsh: %v %v", sh, err)
	}
	sync := base
	sync.AlsoReaches = []ports.PaneID{"%2", "%3"}
	if err := Check(sync, Type, true, ""); err == nil || !strings.Contains(err.Error(), "%2, %3") {
		t.Errorf("synchronized: %v", err)
	}
}
