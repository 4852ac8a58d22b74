package test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// The recovery tools of issue 11 (respawn_pane, resize_window,
// search_panes, display) end to end: a real MCP client and the real
// domain over the SDK's in-memory transport, on the fake multiplexer
// (e2e_manage_test.go's rig); e2e_recovery_binary_test.go runs them
// through the built binary on real tmux.

// runOK runs command in pane through run_shell_command and fails the test
// unless it completed.
func runOK(e *inmem, pane, command string) runOutput {
	e.t.Helper()
	out := decodeRun(e.t, e.call("run_shell_command", map[string]any{"paneId": pane, "command": command}))
	if out.Outcome != "completed" {
		e.t.Fatalf("run_shell_command %q in %s = %+v, want completed", command, pane, out)
	}
	return out
}

// hitsOf lists a search_panes result as "pane row text" strings, pane by
// pane, top to bottom.
func hitsOf(res map[string]any) []string {
	var out []string
	for _, p := range res["panes"].([]any) {
		p := p.(map[string]any)
		for _, l := range p["lines"].([]any) {
			l := l.(map[string]any)
			out = append(out, fmt.Sprint(p["paneId"], " ", l["row"], " ", l["text"]))
		}
	}
	return out
}

// A pane whose program exited is brought back by respawn_pane under the
// same id, with a new program that takes commands again, even while a
// person has it on screen; a live pane a person watches is refused.
func TestRespawnPaneBringsADeadPaneBackOnTheFake(t *testing.T) {
	e, _, _ := newManageInmem(t)
	before := toolOK(e, "display", map[string]any{"paneId": "%0"})

	e.term.KillPane("%0")
	if p := toolOK(e, "list_panes", nil)["panes"].([]any)[0].(map[string]any); p["paneId"] != "%0" || p["dead"] != true {
		t.Fatalf("after its program exited, list_panes = %v, want %%0 dead", p)
	}
	wantIn(t, "run_shell_command in the dead pane", toolRefused(e, "run_shell_command", map[string]any{"paneId": "%0", "command": "true"}),
		"dead")

	back := toolOK(e, "respawn_pane", map[string]any{"paneId": "%0"})
	if back["paneId"] != "%0" || back["dead"] != false || back["sessionId"] != "$0" {
		t.Fatalf("respawn_pane = %v, want %%0 alive in $0", back)
	}
	if after := toolOK(e, "display", map[string]any{"paneId": "%0"}); after["pid"] == before["pid"] || after["dead"] != false {
		t.Errorf("display after respawn_pane = %v; want a new program (pid other than %v), alive", after, before["pid"])
	}
	if out := runOK(e, "%0", "echo back again"); out.Output != "back again" {
		t.Errorf("run_shell_command after the respawn = %+v", out)
	}

	// A pane a person watches: its live program is not ended, even with
	// force, but once it has exited the pane is respawned all the same.
	e.term.Attach("%0", "/dev/pts/4")
	for _, force := range []bool{false, true} {
		wantIn(t, "respawn_pane of a watched live pane", toolRefused(e, "respawn_pane", map[string]any{"paneId": "%0", "force": force}),
			"refused", "%0", "respawn_pane would end its program", "/dev/pts/4", "once the program has exited")
	}
	e.term.KillPane("%0")
	if back := toolOK(e, "respawn_pane", map[string]any{"paneId": "%0"}); back["dead"] != false || back["watched"] != true {
		t.Errorf("respawn_pane of a watched dead pane = %v, want it alive, still watched", back)
	}
	wantIn(t, "respawn_pane of no pane", toolRefused(e, "respawn_pane", map[string]any{"paneId": "%9"}), "%9", "check the pane id")
}

// A pane a command of this server still runs in is busy: respawn_pane
// without force refuses it, saying what holds it and how to end a
// command that ignores C-c, and ends nothing; with force it takes the
// pane (e2e_recovery_binary_test.go).
func TestRespawnPaneRefusesABusyPaneOnTheFake(t *testing.T) {
	e, _, _ := newManageInmem(t)
	done := e.start("run_shell_command", map[string]any{"paneId": "%0", "command": "sleep 100", "timeoutMs": 1000})
	e.awaitWaiting(runTimers + 1) // and the lease's renewal
	e.clock.Advance(time.Second)
	if out := decodeRun(t, <-done); out.Outcome != "timed_out" || !out.StillRunning {
		t.Fatalf("run_shell_command = %+v, want timed_out and still running", out)
	}
	before := toolOK(e, "display", map[string]any{"paneId": "%0"})
	wantIn(t, "respawn_pane of a busy pane", toolRefused(e, "respawn_pane", map[string]any{"paneId": "%0"}),
		"%0", "busy", `"sleep 100"`, "send_keys C-c", "force: true")
	if after := toolOK(e, "display", map[string]any{"paneId": "%0"}); after["pid"] != before["pid"] {
		t.Errorf("pid %v after the refused respawn, want %v: the program was ended", after["pid"], before["pid"])
	}
}

// A window is resized as a whole, its pane with it, and list_windows and
// display see the size it got.
func TestResizeWindowOnTheFake(t *testing.T) {
	e, _, _ := newManageInmem(t)
	made := toolOK(e, "create_session", map[string]any{"name": "wide"})
	window, pane := made["windowId"].(string), made["paneId"].(string)

	got := toolOK(e, "resize_window", map[string]any{"windowId": window, "width": 200, "height": 50})
	if got["id"] != window || got["width"] != 200.0 || got["height"] != 50.0 || got["sessionName"] != "wide" {
		t.Errorf("resize_window = %v, want %s at 200x50", got, window)
	}
	listed := toolOK(e, "list_windows", map[string]any{"session": "wide"})["windows"].([]any)[0].(map[string]any)
	if listed["width"] != 200.0 || listed["height"] != 50.0 {
		t.Errorf("list_windows after resize_window = %v, want 200x50", listed)
	}
	if d := toolOK(e, "display", map[string]any{"paneId": pane}); d["width"] != 200.0 || d["height"] != 50.0 {
		t.Errorf("display of the window's only pane = %v, want 200x50", d)
	}
	// Only the height: the width stays.
	if got := toolOK(e, "resize_window", map[string]any{"windowId": window, "height": 30}); got["width"] != 200.0 || got["height"] != 30.0 {
		t.Errorf("resize_window of the height alone = %v, want 200x30", got)
	}
	wantIn(t, "resize_window without a size", toolRefused(e, "resize_window", map[string]any{"windowId": window}),
		"invalid width", "give at least one")
	wantIn(t, "resize_window of no window", toolRefused(e, "resize_window", map[string]any{"windowId": "@99", "width": 100}),
		"@99", "list_windows")
}

// search_panes finds which panes show a text, on their screens and, when
// asked, in their history, with rows that capture_pane reads back.
func TestSearchPanesOnTheFake(t *testing.T) {
	e, _, _ := newManageInmem(t)
	// A second session whose 5-row pane scrolls its first lines into
	// history. The commands print what is searched for in two halves, as
	// the line typed to run them shows on the screen too.
	made := toolOK(e, "create_session", map[string]any{"name": "ci", "height": 5})
	ci := made["paneId"].(string)
	runOK(e, "%0", "printf 'err%s\\n' 'or: disk full'; echo fine")
	runOK(e, ci, "printf 'make: *** err%s\\n' 'or 2'; printf 'row-%d\\n' 1 2 3 4 5 6 7 8; printf 'exit stat%s\\n' 'us 7'")

	t.Run("rows of two panes", func(t *testing.T) {
		res := toolOK(e, "search_panes", map[string]any{"patterns": []string{"error"}})
		hits := hitsOf(res)
		if len(hits) != 1 || !strings.HasPrefix(hits[0], "%0 ") || !strings.HasSuffix(hits[0], " error: disk full") {
			t.Fatalf("search_panes for error, screens only = %q; want %%0's row alone (ci's scrolled off)", hits)
		}
		res = toolOK(e, "search_panes", map[string]any{"patterns": []string{"error", "exit status"}, "history": true})
		hits = hitsOf(res)
		if len(hits) != 3 || !strings.HasPrefix(hits[0], "%0 ") || !strings.HasPrefix(hits[1], ci+" -") || !strings.HasPrefix(hits[2], ci+" ") {
			t.Fatalf("search_panes with history = %q; want %%0's row, then %s's from history and from its screen", hits, ci)
		}
		if res["matches"] != 3.0 || res["panesSearched"] != 2.0 || res["truncated"] != false || res["maxMatches"] != 100.0 {
			t.Errorf("search_panes counts = %v", res)
		}
		// The row capture_pane reads there is the row that matched.
		p := res["panes"].([]any)[1].(map[string]any)
		line := p["lines"].([]any)[0].(map[string]any)
		row := line["row"].(float64)
		var capture captureOutput
		decode(t, e.call("capture_pane", map[string]any{"paneId": ci, "start": row, "end": row}), captureFields, &capture)
		if strings.TrimSuffix(capture.Text, "\n") != line["text"] || line["text"] != "make: *** error 2" || line["pattern"] != "error" {
			t.Errorf("capture_pane of row %v = %q; search_panes said %v", row, capture.Text, line)
		}
		if p["sessionName"] != "ci" || p["windowId"] != made["windowId"] {
			t.Errorf("search_panes places %s in %v, want session ci, window %v", ci, p, made["windowId"])
		}
	})

	t.Run("one session", func(t *testing.T) {
		res := toolOK(e, "search_panes", map[string]any{"session": "ci", "patterns": []string{"error"}, "history": true})
		if hits := hitsOf(res); len(hits) != 1 || !strings.HasPrefix(hits[0], ci+" ") || res["panesSearched"] != 1.0 {
			t.Errorf("search_panes of session ci = %q (%v), want %s's row alone", hits, res, ci)
		}
		wantIn(t, "search_panes of no session", toolRefused(e, "search_panes", map[string]any{"session": "nope", "patterns": []string{"x"}}),
			"nope", "list_sessions")
	})

	t.Run("regular expressions", func(t *testing.T) {
		res := toolOK(e, "search_panes", map[string]any{"patterns": []string{`^exit status [1-9]$`, `^row-[0-9]+$`}, "regex": true})
		lines := res["panes"].([]any)[0].(map[string]any)["lines"].([]any)
		if last := lines[len(lines)-1].(map[string]any); last["text"] != "exit status 7" || last["pattern"] != `^exit status [1-9]$` {
			t.Errorf("search_panes with regex: last row %v, want exit status 7 matched by the first pattern", last)
		}
		if len(lines) != 4 { // the screen: row-6 to row-8, exit status 7, the prompt
			t.Errorf("search_panes with regex = %q, want 4 of ci's 5 screen rows", hitsOf(res))
		}
		if plain := toolOK(e, "search_panes", map[string]any{"patterns": []string{`^exit status [1-9]$`}}); len(hitsOf(plain)) != 0 {
			t.Errorf("the pattern taken as plain text found %q, want nothing", hitsOf(plain))
		}
	})

	t.Run("bad patterns are tool errors", func(t *testing.T) {
		wantIn(t, "an invalid regular expression", toolRefused(e, "search_panes", map[string]any{"patterns": []string{"ok", "a(b"}, "regex": true}),
			"invalid patterns", `"a(b" is not an RE2 regular expression`, "correct it and call again")
		wantIn(t, "an empty pattern", toolRefused(e, "search_panes", map[string]any{"patterns": []string{"error", ""}}),
			"invalid patterns", "empty pattern")
		wantIn(t, "no patterns", toolRefused(e, "search_panes", map[string]any{"patterns": []string{}}),
			"invalid patterns", "at least 1 item")
		// wait_for_text refuses what search_panes does, in the same
		// words: an empty regular expression would end its wait at once.
		// (On a pane that does not exist: patterns it took would end in
		// another error, not in a wait.)
		for _, c := range []struct {
			patterns []string
			says     string
		}{{[]string{""}, "empty pattern"}, {[]string{"ok", "x*"}, `"x*" can match where no character is`}, {[]string{"a(b"}, "RE2"}} {
			search := toolRefused(e, "search_panes", map[string]any{"patterns": c.patterns, "regex": true})
			wait := toolRefused(e, "wait_for_text", map[string]any{"paneId": "%99", "patterns": c.patterns, "regex": true})
			wantIn(t, "search_panes", search, "invalid patterns", c.says)
			if search != wait {
				t.Errorf("patterns %q: search_panes says %q, wait_for_text %q; want the same", c.patterns, search, wait)
			}
		}
	})

	t.Run("bounded", func(t *testing.T) {
		res := toolOK(e, "search_panes", map[string]any{"patterns": []string{`^row-[0-9]$`}, "regex": true, "history": true, "maxMatches": 3})
		if hits := hitsOf(res); len(hits) != 3 || res["truncated"] != true || res["matches"] != 3.0 || res["maxMatches"] != 3.0 {
			t.Errorf("search_panes with maxMatches 3 = %q (%v), want 3 rows, truncated", hits, res)
		}
		res = toolOK(e, "search_panes", map[string]any{"patterns": []string{`^row-[0-9]$`}, "regex": true, "maxMatches": 5000})
		if res["maxMatches"] != 1000.0 || res["truncated"] != false {
			t.Errorf("search_panes with maxMatches 5000 = %v, want the ceiling 1000 applied, nothing left out", res)
		}
		// A row longer than 512 bytes comes back cut around its match.
		wide := toolOK(e, "create_session", map[string]any{"name": "wide", "width": 2000})["paneId"].(string)
		runOK(e, wide, "printf '%0900d need%s\\n' 0 le-at-900")
		res = toolOK(e, "search_panes", map[string]any{"session": "wide", "patterns": []string{"needle-at-900"}})
		line := res["panes"].([]any)[0].(map[string]any)["lines"].([]any)[0].(map[string]any)
		if text := line["text"].(string); line["cut"] != true || len(text) > 512 || !strings.Contains(text, "needle-at-900") {
			t.Errorf("a 913-byte row came back cut %v, %d bytes %q; want at most 512 around the match", line["cut"], len(text), text)
		}
	})
}

// display tells a pane's fixed facts: those the backend reads as they
// are, zeros included, and those it cannot tell as null.
func TestDisplayOnTheFake(t *testing.T) {
	e, _, _ := newManageInmem(t)
	d := toolOK(e, "display", map[string]any{"paneId": "%0"})
	for k, v := range map[string]any{"paneId": "%0", "workingDirectory": fake.DefaultPath, "width": 80.0, "height": 24.0,
		"command": "bash", "dead": false, "inMode": false, "mode": ""} {
		if d[k] != v {
			t.Errorf("display %s = %v, want %v", k, d[k], v)
		}
	}
	if pid, _ := d["pid"].(float64); pid <= 0 {
		t.Errorf("display pid = %v, want the shell's", d["pid"])
	}
	// The shell's prompt is on the top row; the cursor after it.
	if d["cursorX"] != 2.0 || d["cursorY"] != 0.0 {
		t.Errorf("display cursor = (%v, %v), want (2, 0) after the prompt \"$ \"", d["cursorX"], d["cursorY"])
	}

	e.term.SetMode("%0", "copy-mode")
	if d := toolOK(e, "display", map[string]any{"paneId": "%0"}); d["inMode"] != true || d["mode"] != "copy-mode" {
		t.Errorf("display of a pane in copy mode = %v", d)
	}
	e.term.SetMode("%0", "")

	e.term.SetUnknown("%0", ports.FactPID, ports.FactCursor, ports.FactCommand, ports.FactMode)
	d = toolOK(e, "display", map[string]any{"paneId": "%0"})
	for _, k := range []string{"pid", "cursorX", "cursorY", "command", "inMode", "mode"} {
		if v, ok := d[k]; !ok || v != nil {
			t.Errorf("display %s = %v, want null: the backend cannot tell it", k, v)
		}
	}
	if d["width"] != 80.0 || d["workingDirectory"] != fake.DefaultPath {
		t.Errorf("display = %v; want the facts the backend does tell", d)
	}
	if keys := slices.Sorted(maps.Keys(d)); !slices.Equal(keys, []string{"command", "cursorX", "cursorY", "dead", "height", "inMode", "mode", "paneId", "pid", "width", "workingDirectory"}) {
		t.Errorf("display fields = %v, want the fixed set", keys)
	}
	wantIn(t, "display of no pane", toolRefused(e, "display", map[string]any{"paneId": "%9"}), "%9", "check the pane id")
}
