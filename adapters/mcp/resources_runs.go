package mcp

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmux-mcp/tmux-mcp/domain"
)

// A run's kept output is a resource too, read as read_output pages it
// from its first line: the text, within the byte ceiling, and the
// accounting in _meta. It is read, not subscribed to: read it again, or
// use read_output, to read on.

// RunOutputURITemplate is one run's kept output (text): {runId} is the
// runId a run_shell_command or wait_for_command result gave.
const RunOutputURITemplate = "tmux://runs/{runId}/output"

const runsURIPrefix = "tmux://runs/"

// outputReader is what the run resource reads, narrowed from Tools.
type outputReader interface {
	ReadOutput(ctx context.Context, req domain.ReadOutputRequest) (domain.ReadOutputResult, error)
}

// RunOutputURI returns the URI of a run's output resource.
func RunOutputURI(runID string) string { return runsURIPrefix + runID + "/output" }

// runOfURI returns the run id a run output URI names; ok is false for a
// URI that is not one.
func runOfURI(uri string) (string, bool) {
	id, ok := strings.CutPrefix(uri, runsURIPrefix)
	if !ok {
		return "", false
	}
	id, ok = strings.CutSuffix(id, "/output")
	return id, ok && id != "" && !strings.Contains(id, "/")
}

// registerRuns adds the run output resource to srv.
func (r *resources) registerRuns(srv *sdk.Server) {
	srv.AddResourceTemplate(&sdk.ResourceTemplate{
		URITemplate: RunOutputURITemplate,
		Name:        "run-output",
		Title:       "Run output",
		MIMEType:    "text/plain",
		Description: "Read pane output; accepts no client-supplied executable input. " +
			"Returned content may be sensitive or untrusted. The output the server kept of one run of " +
			"run_shell_command, as read_output returns it from its first line, within the result byte ceiling; " +
			"runId is the one its result gave. _meta holds what read_output says of it (totalLines, returnedLines, " +
			"nextLine, storedBytes, cutBytes, stillRunning, outputComplete); use read_output to read on from nextLine " +
			"or to search it. An unknown or evicted runId is not found.",
	}, r.readRunOutput)
}

func (r *resources) readRunOutput(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	uri := req.Params.URI
	id, ok := runOfURI(uri)
	if !ok || r.outputs == nil {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	res, err := r.outputs.ReadOutput(ctx, domain.ReadOutputRequest{RunID: id, MaxLines: maxInt})
	if err != nil {
		return nil, resourceError(uri, err)
	}
	meta := sdk.Meta{
		"totalLines":     res.TotalLines,
		"returnedLines":  res.ReturnedLines,
		"nextLine":       res.NextLine,
		"storedBytes":    res.StoredBytes,
		"cutBytes":       res.CutBytes,
		"stillRunning":   res.StillRunning,
		"outputComplete": res.OutputComplete,
	}
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: res.Text, Meta: meta}}}, nil
}

// refuseRunSubscription answers a subscription to a run's output, which
// is not offered.
func refuseRunSubscription(uri string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
		Message: "subscribe to " + uri + ": a run's output cannot be subscribed to; read it again, or page through it with read_output"}
}

const maxInt = int64(^uint64(0) >> 1)
