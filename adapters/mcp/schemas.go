package mcp

import (
	"embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// The schemas are kept as JSON files rather than derived from Go structs:
// the contract fixes them down to descriptions and bounds, and a derived
// schema would drift from it silently. Those of run_shell_command,
// paste_text and capture_pane are copied verbatim from the "Protocol data"
// sections of their reference pages; those of capture_since, wait_for_text
// and send_keys, which have no page, are written by hand in the same style
// from the field lists of CONTRACT.md. schemas_test.go holds every file to
// the field lists of the repository's docs/CONTRACT.md, and to the pages
// and the reference CONTRACT.md where they are at hand.
//
//go:embed schemas/*.json
var schemaFiles embed.FS

// toolSchemas are one tool's input and output schemas, both as advertised
// (the raw JSON) and resolved for validation.
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

// loadSchemas reads and resolves the embedded schemas of tool. An error
// means that an embedded file is broken, which is a programming error.
func loadSchemas(tool string) (*toolSchemas, error) {
	ts := &toolSchemas{props: map[string]propSchema{}}
	var err error
	var in *jsonschema.Schema
	if ts.input, in, ts.inputResolved, err = loadSchema(tool + ".input.json"); err != nil {
		return nil, err
	}
	if ts.output, _, ts.outputResolved, err = loadSchema(tool + ".output.json"); err != nil {
		return nil, err
	}
	ts.required = slices.Clone(in.Required)
	for name, p := range in.Properties {
		sub := *p
		// A property resolved on its own must still be read under the
		// draft the whole schema declares.
		sub.Schema = in.Schema
		r, err := sub.Resolve(nil)
		if err != nil {
			return nil, fmt.Errorf("schema %s.input.json, property %s: %w", tool, name, err)
		}
		ts.props[name] = propSchema{schema: p, resolved: r}
	}
	return ts, nil
}

func loadSchema(file string) (json.RawMessage, *jsonschema.Schema, *jsonschema.Resolved, error) {
	raw, err := schemaFiles.ReadFile("schemas/" + file)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("schema %s: %w", file, err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, nil, nil, fmt.Errorf("schema %s: %w", file, err)
	}
	r, err := s.Resolve(nil)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("schema %s: %w", file, err)
	}
	return json.RawMessage(raw), &s, r, nil
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
