package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// Every declaration is held to its schemas: its fields are named as their
// properties, and a value of every property reaches a field and comes back
// unchanged, in the arguments and in the result, as encoding/json (not the
// schema builder) reads and writes them.

// nopTools and nopManage stand in for the domain: the declarations bind
// their methods but the tests below never call them.
type (
	nopTools  struct{ Tools }
	nopManage struct{ ManageTools }
	nopHosts  struct{ ports.HostLister }
)

// declared is every tool a server can offer, with its advertised schemas
// resolved as the server resolves them.
type declared struct {
	name    string
	hosts   bool // the server's of several hosts
	in, out reflect.Type
	schemas *toolSchemas
	inTree  map[string]any
	outTree map[string]any
}

// typed is a declaration that tells its argument and result types, for
// the tests that hold every declaration to its schemas.
type typed interface {
	types() (in, out reflect.Type)
}

func (t tool[In, Out]) types() (in, out reflect.Type) {
	return reflect.TypeFor[In](), reflect.TypeFor[Out]()
}

func declaredTools(t testing.TB) []declared {
	return declaredFor(t, false)
}

// declaredFor is declaredTools of a server of one host, or with hosts of
// several (list_hosts among them).
func declaredFor(t testing.TB, hosts bool) []declared {
	t.Helper()
	s := &Server{tools: nopTools{}, manage: nopManage{}, tier: TierDestructive}
	decls := append(s.paneTools(), s.manageTools()...)
	if hosts {
		s.hosts = nopHosts{}
		decls = append(decls, s.hostTools()...)
	}
	var out []declared
	for _, d := range decls {
		tool, _, err := d.declare(s)
		if err != nil {
			t.Fatal(err)
		}
		input, output := tool.InputSchema.(json.RawMessage), tool.OutputSchema.(json.RawMessage)
		ts, err := resolveSchemas(input, output)
		if err != nil {
			t.Fatal(err)
		}
		in, res := d.(typed).types()
		out = append(out, declared{name: tool.Name, hosts: hosts, in: in, out: res, schemas: ts, inTree: tree(t, input), outTree: tree(t, output)})
	}
	return out
}

func tree(t testing.TB, data []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// misnamedFields lists the fields of t, and of the structs it holds, whose
// Go name is not the name of their property up to case (Height tagged
// "width", say): the property a client fills would then reach a field that
// means something else.
func misnamedFields(t reflect.Type) []string {
	var bad []string
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || seen[t] {
			return
		}
		seen[t] = true
		for _, f := range reflect.VisibleFields(t) {
			if f.Anonymous {
				continue
			}
			name, _, _, err := jsonName(f)
			if err != nil {
				bad = append(bad, fmt.Sprintf("%s.%s: %v", t, f.Name, err))
				continue
			}
			if !strings.EqualFold(f.Name, name) {
				bad = append(bad, fmt.Sprintf("%s.%s is property %q", t, f.Name, name))
			}
			walk(f.Type)
		}
	}
	walk(t)
	return bad
}

func TestDeclaredFieldsAreNamedAsTheirProperties(t *testing.T) {
	for _, d := range declaredTools(t) {
		for _, ty := range []reflect.Type{d.in, d.out} {
			for _, bad := range misnamedFields(ty) {
				t.Errorf("%s: %s", d.name, bad)
			}
		}
	}
	t.Run("a misnamed field is found", func(t *testing.T) {
		type inner struct {
			Width int `json:"width"`
		}
		type swapped struct {
			Height int     `json:"width"`
			Panes  []inner `json:"panes"`
			Inner  *struct {
				PaneID string `json:"windowId"`
			} `json:"inner"`
		}
		got := misnamedFields(reflect.TypeFor[swapped]())
		if len(got) != 2 || !strings.Contains(got[0], `Height is property "width"`) || !strings.Contains(got[1], `PaneID is property "windowId"`) {
			t.Errorf("misnamedFields = %q, want Height and PaneID", got)
		}
	})
}

// sampler makes a valid value of every property of a schema, each scalar
// distinct from the others where its type allows.
type sampler struct{ n int }

func (g *sampler) value(s map[string]any) any {
	if anyOf, ok := s["anyOf"].([]any); ok {
		return g.value(anyOf[0].(map[string]any)) // the value, not null
	}
	if enum, ok := s["enum"].([]any); ok {
		return enum[len(enum)-1] // not the default, which is the first
	}
	g.n++
	switch s["type"] {
	case "string":
		pattern, _ := s["pattern"].(string)
		host := ""
		if rest, ok := strings.CutPrefix(pattern, "^"+hostPrefix); ok {
			// An id of a server of several hosts.
			pattern, host = "^"+rest, fmt.Sprintf("host%d:", g.n)
		}
		switch pattern {
		case "":
			return fmt.Sprintf("text %d", g.n)
		case `^%\d+$`:
			return fmt.Sprintf("%s%%%d", host, g.n)
		case `^@\d+$`:
			return fmt.Sprintf("%s@%d", host, g.n)
		case `^\$\d+$`:
			return fmt.Sprintf("%s$%d", host, g.n)
		default: // a session's id or name
			return fmt.Sprintf("%sname%d", host, g.n)
		}
	case "integer":
		return float64(g.n) // within every bound the schemas set
	case "boolean":
		return true // false is the zero value, which would hide a lost property
	case "array":
		return []any{g.value(s["items"].(map[string]any))}
	case "object":
		m := map[string]any{}
		for name, p := range s["properties"].(map[string]any) {
			m[name] = g.value(p.(map[string]any))
		}
		return m
	}
	panic(fmt.Sprintf("no sample of %v", s))
}

// zeroFields lists the places in v that hold a zero value, but for the
// properties of several hosts alone (hosts:"only") unless hosts is set.
func zeroFields(v reflect.Value, where string, hosts ...bool) []string {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return []string{where}
		}
		return zeroFields(v.Elem(), where, hosts...)
	case reflect.Struct:
		var out []string
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if f.Tag.Get("hosts") == "only" && !slices.Contains(hosts, true) {
				continue
			}
			out = append(out, zeroFields(v.Field(i), where+"."+f.Name, hosts...)...)
		}
		return out
	case reflect.Slice:
		if v.Len() == 0 {
			return []string{where}
		}
		var out []string
		for i := range v.Len() {
			out = append(out, zeroFields(v.Index(i), fmt.Sprintf("%s[%d]", where, i), hosts...)...)
		}
		return out
	}
	if v.IsZero() {
		return []string{where}
	}
	return nil
}

func sameJSON(t *testing.T, a, b any) bool {
	t.Helper()
	norm := func(v any) any {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var out any
		if err := json.Unmarshal(data, &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	return reflect.DeepEqual(norm(a), norm(b))
}

func TestEveryPropertyReachesAFieldAndComesBack(t *testing.T) {
	for _, d := range append(declaredFor(t, false), declaredFor(t, true)...) {
		name := d.name
		if d.hosts {
			name += " of several hosts"
		}
		t.Run(name, func(t *testing.T) {
			g := &sampler{}

			// Arguments: as a call decodes them, and back.
			args := g.value(d.inTree).(map[string]any)
			if err := d.schemas.inputResolved.Validate(args); err != nil {
				t.Fatalf("the sample arguments %v break the input schema: %v", args, err)
			}
			in := reflect.New(d.in)
			if err := d.schemas.decode(arguments(args), in.Interface()); err != nil {
				t.Fatalf("decode %v: %v", args, err)
			}
			for _, z := range zeroFields(in.Elem(), d.in.Name(), d.hosts) {
				t.Errorf("arguments %v left %s unset", args, z)
			}
			if !sameJSON(t, in.Interface(), args) {
				t.Errorf("arguments %v came back as %s", args, mustMarshal(t, in.Interface()))
			}

			// Result: every property read into the type, and written back
			// as the server writes it.
			res := g.value(d.outTree)
			out := reflect.New(d.out)
			dec := json.NewDecoder(bytes.NewReader(mustMarshal(t, res)))
			dec.DisallowUnknownFields()
			if err := dec.Decode(out.Interface()); err != nil {
				t.Fatalf("the result type does not take %v: %v", res, err)
			}
			for _, z := range zeroFields(out.Elem(), d.out.Name(), d.hosts) {
				t.Errorf("result %v left %s unset", res, z)
			}
			data, err := encode(out.Interface())
			if err != nil {
				t.Fatal(err)
			}
			var back any
			if err := json.Unmarshal(data, &back); err != nil {
				t.Fatal(err)
			}
			if err := d.schemas.outputResolved.Validate(back); err != nil {
				t.Errorf("the result %s breaks the output schema: %v", data, err)
			}
			if !sameJSON(t, back, res) {
				t.Errorf("result %v came back as %s", res, data)
			}
		})
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
