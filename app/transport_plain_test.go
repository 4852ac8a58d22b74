package app_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
	"github.com/tmux-mcp/tmux-mcp/adapters/mcp"
	"github.com/tmux-mcp/tmux-mcp/app"
	"github.com/tmux-mcp/tmux-mcp/domain"
)

// The transports are plain values, as the fx guide asks of a module:
// started, stopped and watched without fx.

func plainServer(t *testing.T) *mcp.Server {
	t.Helper()
	term := fake.New()
	term.AddPane(fake.PaneSpec{})
	svc := domain.NewService(term, fake.NewClock(time.Now()), fake.NewIDs(), domain.DefaultConfig())
	t.Cleanup(func() { svc.Close() })
	srv := mcp.NewServer(svc, mcp.Options{})
	t.Cleanup(srv.Close)
	return srv
}

// stdin that ends ends the transport by itself, with exit code 0; what
// was asked before the end is answered on stdout.
func TestStdioTransportEndsWithItsInput(t *testing.T) {
	var out strings.Builder
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n")
	tr := app.NewStdioTransport(plainServer(t), zap.NewNop(), in, &out, io.Discard, app.StdioSettings{})
	if err := tr.Start(context.Background()); err != nil {
		t.Fatalf("Start = %v", err)
	}
	select {
	case code := <-tr.Ended():
		if code != 0 {
			t.Errorf("exit code %d, want 0 at the end of stdin", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the transport did not end with its input")
	}
	if err := tr.Stop(context.Background()); err != nil {
		t.Errorf("Stop after the end = %v", err)
	}
	if !strings.Contains(out.String(), `"id":1`) {
		t.Errorf("stdout = %q, want the ping answered", out.String())
	}
}

// Stop ends a transport whose input is still open.
func TestStdioTransportStops(t *testing.T) {
	r, w := io.Pipe()
	defer w.Close()
	tr := app.NewStdioTransport(plainServer(t), zap.NewNop(), r, io.Discard, io.Discard, app.StdioSettings{})
	if err := tr.Start(context.Background()); err != nil {
		t.Fatalf("Start = %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := tr.Stop(ctx); err != nil {
		t.Errorf("Stop = %v", err)
	}
}

// The HTTP transport listens at Start and refuses there what it must not
// serve; Stop ends it, and it did not end by itself meanwhile.
func TestHTTPTransportStartsAndStops(t *testing.T) {
	tr := app.NewHTTPTransport(plainServer(t), zap.NewNop(), app.HTTPSettings{Listen: "127.0.0.1:0"})
	if err := tr.Start(context.Background()); err != nil {
		t.Fatalf("Start = %v", err)
	}
	select {
	case code := <-tr.Ended():
		t.Fatalf("the transport ended by itself with %d", code)
	default:
	}
	if err := tr.Stop(context.Background()); err != nil {
		t.Errorf("Stop = %v", err)
	}

	open := app.NewHTTPTransport(plainServer(t), zap.NewNop(), app.HTTPSettings{Listen: "0.0.0.0:0"})
	if err := open.Start(context.Background()); !errors.Is(err, app.ErrTokenRequired) {
		t.Errorf("Start on every address with no token = %v, want ErrTokenRequired", err)
	}
}
