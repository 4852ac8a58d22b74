package clients

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// A JSON document is edited as a tree that keeps the order of every
// object's keys, so that writing it back changes only what setup set:
// the standard library's maps would sort the keys of a file a person
// arranged. Values are *object, []any, string, json.Number, bool or nil.

// object is a JSON object with its keys in the order they came.
type object struct {
	keys []string
	vals map[string]any
}

func newObject() *object { return &object{vals: map[string]any{}} }

func (o *object) get(key string) (any, bool) {
	v, ok := o.vals[key]
	return v, ok
}

// set sets key, keeping its place when it is there, else last.
func (o *object) set(key string, v any) {
	if _, ok := o.vals[key]; !ok {
		o.keys = append(o.keys, key)
	}
	o.vals[key] = v
}

func (o *object) del(key string) {
	if _, ok := o.vals[key]; !ok {
		return
	}
	delete(o.vals, key)
	for i, k := range o.keys {
		if k == key {
			o.keys = append(o.keys[:i], o.keys[i+1:]...)
			break
		}
	}
}

// SyntaxError is a configuration file that is not the JSON setup can
// edit: where, and what is wrong.
type SyntaxError struct {
	Line, Column int // 0 when not known
	Msg          string
}

func (e *SyntaxError) Error() string {
	if e.Line == 0 {
		return e.Msg
	}
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

// parseJSON reads one JSON value from data, keeping key order. Blank data
// is an empty object: a file a client made empty.
func parseJSON(data []byte) (any, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return newObject(), nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := readValue(dec)
	if err == nil {
		if _, err = dec.Token(); err == nil {
			err = errors.New("more than one value in the file")
		} else if errors.Is(err, io.EOF) {
			err = nil
		}
	}
	if err != nil {
		return nil, located(data, dec.InputOffset(), err)
	}
	return v, nil
}

// located turns a decoding error into a *SyntaxError with the line and
// column of its offset.
func located(data []byte, off int64, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off = se.Offset
	}
	msg := err.Error()
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		msg = "the file ends in the middle of a value"
	}
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := int(off) - bytes.LastIndexByte(before, '\n')
	if bytes.Contains(data, []byte("//")) || bytes.Contains(data, []byte("/*")) {
		msg += " (comments and trailing commas, which some editors allow, are not JSON)"
	}
	return &SyntaxError{Line: line, Column: col, Msg: msg}
}

func readValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := newObject()
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key, ok := kt.(string)
				if !ok {
					return nil, fmt.Errorf("an object key is not a string")
				}
				v, err := readValue(dec)
				if err != nil {
					return nil, err
				}
				if _, dup := o.vals[key]; dup {
					return nil, fmt.Errorf("the key %q appears twice in one object", key)
				}
				o.set(key, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return o, nil
		case '[':
			arr := []any{}
			for dec.More() {
				v, err := readValue(dec)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return arr, nil
		}
		return nil, fmt.Errorf("unexpected %v", t)
	default:
		return t, nil
	}
}

// encodeJSON writes v indented by indent per level, ending with a line
// break, with no HTML escaping (a URL's & stays itself).
func encodeJSON(v any, indent string) []byte {
	var b bytes.Buffer
	writeValue(&b, v, indent, 0)
	b.WriteByte('\n')
	return b.Bytes()
}

func writeValue(b *bytes.Buffer, v any, indent string, depth int) {
	pad := func(d int) { b.WriteString(strings.Repeat(indent, d)) }
	switch t := v.(type) {
	case *object:
		if len(t.keys) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{\n")
		for i, k := range t.keys {
			pad(depth + 1)
			writeString(b, k)
			b.WriteString(": ")
			writeValue(b, t.vals[k], indent, depth+1)
			if i < len(t.keys)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		pad(depth)
		b.WriteByte('}')
	case []any:
		if len(t) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[\n")
		for i, e := range t {
			pad(depth + 1)
			writeValue(b, e, indent, depth+1)
			if i < len(t)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		pad(depth)
		b.WriteByte(']')
	case string:
		writeString(b, t)
	case json.Number:
		b.WriteString(t.String())
	case bool:
		if t {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case nil:
		b.WriteString("null")
	default:
		panic(fmt.Sprintf("clients: no JSON for %T", v))
	}
}

func writeString(b *bytes.Buffer, s string) {
	var sb bytes.Buffer
	enc := json.NewEncoder(&sb)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	b.Write(bytes.TrimSuffix(sb.Bytes(), []byte("\n")))
}

// detectIndent returns the indentation of the first indented line of a
// JSON text, so that a file indented with four spaces or tabs stays so;
// two spaces when there is none.
func detectIndent(data []byte) string {
	for _, line := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimLeft(line, " \t")
		if trimmed != "" && len(trimmed) < len(line) {
			return line[:len(line)-len(trimmed)]
		}
	}
	return "  "
}
