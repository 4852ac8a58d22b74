package lifecycle

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tmux-mcp/tmux-mcp/domain/fault"
)

// Limits on what the lifecycle tools accept.
const (
	MaxNameBytes    = 256     // a session or window name
	MaxCommandBytes = 1 << 16 // create_session's command
	MaxPaneCells    = 10_000  // a width, height or split size
)

// Argument checks, whatever the backend: each returns a
// *fault.ArgumentError naming field. What a particular multiplexer would
// read specially in a name is its adapter's to refuse.

// checkRef accepts a reference to a session or window: any non-empty
// text, which the backend then looks up.
func checkRef(field, ref string) error {
	if ref == "" {
		return &fault.ArgumentError{Field: field, Reason: "is empty"}
	}
	return nil
}

// checkName accepts a name that is plain text: not empty, at most
// MaxNameBytes of UTF-8, without control characters.
func checkName(field, name string) error {
	bad := func(reason string) error { return &fault.ArgumentError{Field: field, Reason: reason} }
	switch {
	case name == "":
		return bad("is empty")
	case len(name) > MaxNameBytes:
		return bad(fmt.Sprintf("is %d bytes long; at most %d are allowed", len(name), MaxNameBytes))
	case !utf8.ValidString(name):
		return bad("is not valid UTF-8")
	}
	for _, r := range name {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return bad(fmt.Sprintf("%q holds the control character %U", name, r))
		}
	}
	return nil
}

// checkCommand accepts a shell command line for a new pane.
func checkCommand(field, cmd string) error {
	bad := func(reason string) error { return &fault.ArgumentError{Field: field, Reason: reason} }
	switch {
	case len(cmd) > MaxCommandBytes:
		return bad(fmt.Sprintf("is %d bytes long; at most %d are allowed", len(cmd), MaxCommandBytes))
	case !utf8.ValidString(cmd):
		return bad("is not valid UTF-8")
	case strings.ContainsRune(cmd, 0):
		return bad("holds a NUL byte")
	case strings.TrimSpace(cmd) == "":
		return bad("is blank")
	}
	return nil
}

// checkCells accepts a size in cells: 0 (not given) to MaxPaneCells.
func checkCells(field string, n int) error {
	if n < 0 || n > MaxPaneCells {
		return &fault.ArgumentError{Field: field, Reason: fmt.Sprintf("is %d; it must be between 1 and %d cells, or left out", n, MaxPaneCells)}
	}
	return nil
}
