package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// runStub is a resStub that also reads run output.
type runStub struct {
	*resStub
	asked []domain.ReadOutputRequest
	read  func(domain.ReadOutputRequest) (domain.ReadOutputResult, error)
}

func (s *runStub) ReadOutput(_ context.Context, req domain.ReadOutputRequest) (domain.ReadOutputResult, error) {
	s.asked = append(s.asked, req)
	return s.read(req)
}

// A run's output resource is read_output's first page of it: the text,
// and the accounting in _meta.
func TestRunOutputResource(t *testing.T) {
	next := int64(5001)
	stub := &runStub{resStub: newResStub(), read: func(req domain.ReadOutputRequest) (domain.ReadOutputResult, error) {
		switch req.RunID {
		case "abc123":
			return domain.ReadOutputResult{RunID: "abc123", PaneID: "%1", Text: "1\n2", ReturnedLines: 5000, TotalLines: 9000,
				NextLine: &next, StoredBytes: 20, CutBytes: 3, StillRunning: true}, nil
		case "gone1":
			return domain.ReadOutputResult{}, fmt.Errorf("read the output of run gone1: %w", ports.ErrRunEvicted)
		}
		return domain.ReadOutputResult{}, fmt.Errorf("read the output of run %q: %w", req.RunID, ports.ErrRunNotFound)
	}}
	cs := connectRes(t, newResServer(t, stub, fake.NewClock(time.Unix(0, 0))), protocolLegacy)
	ctx := context.Background()

	uri := RunOutputURI("abc123")
	if uri != "tmux://runs/abc123/output" {
		t.Fatalf("RunOutputURI = %s", uri)
	}
	r, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Contents) != 1 || r.Contents[0].Text != "1\n2" || r.Contents[0].MIMEType != "text/plain" {
		t.Fatalf("contents = %+v", r.Contents)
	}
	meta := r.Contents[0].Meta
	if meta["totalLines"] != 9000.0 || meta["nextLine"] != 5001.0 || meta["cutBytes"] != 3.0 || meta["stillRunning"] != true ||
		meta["outputComplete"] != false {
		t.Errorf("_meta = %v, want read_output's accounting", meta)
	}
	if len(stub.asked) != 1 || stub.asked[0].RunID != "abc123" || stub.asked[0].StartLine != 0 || stub.asked[0].Grep != "" ||
		stub.asked[0].MaxLines < 1<<30 {
		t.Errorf("read_output asked %+v, want the run from its first line, bounded by bytes alone", stub.asked)
	}

	for _, bad := range []string{RunOutputURI("nosuch"), RunOutputURI("gone1"), "tmux://runs//output", "tmux://runs/a/b/output", "tmux://runs/abc123"} {
		if _, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: bad}); !resourceNotFound(err) {
			t.Errorf("read %s = %v, want resource not found", bad, err)
		}
	}

	// It is read, not followed.
	err = cs.Subscribe(ctx, &sdk.SubscribeParams{URI: uri})
	var rpc *jsonrpc.Error
	if !errors.As(err, &rpc) || rpc.Code != jsonrpc.CodeInvalidParams || !strings.Contains(err.Error(), "read_output") {
		t.Errorf("subscribe to a run's output = %v, want an invalid-params error naming read_output", err)
	}
}
