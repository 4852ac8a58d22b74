package app_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/tmux-mcp/tmux-mcp/app"
)

const transportToken = "9f86d081884c7d659a2feaa0c55ad015"

// lockedLog is a log sink safe for the concurrent writes of loggers.
type lockedLog struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func envMap(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

var servingURL = regexp.MustCompile(`"url": "http://[^"]*:(\d+)/mcp"`)

// startHTTP starts the application with the fake backend on the HTTP
// transport and the given flags and environment, and returns the URL of
// its MCP endpoint on 127.0.0.1. The application is stopped when the test
// ends.
func startHTTP(t *testing.T, env map[string]string, args ...string) string {
	t.Helper()
	cfg, err := app.ParseConfig(append([]string{"-backend", "fake", "-transport", "http"}, args...), envMap(env), &lockedLog{})
	if err != nil {
		t.Fatal(err)
	}
	var stderr lockedLog
	a := app.New(cfg, app.Stdio{In: strings.NewReader(""), Out: &lockedLog{}, Err: &stderr})
	ctx := context.Background()
	if err := a.Start(ctx); err != nil {
		t.Fatalf("start: %v\nstderr:\n%s", err, stderr.String())
	}
	t.Cleanup(func() {
		if err := a.Stop(ctx); err != nil {
			t.Errorf("stop: %v", err)
		}
	})
	m := servingURL.FindStringSubmatch(stderr.String())
	if m == nil {
		t.Fatalf("no URL in the log:\n%s", stderr.String())
	}
	return "http://127.0.0.1:" + m[1] + "/mcp"
}

// initialize posts an initialize request to url with the given headers
// and returns the response's status.
func initialize(t *testing.T, url string, header map[string]string) int {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",` +
		`"capabilities":{},"clientInfo":{"name":"transport-test","version":"0"}}}`
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		if k == "Host" {
			req.Host = v
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func bearer(token string) map[string]string {
	return map[string]string{"Authorization": "Bearer " + token}
}

func writeTokenFile(t *testing.T, contents string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(path, []byte(contents), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestHTTPTransportRequiresTheToken(t *testing.T) {
	fromFile := writeTokenFile(t, transportToken+"\n")
	tests := []struct {
		name string
		env  map[string]string
		args []string
	}{
		{"token from the environment", map[string]string{app.EnvToken: transportToken}, nil},
		{"token from a file", nil, []string{"-token-file", fromFile}},
		{"the file wins over the environment", map[string]string{app.EnvToken: "another-token-0123456789"}, []string{"-token-file", fromFile}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url := startHTTP(t, tt.env, append([]string{"-listen", "127.0.0.1:0"}, tt.args...)...)
			if got := initialize(t, url, nil); got != http.StatusUnauthorized {
				t.Errorf("without a token: status %d, want 401", got)
			}
			if got := initialize(t, url, bearer("another-token-0123456789")); got != http.StatusUnauthorized {
				t.Errorf("with a wrong token: status %d, want 401", got)
			}
			if got := initialize(t, url, bearer(transportToken)); got != http.StatusOK {
				t.Errorf("with the token: status %d, want 200", got)
			}
		})
	}
}

func TestHTTPTransportServesAClientWithTheToken(t *testing.T) {
	url := startHTTP(t, map[string]string{app.EnvToken: transportToken}, "-listen", "127.0.0.1:0")
	ctx := context.Background()
	hc := &http.Client{Transport: headerTransport{"Authorization": "Bearer " + transportToken}}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "transport-test", Version: "0"}, nil).
		Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: hc}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "capture_pane", Arguments: map[string]any{"paneId": string(app.DemoPane)}})
	if err != nil || res.IsError {
		t.Errorf("capture_pane = %+v, %v; want a result", res, err)
	}
}

// headerTransport adds headers to every request.
type headerTransport map[string]string

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h {
		r.Header.Set(k, v)
	}
	return http.DefaultTransport.RoundTrip(r)
}

func TestHTTPTransportOnANonLoopbackAddressNeedsAToken(t *testing.T) {
	for _, listen := range []string{"0.0.0.0:0", ":0", "[::]:0"} {
		t.Run(listen, func(t *testing.T) {
			var stdout, stderr lockedLog
			code := app.Main([]string{"-backend", "fake", "-transport", "http", "-listen", listen}, envMap(nil),
				app.Stdio{In: strings.NewReader(""), Out: &stdout, Err: &stderr})
			// Listening where others reach it without a token is a
			// wrong setting.
			if code != app.ExitUsage {
				t.Errorf("Main = %d, want %d", code, app.ExitUsage)
			}
			for _, want := range []string{"refusing to serve on " + listen, "-token-file", app.EnvToken} {
				if !strings.Contains(stderr.String(), want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
				}
			}
			if strings.Contains(stderr.String(), "serving MCP over HTTP") {
				t.Errorf("it served:\n%s", stderr.String())
			}
		})
	}

	url := startHTTP(t, map[string]string{app.EnvToken: transportToken}, "-listen", "0.0.0.0:0")
	if got := initialize(t, url, nil); got != http.StatusUnauthorized {
		t.Errorf("on 0.0.0.0 without a token: status %d, want 401", got)
	}
	if got := initialize(t, url, bearer(transportToken)); got != http.StatusOK {
		t.Errorf("on 0.0.0.0 with the token: status %d, want 200", got)
	}
}

func TestHTTPTransportRefusesRebindingHosts(t *testing.T) {
	plain := startHTTP(t, nil, "-listen", "127.0.0.1:0")
	guarded := startHTTP(t, map[string]string{app.EnvToken: transportToken}, "-listen", "127.0.0.1:0")
	port := func(url string) string { return strings.TrimSuffix(url[strings.LastIndex(url, ":")+1:], "/mcp") }
	tests := []struct {
		name   string
		url    string
		header map[string]string
		want   int
	}{
		{"rebound host", plain, map[string]string{"Host": "attacker.example:" + port(plain)}, http.StatusForbidden},
		{"rebound host, with the token", guarded,
			map[string]string{"Host": "attacker.example:" + port(guarded), "Authorization": "Bearer " + transportToken}, http.StatusForbidden},
		{"cross-origin page", plain, map[string]string{"Origin": "http://attacker.example"}, http.StatusForbidden},
		{"localhost", plain, map[string]string{"Host": "localhost:" + port(plain)}, http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := initialize(t, tt.url, tt.header); got != tt.want {
				t.Errorf("status %d, want %d", got, tt.want)
			}
		})
	}
}

func TestHTTPTransportRefusesAnUnusableToken(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"short", map[string]string{app.EnvToken: "hunter2"}, nil, "is 7 characters long"},
		{"empty file", nil, []string{"-token-file", writeTokenFile(t, " \n")}, "is empty"},
		{"missing file", nil, []string{"-token-file", filepath.Join(t.TempDir(), "none")}, "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr lockedLog
			args := append([]string{"-backend", "fake", "-transport", "http", "-listen", "127.0.0.1:0"}, tt.args...)
			code := app.Main(args, envMap(tt.env), app.Stdio{In: strings.NewReader(""), Out: &stdout, Err: &stderr})
			// A token that cannot be used is a wrong setting (status 2),
			// though it is found only as the transport starts.
			if code != app.ExitUsage {
				t.Errorf("Main = %d, want %d", code, app.ExitUsage)
			}
			if !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("stderr lacks %q:\n%s", tt.want, stderr.String())
			}
		})
	}
}

func TestLoadToken(t *testing.T) {
	tests := []struct {
		name   string
		file   string // contents; "" for no file
		token  string
		want   string
		errHas string
	}{
		{name: "none", want: ""},
		{name: "from the environment", token: transportToken, want: transportToken},
		{name: "from a file, white space trimmed", file: "\t" + transportToken + "\r\n", want: transportToken},
		{name: "the file wins", file: transportToken, token: "another-token-0123456789", want: transportToken},
		{name: "punctuation is fine", token: "a+b/c=d~e.f_g-h:i!", want: "a+b/c=d~e.f_g-h:i!"},
		{name: "too short", token: "0123456789abcde", errHas: "use at least 16"},
		{name: "inner space", token: "0123456789 abcdef", errHas: "holds a space"},
		{name: "non-ASCII", file: "0123456789abcdéf", errHas: "non-ASCII"},
		{name: "two lines", file: transportToken + "\n" + transportToken, errHas: "control character"},
		{name: "too long a file", file: strings.Repeat("a", 5000), errHas: "longer than 4096 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var file string
			if tt.file != "" {
				file = writeTokenFile(t, tt.file)
			}
			got, err := app.LoadToken(file, tt.token, zap.NewNop())
			if tt.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errHas) || !errors.Is(err, app.ErrInvalidSetting) {
					t.Fatalf("LoadToken = %q, %v; want an invalid setting saying %q", got, err, tt.errHas)
				}
				for _, secret := range []string{tt.file, tt.token} {
					if len(secret) > 8 && strings.Contains(err.Error(), strings.TrimSpace(secret)) {
						t.Errorf("the error shows the token: %v", err)
					}
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("LoadToken = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestLoadTokenWarnsOfAFileOthersCanRead(t *testing.T) {
	for _, mode := range []os.FileMode{0o600, 0o644} {
		path := writeTokenFile(t, transportToken)
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
		core, logs := observer.New(zapcore.WarnLevel)
		if _, err := app.LoadToken(path, "", zap.New(core)); err != nil {
			t.Fatal(err)
		}
		warned := logs.FilterMessageSnippet("chmod 600").Len() > 0
		if warned != (mode == 0o644) {
			t.Errorf("mode %v: warned = %v", mode, warned)
		}
	}
}

func TestLoopbackAddress(t *testing.T) {
	tests := map[string]bool{
		"127.0.0.1:8808": true,
		"127.1.2.3:1":    true,
		"localhost:8808": true,
		"LOCALHOST:1":    true,
		"[::1]:8808":     true,
		"0.0.0.0:8808":   false,
		"[::]:8808":      false,
		":8808":          false,
		"10.0.0.5:8808":  false,
		"example.com:80": false,
		"127.0.0.1":      false, // no port: not an address to listen on
	}
	for addr, want := range tests {
		if got := app.LoopbackAddress(addr); got != want {
			t.Errorf("LoopbackAddress(%q) = %v, want %v", addr, got, want)
		}
	}
}

// Resources over HTTP on the real domain and the fake terminal: reading a
// pane's screen, and hearing of its output once subscribed.
func TestHTTPTransportServesResourcesAndTheirUpdates(t *testing.T) {
	url := startHTTP(t, nil, "-listen", "127.0.0.1:0")
	ctx := context.Background()
	updates := make(chan string, 64)
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "transport-test", Version: "0"}, &sdk.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, req *sdk.ResourceUpdatedNotificationRequest) {
			updates <- req.Params.URI
		},
	}).Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	const content = "tmux://panes/0/content" // app.DemoPane, %0
	if _, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: content}); err != nil {
		t.Fatalf("read %s: %v", content, err)
	}
	sessions, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "tmux://sessions"})
	if err != nil || !strings.Contains(sessions.Contents[0].Text, `"sessions":[{`) {
		t.Errorf("read tmux://sessions = %v, %v; want the fake backend's session", sessions, err)
	}
	if err := cs.Subscribe(ctx, &sdk.SubscribeParams{URI: content}); err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "run_shell_command",
		Arguments: map[string]any{"paneId": string(app.DemoPane), "command": "echo subscribed"}})
	if err != nil || res.IsError {
		t.Fatalf("run_shell_command = %+v, %v", res, err)
	}
	select {
	case uri := <-updates:
		if uri != content {
			t.Errorf("update for %s, want %s", uri, content)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no update after the pane printed")
	}
	screen, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: content})
	if err != nil || !strings.Contains(screen.Contents[0].Text, "subscribed") {
		t.Errorf("read %s after the command = %v, %v; want its output on screen", content, screen, err)
	}
}

// Started at a terminal, the HTTP server says where it serves, how to
// connect and how to stop it, and says so when it stops; with stdin not a
// terminal it writes only its log lines.
func TestHTTPTransportAtATerminalSaysWhereItServesAndWhenItStops(t *testing.T) {
	tty, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer tty.Close()
	for _, at := range []struct {
		name string
		in   io.Reader
		note bool
	}{{"a terminal", tty, true}, {"a pipe", strings.NewReader(""), false}} {
		t.Run(at.name, func(t *testing.T) {
			cfg, err := app.ParseConfig([]string{"-backend", "fake", "-transport", "http", "-listen", "127.0.0.1:0"}, envMap(nil), &lockedLog{})
			if err != nil {
				t.Fatal(err)
			}
			var stderr lockedLog
			a := app.New(cfg, app.Stdio{In: at.in, Out: &lockedLog{}, Err: &stderr})
			ctx := context.Background()
			if err := a.Start(ctx); err != nil {
				t.Fatalf("start: %v\nstderr:\n%s", err, stderr.String())
			}
			m := servingURL.FindStringSubmatch(stderr.String())
			if m == nil {
				t.Fatalf("no URL in the log:\n%s", stderr.String())
			}
			url := "http://127.0.0.1:" + m[1] + "/mcp"
			banner := "tmux-mcp serves MCP over streamable HTTP at " + url
			if got := strings.Contains(stderr.String(), banner); got != at.note {
				t.Errorf("banner shown = %v, want %v:\n%s", got, at.note, stderr.String())
			}
			if at.note && !strings.Contains(stderr.String(), "Stop it: Ctrl-C") {
				t.Errorf("the banner does not say how to stop the server:\n%s", stderr.String())
			}
			if err := a.Stop(ctx); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(stderr.String(), "stopped serving MCP over HTTP") {
				t.Errorf("nothing said when it stopped:\n%s", stderr.String())
			}
		})
	}
}

func TestHTTPNoteNamesTheTokenOnlyWhenOneIsAsked(t *testing.T) {
	ws := app.Workspace{Panes: "a private tmux server of its own", Attach: "tmux -L x attach"}
	with, without := app.HTTPNote("http://127.0.0.1:8808/mcp", true, ws), app.HTTPNote("http://127.0.0.1:8808/mcp", false, ws)
	if !strings.Contains(with, "Authorization: Bearer") || strings.Contains(without, "Authorization") {
		t.Errorf("the token is named wrongly:\nwith a token:\n%s\nwithout:\n%s", with, without)
	}
	for _, want := range []string{"setup CLIENT --http http://127.0.0.1:8808/mcp", "tmux -L x attach", "Ctrl-C"} {
		if !strings.Contains(without, want) {
			t.Errorf("the note lacks %q:\n%s", want, without)
		}
	}
}
