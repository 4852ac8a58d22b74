package mcp

import (
	"encoding/json"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmux-mcp/tmux-mcp/adapters/mcp/audit"
)

// audited records one tool call in the audit log, if there is one: the
// tool, its pane, its outcome, how long it took, and digests of what it
// would type (audit.SecretArgs), never the text itself. It is called once
// per call that reaches a tool's handler, whatever the call's fate: a
// result, a tool error or a malformed request.
//
// args are the call's validated arguments, or nil when they did not pass
// the schema; their secrets are still recorded then, from the raw
// arguments, since a refused call is worth auditing too.
//
// The pane is the call's paneId, else the result's (create_session and
// the others that make a pane). The outcome is the result's outcome field
// when it has one. An error is recorded by its kind, as classify names it
// for the client's text too; a tool error whose cause was not kept is
// "internal", so that it is never recorded as a success. A failed write
// to the log is logged: by then the call has been carried out, and
// withholding its result would not undo it.
func (s *Server) audited(tool string, start time.Time, req *sdk.CallToolRequest, args arguments, res *sdk.CallToolResult, callErr error) {
	if s.audit == nil {
		return
	}
	if args == nil && req != nil && req.Params != nil {
		var raw map[string]any
		if json.Unmarshal(req.Params.Arguments, &raw) == nil {
			args = raw
		}
	}
	e := audit.Entry{
		Time:     start,
		Tool:     tool,
		PaneID:   args.paneID(),
		Duration: time.Since(start),
		Secret:   audit.SecretArgs(args),
	}
	switch {
	case res != nil && res.IsError:
		e.ErrorKind = string(kindInternal)
		if err := res.GetError(); err != nil {
			e.ErrorKind = string(classify(err))
		}
	case callErr != nil:
		e.ErrorKind = string(classify(callErr))
	case res == nil:
		e.ErrorKind = string(kindInternal) // no result and no error: cannot happen, but never record it as "ok"
	default:
		var fields struct {
			Outcome string `json:"outcome"`
			PaneID  string `json:"paneId"`
		}
		if data, ok := res.StructuredContent.(json.RawMessage); ok {
			_ = json.Unmarshal(data, &fields) // the result passed its output schema: it is an object
		}
		e.Outcome = fields.Outcome
		if e.PaneID == "" {
			e.PaneID = fields.PaneID
		}
	}
	if err := s.audit.Record(e); err != nil {
		s.logger.Error("audit log write failed; this call is missing from it", "tool", tool, "error", err)
	}
}
