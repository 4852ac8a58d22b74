package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmux-mcp/tmux-mcp/adapters/mcp"
	"github.com/tmux-mcp/tmux-mcp/domain/lifecycle"
)

// listManageTools lists the tools of a destructive-tier server that serves
// the inspect and lifecycle tools.
func listManageTools(t *testing.T) map[string]*sdk.Tool {
	t.Helper()
	stub := newManageStub(t)
	cs, _ := connectWith(t, stub, mcp.Options{Manage: stub, Safety: mcp.TierDestructive})
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]*sdk.Tool{}
	for _, tool := range res.Tools {
		tools[tool.Name] = tool
	}
	return tools
}

func TestManageToolsAreListedWhenTheToolsServeThem(t *testing.T) {
	got := slices.Sorted(maps.Keys(listManageTools(t)))
	want := slices.Sorted(slices.Values(append(slices.Clone(allTools), manageTools...)))
	if !slices.Equal(got, want) {
		t.Errorf("tools/list = %v, want %v", got, want)
	}
}

func TestManageSchemasAreTheGoldenCopies(t *testing.T) {
	tools := listManageTools(t)
	for _, name := range manageTools {
		for kind, got := range map[string]any{"input": tools[name].InputSchema, "output": tools[name].OutputSchema} {
			if want := goldenSchema(t, name, kind); !jsonEqual(got, want) {
				t.Errorf("%s %s schema differs from %s/%s.%s.json", name, kind, goldenDir, name, kind)
			}
		}
	}
}

// node is a JSON schema, or part of one, as decoded JSON.
type node = map[string]any

// idPatterns are the patterns CONTRACT.md gives ids, by the property names
// that hold them.
var idPatterns = map[string]string{
	"paneId":    `^%\d+$`,
	"windowId":  `^@\d+$`,
	"sessionId": `^\$\d+$`,
}

// checkSchema walks a schema, reporting through t what breaks the style of
// the contract's pages: every property described, and, in an output,
// every object closed (additionalProperties false) with every property
// required, so that a client can rely on each field being there.
func checkSchema(t *testing.T, where string, s node, output bool) {
	t.Helper()
	if s["type"] == "object" {
		props, _ := s["properties"].(node)
		if output {
			if s["additionalProperties"] != false {
				t.Errorf("%s: object allows additional properties", where)
			}
			var required []string
			for _, r := range s["required"].([]any) {
				required = append(required, r.(string))
			}
			if got, want := slices.Sorted(slices.Values(required)), slices.Sorted(maps.Keys(props)); !slices.Equal(got, want) {
				t.Errorf("%s: required %v, want every property %v", where, got, want)
			}
		}
		for name, p := range props {
			p := p.(node)
			if d, _ := p["description"].(string); strings.TrimSpace(d) == "" {
				t.Errorf("%s.%s has no description", where, name)
			}
			if want, ok := idPatterns[name]; ok && !patternIs(p, want) {
				t.Errorf("%s.%s: pattern %v, want %s", where, name, p, want)
			}
			checkSchema(t, where+"."+name, p, output)
		}
	}
	if items, ok := s["items"].(node); ok {
		checkSchema(t, where+"[]", items, output)
	}
	if anyOf, ok := s["anyOf"].([]any); ok {
		for _, a := range anyOf {
			checkSchema(t, where, a.(node), output)
		}
	}
}

// patternIs reports whether p, or its non-null variant, has pattern want.
func patternIs(p node, want string) bool {
	if p["pattern"] == want {
		return true
	}
	anyOf, _ := p["anyOf"].([]any)
	for _, a := range anyOf {
		if a.(node)["pattern"] == want {
			return true
		}
	}
	return false
}

func TestManageSchemasHaveTheContractsStyle(t *testing.T) {
	tools := listManageTools(t)
	for _, name := range manageTools {
		for kind, v := range map[string]any{"input": tools[name].InputSchema, "output": tools[name].OutputSchema} {
			var s node
			if err := json.Unmarshal([]byte(mustJSON(v)), &s); err != nil {
				t.Fatal(err)
			}
			if s["$schema"] != "http://json-schema.org/draft-07/schema#" || s["type"] != "object" {
				t.Errorf("%s %s: $schema %v, type %v; want draft-07 and object", name, kind, s["$schema"], s["type"])
			}
			checkSchema(t, name+" "+kind, s, kind == "output")
		}
	}
}

// A session is named by its id or its exact name: the schema pattern lets
// both through and stops what could never be a name before the domain
// sees it.
func TestSessionArgumentsAcceptAnIdOrAName(t *testing.T) {
	tools := listManageTools(t)
	var input struct {
		Properties map[string]struct {
			Pattern string `json:"pattern"`
		} `json:"properties"`
	}
	if err := json.Unmarshal([]byte(mustJSON(tools["kill_session"].InputSchema)), &input); err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(input.Properties["session"].Pattern)
	for _, ok := range []string{"$0", "$12", "work", "my session", "ünï", "$name", "#(x)"} {
		if !re.MatchString(ok) {
			t.Errorf("session pattern %s refuses %q", re, ok)
		}
	}
	for _, bad := range []string{"", "-t", "a:b", "a.b", "$1:2"} {
		if re.MatchString(bad) {
			t.Errorf("session pattern %s accepts %q", re, bad)
		}
	}
}

func TestManageAnnotationsAreTheTrueOnes(t *testing.T) {
	type hints struct{ readOnly, idempotent, destructive, openWorld bool }
	reading := hints{readOnly: true, idempotent: true}
	layout := hints{}
	ending := hints{destructive: true}
	want := map[string]hints{
		"list_sessions": reading, "list_windows": reading, "list_panes": reading, "get_pane_info": reading, "get_server_info": reading,
		// It reads what the panes show and changes nothing.
		"search_panes": reading,
		// It reads the pane's facts and changes nothing.
		"display": reading,
		// create_session runs whatever command the caller gives.
		"create_session": {openWorld: true},
		"create_window":  layout, "split_window": layout, "select_pane": layout, "select_window": layout, "resize_pane": layout,
		"resize_window":  layout,
		"rename_session": layout, "rename_window": layout,
		// It ends the pane's program as kill_pane does, and starts only the
		// one the pane was made with again.
		"respawn_pane":          ending,
		"clear_pane_scrollback": ending, "kill_pane": ending, "kill_window": ending, "kill_session": ending,
	}
	tools := listManageTools(t)
	for _, name := range manageTools {
		tool := tools[name]
		a := tool.Annotations
		if a == nil || a.DestructiveHint == nil || a.OpenWorldHint == nil {
			t.Errorf("%s annotations = %+v, want every hint set explicitly", name, a)
			continue
		}
		if got := (hints{a.ReadOnlyHint, a.IdempotentHint, *a.DestructiveHint, *a.OpenWorldHint}); got != want[name] {
			t.Errorf("%s hints = %+v, want %+v", name, got, want[name])
		}
		if tool.Title == "" || a.Title != tool.Title {
			t.Errorf("%s title %q, annotations title %q; want both set and equal", name, tool.Title, a.Title)
		}
	}
}

func TestManageDescriptionsSayWhatToolsDoAndWhenTheyAreRefused(t *testing.T) {
	tools := listManageTools(t)
	want := map[string][]string{
		"list_sessions":         {"accepts no client-supplied executable input", "$1"},
		"list_windows":          {"accepts no client-supplied executable input", "@2"},
		"list_panes":            {"accepts no client-supplied executable input", "watched", "isServerOwn", "busy", "%3"},
		"search_panes":          {"accepts no client-supplied executable input", "RE2", "history: true", "capture_pane", "truncated", "invalid regular expression is a tool error", "skipped"},
		"get_pane_info":         {"accepts no client-supplied executable input", "copy mode", "synchronized"},
		"display":               {"accepts no client-supplied executable input", "no format", "only the pane id", "cursorX", "null, never a guess", "get_pane_info"},
		"get_server_info":       {"accepts no client-supplied executable input", "safety tier"},
		"create_session":        {"with your user's permissions", "detached", "paneId", "#("},
		"create_window":         {"with your user's permissions", "paneId"},
		"split_window":          {"with your user's permissions", "below", "paneId"},
		"select_pane":           {"sends no input", "select_window"},
		"select_window":         {"sends no input"},
		"resize_pane":           {"less than asked"},
		"resize_window":         {"detached", "80 columns", "list_windows", "width, a height or both"},
		"rename_session":        {"keeps its id"},
		"rename_window":         {"keeps its id"},
		"clear_pane_scrollback": {"for good", "watching", "even with force", "busy"},
		"kill_pane":             {"for good", "watching", "even with force", "busy"},
		"respawn_pane":          {"for good", "keeps its id", "dead", "watching", "even with force", "busy", "list_panes", "C-c"},
		"kill_window":           {"for good", "nothing is killed", "watching"},
		"kill_session":          {"for good", "nothing is killed", "watching", "last session"},
	}
	for name, words := range want {
		got := tools[name].Description
		for _, w := range words {
			if !strings.Contains(got, w) {
				t.Errorf("%s description lacks %q: %s", name, w, got)
			}
		}
	}
}

// A backend that cannot list or shape its sessions gets a server without
// the tools that would only ever fail, even if its Tools could serve them.
func TestWithoutManageTheLifecycleToolsAreNotOffered(t *testing.T) {
	cs, _ := connectWith(t, newManageStub(t), mcp.Options{Safety: mcp.TierDestructive})
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tool := range res.Tools {
		got = append(got, tool.Name)
	}
	if slices.Sort(got); !slices.Equal(got, allTools) {
		t.Errorf("tools/list = %v, want only %v", got, allTools)
	}
}

// search_panes tells a model its bounds in words, in its description and
// its fields' (the domain's bounds are not in the schemas): the words must
// be the bounds the domain applies.
func TestSearchPanesStatesTheBoundsTheDomainApplies(t *testing.T) {
	tool := listManageTools(t)["search_panes"]
	var in, out node
	if err := json.Unmarshal([]byte(mustJSON(tool.InputSchema)), &in); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(mustJSON(tool.OutputSchema)), &out); err != nil {
		t.Fatal(err)
	}
	described := func(s node, path ...string) string {
		for _, p := range path {
			s = s["properties"].(node)[p].(node)
			if items, ok := s["items"].(node); ok && p != path[len(path)-1] {
				s = items
			}
		}
		return s["description"].(string)
	}
	for where, says := range map[string][2]string{
		"description": {tool.Description, fmt.Sprintf("(default %d, at most %d), %d bytes of text in all, %d bytes of a row around "+
			"its first match (cut says a row was longer), the newest %d rows of a pane", lifecycle.DefaultSearchMatches,
			lifecycle.MaxSearchMatches, lifecycle.MaxSearchBytes, lifecycle.MaxSearchLineBytes, lifecycle.MaxSearchRows)},
		"maxMatches": {described(in, "maxMatches"), fmt.Sprintf("Default %d; more than %d is taken as %d",
			lifecycle.DefaultSearchMatches, lifecycle.MaxSearchMatches, lifecycle.MaxSearchMatches)},
		"history":      {described(in, "history"), fmt.Sprintf("at most the newest %d rows of a pane", lifecycle.MaxSearchRows)},
		"rangeClamped": {described(out, "rangeClamped"), fmt.Sprintf("(%d, screen included)", lifecycle.MaxSearchRows)},
		"lines[].cut":  {described(out, "panes", "lines", "cut"), fmt.Sprintf("longer than %d bytes", lifecycle.MaxSearchLineBytes)},
		"lines[].text": {described(out, "panes", "lines", "text"), fmt.Sprintf("at most %d bytes of it", lifecycle.MaxSearchLineBytes)},
	} {
		if !strings.Contains(says[0], says[1]) {
			t.Errorf("search_panes %s %q lacks %q", where, says[0], says[1])
		}
	}
}
