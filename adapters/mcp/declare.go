package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmux-mcp/tmux-mcp/domain/fault"
)

// A tool is the one declaration of a tool: its name, description and
// annotations, and its call, a typed handler from arguments of type In to
// a result of type Out. Its input schema is built from In and its output
// schema from Out (see inputSchema and outputSchema for the rules), so that
// the schemas a client sees, the arguments the call reads and the result it
// returns cannot disagree.
//
// The go-sdk's own typed tools (sdk.AddTool) are not used, as they would
// change what a client gets: they check the arguments before the handler
// runs, answering a bad argument with the validator's text (not one that
// says what to correct, and unaudited) and arguments that are not an object
// with a tool error rather than a protocol error; and they marshal the
// result themselves, so that a result that breaks its schema becomes a
// protocol error rather than a tool error saying the call was carried out.
// The server's handler (Server.handler) does each of these as before, for
// every tool alike.
type tool[In, Out any] struct {
	name        string
	description string
	// annotations are the tool's hints; their title is the tool's, and
	// they decide its tier (TierOf).
	annotations *sdk.ToolAnnotations
	// requiredOrder, if set, is the order of the output schema's required
	// list, where a reference page fixes one; otherwise it is name order.
	requiredOrder []string
	call          call[In, Out]
}

// A call does a tool's work on its validated arguments and returns its
// result and, optionally, a notice for the text half of the result.
type call[In, Out any] func(ctx context.Context, req *sdk.CallToolRequest, in In) (out Out, notice string, err error)

// A declaration is a tool of any types, as NewServer registers it.
type declaration interface {
	// declare builds the tool, as tools/list describes it, and its
	// handler on s. An error means the declaration is broken.
	declare(s *Server) (*sdk.Tool, sdk.ToolHandler, error)
	// toolName is the tool's name, as tools/list gives it.
	toolName() string
}

func (t tool[In, Out]) toolName() string { return t.name }

// builtSchemas holds the schemas of every declaration built so far, by
// schemaKey: they follow from its types alone, and building and resolving
// them would otherwise cost every NewServer more than the rest of it.
var builtSchemas sync.Map

type schemaKey struct {
	in, out reflect.Type
	order   string // requiredOrder, joined
	hosts   bool   // for a server of several hosts
}

// schemas returns the tool's schemas, built from its types, for a server
// of several hosts when hosts is set.
func (t tool[In, Out]) schemas(hosts bool) (*toolSchemas, error) {
	key := schemaKey{reflect.TypeFor[In](), reflect.TypeFor[Out](), strings.Join(t.requiredOrder, ","), hosts}
	if ts, ok := builtSchemas.Load(key); ok {
		return ts.(*toolSchemas), nil
	}
	ts, err := t.buildSchemas(hosts)
	if err != nil {
		return nil, err
	}
	builtSchemas.Store(key, ts)
	return ts, nil
}

func (t tool[In, Out]) buildSchemas(hosts bool) (*toolSchemas, error) {
	in, err := inputSchema(reflect.TypeFor[In](), hosts)
	if err != nil {
		return nil, fmt.Errorf("tool %s: arguments: %w", t.name, err)
	}
	out, err := outputSchema(reflect.TypeFor[Out](), t.requiredOrder, hosts)
	if err != nil {
		return nil, fmt.Errorf("tool %s: result: %w", t.name, err)
	}
	inJSON, err := publish(in)
	if err != nil {
		return nil, fmt.Errorf("tool %s: input schema: %w", t.name, err)
	}
	outJSON, err := publish(out)
	if err != nil {
		return nil, fmt.Errorf("tool %s: output schema: %w", t.name, err)
	}
	ts, err := resolveSchemas(inJSON, outJSON)
	if err != nil {
		return nil, fmt.Errorf("tool %s: %w", t.name, err)
	}
	return ts, nil
}

func (t tool[In, Out]) declare(s *Server) (*sdk.Tool, sdk.ToolHandler, error) {
	if t.annotations == nil || t.annotations.Title == "" {
		return nil, nil, fmt.Errorf("tool %s: no annotations with a title", t.name)
	}
	schemas, err := t.schemas(s.hosts != nil)
	if err != nil {
		return nil, nil, err
	}
	st := &sdk.Tool{
		Name:         t.name,
		Title:        t.annotations.Title,
		Description:  t.description,
		Annotations:  t.annotations,
		InputSchema:  schemas.input,
		OutputSchema: schemas.output,
	}
	return st, s.handler(t.name, schemas, func(ctx context.Context, req *sdk.CallToolRequest, a arguments) (any, string, error) {
		var in In
		if err := schemas.decode(a, &in); err != nil {
			return nil, "", fmt.Errorf("internal error: the %s arguments do not fit their type: %w", t.name, err)
		}
		out, notice, err := t.call(ctx, req, in)
		if err != nil {
			return nil, "", err
		}
		return out, notice, nil
	}), nil
}

// serve is the call of a tool that makes one domain request from its
// arguments and reports what comes back: most tools.
func serve[In, Req, Res, Out any](do func(context.Context, Req) (Res, error), request func(In) Req, report func(Res) Out) call[In, Out] {
	return func(ctx context.Context, _ *sdk.CallToolRequest, in In) (Out, string, error) {
		r, err := do(ctx, request(in))
		if err != nil {
			var zero Out
			return zero, "", err
		}
		return report(r), "", nil
	}
}

// noArgs are the arguments of a tool that takes none.
type noArgs struct{}

// serveNoArgs is serve for a tool that takes no arguments.
func serveNoArgs[Res, Out any](do func(context.Context) (Res, error), report func(Res) Out) call[noArgs, Out] {
	return serve(func(ctx context.Context, _ noArgs) (Res, error) { return do(ctx) }, func(a noArgs) noArgs { return a }, report)
}

// handler wraps a tool's call with what every tool shares: argument
// validation, cancellation on Close, error mapping, the structured and text
// halves of the result, a check of the result against the output schema,
// and the audit entry.
func (s *Server) handler(name string, schemas *toolSchemas, call func(context.Context, *sdk.CallToolRequest, arguments) (any, string, error)) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (res *sdk.CallToolResult, err error) {
		start := time.Now()
		var args arguments
		// Registered first, so that it runs last: after a panic has been
		// turned into a tool error.
		defer func() { s.audited(name, start, req, args, res, err) }()
		defer func() {
			// A panic in a call must not take the server, and with it every
			// pane reservation, down; the client gets an error instead.
			if p := recover(); p != nil {
				s.logger.Error("tool call panicked", "tool", name, "panic", p, "stack", string(debug.Stack()))
				res, err = toolError(fmt.Errorf("internal error in %s: %v", name, p)), nil
			}
		}()
		args, err = schemas.parseArguments(req.Params.Arguments)
		if err != nil {
			var arg *fault.ArgumentError
			if errors.As(err, &arg) {
				s.logger.Info("tool call rejected", "tool", name, "error", err)
				return toolError(err), nil
			}
			return nil, err // malformed request: a protocol error
		}

		if cause := context.Cause(s.closing); cause != nil {
			return toolError(fmt.Errorf("%s not started: %w", name, cause)), nil
		}
		ctx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		stop := context.AfterFunc(s.closing, func() { cancel(context.Cause(s.closing)) })
		defer stop()

		out, notice, err := call(ctx, req, args)
		if err != nil {
			if cause := context.Cause(ctx); cause != nil && !errors.Is(err, cause) {
				err = fmt.Errorf("%w: %w", cause, err)
			}
			s.logger.Info("tool call failed", "tool", name, "pane", args.paneID(), "error", err,
				"duration", time.Since(start))
			return toolError(err), nil
		}
		res, err = result(name, schemas, out, notice, s.checkResults)
		if err != nil {
			s.logger.Error("tool result invalid", "tool", name, "error", err)
			return toolError(err), nil
		}
		s.logger.Info("tool call done", "tool", name, "pane", args.paneID(), "duration", time.Since(start))
		s.seen.add(args.paneID())
		return res, nil
	}
}

// result builds a successful tool result: out as structured content, the
// same JSON as the first text block, and notice (if any) as a second text
// block, so that a client parsing the first block as JSON still can. With
// check, the result is first held to the tool's output schema
// (checkResult).
func result(tool string, schemas *toolSchemas, out any, notice string, check bool) (*sdk.CallToolResult, error) {
	data, err := encode(out)
	if err != nil {
		return nil, fmt.Errorf("internal error: encode %s result: %w", tool, err)
	}
	if check {
		if err := checkResult(tool, schemas, data); err != nil {
			return nil, err
		}
	}
	return resultOf(data, notice), nil
}

// alwaysCheckResults makes every Server check every result, whatever its
// Options say: the package's tests set it (export_test.go), so that every
// result any of them produces is held to its schema.
var alwaysCheckResults = false

// checkResult holds a result's JSON to the tool's output schema. The
// output types follow the schemas by construction, but a value from the
// domain could still break them (a malformed pane id, an unknown outcome,
// a list left nil); a client that validates would then reject the whole
// result. It costs a decode and a validation per call, from 2% of a light
// call to more than the call itself for a large result (BENCHMARKS.md,
// "Checking results against their schemas"), so a server does it only
// when its Options ask (Options.CheckResults): the tests do, and they hold
// every tool's every result shape to its schema (results_test.go), so
// that a served result need not be checked again.
func checkResult(tool string, schemas *toolSchemas, data json.RawMessage) error {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return fmt.Errorf("internal error: decode %s result: %w", tool, err)
	}
	if err := schemas.outputResolved.Validate(v); err != nil {
		// The call was carried out (a command may have run): say what it
		// returned, so that nobody retries it believing it did nothing.
		return fmt.Errorf("internal error: the %s result does not match its output schema: %w; the call was carried out and returned %s", tool, err, data)
	}
	return nil
}

// resultOf is the tool result holding data, and notice when not empty.
func resultOf(data json.RawMessage, notice string) *sdk.CallToolResult {
	content := []sdk.Content{&sdk.TextContent{Text: string(data)}}
	if notice != "" {
		content = append(content, &sdk.TextContent{Text: notice})
	}
	return &sdk.CallToolResult{Content: content, StructuredContent: data}
}

// encode marshals v as compact JSON without HTML escaping: the text half
// of a result is read by people and models, for whom a command's "a > b"
// should not arrive as "a \u003e b".
func encode(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return json.RawMessage(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))), nil
}
