package mcp

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmux-mcp/tmux-mcp/adapters/mcp/audit"
	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/domain/lifecycle"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// Tools is what the transport needs from the domain: one call per tool of
// CONTRACT.md. *domain.Service implements it.
//
// Each method returns a result, or an error that the transport turns into
// a tool error (see toolError): a *fault.RefusalError, *fault.BusyError
// or *fault.ArgumentError, or an error wrapping a ports sentinel such as
// ports.ErrPaneNotFound. A cancelled ctx is not an error for the waiting
// calls: RunShellCommand, WaitForCommand and WaitForText report it as a
// result with outcome "cancelled", and CaptureSince returns what it has
// read.
type Tools interface {
	RunShellCommand(ctx context.Context, req domain.RunRequest) (domain.RunResult, error)
	PasteText(ctx context.Context, req domain.PasteRequest) (domain.PasteResult, error)
	CapturePane(ctx context.Context, req domain.CaptureRequest) (domain.CaptureResult, error)
	CaptureSince(ctx context.Context, req domain.CaptureSinceRequest) (domain.CaptureSinceResult, error)
	WaitForText(ctx context.Context, req domain.WaitForTextRequest) (domain.WaitForTextResult, error)
	SendKeys(ctx context.Context, req domain.SendKeysRequest) (domain.SendKeysResult, error)
	// WaitForCommand waits for a command a RunShellCommand call left
	// running; with none in the pane its error wraps fault.ErrNoCommand.
	WaitForCommand(ctx context.Context, req domain.WaitCommandRequest) (domain.RunResult, error)
	// ReadOutput reads a run's kept output; an unknown run's error wraps
	// ports.ErrRunNotFound, an evicted one's ports.ErrRunEvicted.
	ReadOutput(ctx context.Context, req domain.ReadOutputRequest) (domain.ReadOutputResult, error)
	// SignalCommand signals the process group of a command a
	// RunShellCommand call started; with none in the pane its error wraps
	// fault.ErrNoCommand, and one wrapping ports.ErrNoGroup says that the
	// command has no group of its own to signal.
	SignalCommand(ctx context.Context, req domain.SignalRequest) (domain.SignalResult, error)
}

var _ Tools = (*domain.Service)(nil)

// ManageTools is what the inspect and lifecycle tools need from the
// domain: listings, searches and a pane's facts, and creating, selecting,
// resizing, renaming, clearing, respawning and killing sessions, windows
// and panes. *lifecycle.Service implements it. A Server serves them when
// Options.Manage is set.
//
// Errors are turned into tool errors as Tools' are (see toolError): a
// *fault.ArgumentError for an argument it refuses (a name or a regular
// expression, say: the forms of ids are checked by the transport), a
// *fault.RefusalError or *fault.BusyError for a kill, respawn or clear the
// write policy forbids, or an error wrapping a ports sentinel
// (ErrPaneNotFound, ErrNotFound, ErrNameInUse, ErrUnsupported,
// ErrUnavailable).
type ManageTools interface {
	ListSessions(ctx context.Context) (lifecycle.SessionList, error)
	ListWindows(ctx context.Context, req lifecycle.ListWindowsRequest) (lifecycle.WindowList, error)
	ListPanes(ctx context.Context, req lifecycle.ListPanesRequest) (lifecycle.PaneList, error)
	SearchPanes(ctx context.Context, req lifecycle.SearchPanesRequest) (lifecycle.SearchPanesResult, error)
	GetPaneInfo(ctx context.Context, req lifecycle.PaneRequest) (lifecycle.PaneDetails, error)
	Display(ctx context.Context, req lifecycle.PaneRequest) (lifecycle.PaneFacts, error)
	GetServerInfo(ctx context.Context) (ports.ServerInfo, error)
	CreateSession(ctx context.Context, req lifecycle.CreateSessionRequest) (ports.Created, error)
	CreateWindow(ctx context.Context, req lifecycle.CreateWindowRequest) (ports.Created, error)
	SplitWindow(ctx context.Context, req lifecycle.SplitWindowRequest) (ports.Created, error)
	SelectPane(ctx context.Context, req lifecycle.PaneRequest) (lifecycle.Pane, error)
	SelectWindow(ctx context.Context, req lifecycle.SelectWindowRequest) (ports.WindowInfo, error)
	ResizePane(ctx context.Context, req lifecycle.ResizePaneRequest) (lifecycle.Pane, error)
	ResizeWindow(ctx context.Context, req lifecycle.ResizeWindowRequest) (ports.WindowInfo, error)
	RenameSession(ctx context.Context, req lifecycle.RenameSessionRequest) (ports.SessionInfo, error)
	RenameWindow(ctx context.Context, req lifecycle.RenameWindowRequest) (ports.WindowInfo, error)
	ClearPaneScrollback(ctx context.Context, req lifecycle.ClearScrollbackRequest) (lifecycle.ClearScrollbackResult, error)
	RespawnPane(ctx context.Context, req lifecycle.RespawnPaneRequest) (lifecycle.Pane, error)
	KillPane(ctx context.Context, req lifecycle.KillPaneRequest) (lifecycle.KillResult, error)
	KillWindow(ctx context.Context, req lifecycle.KillWindowRequest) (lifecycle.KillResult, error)
	KillSession(ctx context.Context, req lifecycle.KillSessionRequest) (lifecycle.KillResult, error)
}

var _ ManageTools = (*lifecycle.Service)(nil)

// Options configure a Server. The zero value is usable.
type Options struct {
	// Version is reported to clients as the server's version; empty means
	// "devel".
	Version string
	// PanesNote tells a client how to find pane ids when no tool the
	// server offers lists them (a backend that cannot, or a tool
	// allowlist without list_panes), as a sentence: "Pane %N is window N
	// of the GNU screen session work." Empty says nothing.
	PanesNote string
	// Attach is the shell command with which a person sees the panes
	// ("tmux -L work attach"), for the results that ask the agent to have
	// the person type into a pane themselves (a password). Empty says
	// nothing of how.
	Attach string
	// Logger receives the transport's and the SDK's logs; nil discards
	// them. It must not write to the stdio transport's output.
	Logger Logger

	// Manage serves the inspect and lifecycle tools (list_sessions,
	// create_session, kill_pane, ...), normally the same *domain.Service
	// as the Tools. nil leaves those tools out, for a backend that cannot
	// list or shape its sessions: they would only ever fail.
	Manage ManageTools

	// Hosts, for a backend that serves the panes of several hosts, tells
	// how each fares: the server then offers list_hosts, takes and gives
	// every id with its host in front (web1:%3) and says the host of each
	// session, window, pane and match it lists. nil is a backend of one
	// host, whose ids are the multiplexer's own.
	Hosts ports.HostLister

	// Safety is the tier of tools offered (see Tier); "" means
	// DefaultTier. NewServer panics on any other value that is not a
	// tier: the caller validates the setting.
	Safety Tier

	// Tools, if not empty, is an allowlist on top of the tier: a tool
	// whose name is not in it is not registered, as one above the tier is
	// not. NewServer panics on a name that is no tool of this package
	// (see ToolNames): the caller validates the setting. A name of a tool
	// the tier or the backend does not offer is only logged.
	Tools []string

	// Logs, if not nil, is told the log levels the sessions ask for
	// (logging/setLevel), and then sends them the lines published to it.
	// The Logger should publish to it what it writes (LogBridge.Handler).
	Logs *LogBridge

	// CheckResults holds every result to its tool's output schema before
	// it is sent, and sends a tool error instead of one that breaks it.
	// It costs a decode and a validation per call, which the tests pay
	// rather than every call: they set it, and they check every tool's
	// every result shape.
	CheckResults bool

	// Audit, if not nil, gets one entry per tool call (see audited).
	Audit *audit.Log

	// Clock times resource subscriptions: the spacing of updates and the
	// polling of resources that have no stream of changes (resources.go).
	// nil means the system clock.
	Clock ports.Clock
}

// Name is the server name reported to clients.
const Name = "tmux-mcp"

// A Server is the MCP server with the tools registered. It is independent
// of any transport: serve it with ServeStdio, HTTPHandler, or any
// sdk.Transport through SDK.
type Server struct {
	sdk    *sdk.Server
	tools  Tools
	manage ManageTools
	hosts  ports.HostLister // nil for a backend of one host
	tier   Tier
	audit  *audit.Log
	logger Logger
	// sdkLogger is logger as the SDK takes one.
	sdkLogger *slog.Logger

	// checkResults: see Options.CheckResults.
	checkResults bool
	// attach: see Options.Attach.
	attach string

	// offered are the names of the tools registered, in the order they
	// are listed.
	offered []string
	// promptArgs are the arguments of each prompt registered, by name,
	// for completion.
	promptArgs map[string][]promptArg
	// seen are the panes calls worked in, for completion without
	// listings.
	seen seenPanes

	// closing is cancelled by Close. Every call's context is cancelled
	// with it, so that a shutdown does not wait out a long command.
	closing   context.Context
	close     context.CancelCauseFunc
	closeOnce sync.Once
}

// NewServer returns a Server whose tools call t, and opts.Manage for the
// inspect and lifecycle tools, offering those that opts.Safety allows.
//
// It panics if a tool's declaration is broken (see tool), which is a
// programming error that the package's tests catch, and if opts.Safety is
// not a tier.
func NewServer(t Tools, opts Options) *Server {
	logger := orDiscard(opts.Logger)
	version := opts.Version
	if version == "" {
		version = "devel"
	}
	closing, closeFn := context.WithCancelCause(context.Background())
	s := &Server{
		tools:        t,
		hosts:        opts.Hosts,
		tier:         tierOrDefault(opts.Safety),
		audit:        opts.Audit,
		logger:       logger,
		sdkLogger:    sdkLogger(logger),
		promptArgs:   map[string][]promptArg{},
		checkResults: opts.CheckResults || alwaysCheckResults,
		attach:       opts.Attach,
		closing:      closing,
		close:        closeFn,
	}
	allowed, err := allowlist(opts.Tools)
	if err != nil {
		panic(fmt.Sprintf("mcp: %v", err))
	}
	decls := s.paneTools()
	if opts.Manage != nil {
		s.manage = opts.Manage
		decls = append(decls, s.manageTools()...)
	}
	if opts.Hosts != nil {
		decls = append(decls, s.hostTools()...)
	}
	type offeredTool struct {
		tool    *sdk.Tool
		handler sdk.ToolHandler
	}
	var tools []offeredTool
	for _, d := range decls {
		// Every declaration is built, offered or not, so that a broken
		// one fails every server, whatever its tier.
		tool, handler, err := d.declare(s)
		if err != nil {
			panic(fmt.Sprintf("mcp: %v", err))
		}
		listed := allowed == nil || allowed[tool.Name]
		offered := s.tier.Offers(TierOf(tool.Annotations))
		if allowed != nil && listed {
			allowed[tool.Name] = false // seen: not worth a warning below
		}
		if !listed {
			continue // neither listed nor callable, as above the tier
		}
		if !offered {
			if allowed != nil {
				logger.Warn("a tool of the tool allowlist is above the safety tier, so it is not offered",
					"tool", tool.Name, "tier", string(TierOf(tool.Annotations)), "safety", string(s.tier))
			}
			continue // neither listed nor callable: see Tier
		}
		tools = append(tools, offeredTool{tool, handler})
		s.offered = append(s.offered, tool.Name)
	}
	for _, name := range slices.Sorted(maps.Keys(allowed)) {
		if allowed[name] {
			logger.Warn("a tool of the tool allowlist needs what this backend cannot do (list and shape sessions, or serve several hosts), so it is not offered",
				"tool", name)
		}
	}
	// The instructions name the tools offered, so the server is made once
	// they are known.
	sdkOpts := &sdk.ServerOptions{Instructions: instructionsFor(s.offered, opts.PanesNote, opts.Hosts != nil), Logger: s.sdkLogger, CompletionHandler: s.complete}
	res := newResources(t, opts.Manage, opts.Clock, logger, closing, sdkOpts)
	s.sdk = sdk.NewServer(&sdk.Implementation{Name: Name, Title: "tmux MCP server", Version: version}, sdkOpts)
	for _, o := range tools {
		s.sdk.AddTool(o.tool, o.handler)
	}
	res.register(s.sdk)
	s.registerPrompts()
	if opts.Logs != nil {
		opts.Logs.attach(s.sdk)
	}
	return s
}

// ToolNames returns the name of every tool the package declares, offered
// or not: those of Tools, then those of ManageTools, then list_hosts, in
// the order tools/list gives them. They are the names Options.Tools may
// hold.
func ToolNames() []string {
	// The declarations only name the calls they will make: a Server whose
	// Tools, ManageTools and HostLister are empty shells is enough to read
	// them.
	s := &Server{tools: struct{ Tools }{}, manage: struct{ ManageTools }{}, hosts: struct{ ports.HostLister }{}}
	var names []string
	for _, d := range append(append(s.paneTools(), s.manageTools()...), s.hostTools()...) {
		names = append(names, d.toolName())
	}
	return names
}

// allowlist returns the names of tools as a set, with every value true,
// or nil for an empty list, which allows every tool. A name that is no
// tool's is an error.
func allowlist(tools []string) (map[string]bool, error) {
	if len(tools) == 0 {
		return nil, nil
	}
	known := ToolNames()
	set := make(map[string]bool, len(tools))
	for _, name := range tools {
		if !slices.Contains(known, name) {
			return nil, fmt.Errorf("%q in the tool allowlist is no tool of this server", name)
		}
		set[name] = true
	}
	return set, nil
}

// Offered returns the names of the tools the Server offers, in the order
// tools/list gives them.
func (s *Server) Offered() []string { return slices.Clone(s.offered) }

// SDK returns the underlying go-sdk server, to serve on other transports.
func (s *Server) SDK() *sdk.Server { return s.sdk }

// Close makes every running call return now, as cancelled, and every later
// call fail at once; it does not close sessions, which their transports
// own. It lets a shutdown finish without waiting out a command's timeout.
func (s *Server) Close() {
	s.closeOnce.Do(func() { s.close(ErrServerClosing) })
}
