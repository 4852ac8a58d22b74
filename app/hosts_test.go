package app_test

import (
	"bytes"
	"strings"
	"testing"

	"go.uber.org/fx"

	"github.com/tmux-mcp/tmux-mcp/app"
)

// The backend of several hosts wires as the one of a single tmux server
// does: every module finds what it needs (the graph is checked, no
// constructor run, nothing connected).
func TestSeveralHostsWire(t *testing.T) {
	cfg, err := app.ParseConfig([]string{"-ssh", "web1", "-ssh", "web2"}, func(string) string { return "" }, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	std := app.Stdio{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &stderr}
	err = fx.ValidateApp(
		fx.NopLogger,
		fx.Supply(&app.Undo{}),
		app.LoggingModule(std.Err),
		app.ConfigModule(cfg),
		app.BackendModule(cfg),
		app.DomainModule,
		app.AuditModule,
		app.MCPModule,
		app.TransportModule(cfg, std),
	)
	if err != nil {
		t.Fatalf("the graph of -ssh web1 -ssh web2: %v", err)
	}
}
