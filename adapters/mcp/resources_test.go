package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/domain/lifecycle"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// These tests drive the resources through a real MCP client over in-memory
// transports, on a stub domain and a fake clock: time moves only when a
// test moves it, and a test learns that the code under test is waiting on
// the clock from fake.Clock.WaitForTimers, never by sleeping. The waits on
// channels below are guards against a hung test, not part of any check.

const resWithin = 10 * time.Second

// resStub answers the four calls the resources make. The other tools'
// methods are the embedded nil interfaces': calling one panics, which the
// tests here never do.
type resStub struct {
	Tools
	ManageTools

	mu        sync.Mutex
	sessions  lifecycle.SessionList
	listErr   error
	listCalls int
	paneInfo  func(lifecycle.PaneRequest) (lifecycle.PaneDetails, error)
	captures  []domain.CaptureRequest
	screen    string
	screenErr error

	// seed answers a capture_since without a cursor.
	seed      func(domain.CaptureSinceRequest) (domain.CaptureSinceResult, error)
	seedCalls int
	// follows receives every capture_since with a cursor; the call waits
	// for the test's answer, or for its context to end, which it then
	// reports on cancelled.
	follows   chan *followCall
	cancelled chan domain.CaptureSinceRequest
}

type followCall struct {
	req   domain.CaptureSinceRequest
	reply chan followReply
}

type followReply struct {
	res domain.CaptureSinceResult
	err error
}

func newResStub() *resStub {
	return &resStub{
		follows:   make(chan *followCall),
		cancelled: make(chan domain.CaptureSinceRequest, 16),
		seed: func(req domain.CaptureSinceRequest) (domain.CaptureSinceResult, error) {
			return domain.CaptureSinceResult{PaneID: req.PaneID, Text: "$ \n", Cursor: new("c0"), Seeded: true, Streaming: true}, nil
		},
	}
}

func (s *resStub) ListSessions(context.Context) (lifecycle.SessionList, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.listCalls++
	return s.sessions, s.listErr
}

func (s *resStub) setSessions(l lifecycle.SessionList) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sessions = l
}

func (s *resStub) GetPaneInfo(_ context.Context, req lifecycle.PaneRequest) (lifecycle.PaneDetails, error) {
	s.mu.Lock()
	f := s.paneInfo
	s.mu.Unlock()
	if f == nil {
		return lifecycle.PaneDetails{}, fmt.Errorf("describe pane %s: %w", req.PaneID, ports.ErrPaneNotFound)
	}
	return f(req)
}

func (s *resStub) CapturePane(_ context.Context, req domain.CaptureRequest) (domain.CaptureResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.captures = append(s.captures, req)
	return domain.CaptureResult{PaneID: req.PaneID, Text: s.screen}, s.screenErr
}

func (s *resStub) CaptureSince(ctx context.Context, req domain.CaptureSinceRequest) (domain.CaptureSinceResult, error) {
	if req.Cursor == "" {
		s.mu.Lock()
		s.seedCalls++
		f := s.seed
		s.mu.Unlock()
		return f(req)
	}
	call := &followCall{req: req, reply: make(chan followReply, 1)}
	select {
	case s.follows <- call:
	case <-ctx.Done():
		s.cancelled <- req
		return domain.CaptureSinceResult{}, nil
	}
	select {
	case r := <-call.reply:
		return r.res, r.err
	case <-ctx.Done():
		s.cancelled <- req
		return domain.CaptureSinceResult{}, nil
	}
}

func (s *resStub) setSeed(f func(domain.CaptureSinceRequest) (domain.CaptureSinceResult, error)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seed = f
}

func (s *resStub) seeds() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seedCalls
}

// nextFollow returns the next capture_since with a cursor, which waits
// for the test to answer it.
func (s *resStub) nextFollow(t *testing.T) *followCall {
	t.Helper()
	select {
	case c := <-s.follows:
		return c
	case <-time.After(resWithin):
		t.Fatal("no capture_since with a cursor was made")
		return nil
	}
}

func (c *followCall) answer(res domain.CaptureSinceResult, err error) {
	c.reply <- followReply{res, err}
}

// output answers a follow as a read of new output up to cursor.
func (c *followCall) output(cursor string) {
	c.answer(domain.CaptureSinceResult{PaneID: c.req.PaneID, Text: "out\n", Cursor: new(cursor), Streaming: true}, nil)
}

// screenOnly serves the tools without the inspect and lifecycle ones, as
// a backend that cannot list sessions would.
type screenOnly struct {
	Tools
	stub *resStub
}

func (s screenOnly) CapturePane(ctx context.Context, req domain.CaptureRequest) (domain.CaptureResult, error) {
	return s.stub.CapturePane(ctx, req)
}

func (s screenOnly) CaptureSince(ctx context.Context, req domain.CaptureSinceRequest) (domain.CaptureSinceResult, error) {
	return s.stub.CaptureSince(ctx, req)
}

// resClient is a client session on a Server, with the resource updates it
// was sent.
type resClient struct {
	*sdk.ClientSession
	updates chan string
}

// The protocol versions the subscriptions are tested under: the last one
// with resources/subscribe, and the first with subscriptions/listen.
const (
	protocolLegacy = "2025-11-25"
	protocolListen = "2026-07-28"
)

// newResServer serves tools, and when tools also has the inspect and
// lifecycle tools (the stubs do), those as Options.Manage.
func newResServer(t *testing.T, tools Tools, clk ports.Clock) *Server {
	t.Helper()
	opts := Options{Clock: clk, Logger: slog.New(slog.DiscardHandler)}
	if m, ok := tools.(ManageTools); ok {
		opts.Manage = m
	}
	srv := NewServer(tools, opts)
	t.Cleanup(srv.Close)
	return srv
}

func connectRes(t *testing.T, srv *Server, protocol string) *resClient {
	t.Helper()
	ctx := context.Background()
	c := &resClient{updates: make(chan string, 64)}
	ct, st := sdk.NewInMemoryTransports()
	ss, err := srv.SDK().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "resources-test", Version: "0"}, &sdk.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, req *sdk.ResourceUpdatedNotificationRequest) {
			c.updates <- req.Params.URI
		},
	})
	c.ClientSession, err = client.Connect(ctx, ct, &sdk.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = c.Close()
		_ = ss.Wait()
	})
	return c
}

// update waits for the next resource update and checks its URI.
func (c *resClient) update(t *testing.T, uri string) {
	t.Helper()
	select {
	case got := <-c.updates:
		if got != uri {
			t.Errorf("update for %q, want %q", got, uri)
		}
	case <-time.After(resWithin):
		t.Fatalf("no update for %s", uri)
	}
}

// noUpdate checks that no update has arrived. It is called only when
// nothing could still send one, so that an absence proves something, and
// in a bubble (synctest), where it looks once the server and the client
// can go no further: an update on its way through the SDK is not missed
// for being slow.
func (c *resClient) noUpdate(t *testing.T) {
	t.Helper()
	synctest.Wait()
	select {
	case got := <-c.updates:
		t.Errorf("unexpected update for %q", got)
	default:
	}
}

func waitTimers(t *testing.T, clk *fake.Clock, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), resWithin)
	defer cancel()
	if err := clk.WaitForTimers(ctx, n); err != nil {
		t.Fatalf("waiting for %d timers (have %d): %v", n, clk.PendingTimers(), err)
	}
}

func resourceNotFound(err error) bool {
	var rpc *jsonrpc.Error
	// Invalid params, with the uri in its data, as the specification has
	// it since SEP-2164 (the SDK's CodeResourceNotFound, now deprecated).
	return errors.As(err, &rpc) && rpc.Code == jsonrpc.CodeInvalidParams && strings.Contains(string(rpc.Data), `"uri"`)
}

func TestResourcesAreListedWithSubscriptions(t *testing.T) {
	cs := connectRes(t, newResServer(t, newResStub(), fake.NewClock(time.Unix(0, 0))), protocolLegacy)
	ctx := context.Background()

	caps := cs.InitializeResult().Capabilities
	if caps.Resources == nil || !caps.Resources.Subscribe {
		t.Errorf("resources capability = %+v, want subscribe: true", caps.Resources)
	}
	res, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Resources) != 1 || res.Resources[0].URI != SessionsURI || res.Resources[0].MIMEType != "application/json" {
		t.Errorf("resources = %+v, want only %s, as JSON", res.Resources, SessionsURI)
	}
	tmpl, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, rt := range tmpl.ResourceTemplates {
		got[rt.URITemplate] = rt.MIMEType
		if rt.Name == "" || rt.Description == "" {
			t.Errorf("template %s has no name or description", rt.URITemplate)
		}
	}
	want := map[string]string{PaneURITemplate: "application/json", PaneContentURITemplate: "text/plain", RunOutputURITemplate: "text/plain"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("templates = %v, want %v", got, want)
	}
}

func TestResourcesWithoutListingsServeOnlyScreens(t *testing.T) {
	stub := newResStub()
	stub.screen = "hello\n"
	cs := connectRes(t, newResServer(t, screenOnly{stub: stub}, fake.NewClock(time.Unix(0, 0))), protocolLegacy)
	ctx := context.Background()

	res, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Resources) != 0 {
		t.Errorf("resources = %+v, want none without list_sessions", res.Resources)
	}
	if _, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: SessionsURI}); !resourceNotFound(err) {
		t.Errorf("read %s = %v, want resource not found", SessionsURI, err)
	}
	if _, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "tmux://panes/1"}); !resourceNotFound(err) {
		t.Errorf("read tmux://panes/1 = %v, want resource not found", err)
	}
	r, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "tmux://panes/1/content"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Contents[0].Text != "hello\n" {
		t.Errorf("content = %q, want the screen", r.Contents[0].Text)
	}
}

func TestResourceReadsMatchTheTools(t *testing.T) {
	created := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	stub := newResStub()
	stub.sessions = lifecycle.SessionList{Sessions: []ports.SessionInfo{
		{SessionRef: ports.SessionRef{ID: "$0", Name: "main"}, Windows: 2, Clients: 1, Created: created},
	}}
	var asked []ports.PaneID
	stub.paneInfo = func(req lifecycle.PaneRequest) (lifecycle.PaneDetails, error) {
		asked = append(asked, req.PaneID)
		d := lifecycle.PaneDetails{Mode: "", HistorySize: 7, HistoryLimit: 2000}
		d.ID, d.Command, d.Width, d.Height = req.PaneID, "bash", 80, 24
		d.Session = ports.SessionRef{ID: "$0", Name: "main"}
		d.Window = ports.WindowRef{ID: "@1", Index: 0, Name: "w"}
		return d, nil
	}
	stub.screen = "$ ls\nfile\n"
	cs := connectRes(t, newResServer(t, stub, fake.NewClock(time.Unix(0, 0))), protocolLegacy)
	ctx := context.Background()

	tests := []struct {
		uri, mime string
		want      func(t *testing.T, text string)
	}{
		{SessionsURI, "application/json", func(t *testing.T, text string) {
			want, _ := encode(fromSessionList(stub.sessions))
			if text != string(want) {
				t.Errorf("sessions = %s, want list_sessions' output %s", text, want)
			}
			if !strings.Contains(text, `"created":"2026-01-02T03:04:05Z"`) {
				t.Errorf("sessions = %s, want the creation time in RFC 3339", text)
			}
		}},
		{"tmux://panes/12", "application/json", func(t *testing.T, text string) {
			var got map[string]any
			if err := json.Unmarshal([]byte(text), &got); err != nil {
				t.Fatal(err)
			}
			if got["paneId"] != "%12" || got["historySize"] != 7.0 || got["sessionId"] != "$0" {
				t.Errorf("pane = %s, want get_pane_info's output for %%12", text)
			}
		}},
		{"tmux://panes/12/content", "text/plain", func(t *testing.T, text string) {
			if text != "$ ls\nfile\n" {
				t.Errorf("content = %q, want the screen", text)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.uri, func(t *testing.T) {
			r, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: tt.uri})
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Contents) != 1 || r.Contents[0].URI != tt.uri || r.Contents[0].MIMEType != tt.mime {
				t.Fatalf("contents = %+v, want one %s for %s", r.Contents, tt.mime, tt.uri)
			}
			tt.want(t, r.Contents[0].Text)
		})
	}
	if !slices.Equal(asked, []ports.PaneID{"%12"}) {
		t.Errorf("get_pane_info asked for %v, want [%%12]: the URI's id is the pane's without its sigil", asked)
	}
	if len(stub.captures) != 1 || stub.captures[0].PaneID != "%12" || stub.captures[0].Start != nil ||
		stub.captures[0].MaxLines < 10_000 {
		t.Errorf("captures = %+v, want the whole visible screen of %%12", stub.captures)
	}
}

func TestResourceReadErrors(t *testing.T) {
	stub := newResStub()
	stub.screenErr = fmt.Errorf("capture pane %%4: %w", ports.ErrPaneNotFound)
	stub.listErr = fmt.Errorf("list sessions: %w", ports.ErrUnavailable)
	cs := connectRes(t, newResServer(t, stub, fake.NewClock(time.Unix(0, 0))), protocolLegacy)

	tests := []struct {
		uri      string
		notFound bool
		text     string
	}{
		{uri: "tmux://panes/4", notFound: true},         // no such pane
		{uri: "tmux://panes/4/content", notFound: true}, // no such pane
		{uri: "tmux://panes/%254", notFound: true},      // the sigil is left out, not escaped
		{uri: "tmux://panes/x/content", notFound: true},
		{uri: "tmux://panes/4/history", notFound: true},
		{uri: "tmux://windows", notFound: true},
		{uri: "file:///etc/passwd", notFound: true},
		{uri: SessionsURI, text: "check that the terminal multiplexer is installed"},
	}
	for _, tt := range tests {
		t.Run(tt.uri, func(t *testing.T) {
			_, err := cs.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: tt.uri})
			switch {
			case err == nil:
				t.Fatal("read succeeded, want an error")
			case tt.notFound != resourceNotFound(err):
				t.Errorf("error = %v, want resource not found: %v", err, tt.notFound)
			case !strings.Contains(err.Error(), tt.text):
				t.Errorf("error = %v, want it to say %q", err, tt.text)
			}
		})
	}
}

func TestSubscribeToScreenNotifiesOnOutput(t *testing.T) {
	for _, protocol := range []string{protocolLegacy, protocolListen} {
		t.Run(protocol, func(t *testing.T) {
			stub := newResStub()
			clk := fake.NewClock(time.Unix(0, 0))
			cs := connectRes(t, newResServer(t, stub, clk), protocol)
			const uri = "tmux://panes/3/content"
			if err := cs.Subscribe(context.Background(), &sdk.SubscribeParams{URI: uri}); err != nil {
				t.Fatal(err)
			}

			call := stub.nextFollow(t)
			if call.req.PaneID != "%3" || call.req.Cursor != "c0" || call.req.WaitMs <= 0 {
				t.Errorf("follow = %+v, want a wait on %%3 from the seed's cursor", call.req)
			}
			call.output("c1")
			cs.update(t, uri)

			// The next read waits out the rest of UpdateInterval first:
			// output meanwhile waits behind the cursor.
			waitTimers(t, clk, 1)
			clk.Advance(UpdateInterval)
			call = stub.nextFollow(t)
			if call.req.Cursor != "c1" {
				t.Errorf("follow cursor = %q, want c1, where the last read ended", call.req.Cursor)
			}
			call.output("c2")
			cs.update(t, uri)
		})
	}
}

func TestScreenReadsAreSpacedByUpdateInterval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		stub := newResStub()
		clk := fake.NewClock(time.Unix(0, 0))
		cs := connectRes(t, newResServer(t, stub, clk), protocolLegacy)
		const uri = "tmux://panes/3/content"
		if err := cs.Subscribe(context.Background(), &sdk.SubscribeParams{URI: uri}); err != nil {
			t.Fatal(err)
		}
		stub.nextFollow(t).output("c1")
		cs.update(t, uri)

		waitTimers(t, clk, 1)
		clk.Advance(UpdateInterval - time.Millisecond)
		synctest.Wait()
		select {
		case c := <-stub.follows:
			t.Fatalf("read %+v before UpdateInterval had passed", c.req)
		default:
		}
		clk.Advance(time.Millisecond)
		stub.nextFollow(t).output("c2")
		cs.update(t, uri)
	})
}

func TestScreenWithoutNewsIsNotTold(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		stub := newResStub()
		clk := fake.NewClock(time.Unix(0, 0))
		cs := connectRes(t, newResServer(t, stub, clk), protocolLegacy)
		if err := cs.Subscribe(context.Background(), &sdk.SubscribeParams{URI: "tmux://panes/3/content"}); err != nil {
			t.Fatal(err)
		}
		// The wait ran out with nothing new: same cursor, nothing missed.
		call := stub.nextFollow(t)
		call.answer(domain.CaptureSinceResult{PaneID: "%3", Cursor: new("c0"), Streaming: true}, nil)
		waitTimers(t, clk, 1) // the pause before the next read: the answer was handled
		cs.noUpdate(t)
	})
}

func TestScreenOutputLostIsTold(t *testing.T) {
	stub := newResStub()
	clk := fake.NewClock(time.Unix(0, 0))
	cs := connectRes(t, newResServer(t, stub, clk), protocolLegacy)
	const uri = "tmux://panes/3/content"
	if err := cs.Subscribe(context.Background(), &sdk.SubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	stub.nextFollow(t).answer(domain.CaptureSinceResult{PaneID: "%3", Cursor: new("c0"), MissedBytes: 10, Streaming: true}, nil)
	cs.update(t, uri)
}

func TestScreenOfDeadPaneIsToldThenPolled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		stub := newResStub()
		clk := fake.NewClock(time.Unix(0, 0))
		cs := connectRes(t, newResServer(t, stub, clk), protocolLegacy)
		const uri = "tmux://panes/3/content"
		if err := cs.Subscribe(context.Background(), &sdk.SubscribeParams{URI: uri}); err != nil {
			t.Fatal(err)
		}
		// The pane's last words, then no more output will come.
		stub.setSeed(func(req domain.CaptureSinceRequest) (domain.CaptureSinceResult, error) {
			return domain.CaptureSinceResult{PaneID: req.PaneID, Text: "bye\n", Cursor: new("c9")}, nil
		})
		stub.nextFollow(t).answer(domain.CaptureSinceResult{PaneID: "%3", Text: "bye\n", Cursor: new("c9")}, nil)
		cs.update(t, uri)

		// Now the screen is read every PollInterval, and told when it changes:
		// here when the pane is gone.
		waitTimers(t, clk, 1)
		seeds := stub.seeds()
		stub.setSeed(func(req domain.CaptureSinceRequest) (domain.CaptureSinceResult, error) {
			return domain.CaptureSinceResult{}, fmt.Errorf("describe pane %%3: %w", ports.ErrPaneNotFound)
		})
		clk.Advance(PollInterval)
		cs.update(t, uri)
		waitTimers(t, clk, 1)
		if stub.seeds() != seeds+1 {
			t.Errorf("%d screen reads in one PollInterval, want 1", stub.seeds()-seeds)
		}
		clk.Advance(PollInterval) // still gone: nothing to tell
		waitTimers(t, clk, 1)
		cs.noUpdate(t)
	})
}

func TestScreenOfRespawnedPaneIsFollowedAgain(t *testing.T) {
	stub := newResStub()
	clk := fake.NewClock(time.Unix(0, 0))
	cs := connectRes(t, newResServer(t, stub, clk), protocolLegacy)
	const uri = "tmux://panes/3/content"
	if err := cs.Subscribe(context.Background(), &sdk.SubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	// The pane's process was replaced: the cursor is of its old process.
	stub.setSeed(func(req domain.CaptureSinceRequest) (domain.CaptureSinceResult, error) {
		return domain.CaptureSinceResult{PaneID: req.PaneID, Text: "new\n", Cursor: new("n0"), Streaming: true}, nil
	})
	stub.nextFollow(t).answer(domain.CaptureSinceResult{},
		&fault.ArgumentError{Field: "cursor", Reason: "belongs to an earlier process of pane %3"})
	cs.update(t, uri)

	waitTimers(t, clk, 1)
	clk.Advance(PollInterval)
	call := stub.nextFollow(t)
	if call.req.Cursor != "n0" {
		t.Errorf("follow cursor = %q, want n0, from the new process", call.req.Cursor)
	}
	call.output("n1")
	cs.update(t, uri)
}

func TestUnsubscribeStopsFollowing(t *testing.T) {
	stub := newResStub()
	clk := fake.NewClock(time.Unix(0, 0))
	cs := connectRes(t, newResServer(t, stub, clk), protocolLegacy)
	ctx := context.Background()
	const uri = "tmux://panes/3/content"
	if err := cs.Subscribe(ctx, &sdk.SubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	stub.nextFollow(t) // left unanswered: the read is waiting for output
	if err := cs.Unsubscribe(ctx, &sdk.UnsubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	// Unsubscribe returns once the watch has stopped.
	select {
	case req := <-stub.cancelled:
		if req.PaneID != "%3" {
			t.Errorf("cancelled read of %s, want %%3", req.PaneID)
		}
	default:
		t.Fatal("the waiting read was not cancelled by the time Unsubscribe returned")
	}
	if n := clk.PendingTimers(); n != 0 {
		t.Errorf("%d timers pending after Unsubscribe, want 0", n)
	}
	if err := cs.Unsubscribe(ctx, &sdk.UnsubscribeParams{URI: uri}); err != nil {
		t.Errorf("second Unsubscribe = %v, want nil", err)
	}
}

func TestSubscribersShareOneWatch(t *testing.T) {
	stub := newResStub()
	clk := fake.NewClock(time.Unix(0, 0))
	srv := newResServer(t, stub, clk)
	a, b := connectRes(t, srv, protocolLegacy), connectRes(t, srv, protocolLegacy)
	ctx := context.Background()
	const uri = "tmux://panes/3/content"
	for _, cs := range []*resClient{a, b} {
		if err := cs.Subscribe(ctx, &sdk.SubscribeParams{URI: uri}); err != nil {
			t.Fatal(err)
		}
	}
	if n := stub.seeds(); n != 1 {
		t.Errorf("%d screen reads for two subscriptions, want 1: one watch serves both", n)
	}
	stub.nextFollow(t).output("c1")
	a.update(t, uri)
	b.update(t, uri)

	if err := a.Unsubscribe(ctx, &sdk.UnsubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	// The watch goes on for b.
	waitTimers(t, clk, 1)
	clk.Advance(UpdateInterval)
	stub.nextFollow(t).output("c2")
	b.update(t, uri)
	waitTimers(t, clk, 1)
	clk.Advance(UpdateInterval)
	stub.nextFollow(t) // left waiting for output

	if err := b.Unsubscribe(ctx, &sdk.UnsubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-stub.cancelled:
	default:
		t.Fatal("the watch did not stop when its last subscriber left")
	}
}

func TestClosedSessionsSubscriptionsEnd(t *testing.T) {
	stub := newResStub()
	srv := newResServer(t, stub, fake.NewClock(time.Unix(0, 0)))
	cs := connectRes(t, srv, protocolLegacy)
	if err := cs.Subscribe(context.Background(), &sdk.SubscribeParams{URI: "tmux://panes/3/content"}); err != nil {
		t.Fatal(err)
	}
	stub.nextFollow(t)
	_ = cs.Close()
	select {
	case <-stub.cancelled:
	case <-time.After(resWithin):
		t.Fatal("the watch went on after its only session closed")
	}
}

func TestCloseEndsEveryWatch(t *testing.T) {
	stub := newResStub()
	srv := newResServer(t, stub, fake.NewClock(time.Unix(0, 0)))
	cs := connectRes(t, srv, protocolLegacy)
	ctx := context.Background()
	if err := cs.Subscribe(ctx, &sdk.SubscribeParams{URI: "tmux://panes/3/content"}); err != nil {
		t.Fatal(err)
	}
	stub.nextFollow(t)
	srv.Close()
	select {
	case <-stub.cancelled:
	case <-time.After(resWithin):
		t.Fatal("the watch went on after Close")
	}
	err := cs.Subscribe(ctx, &sdk.SubscribeParams{URI: "tmux://panes/4/content"})
	if err == nil || !strings.Contains(err.Error(), ErrServerClosing.Error()) {
		t.Errorf("Subscribe after Close = %v, want %q", err, ErrServerClosing)
	}
}

func TestSubscribeRefusesWhatCannotBeRead(t *testing.T) {
	stub := newResStub()
	stub.setSeed(func(req domain.CaptureSinceRequest) (domain.CaptureSinceResult, error) {
		return domain.CaptureSinceResult{}, fmt.Errorf("describe pane %s: %w", req.PaneID, ports.ErrPaneNotFound)
	})
	stub.listErr = fmt.Errorf("list_sessions: %w", ports.ErrUnsupported)
	clk := fake.NewClock(time.Unix(0, 0))
	cs := connectRes(t, newResServer(t, stub, clk), protocolLegacy)

	tests := []struct {
		uri      string
		notFound bool
		text     string
	}{
		{uri: "tmux://panes/9/content", notFound: true},
		{uri: "tmux://panes/9", notFound: true},
		{uri: "tmux://elsewhere", notFound: true},
		{uri: SessionsURI, text: "cannot do that"},
	}
	for _, tt := range tests {
		t.Run(tt.uri, func(t *testing.T) {
			err := cs.Subscribe(context.Background(), &sdk.SubscribeParams{URI: tt.uri})
			switch {
			case err == nil:
				t.Fatal("subscribe succeeded, want an error")
			case tt.notFound != resourceNotFound(err):
				t.Errorf("error = %v, want resource not found: %v", err, tt.notFound)
			case !strings.Contains(err.Error(), tt.text):
				t.Errorf("error = %v, want it to say %q", err, tt.text)
			}
		})
	}
	if n := clk.PendingTimers(); n != 0 {
		t.Errorf("%d timers pending after refused subscriptions, want 0: no watch started", n)
	}
}

func TestSubscribeToSessionsPollsForChanges(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		stub := newResStub()
		one := lifecycle.SessionList{Sessions: []ports.SessionInfo{{SessionRef: ports.SessionRef{ID: "$0", Name: "main"}, Windows: 1}}}
		stub.setSessions(one)
		clk := fake.NewClock(time.Unix(0, 0))
		cs := connectRes(t, newResServer(t, stub, clk), protocolLegacy)
		if err := cs.Subscribe(context.Background(), &sdk.SubscribeParams{URI: SessionsURI}); err != nil {
			t.Fatal(err)
		}

		waitTimers(t, clk, 1)
		clk.Advance(PollInterval) // nothing changed
		waitTimers(t, clk, 1)
		cs.noUpdate(t)

		two := lifecycle.SessionList{Sessions: append(slices.Clone(one.Sessions),
			ports.SessionInfo{SessionRef: ports.SessionRef{ID: "$1", Name: "build"}, Windows: 1})}
		stub.setSessions(two)
		clk.Advance(PollInterval - time.Millisecond)
		cs.noUpdate(t) // not read again yet
		clk.Advance(time.Millisecond)
		cs.update(t, SessionsURI)

		stub.mu.Lock()
		calls := stub.listCalls
		stub.mu.Unlock()
		if calls != 3 {
			t.Errorf("list_sessions called %d times, want 3: at subscription and once per PollInterval", calls)
		}
	})
}

func TestSubscribeToPanePollsForChanges(t *testing.T) {
	stub := newResStub()
	var mu sync.Mutex
	title := "one"
	stub.paneInfo = func(req lifecycle.PaneRequest) (lifecycle.PaneDetails, error) {
		mu.Lock()
		defer mu.Unlock()
		var d lifecycle.PaneDetails
		d.ID, d.Title = req.PaneID, title
		return d, nil
	}
	clk := fake.NewClock(time.Unix(0, 0))
	cs := connectRes(t, newResServer(t, stub, clk), protocolLegacy)
	const uri = "tmux://panes/5"
	if err := cs.Subscribe(context.Background(), &sdk.SubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	waitTimers(t, clk, 1)
	mu.Lock()
	title = "two"
	mu.Unlock()
	clk.Advance(PollInterval)
	cs.update(t, uri)
}

// The coalescing itself, on signals the test hands over one by one (the
// channel is unbuffered, so each send returns once the signal is taken).
func TestCoalesceTellsAtMostOncePerIntervalAndNeverDropsTheLast(t *testing.T) {
	clk := fake.NewClock(time.Unix(0, 0))
	sent := make(chan time.Time, 16)
	r := &resources{clock: clk, logger: slog.New(slog.DiscardHandler),
		notify: func(context.Context, string) { sent <- clk.Now() }}
	signals := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.coalesce(ctx, "tmux://x", signals)
	}()
	start := clk.Now()
	expect := func(at time.Duration) {
		t.Helper()
		select {
		case got := <-sent:
			if got.Sub(start) != at {
				t.Errorf("notified at %v, want %v", got.Sub(start), at)
			}
		case <-time.After(resWithin):
			t.Fatalf("no notification (want one at %v)", at)
		}
	}

	signals <- struct{}{} // after a quiet spell: told at once
	expect(0)
	signals <- struct{}{} // within the interval: told when it has passed
	waitTimers(t, clk, 1)
	clk.Advance(30 * time.Millisecond)
	signals <- struct{}{} // covered by the notification already due
	signals <- struct{}{}
	if len(sent) != 0 {
		t.Fatalf("%d notifications within the interval, want none", len(sent))
	}
	clk.Advance(70 * time.Millisecond)
	expect(UpdateInterval)
	if n := clk.PendingTimers(); n != 0 {
		t.Errorf("%d timers pending after the burst was told, want 0", n)
	}

	clk.Advance(UpdateInterval) // quiet again
	signals <- struct{}{}
	expect(2 * UpdateInterval)

	signals <- struct{}{}
	waitTimers(t, clk, 1)
	cancel()
	<-done
	if n := clk.PendingTimers(); n != 0 {
		t.Errorf("%d timers pending after the watch ended, want 0", n)
	}
	if len(sent) != 0 {
		t.Errorf("notified after the watch ended")
	}
}

func TestResourceURIs(t *testing.T) {
	tests := []struct {
		uri  string
		kind resourceKind
		pane ports.PaneID
		ok   bool
	}{
		{SessionsURI, kindSessions, "", true},
		{"tmux://panes/0", kindPane, "%0", true},
		{"tmux://panes/17/content", kindContent, "%17", true},
		{"tmux://panes/", 0, "", false},
		{"tmux://panes/-1", 0, "", false},
		{"tmux://panes/1/content/", 0, "", false},
		{"tmux://sessions/", 0, "", false},
		{"TMUX://sessions", 0, "", false},
	}
	for _, tt := range tests {
		kind, pane, ok := parseResourceURI(tt.uri)
		if kind != tt.kind || pane != tt.pane || ok != tt.ok {
			t.Errorf("parseResourceURI(%q) = %v, %q, %v; want %v, %q, %v", tt.uri, kind, pane, ok, tt.kind, tt.pane, tt.ok)
		}
	}
}
