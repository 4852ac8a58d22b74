package test

import (
	"fmt"
	"github.com/tmux-mcp/tmux-mcp/test/tmuxtest"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// The recovery tools of issue 11 through the built binary, at the
// destructive tier, on a private real tmux server: a dead pane respawned
// under its id and a busy one refused, a detached session's window
// resized, text found in two panes and in history, and a pane's facts as
// tmux itself tells them.

// recoveryBinary starts a private tmux server with one 120x40 bash pane
// and the binary on it at the destructive tier, and returns them with a
// client whose calls go through the binary.
func recoveryBinary(t *testing.T) (*tmuxServer, string, *binServer, *inmem) {
	t.Helper()
	srv, p := newTmuxServer(t, bash)
	b := startBinary(t, nil, "-socket-name", srv.sock, "-safety", "destructive")
	return srv, string(p), b, &inmem{t: t, cs: b.cs}
}

// A pane whose program exited, kept by remain-on-exit, is respawned in
// place: the same id, alive, running a new shell that takes commands. A
// pane a command of this server still holds is refused as busy, and
// ends nothing.
func TestBinaryRespawnsADeadPaneAndRefusesABusyOne(t *testing.T) {
	t.Parallel()
	srv, pane, b, e := recoveryBinary(t)
	before := toolOK(e, "display", map[string]any{"paneId": pane})

	srv.tmux(t, "set-option", "-w", "-t", pane, "remain-on-exit", "on")
	srv.tmux(t, "send-keys", "-t", pane, "exit", "Enter")
	eventually(t, 10*time.Second, "the pane's shell to exit", func() bool {
		return srv.tmux(t, "display-message", "-p", "-t", pane, "#{pane_dead}") == "1"
	})
	listed := toolOK(e, "list_panes", nil)["panes"].([]any)
	if len(listed) != 1 || listed[0].(map[string]any)["paneId"] != pane || listed[0].(map[string]any)["dead"] != true {
		t.Fatalf("list_panes after exit = %v, want %s alone, dead", listed, pane)
	}

	back := toolOK(e, "respawn_pane", map[string]any{"paneId": pane})
	if back["paneId"] != pane || back["dead"] != false {
		t.Fatalf("respawn_pane = %v, want %s alive", back, pane)
	}
	if got := srv.tmux(t, "display-message", "-p", "-t", pane, "#{pane_id} #{pane_dead}"); got != pane+" 0" {
		t.Errorf("tmux says %q after respawn_pane, want %s alive", got, pane)
	}
	if after := toolOK(e, "display", map[string]any{"paneId": pane}); after["pid"] == before["pid"] || after["dead"] != false {
		t.Errorf("display after respawn_pane = %v; want a new shell (pid other than %v), alive", after, before["pid"])
	}
	if out := runOK(e, pane, "echo back-$((6*7))"); out.Output != "back-42" {
		t.Errorf("run_shell_command in the respawned pane = %+v", out)
	}

	held := holdCommand(t, b, pane)
	pid := toolOK(e, "display", map[string]any{"paneId": pane})["pid"]
	wantIn(t, "respawn_pane of a busy pane", toolRefused(e, "respawn_pane", map[string]any{"paneId": pane}),
		pane, "busy", "run_shell_command", "send_keys C-c")
	if now := toolOK(e, "display", map[string]any{"paneId": pane})["pid"]; now != pid {
		t.Errorf("pid %v after the refused respawn, want %v still", now, pid)
	}
	held.release()
	run := decodeRun(t, b.call(t, "wait_for_command", map[string]any{"paneId": pane, "timeoutMs": 25000}))
	if run.Outcome != "completed" || run.ExitStatus == nil || *run.ExitStatus != 5 {
		t.Errorf("wait_for_command after the release = %+v, want the held command completed with status 5", run)
	}
	if server := toolOK(e, "get_server_info", nil); server["panes"] != 1.0 {
		t.Errorf("get_server_info = %v: the tmux server should have lived through it all with its one pane", server)
	}
}

// A detached session's window has the size it was made with; resize_window
// gives it another, which list_windows, display and tmux itself see, and
// a program's wide row is no longer wrapped at the old width.
func TestBinaryResizesADetachedSessionsWindow(t *testing.T) {
	t.Parallel()
	srv, pane, _, e := recoveryBinary(t)
	window := toolOK(e, "list_windows", map[string]any{"session": "s"})["windows"].([]any)[0].(map[string]any)
	if window["width"] != 120.0 || window["height"] != 40.0 {
		t.Fatalf("list_windows = %v, want the session's 120x40 window", window)
	}
	id := window["id"].(string)

	got := toolOK(e, "resize_window", map[string]any{"windowId": id, "width": 200, "height": 50})
	if got["id"] != id || got["width"] != 200.0 || got["height"] != 50.0 {
		t.Errorf("resize_window = %v, want %s at 200x50", got, id)
	}
	listed := toolOK(e, "list_windows", map[string]any{"session": "s"})["windows"].([]any)[0].(map[string]any)
	if listed["width"] != 200.0 || listed["height"] != 50.0 {
		t.Errorf("list_windows after resize_window = %v, want 200x50", listed)
	}
	if d := toolOK(e, "display", map[string]any{"paneId": pane}); d["width"] != 200.0 || d["height"] != 50.0 {
		t.Errorf("display of the window's pane = %v, want 200x50", d)
	}
	if size := srv.tmux(t, "display-message", "-p", "-t", id, "#{window_width}x#{window_height}"); size != "200x50" {
		t.Errorf("tmux says the window is %s, want 200x50", size)
	}

	runOK(e, pane, "printf '%0150d\\n' 0")
	var capture captureOutput
	decode(t, e.call("capture_pane", map[string]any{"paneId": pane}), captureFields, &capture)
	if !strings.Contains(capture.Text, "\n"+strings.Repeat("0", 150)+"\n") {
		t.Errorf("capture_pane = %q, want the 150-column row on one row", capture.Text)
	}
	wantIn(t, "resize_window of no window", toolRefused(e, "resize_window", map[string]any{"windowId": "@999", "width": 100}),
		"@999", "list_windows")
}

// search_panes finds text two panes printed, and with history a row
// scrolled off a screen, at the row capture_pane reads it at.
func TestBinarySearchesTwoPanesAndTheirHistory(t *testing.T) {
	t.Parallel()
	srv, pane, _, e := recoveryBinary(t)
	other := string(srv.split(t, ports.PaneID(pane), bash))
	// What is searched for is printed in two halves, as the typed line
	// that runs a command shows on the screen too.
	runOK(e, pane, "printf 'tmcp-%s\\n' needle-one")
	runOK(e, other, "printf 'tmcp-%s\\n' needle-two")

	res := toolOK(e, "search_panes", map[string]any{"patterns": []string{"tmcp-needle"}})
	hits := hitsOf(res)
	if len(hits) != 2 || !strings.HasPrefix(hits[0], pane+" ") || !strings.HasSuffix(hits[0], " tmcp-needle-one") ||
		!strings.HasPrefix(hits[1], other+" ") || !strings.HasSuffix(hits[1], " tmcp-needle-two") {
		t.Fatalf("search_panes = %q, want one row of %s, then one of %s", hits, pane, other)
	}
	if res["panesSearched"] != 2.0 || res["matches"] != 2.0 || res["truncated"] != false {
		t.Errorf("search_panes counts = %v", res)
	}
	regex := toolOK(e, "search_panes", map[string]any{"patterns": []string{`^tmcp-needle-(one|two)$`}, "regex": true})
	if got := hitsOf(regex); len(got) != 2 {
		t.Errorf("search_panes with a regular expression = %q, want the two rows", got)
	}

	// A row scrolled off the screen, found only in history.
	height := srv.tmux(t, "display-message", "-p", "-t", pane, "#{pane_height}")
	runOK(e, pane, fmt.Sprintf("printf 'tmcp-%%s\\n' scrolled-off; seq 1 %s", height))
	if got := hitsOf(toolOK(e, "search_panes", map[string]any{"patterns": []string{"tmcp-scrolled-off"}})); len(got) != 0 {
		t.Fatalf("search_panes of the screens = %q, want nothing: the row scrolled off", got)
	}
	res = toolOK(e, "search_panes", map[string]any{"patterns": []string{"tmcp-scrolled-off"}, "history": true})
	lines := res["panes"].([]any)
	if len(lines) != 1 {
		t.Fatalf("search_panes with history = %q, want the scrolled-off row", hitsOf(res))
	}
	line := lines[0].(map[string]any)["lines"].([]any)[0].(map[string]any)
	row := line["row"].(float64)
	if row >= 0 || line["text"] != "tmcp-scrolled-off" {
		t.Fatalf("search_panes with history = %v, want the row in history (negative)", line)
	}
	var capture captureOutput
	decode(t, e.call("capture_pane", map[string]any{"paneId": pane, "start": row, "end": row}), captureFields, &capture)
	if strings.TrimSuffix(capture.Text, "\n") != "tmcp-scrolled-off" {
		t.Errorf("capture_pane of row %v = %q, want the row search_panes found", row, capture.Text)
	}

	wantIn(t, "an invalid regular expression", toolRefused(e, "search_panes", map[string]any{"patterns": []string{"tmcp-(x"}, "regex": true}),
		"invalid patterns", "RE2", "correct it and call again")
}

// display gives the facts tmux has of the pane, read by the server itself.
func TestBinaryDisplaysAPanesFacts(t *testing.T) {
	t.Parallel()
	srv, pane, _, e := recoveryBinary(t)
	d := toolOK(e, "display", map[string]any{"paneId": pane})
	facts := strings.Fields(srv.tmux(t, "display-message", "-p", "-t", pane,
		"#{pane_pid} #{pane_width} #{pane_height} #{cursor_x} #{cursor_y} #{pane_current_command}"))
	want := map[string]any{"paneId": pane, "workingDirectory": srv.home, "pid": facts[0], "width": facts[1], "height": facts[2],
		"cursorX": facts[3], "cursorY": facts[4], "command": facts[5], "dead": false, "inMode": false, "mode": ""}
	for k, v := range want {
		if got := fmt.Sprint(d[k]); got != fmt.Sprint(v) {
			t.Errorf("display %s = %v, want %v as tmux says", k, d[k], v)
		}
	}
	if d["command"] != "bash" || d["width"] != 120.0 || d["height"] != 40.0 {
		t.Errorf("display = %v, want bash in a 120x40 pane", d)
	}

	srv.tmux(t, "copy-mode", "-t", pane)
	if d := toolOK(e, "display", map[string]any{"paneId": pane}); d["inMode"] != true || d["mode"] != "copy-mode" {
		t.Errorf("display of a pane in copy mode = %v", d)
	}
	wantIn(t, "display of no pane", toolRefused(e, "display", map[string]any{"paneId": "%999"}), "%999", "check the pane id")
}

// A command that ignores C-c and C-\ would hold its pane for good: after
// its call returns timed_out, the interrupts reach it and change nothing,
// kill_pane without force is busy, and kill_pane or respawn_pane with
// force take the pane; wait_for_command then reports the pane's end.
func TestBinaryForcedEndsFreeAPaneWhoseCommandIgnoresInterrupts(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"kill_pane", "respawn_pane"} {
		t.Run(tool, func(t *testing.T) {
			srv, pane, b, e := recoveryBinary(t)
			srv.tmux(t, "set-option", "-w", "-t", pane, "remain-on-exit", "off")
			run := decodeRun(t, b.call(t, "run_shell_command", map[string]any{"paneId": pane,
				"command": "trap '' INT QUIT; echo stuck; sleep 30", "timeoutMs": 1500}))
			if run.Outcome != "timed_out" || !run.StillRunning {
				t.Fatalf("run_shell_command = %+v, want timed_out, still running", run)
			}
			// The terminal takes each interrupt (it echoes it), and the
			// command lives on. Each echo is awaited before the next key:
			// the terminal flushes output that its reader has not yet read
			// when an interrupt arrives, so a second interrupt sent at once
			// may discard the first one's echo on a loaded machine.
			var screen string
			for _, k := range []struct{ key, echo string }{{"C-c", "^C"}, {"C-\\", "^C^\\"}} {
				toolOK(e, "send_keys", map[string]any{"paneId": pane, "keys": k.key})
				if !tmuxtest.Poll(10*time.Second, func() bool {
					screen = srv.tmux(t, "capture-pane", "-p", "-t", pane)
					return strings.Contains(screen, k.echo)
				}) {
					t.Fatalf("%s was not echoed; the screen:\n%s", k.key, screen)
				}
			}
			if still := decodeRun(t, b.call(t, "wait_for_command", map[string]any{"paneId": pane, "timeoutMs": 300})); still.Outcome != "timed_out" || !still.StillRunning {
				t.Fatalf("wait_for_command after the interrupts = %+v, want the command still running", still)
			}
			wantIn(t, tool+" without force", toolRefused(e, tool, map[string]any{"paneId": pane}), "busy", "force")
			toolOK(e, tool, map[string]any{"paneId": pane, "force": true})
			end := decodeRun(t, b.call(t, "wait_for_command", map[string]any{"paneId": pane, "timeoutMs": 20000}))
			if end.Outcome != "pane_died" || end.StillRunning {
				t.Fatalf("wait_for_command after %s = %+v, want pane_died", tool, end)
			}
			if tool == "respawn_pane" {
				if out := runOK(e, pane, "echo free"); out.Output != "free" {
					t.Errorf("run_shell_command in the respawned pane = %+v", out)
				}
			} else if _, err := srv.tmuxErr("display-message", "-p", "-t", pane, "#{pane_id}"); err == nil {
				t.Errorf("pane %s still exists after kill_pane", pane)
			}
		})
	}
}
