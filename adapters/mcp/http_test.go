package mcp

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
)

const httpTestToken = "k7Qx-2mZp_9vLr.4sWt~8bNc+3hJd/1fGy="

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{` +
	`"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"http-test","version":"0"}}}`

func newHTTPTestServer(t *testing.T, opts ...HTTPOption) *httptest.Server {
	t.Helper()
	srv := newResServer(t, newResStub(), fake.NewClock(time.Unix(0, 0)))
	hs := httptest.NewServer(srv.HTTPHandler(opts...))
	t.Cleanup(hs.Close)
	return hs
}

// post sends an initialize request to path, with the given headers, and
// returns the response, whose body the test need not close.
func post(t *testing.T, hs *httptest.Server, path string, header map[string]string) *http.Response {
	t.Helper()
	return postBody(t, hs, path, initializeBody, header)
}

// postBody is post with another message than initialize.
func postBody(t *testing.T, hs *httptest.Server, path, body string, header map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, hs.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := hs.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func TestHTTPBearerToken(t *testing.T) {
	hs := newHTTPTestServer(t, WithBearerToken(httpTestToken))
	tests := []struct {
		name      string
		path      string
		auth      string
		status    int
		challenge string // the WWW-Authenticate header of a 401
	}{
		{name: "no token", path: HTTPPath, status: http.StatusUnauthorized, challenge: `Bearer realm="tmux-mcp"`},
		{name: "wrong token", path: HTTPPath, auth: "Bearer not-the-token", status: http.StatusUnauthorized,
			challenge: `Bearer realm="tmux-mcp", error="invalid_token"`},
		{name: "token's prefix", path: HTTPPath, auth: "Bearer " + httpTestToken[:10], status: http.StatusUnauthorized,
			challenge: `Bearer realm="tmux-mcp", error="invalid_token"`},
		{name: "token with more", path: HTTPPath, auth: "Bearer " + httpTestToken + "x", status: http.StatusUnauthorized,
			challenge: `Bearer realm="tmux-mcp", error="invalid_token"`},
		{name: "another scheme", path: HTTPPath, auth: "Basic " + httpTestToken, status: http.StatusUnauthorized,
			challenge: `Bearer realm="tmux-mcp"`},
		{name: "scheme alone", path: HTTPPath, auth: "Bearer", status: http.StatusUnauthorized,
			challenge: `Bearer realm="tmux-mcp"`},
		{name: "other path without token", path: "/", status: http.StatusUnauthorized, challenge: `Bearer realm="tmux-mcp"`},
		{name: "the token", path: HTTPPath, auth: "Bearer " + httpTestToken, status: http.StatusOK},
		{name: "scheme in any case", path: HTTPPath, auth: "bEARER " + httpTestToken, status: http.StatusOK},
		{name: "other path with token", path: "/", auth: "Bearer " + httpTestToken, status: http.StatusNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			header := map[string]string{}
			if tt.auth != "" {
				header["Authorization"] = tt.auth
			}
			resp := post(t, hs, tt.path, header)
			if resp.StatusCode != tt.status {
				t.Errorf("status = %d, want %d", resp.StatusCode, tt.status)
			}
			if got := resp.Header.Get("WWW-Authenticate"); got != tt.challenge {
				t.Errorf("WWW-Authenticate = %q, want %q", got, tt.challenge)
			}
		})
	}
}

func TestHTTPWithoutTokenServesEveryLocalRequest(t *testing.T) {
	hs := newHTTPTestServer(t)
	if resp := post(t, hs, HTTPPath, nil); resp.StatusCode != http.StatusOK {
		t.Errorf("status = %d, want 200", resp.StatusCode)
	}
}

// bearerTransport adds a bearer token to every request.
type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func TestHTTPClientWithTheTokenWorks(t *testing.T) {
	hs := newHTTPTestServer(t, WithBearerToken(httpTestToken))
	ctx := context.Background()
	client := sdk.NewClient(&sdk.Implementation{Name: "http-test", Version: "0"}, nil)

	cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: hs.URL + HTTPPath,
		HTTPClient: &http.Client{Transport: bearerTransport{httpTestToken}}}, nil)
	if err != nil {
		t.Fatalf("connect with the token: %v", err)
	}
	defer cs.Close()
	tmpl, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil || len(tmpl.ResourceTemplates) == 0 {
		t.Errorf("resource templates = %v, %v; want some", tmpl, err)
	}

	if cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: hs.URL + HTTPPath,
		HTTPClient: &http.Client{Transport: bearerTransport{"wrong"}}}, nil); err == nil {
		cs.Close()
		t.Error("connect with a wrong token succeeded")
	}
}

// A call in a session that was never initialized is refused with Invalid
// Request, saying to initialize first, as over stdio (the SDK refuses it
// without a JSON-RPC code, which went out as code 0).
func TestHTTPRefusesACallBeforeInitializeWithAJSONRPCCode(t *testing.T) {
	hs := newHTTPTestServer(t)
	resp := postBody(t, hs, HTTPPath, `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`, nil)
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var reply struct {
		ID    int `json:"id"`
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	_, data, _ := strings.Cut(string(body), "data: ")
	if err := json.Unmarshal([]byte(strings.TrimSpace(data)), &reply); err != nil || reply.Error == nil {
		t.Fatalf("reply %q (%v); want a JSON-RPC error", body, err)
	}
	if reply.ID != 7 || reply.Error.Code != -32600 || !strings.Contains(reply.Error.Message, "initialize") {
		t.Errorf("reply %q; want Invalid Request (-32600) for id 7, saying to initialize first", body)
	}
}

func TestHTTPRefusesRebindingAndCrossOrigin(t *testing.T) {
	for _, guarded := range []bool{false, true} {
		var opts []HTTPOption
		auth := map[string]string{}
		if guarded {
			opts = append(opts, WithBearerToken(httpTestToken))
			auth["Authorization"] = "Bearer " + httpTestToken
		}
		hs := newHTTPTestServer(t, opts...)
		port := mustURL(t, hs.URL).Port()
		tests := []struct {
			name   string
			header map[string]string
			status int
		}{
			{"rebound name", map[string]string{"Host": "attacker.example:" + port}, http.StatusForbidden},
			{"rebound name, no port", map[string]string{"Host": "attacker.example"}, http.StatusForbidden},
			{"cross-site browser request", map[string]string{"Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
			{"foreign origin", map[string]string{"Origin": "http://attacker.example"}, http.StatusForbidden},
			{"localhost", map[string]string{"Host": "localhost:" + port}, http.StatusOK},
			{"same-origin browser request", map[string]string{"Sec-Fetch-Site": "same-origin"}, http.StatusOK},
		}
		for _, tt := range tests {
			name := tt.name
			if guarded {
				name += ", with the token"
			}
			t.Run(name, func(t *testing.T) {
				header := map[string]string{}
				for k, v := range auth {
					header[k] = v
				}
				for k, v := range tt.header {
					header[k] = v
				}
				if resp := post(t, hs, HTTPPath, header); resp.StatusCode != tt.status {
					t.Errorf("status = %d, want %d", resp.StatusCode, tt.status)
				}
			})
		}
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestHTTPEmptyTokenPanics(t *testing.T) {
	srv := newResServer(t, newResStub(), fake.NewClock(time.Unix(0, 0)))
	defer func() {
		if recover() == nil {
			t.Error("HTTPHandler(WithBearerToken(\"\")) did not panic: it would serve everyone")
		}
	}()
	srv.HTTPHandler(WithBearerToken(""))
}

func TestBearerToken(t *testing.T) {
	tests := []struct {
		header string
		token  string
		ok     bool
	}{
		{"Bearer abc", "abc", true},
		{"bearer abc", "abc", true},
		{"  Bearer   abc  ", "abc", true},
		{"Bearer", "", false},
		{"Bearer ", "", false},
		{"Basic abc", "", false},
		{"Bearerabc", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		token, ok := bearerToken(tt.header)
		if token != tt.token || ok != tt.ok {
			t.Errorf("bearerToken(%q) = %q, %v; want %q, %v", tt.header, token, ok, tt.token, tt.ok)
		}
	}
}
