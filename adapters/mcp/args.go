package mcp

import "github.com/tmux-mcp/tmux-mcp/ports"

// Lookups of the arguments by name, for the tools not yet declared with
// typed arguments.

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
