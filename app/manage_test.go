package app_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmux-mcp/tmux-mcp/adapters/mcp/audit"
	"github.com/tmux-mcp/tmux-mcp/app"
	"github.com/tmux-mcp/tmux-mcp/test/gate"
)

func toolNames(t *testing.T, cs *sdk.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	return names
}

// callOK calls a tool and returns its structured content, failing the
// test on any error.
func callOK(t *testing.T, cs *sdk.ClientSession, tool string, args map[string]any) map[string]any {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	got, _ := res.StructuredContent.(map[string]any)
	if res.IsError || got == nil {
		t.Fatalf("%s = %v (error %v)", tool, res.Content, res.IsError)
	}
	return got
}

// The tier is the server's setting, by flag or variable: the binary lists
// exactly the tools of its tier, and a tool above it cannot be called.
func TestMainOffersTheToolsOfItsSafetyTier(t *testing.T) {
	tests := []struct {
		name      string
		args      []string
		env       map[string]string
		tier      string
		has, hasn []string
	}{
		{"readonly", []string{"-safety", "readonly"}, nil, "readonly",
			[]string{"capture_pane", "list_panes", "get_server_info"}, []string{"run_shell_command", "create_session", "kill_pane"}},
		{"mutating by default", nil, nil, "mutating",
			[]string{"capture_pane", "run_shell_command", "create_session", "split_window"}, []string{"kill_pane", "clear_pane_scrollback"}},
		{"destructive from the environment", nil, map[string]string{"LIBTMUX_SAFETY": "destructive"}, "destructive",
			[]string{"capture_pane", "run_shell_command", "kill_session", "clear_pane_scrollback"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs, stderr, end := mainSessionWith(t, tt.env, append([]string{"-backend", "fake"}, tt.args...)...)
			defer end()
			names := toolNames(t, cs)
			for _, n := range tt.has {
				if !slices.Contains(names, n) {
					t.Errorf("tools/list lacks %s: %v", n, names)
				}
			}
			for _, n := range tt.hasn {
				if slices.Contains(names, n) {
					t.Errorf("tools/list offers %s: %v", n, names)
				}
				if _, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: n, Arguments: map[string]any{}}); err == nil {
					t.Errorf("%s, above the tier, could be called", n)
				}
			}
			if info := callOK(t, cs, "get_server_info", nil); info["safety"] != tt.tier {
				t.Errorf("get_server_info safety = %v, want %s", info["safety"], tt.tier)
			}
			if !strings.Contains(stderr.String(), `"safety": "`+tt.tier+`"`) {
				t.Errorf("the start log does not say the tier:\n%s", stderr.String())
			}
		})
	}
}

// The fake backend serves the lifecycle tools through its Manager, and its
// Leaser leases every pane written to.
func TestMainServesTheLifecycleToolsOnTheFakeBackend(t *testing.T) {
	cs, stderr, end := mainSessionWith(t, nil, "-backend", "fake", "-safety", "destructive")
	defer func() {
		if code, _ := end(); code != app.ExitOK {
			t.Errorf("Main = %d\nstderr:\n%s", code, stderr.String())
		}
	}()
	panes := callOK(t, cs, "list_panes", nil)["panes"].([]any)
	if len(panes) != 1 || panes[0].(map[string]any)["paneId"] != string(app.DemoPane) {
		t.Fatalf("list_panes = %v, want the demo pane alone", panes)
	}
	made := callOK(t, cs, "create_session", map[string]any{"name": "scratch"})
	pane, _ := made["paneId"].(string)
	runEcho(t, cs, pane)
	killed := callOK(t, cs, "kill_session", map[string]any{"session": "scratch"})
	if ids, _ := killed["killedPaneIds"].([]any); len(ids) != 1 || ids[0] != pane {
		t.Errorf("kill_session = %v, want %s killed", killed, pane)
	}
	if !regexp.MustCompile(`"owner": "[^"\s]+-\d+-[0-9a-f]{8}"`).MatchString(stderr.String()) {
		t.Errorf("the log does not name the lease owner:\n%s", stderr.String())
	}
}

func TestMainWritesOneAuditLinePerCallWithoutTheCommand(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	cs, stderr, end := mainSessionWith(t, nil, "-backend", "fake", "-audit", path)
	const command = "echo hello; exit 3"
	runEcho(t, cs, string(app.DemoPane)) // runs command
	callOK(t, cs, "list_sessions", nil)
	if code, _ := end(); code != app.ExitOK {
		t.Fatalf("Main = %d\nstderr:\n%s", code, stderr.String())
	}

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "echo hello") {
		t.Errorf("the audit log holds the command:\n%s", data)
	}
	var lines []map[string]any
	for line := range strings.Lines(string(data)) {
		var l map[string]any
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatalf("audit line is not JSON: %q", line)
		}
		lines = append(lines, l)
	}
	if len(lines) != 2 {
		t.Fatalf("audit log has %d lines, want 2:\n%s", len(lines), data)
	}
	run := lines[0]
	digests, _ := run["sha256"].(map[string]any)
	if run["tool"] != "run_shell_command" || run["paneId"] != string(app.DemoPane) || run["outcome"] != "completed" ||
		digests["command"] != audit.Digest(command) {
		t.Errorf("audit line = %v, want run_shell_command on %s, completed, with the command's digest", run, app.DemoPane)
	}
	if lines[1]["tool"] != "list_sessions" || lines[1]["outcome"] != "ok" {
		t.Errorf("audit line = %v, want list_sessions ok", lines[1])
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("audit log mode = %v (%v), want 0600", fi.Mode(), err)
	}
}

func TestMainRefusesToServeUnauditedWhenTheLogCannotBeOpened(t *testing.T) {
	var stdout, stderr syncBuffer
	path := filepath.Join(t.TempDir(), "no", "such", "dir", "audit.jsonl")
	code := app.Main([]string{"-backend", "fake", "-audit", path}, envOf(nil), app.Stdio{In: strings.NewReader(""), Out: &stdout, Err: &stderr})
	if code != app.ExitUsage || !strings.Contains(stderr.String(), "-audit") {
		t.Errorf("Main = %d, want %d and the audit log named\nstderr:\n%s", code, app.ExitUsage, stderr.String())
	}
}

func TestLeaseOwnersTellProcessesApart(t *testing.T) {
	a, b := app.NewLeaseOwner(), app.NewLeaseOwner()
	re := regexp.MustCompile(`^\S+-` + strconv.Itoa(os.Getpid()) + `-[0-9a-f]{8}$`)
	if !re.MatchString(a) || !re.MatchString(b) {
		t.Errorf("owners %q, %q; want hostname-pid-randomhex", a, b)
	}
	if a == b {
		t.Errorf("two owners are both %q", a)
	}
}

// TestMainServesAPrivateScreenSession runs the server on GNU screen with
// no session named: it starts a private session, serves its window, and
// quits the session when stdin ends. screen has no lifecycle tools.
func TestMainServesAPrivateScreenSession(t *testing.T) {
	gate.Real(t, "screen")
	gate.Need(t, "screen")
	cs, stderr, end := mainSessionWith(t, nil, "-backend", "screen")
	m := regexp.MustCompile(`"session": "([^"]+)"`).FindStringSubmatch(stderr.String())
	if m == nil {
		end()
		t.Fatalf("no private session named in the log:\n%s", stderr.String())
	}
	if names := toolNames(t, cs); slices.Contains(names, "list_panes") || !slices.Contains(names, "run_shell_command") {
		t.Errorf("tools/list = %v, want the pane tools without the lifecycle tools", names)
	}
	// No tool lists screen's windows: the instructions say which ids
	// there are, and send no model to list_panes.
	ins := cs.InitializeResult().Instructions
	for _, want := range []string{"window number N", m[1], "%0"} {
		if !strings.Contains(ins, want) {
			t.Errorf("instructions lack %q:\n%s", want, ins)
		}
	}
	if strings.Contains(ins, "list_panes") {
		t.Errorf("instructions name list_panes, which screen does not offer:\n%s", ins)
	}
	runEcho(t, cs, "%0")
	code, lines := end()
	if code != app.ExitOK {
		t.Errorf("Main = %d, want %d\nstderr:\n%s", code, app.ExitOK, stderr.String())
	}
	checkJSONRPCOnly(t, lines)
	if out, _ := exec.Command("screen", "-ls", m[1]).CombinedOutput(); strings.Contains(string(out), m[1]) {
		t.Errorf("the private screen session %s still runs after the server stopped:\n%s", m[1], out)
	}
}

// The tool allowlist, on top of the tier: the binary lists exactly the
// named tools its tier offers, and a named tool above the tier is said on
// stderr and not offered.
func TestMainOffersOnlyTheToolsOfItsAllowlist(t *testing.T) {
	cs, stderr, end := mainSessionWith(t, map[string]string{"TMUX_MCP_TOOLS": "run_shell_command"},
		"-backend", "fake", "-tools", "capture_pane, wait_for_command,kill_pane,list_panes")
	defer end()
	if got, want := toolNames(t, cs), []string{"capture_pane", "list_panes", "wait_for_command"}; !slices.Equal(got, want) {
		t.Errorf("tools/list = %v, want %v", got, want)
	}
	if _, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "run_shell_command",
		Arguments: map[string]any{"paneId": "%0", "command": "true"}}); err == nil {
		t.Error("run_shell_command, outside the allowlist, could be called")
	}
	if !strings.Contains(stderr.String(), "above the safety tier") || !strings.Contains(stderr.String(), `"tool": "kill_pane"`) {
		t.Errorf("stderr does not say that kill_pane is above the tier:\n%s", stderr.String())
	}
}
