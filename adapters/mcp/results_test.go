package mcp_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmux-mcp/tmux-mcp/adapters/mcp"
	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/domain/lifecycle"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// A served result is not checked against its output schema (it would cost
// every call a decode and a validation: BENCHMARKS.md, "Checking results
// against their schemas"); these tests check instead that every tool's
// every result shape is what its schema says. Every domain result a tool
// can get is made in each of its shapes — every optional thing absent, every
// optional thing present, every outcome, every fact unknown — and sent
// through the tool's handler, to a client, by a server that checks each
// result (as the package's tests all do, export_test.go): one that broke
// its schema would come back as a tool error.

// resultShapes lists, for every tool, its arguments, the domain method
// that answers it and the type of what that method returns.
var resultShapes = map[string]struct {
	args   map[string]any
	method string
	result reflect.Type
}{
	"run_shell_command":     {map[string]any{"paneId": "%3", "command": "make"}, "RunShellCommand", reflect.TypeFor[domain.RunResult]()},
	"wait_for_command":      {map[string]any{"paneId": "%3"}, "WaitForCommand", reflect.TypeFor[domain.RunResult]()},
	"read_output":           {map[string]any{"runId": "r1"}, "ReadOutput", reflect.TypeFor[domain.ReadOutputResult]()},
	"paste_text":            {map[string]any{"paneId": "%3", "text": "x"}, "PasteText", reflect.TypeFor[domain.PasteResult]()},
	"capture_pane":          {map[string]any{"paneId": "%3"}, "CapturePane", reflect.TypeFor[domain.CaptureResult]()},
	"capture_since":         {map[string]any{"paneId": "%3"}, "CaptureSince", reflect.TypeFor[domain.CaptureSinceResult]()},
	"wait_for_text":         {map[string]any{"paneId": "%3"}, "WaitForText", reflect.TypeFor[domain.WaitForTextResult]()},
	"send_keys":             {map[string]any{"paneId": "%3", "keys": "Enter"}, "SendKeys", reflect.TypeFor[domain.SendKeysResult]()},
	"signal_command":        {map[string]any{"paneId": "%3", "signal": "TERM"}, "SignalCommand", reflect.TypeFor[domain.SignalResult]()},
	"list_sessions":         {map[string]any{}, "ListSessions", reflect.TypeFor[lifecycle.SessionList]()},
	"list_windows":          {map[string]any{}, "ListWindows", reflect.TypeFor[lifecycle.WindowList]()},
	"list_panes":            {map[string]any{}, "ListPanes", reflect.TypeFor[lifecycle.PaneList]()},
	"search_panes":          {map[string]any{"patterns": []any{"error"}}, "SearchPanes", reflect.TypeFor[lifecycle.SearchPanesResult]()},
	"get_pane_info":         {map[string]any{"paneId": "%3"}, "GetPaneInfo", reflect.TypeFor[lifecycle.PaneDetails]()},
	"display":               {map[string]any{"paneId": "%3"}, "Display", reflect.TypeFor[lifecycle.PaneFacts]()},
	"get_server_info":       {map[string]any{}, "GetServerInfo", reflect.TypeFor[ports.ServerInfo]()},
	"create_session":        {map[string]any{}, "CreateSession", reflect.TypeFor[ports.Created]()},
	"create_window":         {map[string]any{"session": "work"}, "CreateWindow", reflect.TypeFor[ports.Created]()},
	"split_window":          {map[string]any{"paneId": "%3"}, "SplitWindow", reflect.TypeFor[ports.Created]()},
	"select_pane":           {map[string]any{"paneId": "%3"}, "SelectPane", reflect.TypeFor[lifecycle.Pane]()},
	"select_window":         {map[string]any{"windowId": "@2"}, "SelectWindow", reflect.TypeFor[ports.WindowInfo]()},
	"resize_pane":           {map[string]any{"paneId": "%3", "width": 80}, "ResizePane", reflect.TypeFor[lifecycle.Pane]()},
	"resize_window":         {map[string]any{"windowId": "@2", "width": 200}, "ResizeWindow", reflect.TypeFor[ports.WindowInfo]()},
	"rename_session":        {map[string]any{"session": "work", "name": "w"}, "RenameSession", reflect.TypeFor[ports.SessionInfo]()},
	"rename_window":         {map[string]any{"windowId": "@2", "name": "w"}, "RenameWindow", reflect.TypeFor[ports.WindowInfo]()},
	"clear_pane_scrollback": {map[string]any{"paneId": "%3"}, "ClearPaneScrollback", reflect.TypeFor[lifecycle.ClearScrollbackResult]()},
	"respawn_pane":          {map[string]any{"paneId": "%3"}, "RespawnPane", reflect.TypeFor[lifecycle.Pane]()},
	"kill_pane":             {map[string]any{"paneId": "%3"}, "KillPane", reflect.TypeFor[lifecycle.KillResult]()},
	"kill_window":           {map[string]any{"windowId": "@2"}, "KillWindow", reflect.TypeFor[lifecycle.KillResult]()},
	"kill_session":          {map[string]any{"session": "work"}, "KillSession", reflect.TypeFor[lifecycle.KillResult]()},
	"list_hosts":            {map[string]any{}, "Hosts", reflect.TypeFor[[]ports.HostInfo]()},
}

// The values the domain's enumerations take, by type.
var enumerations = map[reflect.Type][]any{
	reflect.TypeFor[domain.Outcome]():     {domain.OutcomeCompleted, domain.OutcomeTimedOut, domain.OutcomePaneDied, domain.OutcomeCancelled},
	reflect.TypeFor[domain.WaitOutcome](): {domain.WaitMatched, domain.WaitTimedOut, domain.WaitPaneDied, domain.WaitCancelled, domain.WaitOutputLost},
	reflect.TypeFor[ports.Signal]():       {ports.SignalINT, ports.SignalTERM, ports.SignalHUP, ports.SignalKILL},
	reflect.TypeFor[ports.Fact](): {ports.FactWatched, ports.FactAlsoReaches, ports.FactSelf, ports.FactMode, ports.FactCommand,
		ports.FactPID, ports.FactCursor},
}

// shaper makes domain values of one shape: sparse (every optional thing
// absent: nil pointers and lists, zero numbers, empty strings and times)
// or full (each present), with ids of their forms in both, as the domain
// always gives them, and each enumeration at one of its values.
type shaper struct {
	full  bool
	enum  map[reflect.Type]int // the index of each enumeration's value
	hosts bool                 // ids of a server of several hosts, web1:%3
}

// id is an id of the shaper's form.
func (s shaper) id(own string) string {
	if s.hosts {
		return "web1:" + own
	}
	return own
}

func (s shaper) make(t reflect.Type) reflect.Value {
	v := reflect.New(t).Elem()
	s.fill(v, "")
	return v
}

func (s shaper) fill(v reflect.Value, field string) {
	t := v.Type()
	if values, ok := enumerations[t]; ok {
		v.Set(reflect.ValueOf(values[s.enum[t]%len(values)]))
		return
	}
	switch t {
	case reflect.TypeFor[ports.PaneID]():
		v.SetString(s.id("%3"))
		return
	case reflect.TypeFor[ports.SessionRef]():
		v.Set(reflect.ValueOf(ports.SessionRef{ID: s.id("$1"), Name: "work"}))
		return
	case reflect.TypeFor[ports.WindowRef]():
		v.Set(reflect.ValueOf(ports.WindowRef{ID: s.id("@2"), Index: 1, Name: "logs"}))
		return
	case reflect.TypeFor[time.Time]():
		if s.full {
			v.Set(reflect.ValueOf(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)))
		}
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() {
				s.fill(v.Field(i), f.Name)
			}
		}
	case reflect.String:
		switch {
		case field == "WindowID":
			v.SetString(s.id("@2")) // an id in a plain string
		case s.full:
			v.SetString("text")
		}
	case reflect.Int, reflect.Int64:
		if s.full {
			v.SetInt(1)
		}
	case reflect.Bool:
		v.SetBool(s.full)
	case reflect.Pointer:
		if s.full {
			p := reflect.New(t.Elem())
			s.fill(p.Elem(), field)
			v.Set(p)
		}
	case reflect.Slice:
		if !s.full {
			return
		}
		if values, ok := enumerations[t.Elem()]; ok {
			for _, x := range values { // every fact unknown at once
				v.Set(reflect.Append(v, reflect.ValueOf(x)))
			}
			return
		}
		e := reflect.New(t.Elem()).Elem()
		s.fill(e, field)
		v.Set(reflect.Append(v, e))
	default:
		panic(fmt.Sprintf("no shape for %s (%s)", t, field))
	}
}

// shapes are every shape of a domain result type: sparse and full, with
// each value of each enumeration it holds, and ids of a server of several
// hosts when hosts is set.
func shapes(t reflect.Type, hosts bool) map[string]reflect.Value {
	out := map[string]reflect.Value{}
	counts := map[reflect.Type]int{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		if n, ok := enumerations[t]; ok {
			counts[t] = len(n)
			return
		}
		switch t.Kind() {
		case reflect.Struct:
			for i := range t.NumField() {
				walk(t.Field(i).Type)
			}
		case reflect.Pointer, reflect.Slice:
			walk(t.Elem())
		}
	}
	walk(t)
	most := 1
	for _, n := range counts {
		most = max(most, n)
	}
	for i := range most {
		enum := map[reflect.Type]int{}
		for et := range counts {
			enum[et] = i
		}
		for _, full := range []bool{false, true} {
			name := fmt.Sprintf("sparse #%d", i)
			if full {
				name = fmt.Sprintf("full #%d", i)
			}
			out[name] = shaper{full: full, enum: enum, hosts: hosts}.make(t)
		}
	}
	return out
}

// shapeStub answers every call with the value set for its method.
func shapeStub(t *testing.T, method string, v reflect.Value) *manageStub {
	stub := newManageStub(t)
	stub.results[method] = v.Interface()
	st := stub.stubTools
	get := func() any { return v.Interface() }
	st.run = func(context.Context, domain.RunRequest) (domain.RunResult, error) {
		return get().(domain.RunResult), nil
	}
	st.waitCmd = func(context.Context, domain.WaitCommandRequest) (domain.RunResult, error) {
		return get().(domain.RunResult), nil
	}
	st.readOut = func(context.Context, domain.ReadOutputRequest) (domain.ReadOutputResult, error) {
		return get().(domain.ReadOutputResult), nil
	}
	st.paste = func(context.Context, domain.PasteRequest) (domain.PasteResult, error) {
		return get().(domain.PasteResult), nil
	}
	st.capture = func(context.Context, domain.CaptureRequest) (domain.CaptureResult, error) {
		return get().(domain.CaptureResult), nil
	}
	st.since = func(context.Context, domain.CaptureSinceRequest) (domain.CaptureSinceResult, error) {
		return get().(domain.CaptureSinceResult), nil
	}
	st.wait = func(context.Context, domain.WaitForTextRequest) (domain.WaitForTextResult, error) {
		return get().(domain.WaitForTextResult), nil
	}
	st.keys = func(context.Context, domain.SendKeysRequest) (domain.SendKeysResult, error) {
		return get().(domain.SendKeysResult), nil
	}
	st.signal = func(context.Context, domain.SignalRequest) (domain.SignalResult, error) {
		return get().(domain.SignalResult), nil
	}
	return stub
}

func TestEveryResultShapeOfEveryToolMatchesItsSchema(t *testing.T) {
	for _, name := range mcp.ToolNames() {
		if _, ok := resultShapes[name]; !ok {
			t.Errorf("%s has no result shapes here: add it to resultShapes", name)
		}
	}
	for name, tool := range resultShapes {
		if !slices.Contains(mcp.ToolNames(), name) {
			t.Errorf("resultShapes has %s, which is no tool", name)
			continue
		}
		for _, hosts := range []bool{false, true} {
			if name == "list_hosts" && !hosts {
				continue // a tool of several hosts alone
			}
			args := tool.args
			if hosts {
				args = withHosts(tool.args)
			}
			for shape, v := range shapes(tool.result, hosts) {
				if hosts {
					shape += " of several hosts"
				}
				t.Run(name+"/"+shape, func(t *testing.T) {
					stub := shapeStub(t, tool.method, v)
					opts := mcp.Options{Manage: stub, Safety: mcp.TierDestructive}
					if hosts {
						h := &hostsStub{status: []ports.HostInfo{{Name: "web1", Reachable: true}, {Name: "web2", Error: "ssh web2: Connection refused"}}}
						if name == "list_hosts" {
							h.hosts = v.Interface().([]ports.HostInfo)
						}
						opts.Hosts = h
					}
					cs, _ := connectWith(t, stub, opts)
					res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
					if err != nil {
						t.Fatalf("protocol error %v", err)
					}
					if res.IsError {
						t.Errorf("the %s result of %+v breaks its schema: %s", shape, v.Interface(), texts(t, res))
					}
				})
			}
		}
	}
}

// withHosts is args with every id of its host: as a server of several
// hosts takes them.
func withHosts(args map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range args {
		switch k {
		case "paneId", "windowId", "session":
			v = "web1:" + v.(string)
		}
		out[k] = v
	}
	return out
}

// hostsStub is a ports.HostLister that reports what it is given.
type hostsStub struct {
	hosts  []ports.HostInfo // what Hosts reports
	status []ports.HostInfo // what HostStatus reports
}

func (h *hostsStub) Hosts(context.Context) []ports.HostInfo { return h.hosts }
func (h *hostsStub) HostStatus() []ports.HostInfo           { return h.status }

// The check the tests rely on is on in them: a result that breaks its
// schema is a tool error there, never sent.
func TestTheTestsCheckEveryResult(t *testing.T) {
	stub := &stubTools{t: t, paste: func(context.Context, domain.PasteRequest) (domain.PasteResult, error) {
		return domain.PasteResult{PaneID: "not a pane id"}, nil
	}}
	cs, _ := connectWith(t, stub, mcp.Options{CheckResults: false})
	if res := call(t, cs, "paste_text", map[string]any{"paneId": "%3", "text": "x"}); !res.IsError {
		t.Error("a result breaking its schema was sent by a server of the tests")
	}
}
