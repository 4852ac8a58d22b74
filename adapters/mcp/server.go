package mcpadapter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmux-mcp/tmux-mcp/adapters/audit"
	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// Tools is what the transport needs from the domain: one call per tool of
// CONTRACT.md. *domain.Service implements it.
//
// Each method returns a result, or an error that the transport turns into
// a tool error (see toolError): a *fault.RefusalError, *fault.BusyError
// or *fault.ArgumentError, or an error wrapping a ports sentinel such as
// ports.ErrPaneNotFound. A cancelled ctx is not an error for the waiting
// calls: RunShellCommand and WaitForText report it as a result with outcome
// "cancelled", and CaptureSince returns what it has read.
type Tools interface {
	RunShellCommand(ctx context.Context, req domain.RunRequest) (domain.RunResult, error)
	PasteText(ctx context.Context, req domain.PasteRequest) (domain.PasteResult, error)
	CapturePane(ctx context.Context, req domain.CaptureRequest) (domain.CaptureResult, error)
	CaptureSince(ctx context.Context, req domain.CaptureSinceRequest) (domain.CaptureSinceResult, error)
	WaitForText(ctx context.Context, req domain.WaitForTextRequest) (domain.WaitForTextResult, error)
	SendKeys(ctx context.Context, req domain.SendKeysRequest) (domain.SendKeysResult, error)
}

var _ Tools = (*domain.Service)(nil)

// Options configure a Server. The zero value is usable.
type Options struct {
	// Version is reported to clients as the server's version; empty means
	// "devel".
	Version string
	// Logger receives the transport's and the SDK's logs; nil discards
	// them. It must not write to the stdio transport's output.
	Logger *slog.Logger

	// Manage serves the inspect and lifecycle tools (list_sessions,
	// create_session, kill_pane, ...), normally the same *domain.Service
	// as the Tools. nil leaves those tools out, for a backend that cannot
	// list or shape its sessions: they would only ever fail.
	Manage ManageTools

	// Safety is the tier of tools offered (see Tier); "" means
	// DefaultTier. NewServer panics on any other value that is not a
	// tier: the caller validates the setting.
	Safety Tier

	// Audit, if not nil, gets one entry per tool call (see audited).
	Audit *audit.Log

	// Clock times resource subscriptions: the spacing of updates and the
	// polling of resources that have no stream of changes (resources.go).
	// nil means the system clock.
	Clock ports.Clock
}

// Name is the server name reported to clients.
const Name = "tmux-mcp"

const instructions = "Tools to work in terminal panes. Pane ids look like %3. " +
	"Use run_shell_command to run a command and get exactly its output and exit status; " +
	"paste_text to type text into a pane exactly as given; send_keys to press keys such as C-c, Escape or Up; " +
	"capture_pane to read what a pane shows; capture_since to read only what a pane wrote since a cursor; " +
	"wait_for_text to wait until a pane prints something. " +
	"list_panes and get_pane_info tell which panes exist and which a write would be refused for; " +
	"create_session, create_window and split_window make panes to work in. " +
	"Tools above the server's safety tier (see get_server_info) are not offered. " +
	"A pane running a command through run_shell_command refuses other writes until the command ends " +
	"(send_keys C-c may interrupt it once its call has returned timed_out or cancelled)."

// A Server is the MCP server with the tools registered. It is independent
// of any transport: serve it with ServeStdio, HTTPHandler, or any
// mcp.Transport through SDK.
type Server struct {
	sdk    *mcp.Server
	tools  Tools
	manage ManageTools
	tier   Tier
	audit  *audit.Log
	logger *slog.Logger

	// closing is cancelled by Close. Every call's context is cancelled
	// with it, so that a shutdown does not wait out a long command.
	closing   context.Context
	close     context.CancelCauseFunc
	closeOnce sync.Once
}

// NewServer returns a Server whose tools call t, and opts.Manage for the
// inspect and lifecycle tools, offering those that opts.Safety allows.
//
// It panics if an embedded schema is broken, which is a programming error
// that the package's tests catch, and if opts.Safety is not a tier.
func NewServer(t Tools, opts Options) *Server {
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	version := opts.Version
	if version == "" {
		version = "devel"
	}
	closing, closeFn := context.WithCancelCause(context.Background())
	sdkOpts := &mcp.ServerOptions{Instructions: instructions, Logger: logger}
	res := newResources(t, opts.Manage, opts.Clock, logger, closing, sdkOpts)
	s := &Server{
		sdk:     mcp.NewServer(&mcp.Implementation{Name: Name, Title: "tmux MCP server", Version: version}, sdkOpts),
		tools:   t,
		tier:    tierOrDefault(opts.Safety),
		audit:   opts.Audit,
		logger:  logger,
		closing: closing,
		close:   closeFn,
	}
	specs := s.specs()
	if opts.Manage != nil {
		s.manage = opts.Manage
		specs = append(specs, s.manageSpecs()...)
	}
	for _, spec := range specs {
		if !s.tier.Offers(TierOf(spec.annotations)) {
			continue // neither listed nor callable: see Tier
		}
		schemas, err := loadSchemas(spec.name)
		if err != nil {
			panic(fmt.Sprintf("mcpadapter: %v", err))
		}
		s.sdk.AddTool(&mcp.Tool{
			Name:         spec.name,
			Title:        spec.title,
			Description:  spec.description,
			Annotations:  spec.annotations,
			InputSchema:  schemas.input,
			OutputSchema: schemas.output,
		}, s.handler(spec, schemas))
	}
	res.register(s.sdk)
	return s
}

// SDK returns the underlying go-sdk server, to serve on other transports.
func (s *Server) SDK() *mcp.Server { return s.sdk }

// Close makes every running call return now, as cancelled, and every later
// call fail at once; it does not close sessions, which their transports
// own. It lets a shutdown finish without waiting out a command's timeout.
func (s *Server) Close() {
	s.closeOnce.Do(func() { s.close(ErrServerClosing) })
}

// toolSpec is one tool as the transport serves it. call does the work on
// validated arguments and returns the output value (marshalled to the
// structured content) and, optionally, a notice for the text half.
type toolSpec struct {
	name        string
	title       string
	description string
	annotations *mcp.ToolAnnotations
	call        func(ctx context.Context, req *mcp.CallToolRequest, a arguments) (out any, notice string, err error)
}

// handler wraps a tool's call with what every tool shares: argument
// validation, cancellation on Close, error mapping, the structured and text
// halves of the result, a check of the result against the output schema,
// and the audit entry.
func (s *Server) handler(spec toolSpec, schemas *toolSchemas) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
		start := time.Now()
		var args arguments
		// Registered first, so that it runs last: after a panic has been
		// turned into a tool error.
		defer func() { s.audited(spec.name, start, req, args, res, err) }()
		defer func() {
			// A panic in a call must not take the server, and with it every
			// pane reservation, down; the client gets an error instead.
			if p := recover(); p != nil {
				s.logger.Error("tool call panicked", "tool", spec.name, "panic", p, "stack", string(debug.Stack()))
				res, err = toolError(fmt.Errorf("internal error in %s: %v", spec.name, p)), nil
			}
		}()
		args, err = schemas.parseArguments(req.Params.Arguments)
		if err != nil {
			var arg *fault.ArgumentError
			if errors.As(err, &arg) {
				s.logger.Info("tool call rejected", "tool", spec.name, "error", err)
				return toolError(err), nil
			}
			return nil, err // malformed request: a protocol error
		}

		if cause := context.Cause(s.closing); cause != nil {
			return toolError(fmt.Errorf("%s not started: %w", spec.name, cause)), nil
		}
		ctx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		stop := context.AfterFunc(s.closing, func() { cancel(context.Cause(s.closing)) })
		defer stop()

		out, notice, err := spec.call(ctx, req, args)
		if err != nil {
			if cause := context.Cause(ctx); cause != nil && !errors.Is(err, cause) {
				err = fmt.Errorf("%w: %w", cause, err)
			}
			s.logger.Info("tool call failed", "tool", spec.name, "pane", args.str("paneId"), "error", err,
				"duration", time.Since(start))
			return toolError(err), nil
		}
		res, err = s.result(spec.name, schemas, out, notice)
		if err != nil {
			s.logger.Error("tool result invalid", "tool", spec.name, "error", err)
			return toolError(err), nil
		}
		s.logger.Info("tool call done", "tool", spec.name, "pane", args.str("paneId"), "duration", time.Since(start))
		return res, nil
	}
}

// result builds a successful tool result: out as structured content, the
// same JSON as the first text block, and notice (if any) as a second text
// block, so that a client parsing the first block as JSON still can.
func (s *Server) result(tool string, schemas *toolSchemas, out any, notice string) (*mcp.CallToolResult, error) {
	data, err := encode(out)
	if err != nil {
		return nil, fmt.Errorf("internal error: encode %s result: %w", tool, err)
	}
	// The output types follow the schemas by construction, but a value
	// from the domain can still break them (a malformed pane id, an
	// unknown outcome); a client that validates would then reject the
	// whole result, so say so plainly instead.
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, fmt.Errorf("internal error: decode %s result: %w", tool, err)
	}
	if err := schemas.outputResolved.Validate(v); err != nil {
		// The call was carried out (a command may have run): say what it
		// returned, so that nobody retries it believing it did nothing.
		return nil, fmt.Errorf("internal error: the %s result does not match its output schema: %w; the call was carried out and returned %s", tool, err, data)
	}
	content := []mcp.Content{&mcp.TextContent{Text: string(data)}}
	if notice != "" {
		content = append(content, &mcp.TextContent{Text: notice})
	}
	return &mcp.CallToolResult{Content: content, StructuredContent: data}, nil
}
