package mcp_test

//lint:file-ignore SA1019 MCP logging (logging/setLevel, notifications/message) is deprecated from protocol version 2026-07-28 (SEP-2577), not removed: the earlier versions this server also speaks have it, and their clients ask for it.

import (
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmux-mcp/tmux-mcp/adapters/mcp"
)

// The MCP log bridge, with real client sessions over the SDK's in-memory
// transport: what a client hears, and when it hears nothing.

// logClient is a client session that collects the log notifications it
// gets; block, when not nil, holds its handler until closed.
type logClient struct {
	cs    *sdk.ClientSession
	mu    sync.Mutex
	got   []*sdk.LoggingMessageParams
	heard chan struct{}
}

func connectLogClient(t *testing.T, srv *mcp.Server, block <-chan struct{}) *logClient {
	t.Helper()
	c := &logClient{heard: make(chan struct{}, 1)}
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.SDK().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "log-client", Version: "0"}, &sdk.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, req *sdk.LoggingMessageRequest) {
			if block != nil {
				<-block
			}
			c.mu.Lock()
			c.got = append(c.got, req.Params)
			c.mu.Unlock()
			select {
			case c.heard <- struct{}{}:
			default:
			}
		},
	})
	c.cs, err = client.Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.cs.Close(); ss.Wait() })
	return c
}

func (c *logClient) setLevel(t *testing.T, level sdk.LoggingLevel) {
	t.Helper()
	if err := c.cs.SetLoggingLevel(context.Background(), &sdk.SetLoggingLevelParams{Level: level}); err != nil {
		t.Fatal(err)
	}
}

func (c *logClient) lines() []*sdk.LoggingMessageParams {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*sdk.LoggingMessageParams(nil), c.got...)
}

// awaitFor reports whether the client hears a line that ok accepts
// within d.
func (c *logClient) awaitFor(d time.Duration, ok func(*sdk.LoggingMessageParams) bool) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if slices.ContainsFunc(c.lines(), ok) {
			return true
		}
		time.Sleep(5 * time.Millisecond)
	}
	return slices.ContainsFunc(c.lines(), ok)
}

// await waits until the client has heard a line that ok accepts.
func (c *logClient) await(t *testing.T, what string, ok func(*sdk.LoggingMessageParams) bool) *sdk.LoggingMessageParams {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		for _, l := range c.lines() {
			if ok(l) {
				return l
			}
		}
		select {
		case <-c.heard:
		case <-deadline:
			t.Fatalf("the client never heard %s; it heard %v", what, c.texts())
		}
	}
}

func (c *logClient) texts() []string {
	var out []string
	for _, l := range c.lines() {
		out = append(out, fmt.Sprintf("%s %v", l.Level, l.Data))
	}
	return out
}

func textIs(text string) func(*sdk.LoggingMessageParams) bool {
	return func(l *sdk.LoggingMessageParams) bool { return l.Data == text }
}

func bridgedServer(t *testing.T) (*mcp.Server, *mcp.LogBridge, *slog.Logger) {
	t.Helper()
	b := mcp.NewLogBridge(nil)
	t.Cleanup(b.Close)
	log := slog.New(b.Handler())
	return mcp.NewServer(&stubTools{t: t}, mcp.Options{Logger: log, Logs: b}), b, log
}

// A client hears the lines at and above the level it asked for, with
// their text and level, and nothing before it asks. A line that only a
// less demanding client wants reaches it alone.
func TestClientsHearTheLinesOfTheLevelTheyAskFor(t *testing.T) {
	srv, b, log := bridgedServer(t)
	warn := connectLogClient(t, srv, nil)
	info := connectLogClient(t, srv, nil)
	silent := connectLogClient(t, srv, nil)

	log.Warn("before anyone asked")
	if b.Wants(slog.LevelError) {
		t.Error("the bridge wants lines before any client asked for them")
	}
	warn.setLevel(t, "warning")
	info.setLevel(t, "info")
	if !b.Wants(slog.LevelInfo) || b.Wants(slog.LevelDebug) {
		t.Errorf("Wants(info) %v, Wants(debug) %v; want true, false", b.Wants(slog.LevelInfo), b.Wants(slog.LevelDebug))
	}

	log.Info("an info line", "pane", "%3")
	log.Warn("pane %3 is leased by another tmux-mcp process", "event", "lease-refused", "pane", "%3")
	log.Error("an error line")

	want := map[*logClient][]string{
		warn: {"warning pane %3 is leased by another tmux-mcp process event=lease-refused pane=%3", "error an error line"},
		info: {"info an info line pane=%3", "warning pane %3 is leased by another tmux-mcp process event=lease-refused pane=%3", "error an error line"},
	}
	for c, lines := range want {
		last := lines[len(lines)-1]
		c.await(t, "the error line", func(l *sdk.LoggingMessageParams) bool { return strings.HasSuffix(fmt.Sprint(l.Data), "an error line") })
		var got []string
		for _, l := range c.lines() {
			if l.Logger != "tmux-mcp" {
				t.Errorf("logger %q, want tmux-mcp", l.Logger)
			}
			if s := fmt.Sprintf("%s %v", l.Level, l.Data); !strings.Contains(s, "log level set") {
				got = append(got, s)
			}
		}
		if strings.Join(got, "\n") != strings.Join(lines, "\n") {
			t.Errorf("client heard\n%s\nwant\n%s (last %q)", strings.Join(got, "\n"), strings.Join(lines, "\n"), last)
		}
	}
	// The silent client never asked; a line sent after the others were
	// heard would have reached it by now, had it been sent.
	if got := silent.lines(); len(got) != 0 {
		t.Errorf("a client that never set a level heard %v", silent.texts())
	}
}

// A client that stops reading costs the server nothing: publishing never
// waits, what does not fit the client's queue is dropped and counted, and
// once it reads again it is told how many lines it lost. In a bubble
// (synctest), "publishing never waits" is exact: the minute of the
// deadline passes only if the publisher is stuck, and a wait for a line
// ends once everything has gone as far as it goes.
func TestASlowClientLosesLinesAndIsToldSo(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, b, log := bridgedServer(t)
		block := make(chan struct{})
		c := connectLogClient(t, srv, block)
		c.setLevel(t, "info")

		const n = 5 * mcp.LogQueue
		done := make(chan struct{})
		go func() {
			for i := range n {
				log.Info(fmt.Sprintf("line %d", i))
			}
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(60 * time.Second):
			t.Fatal("publishing to a client that does not read waited for it")
		}
		if b.Dropped() == 0 {
			t.Fatalf("no line dropped of %d published to a client that reads none", n)
		}
		close(block)
		c.await(t, "line 0", textIs("line 0"))
		// Every lost line is told, by a note just before the next line that
		// got through: under load the client may have taken lines while the
		// jam lasted, so notes may come before lines of the burst too. Once
		// the client has drained its queue, a last line gets through, and the
		// notes heard before it count every line dropped.
		for i := 0; ; i++ {
			end := fmt.Sprintf("the end %d", i)
			log.Info(end)
			if c.awaitFor(500*time.Millisecond, textIs(end)) {
				break
			}
			if i == 40 {
				t.Fatal("no line reached the client after the jam")
			}
		}
		var told uint64
		lines := c.lines()
		for i, l := range lines {
			var lost uint64
			if n, _ := fmt.Sscanf(fmt.Sprint(l.Data), "tmux-mcp: the %d log lines before this one were not sent", &lost); n == 1 {
				if l.Level != "warning" || lost == 0 || i+1 == len(lines) {
					t.Errorf("note %d %v: want a warning counting lines, before a line", i, l.Data)
				}
				told += lost
			}
		}
		if told != b.Dropped() {
			t.Errorf("the notes count %d lost lines; %d were dropped", told, b.Dropped())
		}
	})
}

// A session that ends is forgotten: the bridge wants nothing once no
// client is left. The session runs in a bubble (synctest) over the SDK's
// in-memory pipe, so "once" is when every goroutine of it can go no
// further.
func TestAnEndedSessionIsForgotten(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, b, _ := bridgedServer(t)
		c := connectLogClient(t, srv, nil)
		c.setLevel(t, "debug")
		if !b.Wants(slog.LevelDebug) {
			t.Fatal("the bridge does not want the level the client asked for")
		}
		c.cs.Close()
		synctest.Wait() // the server has seen the session end
		if b.Wants(slog.LevelError) {
			t.Fatal("the bridge still wants lines after its only client left")
		}
	})
}

// The same level asked again, or another, changes what the client hears
// from then on.
func TestAClientMayChangeItsLevel(t *testing.T) {
	srv, _, log := bridgedServer(t)
	c := connectLogClient(t, srv, nil)
	c.setLevel(t, "error")
	log.Warn("not heard")
	c.setLevel(t, "warning")
	log.Warn("heard")
	c.await(t, "the warning after the change", textIs("heard"))
	for _, l := range c.lines() {
		if l.Data == "not heard" {
			t.Error("a warning reached a client at the error level")
		}
	}
}

// Over streamable HTTP too, a client that asks hears the lines.
func TestAnHTTPClientHearsTheLinesItAsksFor(t *testing.T) {
	srv, _, log := bridgedServer(t)
	hs := httptest.NewServer(srv.HTTPHandler())
	t.Cleanup(hs.Close)
	heard := make(chan *sdk.LoggingMessageParams, 16)
	client := sdk.NewClient(&sdk.Implementation{Name: "http-log-client", Version: "0"}, &sdk.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, req *sdk.LoggingMessageRequest) {
			select {
			case heard <- req.Params:
			default:
			}
		},
	})
	cs, err := client.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: hs.URL + mcp.HTTPPath}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	if err := cs.SetLoggingLevel(context.Background(), &sdk.SetLoggingLevelParams{Level: "warning"}); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(20 * time.Second)
	for {
		// The standalone stream that carries the line may open after the
		// level is set: say it again until it is heard.
		log.Warn("heard over http")
		select {
		case l := <-heard:
			if l.Data == "heard over http" {
				return
			}
		case <-time.After(100 * time.Millisecond):
		case <-deadline:
			t.Fatal("the HTTP client never heard the line")
		}
	}
}
