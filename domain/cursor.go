package domain

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// A cursor is a position in one pane's output stream, handed to clients as
// an opaque string. It carries the pane's identity and generation and the
// server instance that issued it, so a cursor from another pane, from a
// respawned pane or from an earlier run of the server is refused instead
// of silently pointing somewhere else.
type cursor struct {
	Instance   string
	Pane       ports.PaneID
	Generation string
	Offset     int64
}

const cursorVersion = "c1"

func (c cursor) String() string {
	raw := strings.Join([]string{cursorVersion, c.Instance, string(c.Pane), c.Generation, strconv.FormatInt(c.Offset, 10)}, "\x1f")
	return base64.RawURLEncoding.EncodeToString([]byte(raw))
}

// parseCursor decodes s; the error is an *ArgumentError.
func parseCursor(s string) (cursor, error) {
	bad := func(why string) (cursor, error) {
		return cursor{}, &fault.ArgumentError{Field: "cursor", Reason: why + "; call without a cursor to start again"}
	}
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return bad("is not a cursor this server issued")
	}
	f := strings.Split(string(raw), "\x1f")
	if len(f) != 5 || f[0] != cursorVersion {
		return bad("is not a cursor this server issued")
	}
	off, err := strconv.ParseInt(f[4], 10, 64)
	if err != nil || off < 0 {
		return bad("is not a cursor this server issued")
	}
	return cursor{Instance: f[1], Pane: ports.PaneID(f[2]), Generation: f[3], Offset: off}, nil
}

// checkCursor parses s and checks that it belongs to this server, this
// pane and the pane's current process.
func (s *Service) checkCursor(str string, info ports.PaneInfo) (cursor, error) {
	c, err := parseCursor(str)
	if err != nil {
		return c, err
	}
	switch {
	case c.Instance != s.instance:
		return c, &fault.ArgumentError{Field: "cursor", Reason: "was issued by an earlier run of this server; call without a cursor to start again"}
	case c.Pane != info.ID:
		return c, &fault.ArgumentError{Field: "cursor", Reason: fmt.Sprintf("belongs to pane %s, not %s", c.Pane, info.ID)}
	case c.Generation != info.Generation:
		return c, &fault.ArgumentError{Field: "cursor", Reason: fmt.Sprintf("belongs to an earlier process of pane %s (the pane was restarted); call without a cursor to start again", info.ID)}
	}
	return c, nil
}
