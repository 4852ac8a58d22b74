package mcpadapter

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// arguments are a call's arguments once they have passed the tool's input
// schema, so every value present has the type its schema gives. Values are
// looked up by their exact names: encoding/json's case-insensitive field
// matching would let an unknown "TimeoutMs", which the schema allows and
// ignores, stand in for "timeoutMs".
type arguments map[string]any

// parseArguments decodes raw and checks it against the input schema.
//
// Arguments that are not a JSON object make the request malformed: the
// error is a *jsonrpc.Error, which the SDK sends as a protocol error.
// Arguments that break the schema yield a *fault.ArgumentError naming the
// first bad argument (in name order), which becomes a tool error. Absent
// arguments are an empty object. Unknown properties are allowed, as the
// schemas do not forbid them.
func (ts *toolSchemas) parseArguments(raw json.RawMessage) (arguments, error) {
	if len(bytes.TrimSpace(raw)) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		raw = json.RawMessage("{}")
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("arguments: %v", err)}
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "arguments must be a JSON object"}
	}
	if err := ts.inputResolved.Validate(m); err != nil {
		return nil, ts.explain(m, err)
	}
	return arguments(m), nil
}

// explain turns a schema violation into an ArgumentError that names the
// argument and says what it should be.
func (ts *toolSchemas) explain(m map[string]any, err error) error {
	for _, name := range ts.required {
		if _, ok := m[name]; !ok {
			return &fault.ArgumentError{Field: name, Reason: "missing; it is required" + ts.gloss(name)}
		}
	}
	names := make([]string, 0, len(m))
	for name := range m {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		p, ok := ts.props[name]
		if !ok {
			continue
		}
		if p.resolved.Validate(m[name]) != nil {
			got, _ := json.Marshal(m[name])
			return &fault.ArgumentError{
				Field:  name,
				Reason: fmt.Sprintf("got %s, want %s%s", got, describe(p.schema), ts.gloss(name)),
			}
		}
	}
	// Only a rule across properties could get here; the schemas have none,
	// but say what the validator said rather than nothing.
	return &fault.ArgumentError{Field: "arguments", Reason: err.Error()}
}

// gloss is the property's description, in parentheses, for error messages.
func (ts *toolSchemas) gloss(name string) string {
	if p, ok := ts.props[name]; ok && p.schema.Description != "" {
		return " (" + p.schema.Description + ")"
	}
	return ""
}

func (a arguments) str(name string) string {
	s, _ := a[name].(string)
	return s
}

func (a arguments) pane() ports.PaneID { return ports.PaneID(a.str("paneId")) }

func (a arguments) flag(name string) bool {
	b, _ := a[name].(bool)
	return b
}

// flagOr returns the named boolean, or def when it was not given.
func (a arguments) flagOr(name string, def bool) bool {
	b, ok := a[name].(bool)
	if !ok {
		return def
	}
	return b
}

// strs returns the named array of strings, or nil when it was not given.
func (a arguments) strs(name string) []string {
	items, _ := a[name].([]any)
	if items == nil {
		return nil
	}
	out := make([]string, len(items))
	for i, v := range items {
		out[i], _ = v.(string)
	}
	return out
}

// integer returns the named integer and whether it was given. The schema
// bounds every integer by ±(2^53-1), which a float64 holds exactly.
func (a arguments) integer(name string) (int64, bool) {
	f, ok := a[name].(float64)
	return int64(f), ok
}

// intOrZero returns the named integer, or 0 when it was not given (the
// domain's "not given" for fields whose schema requires them positive).
func (a arguments) intOrZero(name string) int64 {
	n, _ := a.integer(name)
	return n
}

// intPtr returns the named integer, or nil when it was not given.
func (a arguments) intPtr(name string) *int64 {
	n, ok := a.integer(name)
	if !ok {
		return nil
	}
	return &n
}

// cells returns the named size in cells, or 0 when it was not given. The
// schemas bound every size far below what an int holds.
func (a arguments) cells(name string) int { return int(a.intOrZero(name)) }
