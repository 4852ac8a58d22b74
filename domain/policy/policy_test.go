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
		// The printable characters at the edges of ASCII's control
		// characters, which are refused.
		" ": " ", "~": "~",
	}
	for in, want := range good {
		if got, ok := ParseKey(in); !ok || got != want {
			t.Errorf("ParseKey(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, bad := range []string{"", "Escpae", "F13", "C-C-c", "ab", "C-", "\x00", "\x01", "\x1f", "\x7f", "C-\x1b", "hello world"} {
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

// A refusal of a call that would end the pane says so (Ending) and says
// first what the call would do; a refusal of a write says neither.
func TestARefusalToEndAPaneSaysWhatTheCallWouldDo(t *testing.T) {
	watched := ports.PaneInfo{ID: "%1", Command: "bash", Watchers: []string{"/dev/pts/3"}}
	const action = "kill_window @1 would end it"
	var ending *fault.RefusalError
	if err := Check(watched, End, false, action); !errors.As(err, &ending) || !ending.Ending ||
		ending.Reason != action+", and a person is watching it (/dev/pts/3)" {
		t.Errorf("ending a watched pane: %#v; want Ending and the action first", err)
	}
	for _, use := range []Use{Type, Press} {
		var writing *fault.RefusalError
		if err := Check(watched, use, false, action); !errors.As(err, &writing) || writing.Ending ||
			writing.Reason != "a person is watching it (/dev/pts/3)" {
			t.Errorf("use %d of a watched pane: %#v; want no Ending and no action", use, err)
		}
	}
}
