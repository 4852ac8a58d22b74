package test

import (
	"os/exec"
	"strings"
	"testing"
)

// What a client reads when a call fails: each context named once, on the
// fake and on real tmux, for a pane, window or session that is not there
// and for a multiplexer that has gone. Each layer names its own
// operation: the port method names its own, and the domain adds only what
// the method could not know ("list panes: list panes: tmux list-panes: …"
// was what a client read).

// doubledContext returns a context that msg names twice, or "": two of its
// ": "-separated parts that open with the same two words, articles and
// "its" left out ("list panes: list panes: …", "create a window in
// session x: create window: …"). The advice after "; " is not looked at.
func doubledContext(msg string) string {
	msg, _, _ = strings.Cut(msg, "; ")
	seen := map[string]bool{}
	for _, part := range strings.Split(msg, ": ") {
		var words []string
		for _, w := range strings.Fields(strings.ToLower(part)) {
			if w == "a" || w == "an" || w == "the" || w == "its" {
				continue
			}
			if words = append(words, w); len(words) == 2 {
				break
			}
		}
		key := strings.Join(words, " ")
		if len(words) == 2 && seen[key] {
			return key
		}
		seen[key] = true
	}
	return ""
}

func TestDoubledContextFindsAContextNamedTwice(t *testing.T) {
	for msg, want := range map[string]string{
		"list panes: list panes: tmux list-panes: exit status 1":                  "list panes",
		"create a window in session x: create window: session x: no such session": "create window",
		"clear the history of pane %0: clear the history of pane %0: gone":        "clear history",
		"kill window @9: list panes: window @9: no such session or window":        "",
		"list panes: pane %99: pane not found; check the pane id: list panes":     "",
	} {
		if got := doubledContext(msg); got != want {
			t.Errorf("doubledContext(%q) = %q, want %q", msg, got, want)
		}
	}
}

// failingCalls are calls of every kind of tool that fail, but for a few
// listings, while the multiplexer answers (each names something that is
// not there), and all of them once it has gone; those marked live are
// made only while it answers.
var failingCalls = []struct {
	tool string
	args map[string]any
	live bool
}{
	{"list_sessions", nil, false},
	{"list_windows", map[string]any{"session": "nope"}, false},
	{"list_windows", nil, false},
	{"list_panes", map[string]any{"session": "nope"}, false},
	{"list_panes", map[string]any{"windowId": "@99"}, false},
	{"list_panes", nil, false},
	{"search_panes", map[string]any{"session": "nope", "patterns": []string{"x"}}, false},
	{"get_pane_info", map[string]any{"paneId": "%99"}, false},
	{"get_server_info", nil, false},
	{"display", map[string]any{"paneId": "%99"}, false},
	{"select_pane", map[string]any{"paneId": "%99"}, false},
	{"select_window", map[string]any{"windowId": "@99"}, false},
	{"resize_pane", map[string]any{"paneId": "%99", "width": 10}, false},
	{"resize_window", map[string]any{"windowId": "@99", "width": 10}, false},
	{"rename_session", map[string]any{"session": "nope", "name": "x"}, false},
	{"rename_window", map[string]any{"windowId": "@99", "name": "x"}, false},
	// The second is refused: the name is in use. (With tmux gone, tmux's
	// new-session would start a server of its own.)
	{"create_session", map[string]any{"name": "x"}, true},
	{"create_session", map[string]any{"name": "x"}, true},
	{"create_window", map[string]any{"session": "nope"}, false},
	{"split_window", map[string]any{"paneId": "%99"}, false},
	{"clear_pane_scrollback", map[string]any{"paneId": "%99"}, false},
	{"kill_pane", map[string]any{"paneId": "%99"}, false},
	{"kill_window", map[string]any{"windowId": "@99"}, false},
	{"kill_session", map[string]any{"session": "nope"}, false},
	{"respawn_pane", map[string]any{"paneId": "%99"}, false},
	{"run_shell_command", map[string]any{"paneId": "%99", "command": "true"}, false},
	{"paste_text", map[string]any{"paneId": "%99", "text": "x"}, false},
	{"send_keys", map[string]any{"paneId": "%99", "keys": "Enter"}, false},
	{"capture_pane", map[string]any{"paneId": "%99"}, false},
	{"capture_since", map[string]any{"paneId": "%99"}, false},
	{"wait_for_text", map[string]any{"paneId": "%99", "patterns": []string{"x"}, "timeoutMs": 1}, false},
}

// checkContextsNamedOnce makes every call of failingCalls, then again once
// gone has made the multiplexer go away, and checks each error's text.
func checkContextsNamedOnce(t *testing.T, e *inmem, gone func()) {
	t.Helper()
	for i, stage := range []string{"the multiplexer answering", "the multiplexer gone"} {
		if i == 1 {
			gone()
		}
		for _, c := range failingCalls {
			if c.live && i == 1 {
				continue
			}
			res := e.call(c.tool, c.args)
			if !res.IsError {
				if i == 1 {
					t.Errorf("%s %v succeeded with the multiplexer gone", c.tool, c.args)
				}
				continue // a listing, say, while the multiplexer answers
			}
			if msg := errorText(t, res); doubledContext(msg) != "" {
				t.Errorf("%s %v, %s: %q names %q twice", c.tool, c.args, stage, msg, doubledContext(msg))
			}
		}
	}
}

func TestErrorsNameEachContextOnceOnTheFake(t *testing.T) {
	e, _, _ := newManageInmem(t)
	checkContextsNamedOnce(t, e, func() { e.term.SetUnavailable(true) })
}

func TestErrorsNameEachContextOnceOnTmux(t *testing.T) {
	cs, _, socket := manageOnTmux(t)
	e := &inmem{t: t, cs: cs}
	tmuxBin := needTmux(t)
	checkContextsNamedOnce(t, e, func() {
		if out, err := exec.Command(tmuxBin, "-L", socket, "kill-server").CombinedOutput(); err != nil {
			t.Fatalf("kill the tmux server: %v: %s", err, out)
		}
	})
}
