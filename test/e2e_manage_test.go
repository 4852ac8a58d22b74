package test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmux-mcp/tmux-mcp/adapters/clock"
	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
	"github.com/tmux-mcp/tmux-mcp/adapters/mcp"
	"github.com/tmux-mcp/tmux-mcp/adapters/random"
	"github.com/tmux-mcp/tmux-mcp/adapters/tmux"
	"github.com/tmux-mcp/tmux-mcp/app"
	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/domain/lifecycle"
	"github.com/tmux-mcp/tmux-mcp/domain/writers"
	"github.com/tmux-mcp/tmux-mcp/ports"
	"github.com/tmux-mcp/tmux-mcp/test/gate"
)

// The end-to-end tests of the inspect and lifecycle tools: a real MCP
// client and the real domain over the SDK's in-memory transport, on the
// fake terminal with its Manager and Leaser (every tool's happy path and
// every refusal of a kill), and on a private real tmux server (a session's
// life, and no tool letting a client run anything through tmux).

// manageServer serves svc at the destructive tier, with the lifecycle
// tools, to a client of its own; it returns an inmem around them, whose
// call, start and awaitWaiting work as in e2e_inmemory_test.go.
func manageServer(t *testing.T, p process, term *fake.Terminal, clk *fake.Clock) *inmem {
	t.Helper()
	e := &inmem{t: t, clock: clk, term: term, responses: make(chan *jsonrpc.Response, 64)}
	e.srv = mcp.NewServer(p.svc, mcp.Options{Version: "e2e", Manage: p.life, Safety: mcp.TierDestructive, CheckResults: true})
	st, ct := sdk.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := e.srv.SDK().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	e.cs, err = sdk.NewClient(&sdk.Implementation{Name: "e2e", Version: "0"}, nil).
		Connect(ctx, &tapTransport{Transport: ct, responses: e.responses}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		e.cs.Close()
		ss.Wait()
		p.close()
	})
	return e
}

// A process is what one server process builds, as app wires it: its pool
// of pane writers, leasing as owner, and the Services of the pane tools
// and of the lifecycle tools on it.
type process struct {
	svc  *domain.Service
	life *lifecycle.Service
	pool *writers.Pool
}

func newProcess(term ports.Terminal, mgr ports.Manager, clk ports.Clock, leaser ports.Leaser, owner string, cfg domain.Config) process {
	pool := app.NewPool(leaser, clk, owner)
	svc := app.NewService(term, clk, random.New(), cfg, pool, nil, nil, nil)
	return process{svc: svc, life: app.NewLifecycle(mgr, term, pool, svc), pool: pool}
}

func (p process) close() {
	p.svc.Close()
	p.pool.Close()
}

// manageProcess is one server process on a shared fake multiplexer: its own
// Service (so its own reservations and lease owner), the shared terminal,
// manager and leaser.
func manageProcess(t *testing.T, term *fake.Terminal, clk *fake.Clock, mgr *fake.Manager, leaser *fake.Leaser, owner string) *inmem {
	t.Helper()
	p := newProcess(term, mgr, clk, leaser, owner, domain.Config{WaitMax: 60 * time.Second, MaxResultLines: 100})
	return manageServer(t, p, term, clk)
}

// newManageInmem starts one server on a fresh fake multiplexer with one
// shell pane, %0, in session $0.
func newManageInmem(t *testing.T) (*inmem, *fake.Manager, *fake.Leaser) {
	t.Helper()
	clk := fake.NewClock(time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC))
	term := fake.New(fake.WithClock(clk))
	term.AddPane(fake.PaneSpec{})
	mgr, leaser := fake.NewManager(term), fake.NewLeaser(clk)
	return manageProcess(t, term, clk, mgr, leaser, "process-a"), mgr, leaser
}

// toolOK calls a tool and returns its structured content, after checking
// both halves of the result (decode); it fails the test on a tool error.
func toolOK(e *inmem, tool string, args map[string]any) map[string]any {
	e.t.Helper()
	res := e.call(tool, args)
	if res.IsError {
		e.t.Fatalf("%s %v: tool error: %s", tool, args, errorText(e.t, res))
	}
	var fields map[string]json.RawMessage
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &fields); err != nil {
		e.t.Fatalf("%s: structured content is not an object: %s", tool, raw)
	}
	var out map[string]any
	decode(e.t, res, slices.Collect(maps.Keys(fields)), &out)
	return out
}

// toolRefused calls a tool that must end in a tool error and returns its
// text.
func toolRefused(e *inmem, tool string, args map[string]any) string {
	e.t.Helper()
	return errorText(e.t, e.call(tool, args))
}

// wantIn checks that got, which what produced, holds every one of want.
func wantIn(t *testing.T, what, got string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("%s: %q lacks %q", what, got, w)
		}
	}
}

func TestManageEveryToolOnTheFake(t *testing.T) {
	e, mgr, _ := newManageInmem(t)
	mgr.SetTitle("%0", "demo")

	sessions := toolOK(e, "list_sessions", nil)["sessions"].([]any)
	if len(sessions) != 1 || sessions[0].(map[string]any)["id"] != "$0" {
		t.Fatalf("list_sessions = %v, want session $0 alone", sessions)
	}

	made := toolOK(e, "create_session", map[string]any{"name": "work", "width": 100, "height": 30})
	if made["paneId"] != "%1" || made["sessionId"] != "$1" || made["sessionName"] != "work" {
		t.Fatalf("create_session = %v, want pane %%1 in session $1 work", made)
	}
	win := toolOK(e, "create_window", map[string]any{"session": "work", "name": "logs"})
	logsWindow, logsPane := win["windowId"].(string), win["paneId"].(string)
	if win["sessionId"] != "$1" || win["windowName"] != "logs" || logsPane != "%2" {
		t.Errorf("create_window = %v, want pane %%2 in a window logs of $1", win)
	}
	split := toolOK(e, "split_window", map[string]any{"paneId": "%1", "direction": "below", "size": 10})
	if split["paneId"] != "%3" || split["windowId"] != made["windowId"] {
		t.Errorf("split_window = %v, want pane %%3 in %%1's window %v", split, made["windowId"])
	}

	windows := toolOK(e, "list_windows", map[string]any{"session": "$1"})["windows"].([]any)
	if len(windows) != 2 {
		t.Fatalf("list_windows of $1 = %v, want 2 windows", windows)
	}
	first := windows[0].(map[string]any)
	if first["id"] != made["windowId"] || first["panes"] != 2.0 || first["active"] != true {
		t.Errorf("first window = %v, want %v with 2 panes, current", first, made["windowId"])
	}

	panes := toolOK(e, "list_panes", map[string]any{"session": "work"})["panes"].([]any)
	var ids []string
	for _, p := range panes {
		ids = append(ids, p.(map[string]any)["paneId"].(string))
	}
	if !slices.Equal(ids, []string{"%1", "%3", "%2"}) {
		t.Errorf("list_panes of work = %v, want %%1 %%3 (its first window) then %%2", ids)
	}
	onlyLogs := toolOK(e, "list_panes", map[string]any{"windowId": logsWindow})["panes"].([]any)
	if len(onlyLogs) != 1 || onlyLogs[0].(map[string]any)["paneId"] != logsPane {
		t.Errorf("list_panes of %s = %v, want %s alone", logsWindow, onlyLogs, logsPane)
	}
	all := toolOK(e, "list_panes", nil)["panes"].([]any)
	demo := all[0].(map[string]any)
	want := map[string]any{"paneId": "%0", "sessionId": "$0", "index": 0.0, "active": true, "dead": false, "command": "bash",
		"workingDirectory": fake.DefaultPath, "title": "demo", "watched": false, "isServerOwn": false, "busy": nil}
	for k, v := range want {
		if demo[k] != v {
			t.Errorf("list_panes %%0 %s = %v, want %v", k, demo[k], v)
		}
	}

	info := toolOK(e, "get_pane_info", map[string]any{"paneId": "%3"})
	if info["paneId"] != "%3" || info["height"] != 10.0 || info["mode"] != "" || info["attended"] != false {
		t.Errorf("get_pane_info %%3 = %v, want a 10-row pane, no mode, unattended", info)
	}
	server := toolOK(e, "get_server_info", nil)
	if server["sessions"] != 2.0 || server["windows"] != 3.0 || server["panes"] != 4.0 || server["safety"] != "destructive" {
		t.Errorf("get_server_info = %v, want 2 sessions, 3 windows, 4 panes, destructive", server)
	}

	if sel := toolOK(e, "select_pane", map[string]any{"paneId": "%3"}); sel["active"] != true {
		t.Errorf("select_pane = %v, want %%3 active", sel)
	}
	if sel := toolOK(e, "select_window", map[string]any{"windowId": logsWindow}); sel["active"] != true || sel["id"] != logsWindow {
		t.Errorf("select_window = %v, want %s current", sel, logsWindow)
	}
	if r := toolOK(e, "resize_pane", map[string]any{"paneId": "%1", "width": 60}); r["width"] != 60.0 {
		t.Errorf("resize_pane = %v, want width 60", r)
	}
	if r := toolOK(e, "rename_session", map[string]any{"session": "work", "name": "play"}); r["id"] != "$1" || r["name"] != "play" {
		t.Errorf("rename_session = %v, want $1 named play", r)
	}
	if r := toolOK(e, "rename_window", map[string]any{"windowId": logsWindow, "name": "build"}); r["name"] != "build" {
		t.Errorf("rename_window = %v, want build", r)
	}

	// History to clear: more lines than the 10-row pane shows.
	run := decodeRun(t, e.call("run_shell_command", map[string]any{"paneId": "%3", "command": "printf 'l%d\\n' 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15"}))
	if run.Outcome != "completed" {
		t.Fatalf("run_shell_command = %+v", run)
	}
	before := toolOK(e, "get_pane_info", map[string]any{"paneId": "%3"})["historySize"].(float64)
	cleared := toolOK(e, "clear_pane_scrollback", map[string]any{"paneId": "%3"})
	if before == 0 || cleared["clearedLines"] != before {
		t.Errorf("clear_pane_scrollback = %v, want the %v history rows cleared", cleared, before)
	}
	if after := toolOK(e, "get_pane_info", map[string]any{"paneId": "%3"})["historySize"]; after != 0.0 {
		t.Errorf("history after clearing = %v rows, want 0", after)
	}

	if k := toolOK(e, "kill_pane", map[string]any{"paneId": "%3"}); !sameJSON(k, map[string]any{"paneId": "%3", "killedPaneIds": []any{"%3"}}) {
		t.Errorf("kill_pane = %v", k)
	}
	if k := toolOK(e, "kill_window", map[string]any{"windowId": logsWindow}); !sameJSON(k, map[string]any{"windowId": logsWindow, "killedPaneIds": []any{"%2"}}) {
		t.Errorf("kill_window = %v", k)
	}
	if k := toolOK(e, "kill_session", map[string]any{"session": "play"}); !sameJSON(k, map[string]any{"sessionId": "$1", "sessionName": "play", "killedPaneIds": []any{"%1"}}) {
		t.Errorf("kill_session = %v", k)
	}
	left := toolOK(e, "list_panes", nil)["panes"].([]any)
	if len(left) != 1 || left[0].(map[string]any)["paneId"] != "%0" {
		t.Errorf("panes left = %v, want %%0 alone", left)
	}
	wantIn(t, "unknown session", toolRefused(e, "kill_session", map[string]any{"session": "play"}), "play", "list_sessions")
	wantIn(t, "name taken", toolRefused(e, "create_session", map[string]any{"name": "0"}), "already in use", "another name")
}

func sameJSON(a, b any) bool { return mustMarshal(a) == mustMarshal(b) }

// Killing and clearing check every pane they would end: a watched pane is
// refused with or without force, the server's own pane without force, and
// a busy pane always; nothing is killed when any pane is refused.
func TestManageKillRefusalsOnTheFake(t *testing.T) {
	type attempt struct {
		tool string
		args map[string]any
	}
	// Session $1 "work": window A holds %1 and %2; window B holds %3.
	setup := func(t *testing.T) (*inmem, string) {
		e, _, _ := newManageInmem(t)
		made := toolOK(e, "create_session", map[string]any{"name": "work"})
		toolOK(e, "split_window", map[string]any{"paneId": "%1"})
		toolOK(e, "create_window", map[string]any{"session": "work"})
		return e, made["windowId"].(string)
	}
	everyEnd := func(window string) []attempt {
		return []attempt{
			{"kill_pane", map[string]any{"paneId": "%2"}},
			{"kill_window", map[string]any{"windowId": window}},
			{"kill_session", map[string]any{"session": "work"}},
			{"clear_pane_scrollback", map[string]any{"paneId": "%2"}},
		}
	}
	stillThere := func(e *inmem) {
		e.t.Helper()
		if n := len(toolOK(e, "list_panes", map[string]any{"session": "work"})["panes"].([]any)); n != 3 {
			e.t.Errorf("session work has %d panes after refusals, want all 3", n)
		}
	}

	t.Run("watched", func(t *testing.T) {
		e, window := setup(t)
		e.term.Attach("%2", "/dev/pts/7")
		for _, a := range everyEnd(window) {
			for _, force := range []bool{false, true} {
				args := map[string]any{"force": force}
				for k, v := range a.args {
					args[k] = v
				}
				wantIn(t, fmt.Sprintf("%s force=%v", a.tool, force), toolRefused(e, a.tool, args), "refused", "%2", "watching", "/dev/pts/7")
			}
		}
		stillThere(e)
	})

	t.Run("own pane", func(t *testing.T) {
		e, window := setup(t)
		e.term.SetSelf("%2")
		for _, a := range everyEnd(window) {
			wantIn(t, a.tool, toolRefused(e, a.tool, a.args), "refused", "%2", "this server itself runs in", "force")
		}
		stillThere(e)
		killed := toolOK(e, "kill_window", map[string]any{"windowId": window, "force": true})
		if !sameJSON(killed["killedPaneIds"], []any{"%1", "%2"}) {
			t.Errorf("kill_window with force = %v, want %%1 and %%2 killed", killed)
		}
	})

	t.Run("busy with a command of this server", func(t *testing.T) {
		e, window := setup(t)
		done := e.start("run_shell_command", map[string]any{"paneId": "%2", "command": "sleep 100", "timeoutMs": 1000})
		e.awaitWaiting(runTimers + 1) // and the lease's renewal
		e.clock.Advance(time.Second)
		if out := decodeRun(t, <-done); out.Outcome != "timed_out" || !out.StillRunning {
			t.Fatalf("run_shell_command = %+v, want timed_out and still running", out)
		}
		for _, a := range everyEnd(window) {
			wantIn(t, a.tool, toolRefused(e, a.tool, a.args), "%2", "busy", `"sleep 100"`)
		}
		stillThere(e)
		pane := toolOK(e, "get_pane_info", map[string]any{"paneId": "%2"})
		if busy, _ := pane["busy"].(string); !strings.Contains(busy, "sleep 100") {
			t.Errorf("get_pane_info busy = %v, want the command holding it", pane["busy"])
		}
	})

	t.Run("busy with a command of another process", func(t *testing.T) {
		e, mgr, leaser := newManageInmem(t)
		other := manageProcess(t, e.term, e.clock, mgr, leaser, "process-b")
		done := other.start("run_shell_command", map[string]any{"paneId": "%0", "command": "sleep 100", "timeoutMs": 1000})
		other.awaitWaiting(runTimers + 1)
		other.clock.Advance(time.Second)
		if out := decodeRun(t, <-done); out.Outcome != "timed_out" {
			t.Fatalf("run_shell_command in the other process = %+v, want timed_out", out)
		}
		// This process holds no reservation on %0: only the lease says
		// that another one writes there.
		for _, a := range []attempt{{"kill_pane", map[string]any{"paneId": "%0"}}, {"clear_pane_scrollback", map[string]any{"paneId": "%0"}}} {
			wantIn(t, a.tool, toolRefused(e, a.tool, a.args), "%0", "busy", "another tmux-mcp process", "process-b")
		}
		if n := len(toolOK(e, "list_panes", nil)["panes"].([]any)); n != 1 {
			t.Errorf("%d panes after the refusals, want %%0 still there", n)
		}
	})
}

// injectionPayloads are strings a client might pass hoping tmux runs
// something: a format that runs a command, and the commands that run or
// pipe to a shell, as they would read in a tmux command line. Each names
// its own file, which must never appear.
func injectionPayloads(dir string) map[string]string {
	p := map[string]string{}
	for i, tmpl := range []string{
		`#(touch %s)`,
		`run-shell "touch %s" ;`,
		`if-shell true "run-shell 'touch %s'"`,
		`pipe-pane -o "touch %s"`,
	} {
		file := filepath.Join(dir, fmt.Sprintf("ran-%d", i))
		p[file] = fmt.Sprintf(tmpl, file)
	}
	return p
}

// injectionTarget is what the arguments of one injection attempt point
// at: a fresh pane, its window and its session, so that no attempt is
// refused for what an earlier one left in a pane.
type injectionTarget struct{ pane, window, session string }

// injectionArgs returns args for tool with the string field (or string
// array field) set to payload and every other required field valid.
func injectionArgs(t *testing.T, schema map[string]any, field, payload string, tg injectionTarget) map[string]any {
	t.Helper()
	props, _ := schema["properties"].(map[string]any)
	args := map[string]any{}
	for _, r := range schema["required"].([]any) {
		name := r.(string)
		switch name {
		case "paneId":
			args[name] = tg.pane
		case "windowId":
			args[name] = tg.window
		case "session":
			args[name] = tg.session
		case "patterns":
			args[name] = []string{"never printed"}
		default:
			if p, _ := props[name].(map[string]any); p["type"] == "string" {
				args[name] = "x"
			} else {
				t.Fatalf("no valid value for required argument %s", name)
			}
		}
	}
	// Waits end at once: what matters is what reached the multiplexer.
	if _, ok := props["timeoutMs"]; ok {
		args["timeoutMs"] = 300
	}
	if p, _ := props[field].(map[string]any); p["type"] == "array" {
		args[field] = []string{payload}
	} else {
		args[field] = payload
	}
	return args
}

// textFields lists the properties of an input schema that hold text.
func textFields(schema map[string]any) []string {
	var out []string
	props, _ := schema["properties"].(map[string]any)
	for name, p := range props {
		p := p.(map[string]any)
		items, _ := p["items"].(map[string]any)
		if p["type"] == "string" || (p["type"] == "array" && items["type"] == "string") {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// tryInjections calls every tool a destructive server lists with each
// payload in each of its text fields, on a fresh target each time (fresh
// returns it and a function that removes it), and returns how many calls
// were made. Results do not matter, as long as the server answers: only
// what reached the multiplexer does.
func tryInjections(t *testing.T, cs *sdk.ClientSession, dir string, fresh func() (injectionTarget, func())) int {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) < 23 {
		t.Fatalf("only %d tools listed; the walk would miss some", len(res.Tools))
	}
	calls := 0
	for _, tool := range res.Tools {
		var schema map[string]any
		if err := json.Unmarshal([]byte(mustMarshal(tool.InputSchema)), &schema); err != nil {
			t.Fatal(err)
		}
		for _, field := range textFields(schema) {
			for _, payload := range injectionPayloads(dir) {
				tg, remove := fresh()
				args := injectionArgs(t, schema, field, payload, tg)
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool.Name, Arguments: args})
				cancel()
				remove()
				if err != nil {
					t.Errorf("%s with %s=%q: protocol error %v", tool.Name, field, payload, err)
				}
				calls++
			}
		}
	}
	return calls
}

func checkNoPayloadRan(t *testing.T, dir string) {
	t.Helper()
	for file := range injectionPayloads(dir) {
		if _, err := os.Stat(file); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s exists (%v): a payload ran", file, err)
		}
	}
}

// No tool lets a client pass a tmux format or command that tmux would
// run: every text field of every tool, with every payload, on the fake.
func TestManageNoToolRunsAClientsFormatOrCommandOnTheFake(t *testing.T) {
	e, mgr, _ := newManageInmem(t)
	// The clock follows the system clock, so that the calls that wait end.
	stop := app.DriveClock(e.clock, time.Millisecond)
	defer stop()
	dir := t.TempDir()
	fresh := func() (injectionTarget, func()) {
		made := toolOK(e, "create_session", nil)
		id := made["sessionId"].(string)
		return injectionTarget{pane: made["paneId"].(string), window: made["windowId"].(string), session: id},
			func() { _ = mgr.KillSession(context.Background(), id) } // gone already if the call killed it
	}
	if n := tryInjections(t, e.cs, dir, fresh); n == 0 {
		t.Fatal("no text fields found")
	}
	checkNoPayloadRan(t, dir)
}

// manageOnTmux starts a private tmux server and serves it, at the destructive
// tier, to a client over the in-memory transport. It skips in -short and
// without tmux.
func manageOnTmux(t *testing.T) (cs *sdk.ClientSession, term *tmux.Terminal, socket string) {
	t.Helper()
	gate.Real(t, "tmux")
	gate.Need(t, "tmux")
	// The private server runs $SHELL; a login shell's start-up files
	// may wait on a lock that a killed test shell left behind.
	t.Setenv("SHELL", "/bin/sh")
	socket, _, stop, err := tmux.StartPrivate(tmux.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := stop(); err != nil {
			t.Error(err)
		}
	})
	term, err = tmux.New(tmux.Options{SocketName: socket})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { term.Close() })
	p := newProcess(term, term, clock.New(), term, app.NewLeaseOwner(), domain.Config{WaitMax: 10 * time.Second})
	srv := mcp.NewServer(p.svc, mcp.Options{Version: "e2e", Manage: p.life, Safety: mcp.TierDestructive, CheckResults: true})
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.SDK().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err = sdk.NewClient(&sdk.Implementation{Name: "e2e", Version: "0"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		srv.Close()
		cs.Close()
		ss.Wait()
		p.close()
	})
	return cs, term, socket
}

func TestManageNoToolRunsAClientsFormatOrCommandOnTmux(t *testing.T) {
	cs, term, socket := manageOnTmux(t)
	e := &inmem{t: t, cs: cs}
	dir := t.TempDir()
	fresh := func() (injectionTarget, func()) {
		made := toolOK(e, "create_session", nil)
		id := made["sessionId"].(string)
		return injectionTarget{pane: made["paneId"].(string), window: made["windowId"].(string), session: id},
			func() { _ = term.KillSession(context.Background(), id) } // gone already if the call killed it
	}
	if n := tryInjections(t, cs, dir, fresh); n == 0 {
		t.Fatal("no text fields found")
	}

	// The same payload given to tmux directly does run: the check below
	// can fail. tmux runs "#(...)" in the background, so once this file
	// appears, any payload that had started to run has had its chance.
	control := filepath.Join(dir, "control")
	// tmux kills a format's job when the client that asked exits, so a
	// job may die before it touches the file; ask again until one lives.
	ran := false
	for attempt := 0; attempt < 10 && !ran; attempt++ {
		if out, err := exec.Command("tmux", "-L", socket, "display-message", "-p", "#(touch "+control+")").CombinedOutput(); err != nil {
			t.Fatalf("tmux display-message: %v: %s", err, out)
		}
		// tmux gives no signal when a job ends: poll the file system.
		for i := 0; i < 100 && !ran; i++ {
			if _, err := os.Stat(control); err == nil {
				ran = true
			} else {
				time.Sleep(10 * time.Millisecond)
			}
		}
	}
	if !ran {
		t.Fatal("tmux never ran the control payload; the check would prove nothing")
	}
	checkNoPayloadRan(t, dir)
}

// A session's life on a real tmux server, through the tools alone.
func TestManageASessionsLifeOnTmux(t *testing.T) {
	cs, _, socket := manageOnTmux(t)
	e := &inmem{t: t, cs: cs}

	made := toolOK(e, "create_session", map[string]any{"name": "e2e-work", "width": 120, "height": 40})
	first, sessionID := made["paneId"].(string), made["sessionId"].(string)
	split := toolOK(e, "split_window", map[string]any{"paneId": first, "direction": "below"})
	second := split["paneId"].(string)
	if split["windowId"] != made["windowId"] || second == first {
		t.Fatalf("split_window = %v, want a new pane in %v", split, made["windowId"])
	}
	win := toolOK(e, "create_window", map[string]any{"session": "e2e-work", "name": "logs #1"})

	panes := toolOK(e, "list_panes", map[string]any{"session": sessionID})["panes"].([]any)
	var ids []string
	for _, p := range panes {
		p := p.(map[string]any)
		ids = append(ids, p["paneId"].(string))
		if p["sessionName"] != "e2e-work" || p["dead"] != false || p["watched"] != false || p["isServerOwn"] != false {
			t.Errorf("pane %v, want a live, unwatched pane of e2e-work", p)
		}
	}
	if want := []string{first, second, win["paneId"].(string)}; !slices.Equal(ids, want) {
		t.Errorf("list_panes = %v, want %v", ids, want)
	}
	windows := toolOK(e, "list_windows", map[string]any{"session": "e2e-work"})["windows"].([]any)
	if len(windows) != 2 || windows[1].(map[string]any)["name"] != "logs #1" {
		t.Errorf("list_windows = %v, want the first window and logs #1 (a \"#\" kept as it is)", windows)
	}

	renamed := toolOK(e, "rename_session", map[string]any{"session": "e2e-work", "name": "e2e renamed"})
	if renamed["id"] != sessionID || renamed["name"] != "e2e renamed" {
		t.Errorf("rename_session = %v, want %s named \"e2e renamed\"", renamed, sessionID)
	}
	if out, err := exec.Command("tmux", "-L", socket, "display-message", "-p", "-t", sessionID, "#{session_name}").Output(); err != nil ||
		strings.TrimSpace(string(out)) != "e2e renamed" {
		t.Errorf("tmux says the session is named %q (%v)", out, err)
	}
	wantIn(t, "rename_window with a format", toolRefused(e, "rename_window", map[string]any{"windowId": win["windowId"], "name": "#(no)"}),
		"invalid name", "#(")

	info := toolOK(e, "get_server_info", nil)
	if v, _ := info["version"].(string); !strings.HasPrefix(v, "3.") || info["pid"] == nil || info["sessions"] != 2.0 {
		t.Errorf("get_server_info = %v, want tmux 3.x, a pid, 2 sessions (the private one and e2e renamed)", info)
	}

	killed := toolOK(e, "kill_session", map[string]any{"session": "e2e renamed"})
	if got := killed["killedPaneIds"].([]any); len(got) != 3 || killed["sessionId"] != sessionID {
		t.Errorf("kill_session = %v, want %s and its 3 panes", killed, sessionID)
	}
	for _, s := range toolOK(e, "list_sessions", nil)["sessions"].([]any) {
		if s.(map[string]any)["id"] == sessionID {
			t.Errorf("session %s still listed after kill_session", sessionID)
		}
	}
}
