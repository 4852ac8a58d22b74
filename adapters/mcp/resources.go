package mcp

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmux-mcp/tmux-mcp/adapters/internal/sysclock"
	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/domain/lifecycle"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// What the resources read, narrowed from Tools and ManageTools: the
// screen from the former, the listings from the latter.
type (
	screenReader interface {
		CapturePane(ctx context.Context, req domain.CaptureRequest) (domain.CaptureResult, error)
		CaptureSince(ctx context.Context, req domain.CaptureSinceRequest) (domain.CaptureSinceResult, error)
	}
	listingReader interface {
		ListSessions(ctx context.Context) (lifecycle.SessionList, error)
		GetPaneInfo(ctx context.Context, req lifecycle.PaneRequest) (lifecycle.PaneDetails, error)
	}
)

// The resources. A pane's id appears in a URI without its "%" sigil, which
// a URI would have to escape: pane %3 is tmux://panes/3; pane web1:%3 of
// a server of several hosts is tmux://panes/web1%3A3, its colon encoded,
// as a template's {id} holds one.
const (
	// SessionsURI is every session, as list_sessions reports them (JSON).
	SessionsURI = "tmux://sessions"
	// PaneURITemplate is one pane's description, as get_pane_info reports
	// it (JSON).
	PaneURITemplate = "tmux://panes/{id}"
	// PaneContentURITemplate is the text of one pane's visible screen.
	PaneContentURITemplate = "tmux://panes/{id}/content"
)

// Timing of resource updates.
const (
	// UpdateInterval is the least time between two resources/updated
	// notifications for one resource: changes within it are told once,
	// after it has passed, so a burst of output costs a client a handful
	// of rereads, and the last change of a burst is always told.
	UpdateInterval = 100 * time.Millisecond

	// PollInterval is how often a subscribed resource that has no stream
	// of changes (the sessions, a pane's description, the screen of a pane
	// whose output cannot be followed) is read again to see whether it
	// changed.
	PollInterval = 2 * time.Second
)

// followWaitMs is how long one read of a followed pane's output waits for
// news. The domain clamps it to the server's wait ceiling; a subscription
// simply reads again when it runs out.
const followWaitMs = 60_000

// paneURIPattern matches a pane URI: the host, then "%3A" (an encoded
// colon, as a template's {id} holds it), for a server of several hosts.
var paneURIPattern = regexp.MustCompile(`^tmux://panes/(?:([A-Za-z0-9._-]{1,64})%3[Aa])?([0-9]+)(/content)?$`)

// resourceKind tells what a resource URI names.
type resourceKind int

const (
	kindSessions resourceKind = iota + 1
	kindPane
	kindContent
)

// parseResourceURI returns what uri names, and the pane for the pane
// resources; ok is false for a URI that is not one of ours.
func parseResourceURI(uri string) (kind resourceKind, pane ports.PaneID, ok bool) {
	if uri == SessionsURI {
		return kindSessions, "", true
	}
	m := paneURIPattern.FindStringSubmatch(uri)
	if m == nil {
		return 0, "", false
	}
	pane = ports.PaneID("%" + m[2])
	if m[1] != "" {
		pane = ports.PaneID(m[1]) + ":" + pane
	}
	if m[3] != "" {
		return kindContent, pane, true
	}
	return kindPane, pane, true
}

// paneNumber is the pane's id as a pane URI has it: without its "%",
// and its host's colon encoded.
func paneNumber(pane ports.PaneID) string {
	host, s := "", string(pane)
	if h, rest, found := strings.Cut(s, ":"); found {
		host, s = h+"%3A", rest
	}
	if len(s) > 0 && s[0] == '%' {
		return host + s[1:]
	}
	return host + s
}

// resources serves the resources of one Server and keeps their
// subscriptions: one watch per subscribed URI, shared by every session
// subscribed to it.
type resources struct {
	screens  screenReader
	outputs  outputReader
	listings listingReader // nil: no sessions or pane resources
	clock    ports.Clock
	logger   Logger
	// base is the Server's closing context: every watch ends with it.
	base context.Context
	// notify tells the subscribers of uri that it changed. It is set by
	// register, before any subscription can arrive.
	notify func(ctx context.Context, uri string)

	mu      sync.Mutex
	watches map[string]*watch
	// sessions are those whose end is being waited for, to drop their
	// subscriptions: the SDK forgets a closed session's subscriptions
	// without calling the unsubscribe handler.
	sessions map[*sdk.ServerSession]bool
}

// newResources returns the resources of a Server whose pane tools are t
// and whose inspect tools are m, and sets the subscription handlers in
// opts. The sessions and pane descriptions are served only when m is not
// nil; the screens always are. Subscriptions are timed on c (nil means the system
// clock) and end with base, the Server's closing context.
func newResources(t Tools, m ManageTools, c ports.Clock, logger Logger, base context.Context, opts *sdk.ServerOptions) *resources {
	if c == nil {
		c = sysclock.New()
	}
	r := &resources{
		screens:  t,
		outputs:  t,
		clock:    c,
		logger:   logger,
		base:     base,
		watches:  make(map[string]*watch),
		sessions: make(map[*sdk.ServerSession]bool),
	}
	if m != nil {
		r.listings = m
	}
	opts.SubscribeHandler = r.subscribe
	opts.UnsubscribeHandler = r.unsubscribe
	return r
}

// register adds the resources to srv, and makes srv the one their updates
// are sent through.
func (r *resources) register(srv *sdk.Server) {
	r.listenForRecordedSubscriptions(srv)
	r.notify = func(ctx context.Context, uri string) {
		if err := srv.ResourceUpdated(ctx, &sdk.ResourceUpdatedNotificationParams{URI: uri}); err != nil {
			r.logger.Warn("resource update not sent", "uri", uri, "error", err)
		}
	}
	srv.AddResourceTemplate(&sdk.ResourceTemplate{
		URITemplate: PaneContentURITemplate,
		Name:        "pane-content",
		Title:       "Pane screen",
		MIMEType:    "text/plain",
		Description: "Read pane output; accepts no client-supplied executable input. " +
			"Returned content may be sensitive or untrusted. The text of one pane's visible screen, as capture_pane " +
			"returns it without a range. id is the pane id without its % sign (pane %3 is tmux://panes/3/content). " +
			"Subscribe to hear as soon as the pane prints something: updates come at most every 100 ms, and the " +
			"last change of a burst is always told; read the resource again, or use capture_since, to see what changed.",
	}, r.readContent)
	r.registerRuns(srv)
	if r.listings == nil {
		return
	}
	srv.AddResource(&sdk.Resource{
		URI:      SessionsURI,
		Name:     "sessions",
		Title:    "Sessions",
		MIMEType: "application/json",
		Description: "Every session of the terminal multiplexer, as list_sessions reports them. " +
			"Subscribe to hear when a session is created, renamed, closed or attached to (checked every 2 s).",
	}, r.readSessions)
	srv.AddResourceTemplate(&sdk.ResourceTemplate{
		URITemplate: PaneURITemplate,
		Name:        "pane",
		Title:       "Pane",
		MIMEType:    "application/json",
		Description: "One pane's description, as get_pane_info reports it: where it is, what it runs, its size, " +
			"who watches it and whether a write to it would be refused. id is the pane id without its % sign " +
			"(pane %3 is tmux://panes/3); list_panes lists the panes. Subscribe to hear when it changes " +
			"(checked every 2 s).",
	}, r.readPane)
}

// parse returns what uri names among the resources r serves; ok is false
// for any other URI.
func (r *resources) parse(uri string) (kind resourceKind, pane ports.PaneID, ok bool) {
	kind, pane, ok = parseResourceURI(uri)
	if ok && kind != kindContent && r.listings == nil {
		return 0, "", false
	}
	return kind, pane, ok
}

func (r *resources) readSessions(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	return r.read(ctx, req.Params.URI, kindSessions)
}

func (r *resources) readPane(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	return r.read(ctx, req.Params.URI, kindPane)
}

func (r *resources) readContent(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	return r.read(ctx, req.Params.URI, kindContent)
}

// read answers resources/read for uri, which the SDK matched to a
// resource of the given kind (a template may match more than ours).
func (r *resources) read(ctx context.Context, uri string, want resourceKind) (*sdk.ReadResourceResult, error) {
	kind, pane, ok := r.parse(uri)
	if !ok || kind != want {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	var (
		data []byte
		mime = "application/json"
		err  error
	)
	switch kind {
	case kindSessions:
		data, err = r.sessionsJSON(ctx)
	case kindPane:
		data, err = r.paneJSON(ctx, pane)
	default:
		var text string
		text, err = r.screen(ctx, pane)
		data, mime = []byte(text), "text/plain"
	}
	if err != nil {
		return nil, resourceError(uri, err)
	}
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: mime, Text: string(data)}}}, nil
}

// sessionsJSON is the sessions resource: list_sessions' structured output.
func (r *resources) sessionsJSON(ctx context.Context) ([]byte, error) {
	list, err := r.listings.ListSessions(ctx)
	if err != nil {
		return nil, err
	}
	return encode(fromSessionList(list))
}

// paneJSON is a pane's resource: get_pane_info's structured output.
func (r *resources) paneJSON(ctx context.Context, pane ports.PaneID) ([]byte, error) {
	d, err := r.listings.GetPaneInfo(ctx, lifecycle.PaneRequest{PaneID: pane})
	if err != nil {
		return nil, err
	}
	return encode(fromPaneInfo(d))
}

// screen returns the pane's visible screen, every row of it: a screen is
// at most a few thousand rows, and the byte ceiling still applies.
func (r *resources) screen(ctx context.Context, pane ports.PaneID) (string, error) {
	res, err := r.screens.CapturePane(ctx, domain.CaptureRequest{PaneID: pane, MaxLines: domain.MaxCaptureRows})
	if err != nil {
		return "", err
	}
	return res.Text, nil
}

// resourceError is what a client sees when a resource cannot be read or
// subscribed to: the protocol's "resource not found" for a pane or session
// that does not exist, otherwise the error with the same advice a tool
// error would give.
func resourceError(uri string, err error) error {
	switch classify(err) {
	case kindPaneNotFound, kindNotFound, kindRunNotFound, kindRunEvicted:
		return sdk.ResourceNotFoundError(uri)
	default:
		// A JSON-RPC error of its own: one the SDK is handed as a plain
		// error goes out with code 0, which JSON-RPC does not define.
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("read %s: %s", uri, errorText(err))}
	}
}

// Subscriptions.

// A watch follows one subscribed resource for every session subscribed to
// it, and tells them of its changes, coalesced.
type watch struct {
	subscribers map[*sdk.ServerSession]bool
	stop        context.CancelFunc
	done        chan struct{} // closed when the watch's goroutines have returned
	// heard is closed once the SDK has recorded a subscription to the URI:
	// it does so only after the subscribe handler has returned, and an
	// update sent before then reaches nobody (see holdUntilHeard).
	heard     chan struct{}
	heardOnce sync.Once
}

func (r *resources) subscribe(ctx context.Context, req *sdk.SubscribeRequest) error {
	uri := req.Params.URI
	if _, run := runOfURI(uri); run {
		return refuseRunSubscription(uri)
	}
	kind, pane, ok := r.parse(uri)
	if !ok {
		return sdk.ResourceNotFoundError(uri)
	}
	if cause := context.Cause(r.base); cause != nil {
		return fmt.Errorf("subscribe to %s: %w", uri, cause)
	}
	if r.join(uri, req.Session) {
		return nil
	}
	// The first state is read now, so that a subscription to a pane that
	// does not exist fails, and no change after this call goes unnoticed.
	run, err := r.source(ctx, kind, pane)
	if err != nil {
		return resourceError(uri, err)
	}
	r.mu.Lock()
	if w := r.watches[uri]; w != nil {
		// Another session subscribed meanwhile; its watch serves both.
		r.addSubscriberLocked(w, req.Session)
		r.mu.Unlock()
		return nil
	}
	wctx, stop := context.WithCancel(r.base)
	w := &watch{subscribers: map[*sdk.ServerSession]bool{}, stop: stop, done: make(chan struct{}), heard: make(chan struct{})}
	r.watches[uri] = w
	r.addSubscriberLocked(w, req.Session)
	r.mu.Unlock()

	signals := make(chan struct{}, 1)
	changed := func() {
		select {
		case signals <- struct{}{}:
		default: // one pending signal stands for any number of changes
		}
	}
	var wg sync.WaitGroup
	wg.Go(func() { run(wctx, changed) })
	told := make(chan struct{}, 1)
	wg.Go(func() { holdUntilHeard(wctx, w.heard, signals, told) })
	wg.Go(func() { r.coalesce(wctx, uri, told) })
	go func() {
		wg.Wait()
		close(w.done)
	}()
	r.logger.Info("resource subscribed", "uri", uri)
	return nil
}

// join adds session to the watch of uri, if there is one, and reports
// whether there was.
func (r *resources) join(uri string, session *sdk.ServerSession) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	w := r.watches[uri]
	if w == nil {
		return false
	}
	r.addSubscriberLocked(w, session)
	return true
}

func (r *resources) addSubscriberLocked(w *watch, session *sdk.ServerSession) {
	w.subscribers[session] = true
	if session == nil || r.sessions[session] {
		return
	}
	r.sessions[session] = true
	go func() {
		_ = session.Wait()
		r.dropSession(session)
	}()
}

// unsubscribe ends the session's subscription to the URI; the watch stops,
// before unsubscribe returns, when no session is left subscribed. A URI
// the session is not subscribed to is not an error.
func (r *resources) unsubscribe(ctx context.Context, req *sdk.UnsubscribeRequest) error {
	r.mu.Lock()
	w := r.leaveLocked(req.Params.URI, req.Session)
	r.mu.Unlock()
	if w != nil {
		<-w.done
		r.logger.Info("resource unsubscribed; watch stopped", "uri", req.Params.URI)
	}
	return nil
}

// leaveLocked removes session from the watch of uri and returns the watch
// if that stopped it.
func (r *resources) leaveLocked(uri string, session *sdk.ServerSession) *watch {
	w := r.watches[uri]
	if w == nil {
		return nil
	}
	delete(w.subscribers, session)
	if len(w.subscribers) > 0 {
		return nil
	}
	delete(r.watches, uri)
	w.stop()
	return w
}

// dropSession ends every subscription of a session that has closed.
func (r *resources) dropSession(session *sdk.ServerSession) {
	r.mu.Lock()
	delete(r.sessions, session)
	var stopped []*watch
	for uri := range r.watches {
		if w := r.leaveLocked(uri, session); w != nil {
			stopped = append(stopped, w)
		}
	}
	r.mu.Unlock()
	for _, w := range stopped {
		<-w.done
	}
}

// coalesce turns signals into notifications about uri: the first signal
// after a quiet spell is told at once, later ones at most once per
// UpdateInterval, and a signal is never left untold.
func (r *resources) coalesce(ctx context.Context, uri string, signals <-chan struct{}) {
	var (
		last    time.Time   // when the last notification was sent; zero for never
		pending ports.Timer // armed while a notification is due
		due     <-chan time.Time
	)
	send := func() {
		last = r.clock.Now()
		nctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		r.notify(nctx, uri)
	}
	for {
		select {
		case <-ctx.Done():
			if pending != nil {
				pending.Stop()
			}
			return
		case <-signals:
			if due != nil {
				continue // the notification already due covers this change
			}
			wait := UpdateInterval - r.clock.Now().Sub(last)
			if last.IsZero() || wait <= 0 {
				send()
				continue
			}
			pending = r.clock.NewTimer(wait)
			due = pending.C()
		case <-due:
			pending, due = nil, nil
			send()
		}
	}
}

// holdUntilHeard passes the signals on to out (buffered), holding any that
// come before heard is closed until it is, until ctx is done: the SDK
// records a subscription after the subscribe handler returns (and, for
// subscriptions/listen, before it acknowledges it), so a change seen at
// once would otherwise be told to no one. One held signal stands for all.
func holdUntilHeard(ctx context.Context, heard, signals <-chan struct{}, out chan<- struct{}) {
	owed := false
	for heard != nil {
		select {
		case <-ctx.Done():
			return
		case <-signals:
			owed = true
		case <-heard:
			heard = nil
		}
	}
	if owed {
		out <- struct{}{}
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-signals:
			select {
			case out <- struct{}{}:
			default: // one pending signal stands for any number of changes
			}
		}
	}
}

// heard marks the watch of uri as told to the SDK's subscribers: the SDK
// has recorded a subscription to it.
func (r *resources) heard(uri string) {
	r.mu.Lock()
	w := r.watches[uri]
	r.mu.Unlock()
	if w != nil {
		w.heardOnce.Do(func() { close(w.heard) })
	}
}

// listenForRecordedSubscriptions makes srv tell r when it has recorded a
// subscription: after the resources/subscribe handler returns (legacy
// subscriptions), or as it acknowledges a subscriptions/listen.
func (r *resources) listenForRecordedSubscriptions(srv *sdk.Server) {
	srv.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			res, err := next(ctx, method, req)
			if p, ok := req.GetParams().(*sdk.SubscribeParams); ok && method == "resources/subscribe" && err == nil && p != nil {
				r.heard(p.URI)
			}
			return res, err
		}
	})
	srv.AddSendingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			if p, ok := req.GetParams().(*sdk.SubscriptionsAcknowledgedParams); ok && p != nil {
				for _, uri := range p.Notifications.ResourceSubscriptions {
					r.heard(uri)
				}
			}
			return next(ctx, method, req)
		}
	})
}

// source reads the first state of a resource and returns what follows it
// from there: a function that calls changed whenever the resource may have
// changed, until ctx is done.
func (r *resources) source(ctx context.Context, kind resourceKind, pane ports.PaneID) (func(ctx context.Context, changed func()), error) {
	switch kind {
	case kindSessions:
		first, err := r.sessionsJSON(ctx)
		if err != nil {
			return nil, err
		}
		return func(ctx context.Context, changed func()) { r.poll(ctx, r.sessionsJSON, first, changed) }, nil
	case kindPane:
		fetch := func(ctx context.Context) ([]byte, error) { return r.paneJSON(ctx, pane) }
		first, err := fetch(ctx)
		if err != nil {
			return nil, err
		}
		return func(ctx context.Context, changed func()) { r.poll(ctx, fetch, first, changed) }, nil
	default:
		first, err := r.seed(ctx, pane)
		if err != nil {
			return nil, err
		}
		return func(ctx context.Context, changed func()) { r.watchContent(ctx, pane, first, changed) }, nil
	}
}

// poll reads a resource every PollInterval and calls changed when what it
// read differs from the time before. An error counts as a state of its
// own, so that a resource that goes away is told once.
func (r *resources) poll(ctx context.Context, fetch func(context.Context) ([]byte, error), prev []byte, changed func()) {
	for r.pause(ctx, PollInterval) {
		cur, err := fetch(ctx)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			cur = []byte("error: " + err.Error())
		}
		if string(cur) != string(prev) {
			changed()
			prev = cur
		}
	}
}

// pause waits d on the clock; it reports false if ctx ended first.
func (r *resources) pause(ctx context.Context, d time.Duration) bool {
	t := r.clock.NewTimer(d)
	select {
	case <-t.C():
		return true
	case <-ctx.Done():
		t.Stop()
		return false
	}
}

// screenState is what a pane's screen resource showed at one time: its
// text, and a cursor into its output when the output can be followed from
// there.
type screenState struct {
	text   string
	cursor string // "" when the output cannot be followed
}

// seed reads the pane's screen and a cursor just past it.
func (r *resources) seed(ctx context.Context, pane ports.PaneID) (screenState, error) {
	res, err := r.screens.CaptureSince(ctx, domain.CaptureSinceRequest{PaneID: pane, MaxLines: domain.MaxCaptureRows})
	if err != nil {
		return screenState{}, err
	}
	st := screenState{text: res.Text}
	if res.Cursor != nil && res.Streaming {
		st.cursor = *res.Cursor
	}
	return st, nil
}

// watchContent calls changed whenever the pane's screen may have changed:
// at once on any output while the output can be followed, otherwise when
// the screen, read every PollInterval, differs. Following resumes at the
// first of those reads that offers a cursor again (a respawned pane, a
// backend that is back).
func (r *resources) watchContent(ctx context.Context, pane ports.PaneID, st screenState, changed func()) {
	prev := st.text
	for {
		if st.cursor != "" {
			r.follow(ctx, pane, st.cursor, changed)
			if ctx.Err() != nil {
				return
			}
			// Following stopped because the pane died, was replaced or
			// could not be read: its screen is not what it was. The
			// screen read now is the base the polling compares with.
			st, prev = screenState{}, ""
			if next, err := r.seed(ctx, pane); err == nil {
				prev = next.text
			} else {
				prev = "error: " + err.Error()
			}
			changed()
		}
		if !r.pause(ctx, PollInterval) {
			return
		}
		next, err := r.seed(ctx, pane)
		if ctx.Err() != nil {
			return
		}
		cur := next.text
		if err != nil {
			cur = "error: " + err.Error()
		}
		if cur != prev {
			changed()
			prev = cur
		}
		st = next
	}
}

// follow calls changed whenever the pane writes after cursor, until ctx is
// done or the output can no longer be followed (the pane died or went
// away, or its output could not be read); the change that ends following
// is left to the caller to tell. It reads at most once per
// UpdateInterval: output that arrives in between waits behind the cursor
// and is seen by the next read, so nothing is missed, and a pane that
// prints without pause does not cost a read per write.
func (r *resources) follow(ctx context.Context, pane ports.PaneID, cursor string, changed func()) {
	for {
		start := r.clock.Now()
		res, err := r.screens.CaptureSince(ctx, domain.CaptureSinceRequest{
			PaneID: pane, Cursor: cursor, MaxLines: 1, WaitMs: followWaitMs,
		})
		if ctx.Err() != nil || err != nil || res.Cursor == nil || !res.Streaming {
			return // the caller tells this last change, as following ends
		}
		if *res.Cursor != cursor || res.MissedBytes > 0 {
			changed()
		}
		cursor = *res.Cursor
		if rest := UpdateInterval - r.clock.Now().Sub(start); rest > 0 && !r.pause(ctx, rest) {
			return
		}
	}
}
