package tmux

import (
	"errors"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// The command list of a guarded write, as rendered for a control client
// and as a process's arguments.
func TestGuardedCmdsRendering(t *testing.T) {
	w := ports.GuardedWrite{Pane: "%3", Guard: "0:0:1@2.3:0:@11:1:client-9", Owner: "srv-a",
		Action: ports.GuardedAction{Text: "a;", Keys: []string{"C-c"}, Paste: "p\"q", Enter: true}}
	l, err := guardedCmds("%3", w, "buf-1")
	if err != nil {
		t.Fatal(err)
	}
	last := l[len(l)-1]
	if last[0] != "if-shell" || len(last) != 7 {
		t.Fatalf("last command = %q, want if-shell with a condition, the action and the paste's cleanup", last)
	}
	wantCond := "#{&&:#{&&:#{==:#{pane_dead},0},#{==:" + guardFormat + ",0:0:1@2.3:0:@11:1:client-9}}," +
		"#{||:#{==:#{@tmux-mcp-lease-owner},},#{||:#{==:#{@tmux-mcp-lease-owner},srv-a},#{e|<|:#{@tmux-mcp-lease-expiry},#{e|*:#{T:@tmux-mcp-lease-clock},1000}}}}}"
	if last[4] != wantCond {
		t.Errorf("condition\n%s\nwant\n%s", last[4], wantCond)
	}
	wantAct := `"send-keys" "-t" "%3" "-l" "--" "a\073" ; "send-keys" "-t" "%3" "--" "C-c" ; ` +
		`"paste-buffer" "-d" "-p" "-b" "buf-1" "-t" "%3" ; "send-keys" "-t" "%3" "Enter" ; "display-message" "-p" "K\037written"`
	if last[5] != wantAct {
		t.Errorf("action\n%s\nwant\n%s", last[5], wantAct)
	}
	if last[6] != `"delete-buffer" "-b" "buf-1"` {
		t.Errorf("cleanup %q", last[6])
	}
	var sawSet, sawClock bool
	for _, cmd := range l[:len(l)-1] {
		sawSet = sawSet || cmd[0] == "set-buffer" && cmd[len(cmd)-1] == "p\"q"
		sawClock = sawClock || cmd[0] == "set-option" && cmd[len(cmd)-2] == LeaseClockOption
		if cmd[0] == "send-keys" || cmd[0] == "paste-buffer" {
			t.Errorf("%q runs outside the condition", cmd)
		}
	}
	if !sawSet || !sawClock {
		t.Errorf("list %q: want the buffer set and the lease clock set before the check", l)
	}

	// Without an owner the lease is not looked at.
	w.Owner = ""
	l, _ = guardedCmds("%3", w, "buf-1")
	if c := l[len(l)-1][4]; strings.Contains(c, LeaseOwnerOption) {
		t.Errorf("condition without an owner reads the lease: %s", c)
	}
	// Actions too long for one list are the caller's to send.
	w.Action = ports.GuardedAction{Text: strings.Repeat("x", maxGuardedText+1)}
	if _, err := guardedCmds("%3", w, "b"); !errors.Is(err, ports.ErrUnsupported) {
		t.Errorf("a long text: %v, want ErrUnsupported", err)
	}
	w.Action = ports.GuardedAction{Paste: "a\x00b"}
	if _, err := guardedCmds("%3", w, "b"); !errors.Is(err, ports.ErrUnsupported) {
		t.Errorf("a paste with NUL: %v, want ErrUnsupported", err)
	}
}
