package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// A tool's input and output schemas are built from the Go types of its
// arguments and of its result (see tool), so that the shape of a tool is
// written once: a property is a struct field, and the field's tags say
// what the contract says of it. The go-sdk can infer schemas too, but not
// these: the contract fixes bounds, patterns, nullable fields as anyOf and
// the order of a required list, which inference does not write.
//
// The rules, for a struct type T:
//
//   - Every exported field is a property, named by its json tag, which it
//     must have: the name a client sees is always written down, and it is
//     the name encoding/json reads and writes. The fields of an embedded
//     struct (untagged, not a pointer) are properties of T, as in
//     encoding/json.
//   - Its type gives its schema: a string is "string", a bool "boolean",
//     an int or int64 an "integer" between ±(2^53-1) (the integers a JSON
//     number holds exactly), a slice an "array" of its element's schema, a
//     struct a nested object. The contract's ids, ports.PaneID, windowID,
//     sessionID and sessionRef, are strings of their form (idSchemas).
//   - The tag jsonschema:"..." is its description, as for the go-sdk.
//   - The tag schema:"keyword=value,..." adds JSON Schema keywords:
//     minimum, exclusiveMinimum and maximum (each replaces the default
//     bound on its side), minLength, maxLength, minItems, enum (values
//     separated by "|") and default (a JSON value).
//
// In the arguments (inputSchema) a field is required unless its json tag
// says omitempty; a pointer field tells an absent argument from a zero one,
// so it must be optional; and unknown properties are allowed, as the
// contract's pages allow them. In a result (outputSchema) every field is
// required, since the contract has every field present (omitempty is
// refused); a pointer field is nullable, an anyOf of its value and null with
// the description beside it; and objects are closed (additionalProperties
// false). A required list is in name order unless the declaration gives
// one, as run_shell_command's reference page does.

// draft07 is the JSON Schema draft of every schema, as of the pages'.
const draft07 = "http://json-schema.org/draft-07/schema#"

// maxSafeInteger is the largest integer a JSON number (an IEEE double)
// holds exactly: the bound of every integer the schemas do not bound
// otherwise.
const maxSafeInteger = 1<<53 - 1

// The contract's ids other than a pane's, as the transport takes and
// reports them. The ports and the domain take ids as opaque strings; the
// forms are the contract's, so the transport checks them, through the
// input schemas, before any call.
type (
	windowID   string // a window id, @2
	sessionID  string // a session id, $1
	sessionRef string // a session's id or its exact name
)

// hostPrefix is the host part of an id of a server of several hosts
// (ports.HostLister): the host's name and a colon, as in web1:%3.
const hostPrefix = `[A-Za-z0-9._-]{1,64}:`

// idSchemas are the schemas of the id types: a string of the id's form,
// with a description a field may replace (an array's items keep it). A
// server of several hosts takes and gives every id with its host in
// front (hosts).
var idSchemas = map[reflect.Type]func(hosts bool) *jsonschema.Schema{
	reflect.TypeFor[ports.PaneID](): func(hosts bool) *jsonschema.Schema {
		if hosts {
			return &jsonschema.Schema{Type: "string", Pattern: `^` + hostPrefix + `%\d+$`, Description: "Stable pane id, its host first, e.g. web1:%1."}
		}
		return &jsonschema.Schema{Type: "string", Pattern: `^%\d+$`, Description: "Stable pane id, e.g. %1."}
	},
	reflect.TypeFor[windowID](): func(hosts bool) *jsonschema.Schema {
		if hosts {
			return &jsonschema.Schema{Type: "string", Pattern: `^` + hostPrefix + `@\d+$`, Description: "Window id, its host first, e.g. web1:@2."}
		}
		return &jsonschema.Schema{Type: "string", Pattern: `^@\d+$`, Description: "Window id, e.g. @2."}
	},
	reflect.TypeFor[sessionID](): func(hosts bool) *jsonschema.Schema {
		if hosts {
			return &jsonschema.Schema{Type: "string", Pattern: `^` + hostPrefix + `\$\d+$`, Description: "Session id, its host first, e.g. web1:$1."}
		}
		return &jsonschema.Schema{Type: "string", Pattern: `^\$\d+$`, Description: "Session id, e.g. $1."}
	},
	// A name cannot start with "-" or hold ":" or ".", which would make it
	// part of a target; a name of the form of an id is read as the id.
	reflect.TypeFor[sessionRef](): func(hosts bool) *jsonschema.Schema {
		if hosts {
			return &jsonschema.Schema{Type: "string", Pattern: `^` + hostPrefix + `(\$\d+|[^-:.][^:.]*)$`, MinLength: new(1), MaxLength: new(256 + 65)}
		}
		return &jsonschema.Schema{Type: "string", Pattern: `^(\$\d+|[^-:.][^:.]*)$`, MinLength: new(1), MaxLength: new(256)}
	},
}

// inputSchema builds the input schema of a tool whose arguments are a T,
// for a server of several hosts when hosts is set.
func inputSchema(t reflect.Type, hosts bool) (*jsonschema.Schema, error) {
	return rootSchema(t, schemaBuilder{hosts: hosts}, nil)
}

// outputSchema builds the output schema of a tool whose result is a T,
// for a server of several hosts when hosts is set. order, if not nil, is
// the order of its required list.
func outputSchema(t reflect.Type, order []string, hosts bool) (*jsonschema.Schema, error) {
	return rootSchema(t, schemaBuilder{output: true, hosts: hosts}, order)
}

func rootSchema(t reflect.Type, b schemaBuilder, order []string) (*jsonschema.Schema, error) {
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("%s is not a struct: a tool's arguments and result are JSON objects", t)
	}
	s, err := b.object(t)
	if err != nil {
		return nil, err
	}
	s.Schema = draft07
	if order != nil {
		if got, want := slices.Sorted(slices.Values(order)), s.Required; !slices.Equal(got, want) {
			return nil, fmt.Errorf("%s: the required order %v does not name its properties %v once each", t, order, want)
		}
		s.Required = slices.Clone(order)
	}
	return s, nil
}

// schemaBuilder builds the schemas of one side of a tool.
type schemaBuilder struct {
	output bool // building a result's schema, not the arguments'
	hosts  bool // for a server of several hosts (see idSchemas, hostsOnly)
}

// hostsOnly reports whether f is a property of a server of several hosts
// alone (tag hosts:"only"), such as the host of a listed pane: a server
// of one host has no such property, and its value, the zero value there,
// is left out (omitzero); a server of several always gives it, never
// zero (a slice empty but not nil).
func hostsOnly(f reflect.StructField) bool { return f.Tag.Get("hosts") == "only" }

func (b schemaBuilder) object(t reflect.Type) (*jsonschema.Schema, error) {
	s := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}, Required: []string{}}
	if b.output {
		s.AdditionalProperties = &jsonschema.Schema{Not: &jsonschema.Schema{}} // false
	}
	for _, f := range reflect.VisibleFields(t) {
		if f.Anonymous {
			if _, tagged := f.Tag.Lookup("json"); tagged || f.Type.Kind() != reflect.Struct {
				return nil, fmt.Errorf("%s.%s: an embedded field must be an untagged struct, whose fields are properties", t, f.Name)
			}
			continue // its fields follow
		}
		if !f.IsExported() {
			return nil, fmt.Errorf("%s.%s is not exported, so JSON would not carry it", t, f.Name)
		}
		name, optional, zero, err := jsonName(f)
		if err != nil {
			return nil, fmt.Errorf("%s.%s: %w", t, f.Name, err)
		}
		if hostsOnly(f) != zero {
			return nil, fmt.Errorf("%s.%s: omitzero is for a property of several hosts alone (hosts:\"only\"), and such a property is omitzero, so that a server of one host leaves it out", t, f.Name)
		}
		if zero {
			if !b.hosts {
				continue
			}
			// Present in every result of several hosts; optional among
			// the arguments.
			optional = !b.output
		}
		if _, dup := s.Properties[name]; dup {
			return nil, fmt.Errorf("%s.%s: a second property %q", t, f.Name, name)
		}
		p, err := b.property(f, optional)
		if err != nil {
			return nil, fmt.Errorf("%s.%s: %w", t, f.Name, err)
		}
		s.Properties[name] = p
		if !optional {
			s.Required = append(s.Required, name)
		}
	}
	slices.Sort(s.Required)
	return s, nil
}

// jsonName returns the property name of f and whether it is omitempty
// or omitzero.
func jsonName(f reflect.StructField) (name string, omitempty, omitzero bool, err error) {
	tag, ok := f.Tag.Lookup("json")
	if !ok {
		return "", false, false, errors.New("no json tag: a property's name must be written down")
	}
	name, opts, _ := strings.Cut(tag, ",")
	if name == "" || name == "-" {
		return "", false, false, fmt.Errorf("json tag %q names no property", tag)
	}
	for opt := range strings.SplitSeq(opts, ",") {
		switch opt {
		case "":
		case "omitempty":
			omitempty = true
		case "omitzero":
			omitzero = true
		default:
			return "", false, false, fmt.Errorf("json tag %q: option %q has no meaning here", tag, opt)
		}
	}
	if omitempty && omitzero {
		return "", false, false, fmt.Errorf("json tag %q: omitempty or omitzero, not both", tag)
	}
	return name, omitempty, omitzero, nil
}

func (b schemaBuilder) property(f reflect.StructField, optional bool) (*jsonschema.Schema, error) {
	if b.output && optional {
		return nil, errors.New("omitempty in a result: every field of a result is present")
	}
	t, nullable := f.Type, false
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
		if b.output {
			nullable = true
		} else if !optional {
			return nil, errors.New("a pointer tells an absent argument from a zero one, so the argument must be optional (omitempty)")
		}
	}
	s, err := b.value(t)
	if err != nil {
		return nil, err
	}
	if err := addKeywords(s, f.Tag.Get("schema")); err != nil {
		return nil, err
	}
	if b.hosts {
		// What a field of several hosts takes beyond, such as a name
		// with its host in front.
		if err := addKeywords(s, f.Tag.Get("hostsschema")); err != nil {
			return nil, err
		}
	}
	if nullable {
		s = &jsonschema.Schema{AnyOf: []*jsonschema.Schema{s, {Type: "null"}}}
	}
	if d, ok := f.Tag.Lookup("jsonschema"); ok {
		if d == "" {
			return nil, errors.New("an empty description")
		}
		s.Description = d
		if _, isID := idSchemas[t]; isID && b.hosts {
			s.Description = withHostExamples(d)
		}
	}
	if d, ok := f.Tag.Lookup("hostsjsonschema"); ok && b.hosts {
		if d == "" {
			return nil, errors.New("an empty description for several hosts")
		}
		s.Description = d
	}
	return s, nil
}

// idExample is an id given as an example in a description: "e.g. %1".
var idExample = regexp.MustCompile(`e\.g\. ([%@$]\d+)`)

// withHostExamples is the description d of an id field as a server of
// several hosts gives it: its examples of ids carry a host, as the ids it
// takes and gives do, and a session named by its name is named after its
// host too.
func withHostExamples(d string) string {
	d = idExample.ReplaceAllString(d, "e.g. web1:$1")
	return strings.ReplaceAll(d, "or its exact name (", "or its exact name after its host (e.g. web1:work; ")
}

// value is the schema of a value of type t.
func (b schemaBuilder) value(t reflect.Type) (*jsonschema.Schema, error) {
	if id, ok := idSchemas[t]; ok {
		return id(b.hosts), nil
	}
	switch t.Kind() {
	case reflect.String:
		return &jsonschema.Schema{Type: "string"}, nil
	case reflect.Bool:
		return &jsonschema.Schema{Type: "boolean"}, nil
	case reflect.Int, reflect.Int64:
		return &jsonschema.Schema{Type: "integer", Minimum: new(float64(-maxSafeInteger)), Maximum: new(float64(maxSafeInteger))}, nil
	case reflect.Slice:
		items, err := b.value(t.Elem())
		if err != nil {
			return nil, err
		}
		return &jsonschema.Schema{Type: "array", Items: items}, nil
	case reflect.Struct:
		return b.object(t)
	}
	return nil, fmt.Errorf("type %s has no schema here", t)
}

// addKeywords adds to s the keywords of a schema tag.
func addKeywords(s *jsonschema.Schema, tag string) error {
	if tag == "" {
		return nil
	}
	for kw := range strings.SplitSeq(tag, ",") {
		key, val, ok := strings.Cut(kw, "=")
		if !ok {
			return fmt.Errorf("schema tag %q: %q is not keyword=value", tag, kw)
		}
		if err := addKeyword(s, key, val); err != nil {
			return fmt.Errorf("schema tag %q: %s: %w", tag, key, err)
		}
	}
	return nil
}

func addKeyword(s *jsonschema.Schema, key, val string) error {
	var want string // the type the keyword applies to
	switch key {
	case "minimum", "exclusiveMinimum", "maximum":
		want = "integer"
	case "minLength", "maxLength", "enum":
		want = "string"
	case "minItems":
		want = "array"
	case "default":
		if !json.Valid([]byte(val)) {
			return fmt.Errorf("%q is not JSON", val)
		}
		s.Default = json.RawMessage(val)
		return nil
	default:
		return errors.New("not a keyword this builder writes")
	}
	if s.Type != want {
		return fmt.Errorf("applies to type %s, not %s", want, s.Type)
	}
	if key == "enum" {
		for v := range strings.SplitSeq(val, "|") {
			s.Enum = append(s.Enum, v)
		}
		return nil
	}
	n, err := strconv.ParseInt(val, 10, 64)
	if err != nil || n < -maxSafeInteger || n > maxSafeInteger {
		return fmt.Errorf("%q is not an integer a JSON number holds exactly", val)
	}
	f := float64(n)
	switch key {
	case "minimum":
		s.Minimum, s.ExclusiveMinimum = &f, nil
	case "exclusiveMinimum":
		s.Minimum, s.ExclusiveMinimum = nil, &f
	case "maximum":
		s.Maximum = &f
	case "minLength":
		s.MinLength = new(int(n))
	case "maxLength":
		s.MaxLength = new(int(n))
	case "minItems":
		s.MinItems = new(int(n))
	}
	return nil
}

// publish renders s as the server advertises it, the JSON the contract's
// pages print compacted: keys in name order at every level, every object
// schema with its required list (jsonschema.Schema leaves out an empty
// one), and no HTML escaping.
func publish(s *jsonschema.Schema) (json.RawMessage, error) {
	data, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber() // a bound is written as it was, digit for digit
	var tree map[string]any
	if err := dec.Decode(&tree); err != nil {
		return nil, err
	}
	listRequired(tree)
	return encode(tree) // encoding/json writes map keys in order
}

// listRequired gives every object schema in s a required list.
func listRequired(s map[string]any) {
	if props, ok := s["properties"].(map[string]any); ok {
		if _, ok := s["required"]; !ok {
			s["required"] = []any{}
		}
		for _, p := range props {
			if p, ok := p.(map[string]any); ok {
				listRequired(p)
			}
		}
	}
	if items, ok := s["items"].(map[string]any); ok {
		listRequired(items)
	}
	if anyOf, ok := s["anyOf"].([]any); ok {
		for _, a := range anyOf {
			if a, ok := a.(map[string]any); ok {
				listRequired(a)
			}
		}
	}
}
