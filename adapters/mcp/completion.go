package mcp

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmux-mcp/tmux-mcp/domain/lifecycle"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// completion/complete: the prompts' pane, window and session arguments,
// and the {id} of the pane resource templates, complete to the live ones.
// With the lifecycle tools (a backend that can list sessions) they come
// from its listings; without them (GNU screen), the pane tools list
// nothing, so panes complete to those the calls of this server named and
// worked in, newest first, and windows and sessions to nothing.

// maxCompletions is the most values one answer holds, as the protocol
// allows; Total and HasMore tell of the others.
const maxCompletions = 100

// complete is the server's CompletionHandler.
func (s *Server) complete(ctx context.Context, req *sdk.CompleteRequest) (*sdk.CompleteResult, error) {
	p := req.Params
	var kind argKind
	switch p.Ref.Type {
	case "ref/prompt":
		args, ok := s.promptArgs[p.Ref.Name]
		if !ok {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "completion of an unknown prompt " + p.Ref.Name}
		}
		for _, a := range args {
			if a.name == p.Argument.Name {
				kind = a.kind
			}
		}
	case "ref/resource":
		if (p.Ref.URI == PaneURITemplate || p.Ref.URI == PaneContentURITemplate) && p.Argument.Name == "id" {
			// A resource URI holds the pane's number, without "%".
			return completion(s.paneNumbers(ctx, p.Argument.Value)), nil
		}
	}
	var others map[string]string
	if p.Context != nil {
		others = p.Context.Arguments
	}
	var values []string
	switch kind {
	case argPane:
		values = s.paneIDs(ctx, p.Argument.Value, others)
	case argWindow:
		values = s.windowIDs(ctx, p.Argument.Value, others)
	case argSession:
		values = s.sessionRefs(ctx, p.Argument.Value)
	case argBool:
		values = withPrefix([]string{"true", "false"}, p.Argument.Value)
	}
	return completion(values), nil
}

func completion(values []string) *sdk.CompleteResult {
	res := &sdk.CompleteResult{Completion: sdk.CompletionResultDetails{Values: values, Total: len(values)}}
	if len(values) > maxCompletions {
		res.Completion.Values, res.Completion.HasMore = values[:maxCompletions], true
	}
	if res.Completion.Values == nil {
		res.Completion.Values = []string{} // the protocol wants a list, even an empty one
	}
	return res
}

// withPrefix keeps the values that start with prefix, in their order,
// each once.
func withPrefix(values []string, prefix string) []string {
	var out []string
	for _, v := range values {
		if strings.HasPrefix(v, prefix) && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// paneIDs are the panes whose ids start with prefix (or whose numbers do:
// a person may leave out the "%"), those of the window or session that
// the other arguments name when they name one. The ids of a server of
// several hosts start with their host, which a prefix gives as it is.
func (s *Server) paneIDs(ctx context.Context, prefix string, others map[string]string) []string {
	ids := s.livePanes(ctx, others)
	if !strings.HasPrefix(prefix, "%") && prefix != "" && s.hosts == nil {
		prefix = "%" + prefix
	}
	return withPrefix(ids, prefix)
}

// paneNumbers are the numbers of the panes that start with prefix, for a
// resource URI.
func (s *Server) paneNumbers(ctx context.Context, prefix string) []string {
	var nums []string
	for _, id := range s.livePanes(ctx, nil) {
		nums = append(nums, paneNumber(ports.PaneID(id)))
	}
	return withPrefix(nums, prefix)
}

// livePanes lists the panes, in listing order: those of the window or
// session others name, if it names one that can be listed.
func (s *Server) livePanes(ctx context.Context, others map[string]string) []string {
	if s.manage == nil {
		return s.seen.list()
	}
	var req lifecycle.ListPanesRequest
	switch {
	case windowIDForm.MatchString(others["windowId"]):
		req.Window = others["windowId"]
	case others["session"] != "":
		req.Session = others["session"]
	}
	list, err := s.manage.ListPanes(ctx, req)
	if err != nil && req != (lifecycle.ListPanesRequest{}) {
		list, err = s.manage.ListPanes(ctx, lifecycle.ListPanesRequest{}) // a context that names nothing there is
	}
	if err != nil {
		s.logger.Info("completion: the panes could not be listed", "error", err)
		return nil
	}
	ids := make([]string, 0, len(list.Panes))
	for _, p := range list.Panes {
		ids = append(ids, string(p.ID))
	}
	return ids
}

// windowIDs are the windows whose ids start with prefix, those of the
// session the other arguments name when they name one.
func (s *Server) windowIDs(ctx context.Context, prefix string, others map[string]string) []string {
	if s.manage == nil {
		return nil
	}
	if !strings.HasPrefix(prefix, "@") && prefix != "" {
		prefix = "@" + prefix
	}
	list, err := s.manage.ListWindows(ctx, lifecycle.ListWindowsRequest{Session: others["session"]})
	if err != nil && others["session"] != "" {
		list, err = s.manage.ListWindows(ctx, lifecycle.ListWindowsRequest{})
	}
	if err != nil {
		s.logger.Info("completion: the windows could not be listed", "error", err)
		return nil
	}
	var ids []string
	for _, w := range list.Windows {
		ids = append(ids, string(w.ID))
	}
	return withPrefix(ids, prefix)
}

// sessionRefs are the sessions whose ids or names start with prefix: a
// session argument takes either. Ids come first, then names.
func (s *Server) sessionRefs(ctx context.Context, prefix string) []string {
	if s.manage == nil {
		return nil
	}
	list, err := s.manage.ListSessions(ctx)
	if err != nil {
		s.logger.Info("completion: the sessions could not be listed", "error", err)
		return nil
	}
	var refs []string
	for _, x := range list.Sessions {
		refs = append(refs, string(x.ID))
	}
	for _, x := range list.Sessions {
		refs = append(refs, x.Name)
	}
	return withPrefix(refs, prefix)
}

// seenPanes are the panes the calls of a Server named and worked in, the
// newest first: what completes a pane id when the backend cannot list
// panes.
type seenPanes struct {
	mu    sync.Mutex
	panes []string
}

// maxSeen bounds the panes remembered.
const maxSeen = 64

func (p *seenPanes) add(pane string) {
	if pane == "" {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.panes = slices.Insert(slices.DeleteFunc(p.panes, func(q string) bool { return q == pane }), 0, pane)
	if len(p.panes) > maxSeen {
		p.panes = p.panes[:maxSeen]
	}
}

func (p *seenPanes) list() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.panes)
}
