package app_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"go.uber.org/fx"

	"github.com/tmux-mcp/tmux-mcp/app"
)

// failingApp is an application whose one constructor, needed by its one
// invoke, fails with err: fx's chain of constructors above the error.
func failingApp(err error) error {
	type backend struct{}
	return fx.New(
		fx.NopLogger,
		fx.Provide(func() (*backend, error) { return nil, err }),
		fx.Invoke(func(*backend) {}),
	).Err()
}

func TestExplainSaysTheCauseAndTheFixNeverTheChain(t *testing.T) {
	tests := []struct {
		name string
		err  error
		msg  string
		code int
	}{
		{"a setting", &app.StartError{Cause: "-shell \"nosuch\": not found", Fix: "name an installed shell", Setting: true},
			"-shell \"nosuch\": not found: name an installed shell", app.ExitUsage},
		{"a backend out of reach", &app.StartError{Cause: "tmux not found on PATH", Fix: "install it"},
			"tmux not found on PATH: install it", app.ExitFailure},
		{"an invalid setting found at the start", fmt.Errorf("%w: the token is short", app.ErrInvalidSetting),
			"invalid setting: the token is short", app.ExitUsage},
		{"anything else", errors.New("list the panes of the private session: boom"),
			"list the panes of the private session: boom", app.ExitFailure},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chained := failingApp(tt.err)
			if !strings.Contains(chained.Error(), "could not build arguments") {
				t.Fatalf("fx's error is not the chain this test means: %v", chained)
			}
			msg, code := app.Explain(chained)
			if msg != tt.msg || code != tt.code {
				t.Errorf("Explain = %q, %d; want %q, %d", msg, code, tt.msg, tt.code)
			}
		})
	}
}
