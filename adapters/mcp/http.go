package mcp

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPPath is where HTTPHandler serves MCP.
const HTTPPath = "/mcp"

// An HTTPOption configures HTTPHandler.
type HTTPOption func(*httpConfig)

type httpConfig struct {
	token string
}

// WithBearerToken makes HTTPHandler refuse, with 401 Unauthorized, every
// request that does not carry the header "Authorization: Bearer token".
// HTTPHandler panics when token is empty, since a server meant to be
// guarded must not silently serve everyone: the caller checks the setting.
func WithBearerToken(token string) HTTPOption {
	return func(c *httpConfig) {
		if token == "" {
			panic("mcp: WithBearerToken with an empty token")
		}
		c.token = token
	}
}

// HTTPHandler serves the MCP streamable HTTP transport at HTTPPath, one
// session per client, every session on this Server (so pane reservations
// hold across clients). Since the tools run commands as the user, it
//
//   - keeps the SDK's DNS-rebinding protection: a request that arrives on
//     a loopback address is refused (403) unless its Host is a loopback
//     name or address, so that a web page whose name was rebound to
//     127.0.0.1 cannot reach the server;
//   - refuses cross-origin requests from browsers (403);
//   - with WithBearerToken, refuses (401) every request, on any path,
//     without the token. The token is compared in constant time;
//   - refuses (400, with a JSON-RPC invalid-request error under the
//     call's id) a message whose text is not what its client wrote, as
//     the stdio transport does (see textProblem), before the SDK reads it.
//
// A request body may be as large as a stdio message (16 MiB), so that large
// pastes work on both transports; a call whose HTTP request goes away is
// cancelled.
func (s *Server) HTTPHandler(opts ...HTTPOption) http.Handler {
	var cfg httpConfig
	for _, o := range opts {
		o(&cfg)
	}
	mcpHandler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.sdk },
		&sdk.StreamableHTTPOptions{
			Logger:                       s.sdkLogger,
			MaxRequestBodyBytes:          sdk.DefaultMaxLineLength,
			PropagateRequestCancellation: true,
		})
	mux := http.NewServeMux()
	mux.Handle(HTTPPath, http.NewCrossOriginProtection().Handler(codeUninitializedRefusals(refuseAlteredText(mcpHandler))))
	if cfg.token == "" {
		return mux
	}
	return requireBearer(cfg.token, mux)
}

// The SDK refuses a call in a session that was never initialized with an
// error that has no JSON-RPC code, which it writes as code 0
// (stdioOut.wireError gives it its code on stdio). Over HTTP, a request
// without a session id starts a session, so a reply to it that holds such
// an error holds that refusal: codeUninitializedRefusals makes it Invalid
// Request. The SDK writes each message with one Write (the JSON body, or
// one server-sent event), so each Write is looked at whole.
var (
	codelessError     = []byte(`"error":{"code":0,"message":"`)
	uninitializedCall = []byte(`"error":{"code":-32600,"message":"` + beforeInitialize)
)

// beforeInitialize opens the message of a call refused for coming before
// initialize, on both transports.
const beforeInitialize = "Invalid Request (send initialize first): "

func codeUninitializedRefusals(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.Header.Get("Mcp-Session-Id") == "" {
			w = &codingWriter{ResponseWriter: w}
		}
		next.ServeHTTP(w, r)
	})
}

// codingWriter is codeUninitializedRefusals' writer.
type codingWriter struct{ http.ResponseWriter }

func (w *codingWriter) Write(b []byte) (int, error) {
	if !bytes.Contains(b, codelessError) {
		return w.ResponseWriter.Write(b)
	}
	if _, err := w.ResponseWriter.Write(bytes.ReplaceAll(b, codelessError, uninitializedCall)); err != nil {
		return 0, err
	}
	return len(b), nil
}

// Unwrap lets http.ResponseController, with which the SDK flushes each
// event, reach the connection's writer.
func (w *codingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// bearerRealm names the server in the WWW-Authenticate challenge.
const bearerRealm = `Bearer realm="` + Name + `"`

// requireBearer passes on only the requests that carry token as a bearer
// token (RFC 6750). The token's digest is kept and compared, rather than
// the token itself, so that the comparison takes the same time whatever
// the length of what a client sends.
func requireBearer(token string, next http.Handler) http.Handler {
	want := sha256.Sum256([]byte(token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, ok := bearerToken(r.Header.Get("Authorization"))
		if !ok {
			w.Header().Set("WWW-Authenticate", bearerRealm)
			http.Error(w, "Unauthorized: this server requires the header \"Authorization: Bearer <token>\" "+
				"with the token it was started with (-token-file or TMUX_MCP_TOKEN)", http.StatusUnauthorized)
			return
		}
		sum := sha256.Sum256([]byte(got))
		if subtle.ConstantTimeCompare(sum[:], want[:]) != 1 {
			w.Header().Set("WWW-Authenticate", bearerRealm+`, error="invalid_token"`)
			http.Error(w, "Unauthorized: the bearer token is not this server's", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// bearerToken returns the token of an Authorization header value of the
// Bearer scheme, whose name is case-insensitive (RFC 9110, 11.1).
func bearerToken(header string) (string, bool) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(header), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}
