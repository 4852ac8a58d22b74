package mcpadapter_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var specifiedTools = []string{"capture_pane", "paste_text", "run_shell_command"}

// contractDir finds the contract's reference pages: $TMUX_MCP_SPEC_DIR, or
// shared/spec beside the repository, where the team and CI keep them.
func contractDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("TMUX_MCP_SPEC_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "spec")
	}
	if _, err := os.Stat(filepath.Join(dir, "CONTRACT.md")); err != nil {
		t.Skipf("contract pages not found (%v); set TMUX_MCP_SPEC_DIR to check against them", err)
	}
	return dir
}

// contractSchema returns the JSON schema that the "Input schema" or
// "Output schema" code block of a tool's reference page holds.
func contractSchema(t *testing.T, dir, tool, kind string) any {
	t.Helper()
	page, err := os.ReadFile(filepath.Join(dir, tool+".md"))
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile("(?s)" + kind + " schema\\s*```json\\n(.*?)```")
	m := re.FindSubmatch(page)
	if m == nil {
		t.Fatalf("%s.md has no %q code block", tool, kind+" schema")
	}
	var v any
	if err := json.Unmarshal(m[1], &v); err != nil {
		t.Fatalf("%s.md %s schema: %v", tool, kind, err)
	}
	return v
}

// contractDescription returns the summary line (the page's block quote).
func contractDescription(t *testing.T, dir, tool string) string {
	t.Helper()
	page, err := os.ReadFile(filepath.Join(dir, tool+".md"))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(page)) {
		if rest, ok := strings.CutPrefix(line, "> "); ok {
			return strings.TrimSpace(rest)
		}
	}
	t.Fatalf("%s.md has no summary block quote", tool)
	return ""
}

func listTools(t *testing.T) map[string]*mcp.Tool {
	t.Helper()
	cs, _ := connect(t, &stubTools{t: t})
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]*mcp.Tool{}
	for _, tool := range res.Tools {
		tools[tool.Name] = tool
	}
	return tools
}

func TestListsExactlyTheSpecifiedTools(t *testing.T) {
	var names []string
	for name := range listTools(t) {
		names = append(names, name)
	}
	slices.Sort(names)
	if !slices.Equal(names, specifiedTools) {
		t.Errorf("tools/list names = %v, want %v", names, specifiedTools)
	}
}

func TestAdvertisedSchemasAreTheContractPages(t *testing.T) {
	dir := contractDir(t)
	tools := listTools(t)
	for _, name := range specifiedTools {
		tool := tools[name]
		if tool == nil {
			t.Errorf("%s not listed", name)
			continue
		}
		if want := contractSchema(t, dir, name, "Input"); !jsonEqual(tool.InputSchema, want) {
			t.Errorf("%s input schema differs from %s.md:\n got %s\nwant %s", name, name, mustJSON(tool.InputSchema), mustJSON(want))
		}
		if want := contractSchema(t, dir, name, "Output"); !jsonEqual(tool.OutputSchema, want) {
			t.Errorf("%s output schema differs from %s.md:\n got %s\nwant %s", name, name, mustJSON(tool.OutputSchema), mustJSON(want))
		}
	}
}

// The embedded copies stand in for the pages where the pages are absent;
// the server must advertise them unchanged.
func TestAdvertisedSchemasAreTheEmbeddedCopies(t *testing.T) {
	tools := listTools(t)
	for _, name := range specifiedTools {
		for kind, got := range map[string]any{"input": tools[name].InputSchema, "output": tools[name].OutputSchema} {
			data, err := os.ReadFile(filepath.Join("schemas", name+"."+kind+".json"))
			if err != nil {
				t.Fatal(err)
			}
			var want any
			if err := json.Unmarshal(data, &want); err != nil {
				t.Fatal(err)
			}
			if !jsonEqual(got, want) {
				t.Errorf("%s %s schema differs from schemas/%s.%s.json", name, kind, name, kind)
			}
		}
	}
}

func TestDescriptionsAreTheContractPages(t *testing.T) {
	dir := contractDir(t)
	tools := listTools(t)
	for _, name := range specifiedTools {
		want := contractDescription(t, dir, name)
		if got := tools[name].Description; !strings.HasPrefix(got, want) {
			t.Errorf("%s description = %q\nwant it to start with the page's %q", name, got, want)
		}
	}
}

func TestRunShellCommandDescriptionWarnsOfBusyAndRefusals(t *testing.T) {
	got := listTools(t)["run_shell_command"].Description
	for _, word := range []string{"busy", "refused", "watching", "force"} {
		if !strings.Contains(got, word) {
			t.Errorf("run_shell_command description lacks %q: %s", word, got)
		}
	}
}

func TestAnnotationsAreTheTrueOnes(t *testing.T) {
	type hints struct {
		title                                        string
		readOnly, idempotent, destructive, openWorld bool
	}
	want := map[string]hints{
		"run_shell_command": {title: "Run shell command", readOnly: false, idempotent: false, destructive: false, openWorld: true},
		"paste_text":        {title: "Paste text", readOnly: false, idempotent: false, destructive: false, openWorld: true},
		"capture_pane":      {title: "Capture pane", readOnly: true, idempotent: true, destructive: false, openWorld: false},
	}
	for name, tool := range listTools(t) {
		a := tool.Annotations
		if a == nil || a.DestructiveHint == nil || a.OpenWorldHint == nil {
			t.Errorf("%s annotations = %+v, want every hint set explicitly", name, a)
			continue
		}
		got := hints{tool.Title, a.ReadOnlyHint, a.IdempotentHint, *a.DestructiveHint, *a.OpenWorldHint}
		if got != want[name] {
			t.Errorf("%s title and hints = %+v, want %+v", name, got, want[name])
		}
	}
}

func mustJSON(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(data)
}
