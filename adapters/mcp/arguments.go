package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/tmux-mcp/tmux-mcp/domain/fault"
)

// arguments are a call's arguments as decoded JSON, once they have passed
// the tool's input schema. A tool reads its typed arguments (toolSchemas.
// decode); the call's envelope reads these, for the audit log and the
// server's own log, which take any call's arguments.
type arguments map[string]any

// paneID is the call's paneId argument, or "" when it has none.
func (a arguments) paneID() string {
	s, _ := a["paneId"].(string)
	return s
}

// toolSchemas are one tool's input and output schemas, both as advertised
// (the JSON) and resolved for validation. What is validated is read back
// from what is advertised, so the two cannot differ. They are not changed
// once resolved, so that every server and call can share them.
type toolSchemas struct {
	input, output json.RawMessage

	inputResolved, outputResolved *jsonschema.Resolved

	// required names the input properties that must be present; props
	// holds each input property's schema, resolved on its own, so that a
	// bad argument can be named and described (the whole-object validator
	// only says that something is wrong, in schema jargon).
	required []string
	props    map[string]propSchema
}

type propSchema struct {
	schema   *jsonschema.Schema
	resolved *jsonschema.Resolved
}

// resolveSchemas resolves a tool's advertised input and output schemas.
func resolveSchemas(input, output json.RawMessage) (*toolSchemas, error) {
	ts := &toolSchemas{input: input, output: output, props: map[string]propSchema{}}
	in, inResolved, err := resolveSchema(input)
	if err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	_, outResolved, err := resolveSchema(output)
	if err != nil {
		return nil, fmt.Errorf("output schema: %w", err)
	}
	ts.inputResolved, ts.outputResolved = inResolved, outResolved
	ts.required = slices.Clone(in.Required)
	for name, p := range in.Properties {
		sub := *p
		// A property resolved on its own must still be read under the
		// draft the whole schema declares.
		sub.Schema = in.Schema
		r, err := sub.Resolve(nil)
		if err != nil {
			return nil, fmt.Errorf("input schema, property %s: %w", name, err)
		}
		ts.props[name] = propSchema{schema: p, resolved: r}
	}
	return ts, nil
}

func resolveSchema(raw json.RawMessage) (*jsonschema.Schema, *jsonschema.Resolved, error) {
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, nil, err
	}
	r, err := s.Resolve(nil)
	if err != nil {
		return nil, nil, err
	}
	return &s, r, nil
}

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

// decode sets the typed arguments *in from a, which passed the input
// schema: the properties the schema names, looked up by their exact names
// (encoding/json's case-insensitive matching would let an unknown
// "TimeoutMs", which the schema allows and ignores, stand in for
// "timeoutMs"), with the schema's defaults for those not given.
//
// An error means that the arguments' type disagrees with its schema, which
// is a programming error.
func (ts *toolSchemas) decode(a arguments, in any) error {
	known := make(map[string]any, len(a))
	for name, v := range a {
		if _, ok := ts.props[name]; ok {
			known[name] = v
		}
	}
	if err := ts.inputResolved.ApplyDefaults(&known); err != nil {
		return err
	}
	data, err := json.Marshal(known)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields() // each property the schema names is a field
	return dec.Decode(in)
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

// describe says in words what a value of schema s must be, for argument
// errors: "an integer greater than 0 and at most 9007199254740991", "an
// array of strings with at least 1 item", "a string: one of "right",
// "below"".
func describe(s *jsonschema.Schema) string {
	var what string
	switch s.Type {
	case "integer":
		what = "an integer"
	case "boolean":
		what = "true or false"
	case "string":
		what = "a string"
	case "array":
		what = "an array"
		if s.Items != nil && s.Items.Type != "" {
			what += " of " + s.Items.Type + "s"
		}
		if s.MinItems != nil {
			what += " with at least " + plural(int64(*s.MinItems), "item")
		}
	case "":
		what = "a value"
	case "object":
		what = "an object"
	default:
		what = "a " + s.Type
	}
	var bounds []string
	if s.ExclusiveMinimum != nil {
		bounds = append(bounds, "greater than "+number(*s.ExclusiveMinimum))
	}
	if s.Minimum != nil {
		bounds = append(bounds, "at least "+number(*s.Minimum))
	}
	if s.ExclusiveMaximum != nil {
		bounds = append(bounds, "less than "+number(*s.ExclusiveMaximum))
	}
	if s.Maximum != nil {
		bounds = append(bounds, "at most "+number(*s.Maximum))
	}
	if s.MinLength != nil {
		bounds = append(bounds, "of at least "+plural(int64(*s.MinLength), "character"))
	}
	if s.MaxLength != nil {
		bounds = append(bounds, "of at most "+plural(int64(*s.MaxLength), "character"))
	}
	if len(bounds) > 0 {
		what += " " + strings.Join(bounds, " and ")
	}
	if s.Pattern != "" {
		what += " matching " + s.Pattern
	}
	if len(s.Enum) > 0 {
		values := make([]string, len(s.Enum))
		for i, v := range s.Enum {
			b, _ := json.Marshal(v) // an enum value came from JSON
			values[i] = string(b)
		}
		what += ": one of " + strings.Join(values, ", ")
	}
	return what
}

func number(f float64) string {
	b, _ := json.Marshal(f) // a schema bound is always a finite number
	return string(b)
}
