package clients

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/BurntSushi/toml"
)

// Codex's config.toml is edited as text, within the server's table
// [mcp_servers.tmux] alone, so that every other line of the file (its
// comments, its order, the other servers) stays as the person wrote it.
// A TOML parser checks the file before the edit, refusing a file that is
// not TOML, and after it, so that an edit that went wrong is never
// written.

// codexToolTimeout is the tool_timeout_sec setup writes when the table
// has none: a run_shell_command may wait up to the server's 300 s
// ceiling, and Codex gives a tool 60 s by default.
const codexToolTimeout = "330"

var (
	serverHeader = regexp.MustCompile(`^\s*\[\s*mcp_servers\s*\.\s*(?:` + ServerName + `|"` + ServerName + `")\s*\]\s*(?:#.*)?$`)
	anyHeader    = regexp.MustCompile(`^\s*\[`)
)

// tomlLine is one key of the server's table, in setup's order, with its
// value; an empty value removes the key.
type tomlLine struct{ key, value string }

func tomlString(s string) string {
	var b bytes.Buffer
	writeString(&b, s) // a JSON string without HTML escapes is a TOML basic string
	return b.String()
}

func tomlLines(e Entry) []tomlLine {
	if e.HTTPEntry() {
		headers := ""
		if e.Token != "" {
			headers = "{ Authorization = " + tomlString("Bearer "+e.Token) + " }"
		}
		return []tomlLine{{"command", ""}, {"args", ""}, {"url", tomlString(e.URL)}, {"http_headers", headers}}
	}
	args := make([]string, len(e.Args))
	for i, a := range e.Args {
		args[i] = tomlString(a)
	}
	return []tomlLine{{"url", ""}, {"http_headers", ""}, {"bearer_token_env_var", ""},
		{"command", tomlString(e.Command)}, {"args", "[" + strings.Join(args, ", ") + "]"}}
}

// planTOML returns data with the table [mcp_servers.tmux] set to e, and
// the table alone.
func planTOML(data []byte, e Entry) (after, snippet []byte, err error) {
	var before map[string]any
	if _, err := toml.Decode(string(data), &before); err != nil {
		return nil, nil, tomlError(err)
	}
	lines := strings.Split(string(data), "\n")
	if len(data) == 0 {
		lines = nil
	} else if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1] // the line break that ends the file
	}
	start := -1
	for i, l := range lines {
		if serverHeader.MatchString(l) {
			start = i
			break
		}
	}
	if start < 0 && hasServer(before) {
		return nil, nil, fmt.Errorf("mcp_servers.%s is defined with dotted keys or inline, which setup does not edit; write it as a [mcp_servers.%s] table or remove it", ServerName, ServerName)
	}
	want := tomlLines(e)
	if start < 0 {
		if n := len(lines); n > 0 && strings.TrimSpace(lines[n-1]) != "" {
			lines = append(lines, "")
		}
		lines = append(lines, "[mcp_servers."+ServerName+"]")
		for _, w := range want {
			if w.value != "" {
				lines = append(lines, w.key+" = "+w.value)
			}
		}
		lines = append(lines, "tool_timeout_sec = "+codexToolTimeout)
	} else {
		end := len(lines)
		for i := start + 1; i < len(lines); i++ {
			if anyHeader.MatchString(lines[i]) {
				end = i
				break
			}
		}
		body := editTable(lines[start+1:end], want)
		lines = append(append(append([]string{}, lines[:start+1]...), body...), lines[end:]...)
	}
	out := []byte(strings.Join(lines, "\n") + "\n")
	if err := checkTOML(out, e); err != nil {
		return nil, nil, fmt.Errorf("setup could not edit the file safely (%v); add the table by hand", err)
	}
	var table []string
	table = append(table, "[mcp_servers."+ServerName+"]")
	for _, w := range want {
		if w.value != "" {
			table = append(table, w.key+" = "+w.value)
		}
	}
	table = append(table, "tool_timeout_sec = "+codexToolTimeout)
	return out, []byte(strings.Join(table, "\n") + "\n"), nil
}

// editTable returns the body of the server's table with want set: a key
// there has its value (which may span lines) replaced in place; a key
// not there is added after the last key; tool_timeout_sec is added when
// missing, and kept when there.
func editTable(body []string, want []tomlLine) []string {
	out := append([]string{}, body...)
	lastKey := -1
	for i, l := range out {
		if tomlKey(l) != "" {
			lastKey = i
		}
	}
	hasTimeout := false
	for _, l := range out {
		if tomlKey(l) == "tool_timeout_sec" {
			hasTimeout = true
		}
	}
	for _, w := range want {
		at := -1
		for i, l := range out {
			if tomlKey(l) == w.key {
				at = i
				break
			}
		}
		switch {
		case at >= 0:
			n := valueLines(out[at:])
			var repl []string
			if w.value != "" {
				repl = []string{w.key + " = " + w.value}
			}
			out = append(append(append([]string{}, out[:at]...), repl...), out[at+n:]...)
			lastKey += len(repl) - n
		case w.value != "":
			out = append(append(append([]string{}, out[:lastKey+1]...), w.key+" = "+w.value), out[lastKey+1:]...)
			lastKey++
		}
	}
	if !hasTimeout {
		out = append(append(append([]string{}, out[:lastKey+1]...), "tool_timeout_sec = "+codexToolTimeout), out[lastKey+1:]...)
	}
	return out
}

var keyLine = regexp.MustCompile(`^\s*("?)([A-Za-z0-9_-]+)("?)\s*=`)

// tomlKey is the bare key a line sets, or "".
func tomlKey(line string) string {
	m := keyLine.FindStringSubmatch(line)
	if m == nil || m[1] != m[3] {
		return ""
	}
	return m[2]
}

// valueLines is how many lines the key on lines[0] takes: more than one
// when its array or inline table goes on past the line's end.
func valueLines(lines []string) int {
	depth := 0
	for n, l := range lines {
		inString, quote := false, byte(0)
		for i := 0; i < len(l); i++ {
			c := l[i]
			switch {
			case inString && c == '\\' && quote == '"':
				i++
			case inString && c == quote:
				inString = false
			case inString:
			case c == '"' || c == '\'':
				inString, quote = true, c
			case c == '#':
				i = len(l)
			case c == '[' || c == '{':
				depth++
			case c == ']' || c == '}':
				depth--
			}
		}
		if depth <= 0 {
			return n + 1
		}
	}
	return len(lines)
}

func hasServer(doc map[string]any) bool {
	servers, ok := doc["mcp_servers"].(map[string]any)
	if !ok {
		return false
	}
	_, ok = servers[ServerName]
	return ok
}

// checkTOML checks that data is TOML whose server table starts or
// reaches e.
func checkTOML(data []byte, e Entry) error {
	var doc struct {
		Servers map[string]struct {
			Command string            `toml:"command"`
			Args    []string          `toml:"args"`
			URL     string            `toml:"url"`
			Headers map[string]string `toml:"http_headers"`
		} `toml:"mcp_servers"`
	}
	if _, err := toml.Decode(string(data), &doc); err != nil {
		return tomlError(err)
	}
	s := doc.Servers[ServerName]
	wantAuth := ""
	if e.Token != "" {
		wantAuth = "Bearer " + e.Token
	}
	noneIfEmpty := func(a []string) []string {
		if len(a) == 0 {
			return nil
		}
		return a
	}
	got, _ := json.Marshal([]any{s.Command, noneIfEmpty(s.Args), s.URL, s.Headers["Authorization"]})
	want, _ := json.Marshal([]any{e.Command, noneIfEmpty(e.Args), e.URL, wantAuth})
	if e.HTTPEntry() {
		want, _ = json.Marshal([]any{"", []string(nil), e.URL, wantAuth})
	}
	if !bytes.Equal(got, want) {
		return fmt.Errorf("the table reads back as %s, not %s", got, want)
	}
	return nil
}

// tomlError says where a TOML file is wrong.
func tomlError(err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		return &SyntaxError{Line: pe.Position.Line, Column: pe.Position.Col, Msg: "not TOML: " + pe.Message}
	}
	return fmt.Errorf("not TOML: %v", err)
}

// configuredTOML is Configured for Codex's file.
func configuredTOML(path string, data []byte) (string, bool, error) {
	var doc struct {
		Servers map[string]struct {
			Command string `toml:"command"`
			URL     string `toml:"url"`
		} `toml:"mcp_servers"`
	}
	if _, err := toml.Decode(string(data), &doc); err != nil {
		return "", false, &ConfigError{Path: path, Err: tomlError(err)}
	}
	s, ok := doc.Servers[ServerName]
	if !ok {
		return "", false, nil
	}
	if s.URL != "" {
		return s.URL, true, nil
	}
	return s.Command, true, nil
}
