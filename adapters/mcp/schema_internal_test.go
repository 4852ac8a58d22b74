package mcp

import (
	"reflect"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// The rules of schema.go, each on a made-up declaration.

type ruleInner struct {
	Name string `json:"name" jsonschema:"A name."`
}

type ruleShared struct {
	Shared bool `json:"shared" jsonschema:"From an embedded struct."`
}

// dupInner's field has the name of a field of the struct it is embedded
// in, which encoding/json would silently drop.
type dupInner struct {
	B string `json:"name"`
}

type ruleArgs struct {
	Pane     ports.PaneID `json:"paneId"`
	Window   windowID     `json:"windowId,omitempty" jsonschema:"The window."`
	Session  sessionRef   `json:"session,omitempty" jsonschema:"The session."`
	Count    int64        `json:"count,omitempty" jsonschema:"Positive." schema:"exclusiveMinimum=0"`
	Size     int          `json:"size,omitempty" jsonschema:"Bounded." schema:"minimum=1,maximum=10"`
	Start    *int64       `json:"start,omitempty" jsonschema:"Absent or given."`
	Name     string       `json:"name" jsonschema:"Short." schema:"minLength=1,maxLength=4"`
	Side     string       `json:"side,omitempty" jsonschema:"A side." schema:"enum=left|right"`
	Words    []string     `json:"words,omitempty" jsonschema:"Words." schema:"minItems=1"`
	On       bool         `json:"on,omitempty" jsonschema:"Default true." schema:"default=true"`
	Untagged bool         `json:"untagged,omitempty"`
	ruleShared
}

type ruleResult struct {
	Zebra  string         `json:"zebra" jsonschema:"Listed last, required first."`
	Pane   ports.PaneID   `json:"paneId"`
	Panes  []ports.PaneID `json:"panes" jsonschema:"Pane ids."`
	Maybe  *[]string      `json:"maybe" jsonschema:"Null or a list."`
	Exit   *int           `json:"exit" jsonschema:"Null or a number."`
	Bare   *string        `json:"bare"`
	Nested []ruleInner    `json:"nested" jsonschema:"Objects."`
	Count  int            `json:"count"`
	Window windowID       `json:"window"`
	Sess   sessionID      `json:"session"`
}

func TestSchemaRulesOnAnArgumentsType(t *testing.T) {
	s, err := inputSchema(reflect.TypeFor[ruleArgs](), false)
	if err != nil {
		t.Fatal(err)
	}
	got, err := publish(s)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"$schema":"http://json-schema.org/draft-07/schema#","properties":{` +
		`"count":{"description":"Positive.","exclusiveMinimum":0,"maximum":9007199254740991,"type":"integer"},` +
		`"name":{"description":"Short.","maxLength":4,"minLength":1,"type":"string"},` +
		`"on":{"default":true,"description":"Default true.","type":"boolean"},` +
		`"paneId":{"description":"Stable pane id, e.g. %1.","pattern":"^%\\d+$","type":"string"},` +
		`"session":{"description":"The session.","maxLength":256,"minLength":1,"pattern":"^(\\$\\d+|[^-:.][^:.]*)$","type":"string"},` +
		`"shared":{"description":"From an embedded struct.","type":"boolean"},` +
		`"side":{"description":"A side.","enum":["left","right"],"type":"string"},` +
		`"size":{"description":"Bounded.","maximum":10,"minimum":1,"type":"integer"},` +
		`"start":{"description":"Absent or given.","maximum":9007199254740991,"minimum":-9007199254740991,"type":"integer"},` +
		`"untagged":{"type":"boolean"},` +
		`"windowId":{"description":"The window.","pattern":"^@\\d+$","type":"string"},` +
		`"words":{"description":"Words.","items":{"type":"string"},"minItems":1,"type":"array"}` +
		`},"required":["name","paneId","shared"],"type":"object"}`
	if string(got) != want {
		t.Errorf("input schema\n got %s\nwant %s", got, want)
	}
}

func TestSchemaRulesOnAResultType(t *testing.T) {
	s, err := outputSchema(reflect.TypeFor[ruleResult](), []string{"zebra", "bare", "count", "exit", "maybe", "nested", "paneId", "panes", "session", "window"}, false)
	if err != nil {
		t.Fatal(err)
	}
	got, err := publish(s)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"$schema":"http://json-schema.org/draft-07/schema#","additionalProperties":false,"properties":{` +
		`"bare":{"anyOf":[{"type":"string"},{"type":"null"}]},` +
		`"count":{"maximum":9007199254740991,"minimum":-9007199254740991,"type":"integer"},` +
		`"exit":{"anyOf":[{"maximum":9007199254740991,"minimum":-9007199254740991,"type":"integer"},{"type":"null"}],"description":"Null or a number."},` +
		`"maybe":{"anyOf":[{"items":{"type":"string"},"type":"array"},{"type":"null"}],"description":"Null or a list."},` +
		`"nested":{"description":"Objects.","items":{"additionalProperties":false,"properties":{"name":{"description":"A name.","type":"string"}},"required":["name"],"type":"object"},"type":"array"},` +
		`"paneId":{"description":"Stable pane id, e.g. %1.","pattern":"^%\\d+$","type":"string"},` +
		`"panes":{"description":"Pane ids.","items":{"description":"Stable pane id, e.g. %1.","pattern":"^%\\d+$","type":"string"},"type":"array"},` +
		`"session":{"description":"Session id, e.g. $1.","pattern":"^\\$\\d+$","type":"string"},` +
		`"window":{"description":"Window id, e.g. @2.","pattern":"^@\\d+$","type":"string"},` +
		`"zebra":{"description":"Listed last, required first.","type":"string"}` +
		`},"required":["zebra","bare","count","exit","maybe","nested","paneId","panes","session","window"],"type":"object"}`
	if string(got) != want {
		t.Errorf("output schema\n got %s\nwant %s", got, want)
	}
}

func TestSchemaOfNoArgumentsIsAnEmptyObject(t *testing.T) {
	s, err := inputSchema(reflect.TypeFor[noArgs](), false)
	if err != nil {
		t.Fatal(err)
	}
	got, err := publish(s)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"$schema":"http://json-schema.org/draft-07/schema#","properties":{},"required":[],"type":"object"}`; string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// A declaration that could make the schema and what JSON carries disagree,
// or that says something the builder would have to guess at, is refused
// with the field named.
func TestSchemaBuilderRefusesDeclarationsItCannotKeepTrue(t *testing.T) {
	type (
		noTag struct {
			PaneID string
		}
		dash struct {
			Secret string `json:"-"`
		}
		stringOpt struct {
			N int64 `json:"n,string"`
		}
		unexported struct {
			//lint:ignore U1000 never set: the builder is to refuse the field
			paneID string
		}
		requiredPointer struct {
			Start *int64 `json:"start"`
		}
		dup struct {
			A string `json:"name"`
			dupInner
		}
		lengthOnInt struct {
			N int `json:"n" schema:"minLength=1"`
		}
		unknownKeyword struct {
			N int `json:"n" schema:"multipleOf=2"`
		}
		notKeyValue struct {
			N int `json:"n" schema:"positive"`
		}
		hugeBound struct {
			N int64 `json:"n" schema:"maximum=9007199254740992"`
		}
		badDefault struct {
			On bool `json:"on,omitempty" schema:"default=yes"`
		}
		float struct {
			F float64 `json:"f"`
		}
		aMap struct {
			M map[string]string `json:"m"`
		}
		emptyDescription struct {
			S string `json:"s" jsonschema:""`
		}
		taggedEmbedded struct {
			ruleShared `json:"shared"`
		}
		pointerEmbedded struct {
			*ruleShared
		}
	)
	for _, tc := range []struct {
		name string
		t    reflect.Type
		want string
	}{
		{"no json tag", reflect.TypeFor[noTag](), "PaneID: no json tag"},
		{"json -", reflect.TypeFor[dash](), "Secret: json tag \"-\" names no property"},
		{"json option", reflect.TypeFor[stringOpt](), `option "string"`},
		{"unexported", reflect.TypeFor[unexported](), "paneID is not exported"},
		{"required pointer", reflect.TypeFor[requiredPointer](), "Start: a pointer"},
		{"two fields, one name", reflect.TypeFor[dup](), `B: a second property "name"`},
		{"length on an integer", reflect.TypeFor[lengthOnInt](), "minLength: applies to type string, not integer"},
		{"unknown keyword", reflect.TypeFor[unknownKeyword](), "multipleOf: not a keyword"},
		{"not keyword=value", reflect.TypeFor[notKeyValue](), `"positive" is not keyword=value`},
		{"bound beyond 2^53-1", reflect.TypeFor[hugeBound](), "not an integer a JSON number holds exactly"},
		{"default not JSON", reflect.TypeFor[badDefault](), `"yes" is not JSON`},
		{"float", reflect.TypeFor[float](), "type float64 has no schema"},
		{"map", reflect.TypeFor[aMap](), "has no schema"},
		{"empty description", reflect.TypeFor[emptyDescription](), "an empty description"},
		{"tagged embedded struct", reflect.TypeFor[taggedEmbedded](), "an embedded field must be an untagged struct"},
		{"pointer to an embedded struct", reflect.TypeFor[pointerEmbedded](), "an embedded field must be an untagged struct"},
		{"not a struct", reflect.TypeFor[[]string](), "is not a struct"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := inputSchema(tc.t, false)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("inputSchema(%s) = %v, want an error containing %q", tc.t, err, tc.want)
			}
		})
	}

	t.Run("omitempty in a result", func(t *testing.T) {
		type r struct {
			N int `json:"n,omitempty"`
		}
		if _, err := outputSchema(reflect.TypeFor[r](), nil, false); err == nil || !strings.Contains(err.Error(), "every field of a result is present") {
			t.Errorf("outputSchema = %v", err)
		}
	})
	t.Run("a required order that is not the properties", func(t *testing.T) {
		type r struct {
			A string `json:"a"`
			B string `json:"b"`
		}
		for _, order := range [][]string{{"a"}, {"a", "b", "c"}, {"a", "a"}, {"a", "B"}} {
			if _, err := outputSchema(reflect.TypeFor[r](), order, false); err == nil || !strings.Contains(err.Error(), "required order") {
				t.Errorf("outputSchema with order %v = %v, want an error", order, err)
			}
		}
	})
}
