package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmux-mcp/tmux-mcp/adapters/mcp"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// specifiedTools have a reference page with their schemas; contractTools
// are those CONTRACT.md defines by field lists alone.
var (
	specifiedTools = []string{"capture_pane", "paste_text", "run_shell_command"}
	contractTools  = []string{"capture_since", "send_keys", "wait_for_text"}
	allTools       = []string{"capture_pane", "capture_since", "paste_text", "read_output", "run_shell_command", "send_keys", "signal_command", "wait_for_command", "wait_for_text"}
)

// addedOutputFields are the output fields that issues added to tools the
// reference pages specify, beyond what the pages give: the server must
// advertise the pages' schemas with these fields and only these added.
// Issue 22 added what the text of a result cannot carry; issue 23 what a
// command left running, the run's id, which names its whole output for
// read_output, and what a command that waits for input asks (input; the
// outcome that says so is in addedEnumValues); issue 24 whether the
// command ran in a far shell.
var addedOutputFields = map[string][]string{
	"run_shell_command": {"replacedBytes", "unterminatedBytes", "leftRunning", "leftRunningCount", "runId", "input", "farShell"},
	"capture_since":     {"replacedBytes", "unterminatedBytes"},
	"wait_for_text":     {"replacedBytes", "unterminatedBytes"},
}

// addedEnumValues are the values issues added to the enums of output
// fields of the tools the reference pages specify, by tool and field.
var addedEnumValues = map[string]map[string][]string{
	"run_shell_command": {"outcome": {"awaiting_input"}},
}

// addedInputFields are the arguments issues added to the tools the
// reference pages specify: optional, so that every call the pages allow
// means what it meant. Issue 23 added persist and awaitInput, issue 24
// the far shell's arguments.
var addedInputFields = map[string][]string{
	"run_shell_command": {"persist", "awaitInput", "farShell", "farPrompt", "farPromptRegex"},
}

// withoutAddedInput returns an input schema (decoded JSON) with tool's
// addedInputFields taken out of its properties, as its reference page
// has it; it fails the test if one is not there or is required.
func withoutAddedInput(t *testing.T, tool string, schema any) any {
	t.Helper()
	v, _ := normalize(schema)
	m, _ := v.(map[string]any)
	props, _ := m["properties"].(map[string]any)
	required, _ := m["required"].([]any)
	for _, f := range addedInputFields[tool] {
		if _, ok := props[f]; !ok || slices.Contains(required, any(f)) {
			t.Errorf("%s's input schema lacks the added optional argument %s", tool, f)
		}
		delete(props, f)
	}
	return v
}

// withoutAdded returns an output schema (decoded JSON) with tool's
// addedOutputFields taken out of its properties and required list, as
// its reference page has it; it fails the test if one is not there.
func withoutAdded(t *testing.T, tool string, schema any) any {
	t.Helper()
	v, _ := normalize(schema)
	m, _ := v.(map[string]any)
	props, _ := m["properties"].(map[string]any)
	required, _ := m["required"].([]any)
	for _, f := range addedOutputFields[tool] {
		if _, ok := props[f]; !ok || !slices.Contains(required, any(f)) {
			t.Errorf("%s's output schema lacks the added field %s", tool, f)
		}
		delete(props, f)
		required = slices.DeleteFunc(required, func(r any) bool { return r == f })
	}
	for field, values := range addedEnumValues[tool] {
		p, _ := props[field].(map[string]any)
		enum, _ := p["enum"].([]any)
		for _, e := range values {
			if !slices.Contains(enum, any(e)) {
				t.Errorf("%s's output field %s lacks the added value %s", tool, field, e)
			}
			enum = slices.DeleteFunc(enum, func(x any) bool { return x == e })
		}
		if p != nil {
			p["enum"] = enum
		}
	}
	if m != nil {
		m["required"] = required
	}
	return v
}

// docsContract is the repository's own contract, docs/CONTRACT.md, which
// every clone has.
const docsContract = "../../docs/CONTRACT.md"

// referenceDir holds the reference pages the contract was specified from
// (the three specified tools' pages, with their schemas, and the seed
// CONTRACT.md), copied verbatim into testdata so that every clone checks
// against them; $TMUX_MCP_SPEC_DIR names another copy to check against
// instead (a newer one, before it is copied in).
func referenceDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("TMUX_MCP_SPEC_DIR")
	if dir == "" {
		dir = filepath.Join("testdata", "reference")
	}
	if _, err := os.Stat(filepath.Join(dir, "CONTRACT.md")); err != nil {
		t.Fatalf("the reference pages are not in %s: %v", dir, err)
	}
	return dir
}

// goldenDir holds the schemas the server advertised when they were files it
// read, kept as golden copies: the declarations must still produce them,
// byte for byte. Those of run_shell_command, paste_text and capture_pane
// are copied verbatim from the "Protocol data" sections of their reference
// pages; the others were written by hand in the same style from the field
// lists of CONTRACT.md.
const goldenDir = "testdata/schemas"

// goldenFile returns a golden schema as its file holds it.
func goldenFile(t *testing.T, tool, kind string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(goldenDir, tool+"."+kind+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// goldenSchema returns a golden schema as decoded JSON.
func goldenSchema(t *testing.T, tool, kind string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(goldenFile(t, tool, kind), &v); err != nil {
		t.Fatalf("%s/%s.%s.json: %v", goldenDir, tool, kind, err)
	}
	return v
}

// compacted is JSON with the white space between tokens removed and
// nothing else changed: the form a schema takes on the wire.
func compacted(t *testing.T, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, data); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// contractSchemaText returns the "Input schema" or "Output schema" code
// block of a tool's reference page, as the page prints it.
func contractSchemaText(t *testing.T, dir, tool, kind string) []byte {
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
	return m[1]
}

// contractSchema returns the JSON schema that the "Input schema" or
// "Output schema" code block of a tool's reference page holds.
func contractSchema(t *testing.T, dir, tool, kind string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(contractSchemaText(t, dir, tool, kind), &v); err != nil {
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

func listTools(t *testing.T) map[string]*sdk.Tool {
	t.Helper()
	cs, _ := connect(t, &stubTools{t: t})
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

func TestListsExactlyTheContractsTools(t *testing.T) {
	var names []string
	for name := range listTools(t) {
		names = append(names, name)
	}
	slices.Sort(names)
	if !slices.Equal(names, allTools) {
		t.Errorf("tools/list names = %v, want %v", names, allTools)
	}
}

// wireSchemas are a tool's schemas as tools/list carries them, byte for
// byte.
type wireSchemas struct {
	input, output []byte
}

// advertisedOnTheWire returns the schemas of every tool of a server of one
// host that offers them all, read from its tools/list reply on stdio as
// raw JSON.
func advertisedOnTheWire(t *testing.T) map[string]wireSchemas {
	t.Helper()
	return advertisedBy(t, nil)
}

// advertisedBy is advertisedOnTheWire for a server of the hosts of hosts,
// or of one host when hosts is nil.
func advertisedBy(t *testing.T, hosts ports.HostLister) map[string]wireSchemas {
	t.Helper()
	stub := newManageStub(t)
	r := serveStdioServer(t, mcp.NewServer(stub, mcp.Options{Manage: stub, Hosts: hosts, Safety: mcp.TierDestructive}), mcp.StdioOptions{})
	r.send(initializeLine(1, "2025-11-25"))
	r.nextResult("1")
	r.send(initializedLine, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	var list struct {
		Tools []struct {
			Name         string          `json:"name"`
			InputSchema  json.RawMessage `json:"inputSchema"`
			OutputSchema json.RawMessage `json:"outputSchema"`
		} `json:"tools"`
		NextCursor string `json:"nextCursor"`
	}
	if err := json.Unmarshal(r.nextResult("2").Result, &list); err != nil {
		t.Fatal(err)
	}
	if list.NextCursor != "" {
		t.Fatal("tools/list is paged; read the other pages too")
	}
	tools := map[string]wireSchemas{}
	for _, tool := range list.Tools {
		tools[tool.Name] = wireSchemas{tool.InputSchema, tool.OutputSchema}
	}
	return tools
}

// The three specified tools advertise their reference pages' schemas, byte
// for byte as the pages print them once the white space is taken out, and
// the golden copies are the pages' too.
func TestAdvertisedSchemasAreTheContractPages(t *testing.T) {
	tools := listTools(t)
	for _, name := range specifiedTools {
		tool := tools[name]
		if tool == nil {
			t.Errorf("%s not listed", name)
			continue
		}
		for kind, got := range map[string]any{"input": tool.InputSchema, "output": tool.OutputSchema} {
			if want := goldenSchema(t, name, kind); !jsonEqual(got, want) {
				t.Errorf("%s advertises an %s schema other than %s/%s.%s.json:\n got %s\nwant %s", name, kind, goldenDir, name, kind, mustJSON(got), mustJSON(want))
			}
		}
	}
	t.Run("the reference pages", func(t *testing.T) {
		dir := referenceDir(t)
		wire := advertisedOnTheWire(t)
		for _, name := range specifiedTools {
			for kind, got := range map[string][]byte{"Input": wire[name].input, "Output": wire[name].output} {
				if kind == "Output" && len(addedOutputFields[name]) > 0 || kind == "Input" && len(addedInputFields[name]) > 0 {
					// The page's schema with fields added is the page's
					// no more, byte for byte; below, it is once they are
					// taken out.
					continue
				}
				if want := compacted(t, contractSchemaText(t, dir, name, kind)); !bytes.Equal(got, want) {
					t.Errorf("%s advertises an %s schema other than its page's, byte for byte:\n got %s\nwant %s", name, strings.ToLower(kind), got, want)
				}
			}
			if want := contractSchema(t, dir, name, "Input"); !jsonEqual(withoutAddedInput(t, name, goldenSchema(t, name, "input")), want) {
				t.Errorf("%s/%s.input.json, but for the fields issues added, differs from %s.md's input schema", goldenDir, name, name)
			}
			if want := contractSchema(t, dir, name, "Output"); !jsonEqual(withoutAdded(t, name, goldenSchema(t, name, "output")), want) {
				t.Errorf("%s/%s.output.json, but for the fields issues added, differs from %s.md's output schema", goldenDir, name, name)
			}
		}
	})
}

// The golden copies stand in for the pages where the pages are absent; the
// server must advertise them unchanged.
func TestAdvertisedSchemasAreTheGoldenCopies(t *testing.T) {
	tools := listTools(t)
	for _, name := range allTools {
		for kind, got := range map[string]any{"input": tools[name].InputSchema, "output": tools[name].OutputSchema} {
			if want := goldenSchema(t, name, kind); !jsonEqual(got, want) {
				t.Errorf("%s %s schema differs from %s/%s.%s.json", name, kind, goldenDir, name, kind)
			}
		}
	}
}

// Every tool, the lifecycle tools too, advertises its golden copy byte for
// byte: keys in the same order, the same escapes, the same numbers. There
// is a golden copy of each tool's schemas and no other.
func TestAdvertisedSchemasAreTheGoldenCopiesByteForByte(t *testing.T) {
	wire := advertisedOnTheWire(t)
	files, err := filepath.Glob(filepath.Join(goldenDir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	var golden []string
	for _, f := range files {
		golden = append(golden, filepath.Base(f))
	}
	var want []string
	for name := range wire {
		want = append(want, name+".input.json", name+".output.json")
	}
	if slices.Sort(want); !slices.Equal(golden, want) {
		t.Errorf("golden copies %v, want one of each advertised schema %v", golden, want)
	}
	for name, got := range wire {
		for kind, got := range map[string][]byte{"input": got.input, "output": got.output} {
			if want := compacted(t, goldenFile(t, name, kind)); !bytes.Equal(got, want) {
				t.Errorf("%s advertises an %s schema other than %s/%s.%s.json, byte for byte:\n got %s\nwant %s", name, kind, goldenDir, name, kind, got, want)
			}
		}
	}
}

// Every description opens with what the tool may do to the user's world,
// in the words of the reference pages for a tool of its kind, and those
// of the three specified tools open with their pages' summaries.
func TestDescriptionsAreTheContractPages(t *testing.T) {
	tools := listTools(t)
	opening := map[string]string{
		"run_shell_command": "Run a shell command in a pane with your user's permissions. ",
		"paste_text":        "Send input to a pane's program; a shell that receives it runs it with your user's permissions. ",
		"send_keys":         "Send input to a pane's program; a shell that receives it runs it with your user's permissions. ",
		"capture_pane":      "Read pane output; accepts no client-supplied executable input. Returned content may be sensitive or untrusted. ",
		"capture_since":     "Read pane output; accepts no client-supplied executable input. Returned content may be sensitive or untrusted. ",
		"wait_for_text":     "Read pane output; accepts no client-supplied executable input. Returned content may be sensitive or untrusted. ",
		"wait_for_command":  "Read pane output; accepts no client-supplied executable input. Returned content may be sensitive or untrusted. ",
		"read_output":       "Read pane output; accepts no client-supplied executable input. Returned content may be sensitive or untrusted. ",
	}
	for _, name := range allTools {
		if got := tools[name].Description; !strings.HasPrefix(got, opening[name]) {
			t.Errorf("%s description = %q\nwant it to open with %q", name, got, opening[name])
		}
	}
	t.Run("the reference pages", func(t *testing.T) {
		dir := referenceDir(t)
		for _, name := range specifiedTools {
			want := contractDescription(t, dir, name)
			if got := tools[name].Description; !strings.HasPrefix(got, want) {
				t.Errorf("%s description = %q\nwant it to start with the page's %q", name, got, want)
			}
		}
	})
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
		"capture_since":     {title: "Capture since", readOnly: true, idempotent: true, destructive: false, openWorld: false},
		"wait_for_text":     {title: "Wait for text", readOnly: true, idempotent: true, destructive: false, openWorld: false},
		"send_keys":         {title: "Send keys", readOnly: false, idempotent: false, destructive: false, openWorld: true},
		// It ends a process of this server's command, and reaches nothing
		// beyond.
		"signal_command": {title: "Signal command", readOnly: false, idempotent: false, destructive: false, openWorld: false},
		// It reads, but hands a command's end out once.
		"wait_for_command": {title: "Wait for command", readOnly: true, idempotent: false, destructive: false, openWorld: false},
		"read_output":      {title: "Read output", readOnly: true, idempotent: true, destructive: false, openWorld: false},
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

// contractFields reads a tool's field lists from a contract page's bullet
// "- `tool` — in `{a, b?, ...}`; out `{c, d (string|null), ...}`": the
// input names and whether each is optional, and the output names and
// whether each may be null. ok is false when the page has no such bullet.
func contractFields(t *testing.T, page []byte, tool string) (in, out map[string]bool, ok bool) {
	t.Helper()
	re := regexp.MustCompile("(?s)- `" + tool + "` — in `\\{(.*?)\\}`; out `\\{(.*?)\\}`")
	m := re.FindSubmatch(page)
	if m == nil {
		return nil, nil, false
	}
	parse := func(list string, mark string) map[string]bool {
		fields := map[string]bool{}
		if strings.TrimSpace(list) == "" {
			return fields
		}
		name := regexp.MustCompile(`^[a-zA-Z]+`)
		for _, f := range strings.Split(list, ",") {
			f = strings.Join(strings.Fields(f), " ")
			n := name.FindString(f)
			if n == "" {
				t.Fatalf("%s: cannot read field %q", tool, f)
			}
			fields[n] = strings.Contains(f, mark)
		}
		return fields
	}
	return parse(string(m[1]), "?"), parse(string(m[2]), "|null"), true
}

// schemaObject is the part of an advertised object schema the contract's
// field lists fix.
type schemaObject struct {
	Schema               string                     `json:"$schema"`
	Type                 string                     `json:"type"`
	Required             []string                   `json:"required"`
	AdditionalProperties *bool                      `json:"additionalProperties"`
	Properties           map[string]json.RawMessage `json:"properties"`
}

type schemaProperty struct {
	Description string `json:"description"`
	Type        string `json:"type"`
	Pattern     string `json:"pattern"`
	AnyOf       []struct {
		Type string `json:"type"`
	} `json:"anyOf"`
}

func decodeSchema(t *testing.T, v any) schemaObject {
	t.Helper()
	var s schemaObject
	if err := json.Unmarshal([]byte(mustJSON(v)), &s); err != nil {
		t.Fatal(err)
	}
	return s
}

func decodeProperty(t *testing.T, raw json.RawMessage) schemaProperty {
	t.Helper()
	var p schemaProperty
	if err := json.Unmarshal(raw, &p); err != nil {
		t.Fatal(err)
	}
	return p
}

// types lists the JSON types a property admits.
func (p schemaProperty) types() []string {
	if p.Type != "" {
		return []string{p.Type}
	}
	var ts []string
	for _, a := range p.AnyOf {
		ts = append(ts, a.Type)
	}
	return ts
}

// Every tool's golden schemas, which it advertises, have exactly the fields
// docs/CONTRACT.md lists for it, optional and nullable where it says; the hand-written
// schemas of the three waiting and input tools are in the style of the
// reference pages; and the field lists are those of the reference
// contract, where it is at hand.
func TestSchemasHaveTheFieldsTheContractLists(t *testing.T) {
	page, err := os.ReadFile(docsContract)
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(goldenDir, "*.input.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden schemas: %v", err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".input.json")
		t.Run(name, func(t *testing.T) {
			wantIn, wantOut, ok := contractFields(t, page, name)
			if !ok {
				t.Fatalf("docs/CONTRACT.md lists no fields for %s", name)
			}
			in, out := decodeSchema(t, goldenSchema(t, name, "input")), decodeSchema(t, goldenSchema(t, name, "output"))
			if slices.Contains(contractTools, name) {
				checkHandWrittenStyle(t, in, out)
			}

			var wantRequired []string
			for f, optional := range wantIn {
				if in.Properties[f] == nil {
					t.Errorf("input lacks %s", f)
				}
				if !optional {
					wantRequired = append(wantRequired, f)
				}
			}
			if len(in.Properties) != len(wantIn) {
				t.Errorf("input properties %v, want exactly %v", slices.Sorted(maps.Keys(in.Properties)), slices.Sorted(maps.Keys(wantIn)))
			}
			slices.Sort(wantRequired)
			if got := slices.Sorted(slices.Values(in.Required)); !slices.Equal(got, wantRequired) {
				t.Errorf("input required %v, want %v", got, wantRequired)
			}

			if out.AdditionalProperties == nil || *out.AdditionalProperties {
				t.Error("output schema allows additional properties")
			}
			if len(out.Properties) != len(wantOut) {
				t.Errorf("output properties %v, want exactly %v", slices.Sorted(maps.Keys(out.Properties)), slices.Sorted(maps.Keys(wantOut)))
			}
			if got, want := slices.Sorted(slices.Values(out.Required)), slices.Sorted(maps.Keys(wantOut)); !slices.Equal(got, want) {
				t.Errorf("output required %v, want every field %v", got, want)
			}
			for f, nullable := range wantOut {
				raw := out.Properties[f]
				if raw == nil {
					t.Errorf("output lacks %s", f)
					continue
				}
				if got := slices.Contains(decodeProperty(t, raw).types(), "null"); got != nullable {
					t.Errorf("output %s: null allowed %v, want %v", f, got, nullable)
				}
			}
		})
	}
	t.Run("the reference contract", func(t *testing.T) {
		ref, err := os.ReadFile(filepath.Join(referenceDir(t), "CONTRACT.md"))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range contractTools {
			refIn, refOut, ok := contractFields(t, ref, name)
			if !ok {
				t.Errorf("the reference CONTRACT.md lists no fields for %s", name)
				continue
			}
			in, out, _ := contractFields(t, page, name)
			for _, f := range addedOutputFields[name] {
				if _, ok := out[f]; !ok {
					t.Errorf("%s: docs/CONTRACT.md does not list the added field %s", name, f)
				}
				delete(out, f)
			}
			for _, f := range addedInputFields[name] {
				if optional, ok := in[f]; !ok || !optional {
					t.Errorf("%s: docs/CONTRACT.md does not list the added optional field %s", name, f)
				}
				delete(in, f)
			}
			if !maps.Equal(in, refIn) || !maps.Equal(out, refOut) {
				t.Errorf("%s: docs/CONTRACT.md lists in %v out %v; the reference contract in %v out %v", name, in, out, refIn, refOut)
			}
		}
	})
}

// checkHandWrittenStyle checks a hand-written tool's schemas against the
// style of the reference pages: draft-07 objects, a description for every
// property, and the pane id pattern.
func checkHandWrittenStyle(t *testing.T, in, out schemaObject) {
	t.Helper()
	for kind, s := range map[string]schemaObject{"input": in, "output": out} {
		if s.Schema != "http://json-schema.org/draft-07/schema#" || s.Type != "object" {
			t.Errorf("%s schema: $schema %q, type %q; want draft-07 and object", kind, s.Schema, s.Type)
		}
		for prop, raw := range s.Properties {
			p := decodeProperty(t, raw)
			if p.Description == "" {
				t.Errorf("%s property %s has no description", kind, prop)
			}
			if prop == "paneId" && p.Pattern != `^%\d+$` {
				t.Errorf("%s property paneId has pattern %q, want ^%%\\d+$", kind, p.Pattern)
			}
		}
	}
}

func TestWaitForTextOutcomesAreTheContracts(t *testing.T) {
	schema := decodeSchema(t, listTools(t)["wait_for_text"].OutputSchema)
	var outcome struct {
		Enum []string `json:"enum"`
	}
	if err := json.Unmarshal(schema.Properties["outcome"], &outcome); err != nil {
		t.Fatal(err)
	}
	want := []string{"matched", "timed_out", "pane_died", "cancelled", "output_lost"}
	if !slices.Equal(outcome.Enum, want) {
		t.Errorf("outcome enum = %v, want %v", outcome.Enum, want)
	}
}

func TestSendKeysSchemaSaysEnterDefaultsToTrue(t *testing.T) {
	schema := decodeSchema(t, listTools(t)["send_keys"].InputSchema)
	var enter struct {
		Default *bool `json:"default"`
	}
	if err := json.Unmarshal(schema.Properties["enter"], &enter); err != nil {
		t.Fatal(err)
	}
	if enter.Default == nil || !*enter.Default {
		t.Errorf("send_keys enter default = %v, want true", enter.Default)
	}
}

func TestDescriptionsOfTheWaitingAndInputToolsSayHowToUseThem(t *testing.T) {
	tools := listTools(t)
	want := map[string][]string{
		"capture_since": {"without a cursor", "seeded", "just the output written after it", "waitMs", "escape sequences removed",
			"another pane", "restarted", "missedBytes"},
		"wait_for_text": {"RE2", "escape sequences removed", "already on the screen is not a match", "alreadyOnScreen",
			"cursor", "exactly as you gave it", "timed_out", "pane_died", "cancelled", "output_lost"},
		"send_keys": {"C-c", `C-\`, "unknown key name is a tool error", "never typed as text", "literal", "paste_text",
			"as is any other modifier", "A, not S-a", "BTab, not S-Tab",
			"timed_out or cancelled", "Enter is not pressed", "watching", "force"},
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

func mustJSON(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(data)
}

// hostsGoldenDir holds the golden copies of the schemas a server of
// several hosts advertises where they differ from a server of one host's
// (list_hosts, and the tools whose results say which host they came
// from), so that a change of either is seen in review.
const hostsGoldenDir = goldenDir + "/hosts"

// noHosts is a HostLister of no host, enough to make a server advertise
// what a server of several hosts does.
type noHosts struct{}

func (noHosts) Hosts(context.Context) []ports.HostInfo { return nil }
func (noHosts) HostStatus() []ports.HostInfo           { return nil }

// A server of several hosts advertises, byte for byte, its golden copy of
// each schema that differs from a server of one host's, and the one
// host's copy of every other; there is a golden copy of each schema that
// differs and of no other.
func TestSeveralHostsAdvertiseTheirGoldenCopiesByteForByte(t *testing.T) {
	single := advertisedOnTheWire(t)
	several := advertisedBy(t, noHosts{})
	if _, ok := several["list_hosts"]; !ok {
		t.Fatal("a server of several hosts does not list list_hosts")
	}
	files, err := filepath.Glob(filepath.Join(hostsGoldenDir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	var golden []string
	for _, f := range files {
		golden = append(golden, filepath.Base(f))
	}
	var differ []string
	for name, got := range several {
		for kind, got := range map[string][]byte{"input": got.input, "output": got.output} {
			one, listed := single[name]
			oneKind := map[string][]byte{"input": one.input, "output": one.output}[kind]
			if listed && bytes.Equal(got, oneKind) {
				continue
			}
			file := name + "." + kind + ".json"
			differ = append(differ, file)
			data, err := os.ReadFile(filepath.Join(hostsGoldenDir, file))
			if err != nil {
				t.Errorf("%s differs from a server of one host's and has no golden copy: %v\n got %s", file, err, got)
				continue
			}
			if want := compacted(t, data); !bytes.Equal(got, want) {
				t.Errorf("a server of several hosts advertises a %s other than %s/%s, byte for byte:\n got %s\nwant %s", kind, hostsGoldenDir, file, got, want)
			}
		}
	}
	if slices.Sort(differ); !slices.Equal(golden, differ) {
		t.Errorf("golden copies for several hosts %v, want one of each schema that differs %v", golden, differ)
	}
}
