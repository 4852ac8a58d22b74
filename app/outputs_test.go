package app_test

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
	"github.com/tmux-mcp/tmux-mcp/app"
)

// The run output goes to a private directory under the state directory,
// removed when the application stops; the fake backend keeps it in
// memory; a budget of 0 keeps none.
func TestNewOutputStore(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	log := app.NewAdapterLogger(app.NewLogger(io.Discard))

	cfg := defaults()
	store, err := app.NewOutputStore(cfg, log)
	if err != nil || store == nil || store.Store == nil {
		t.Fatalf("NewOutputStore = %v, %v", store, err)
	}
	dirs, _ := filepath.Glob(filepath.Join(state, "tmux-mcp", "runs", "*"))
	if len(dirs) != 1 {
		t.Fatalf("directories under the state directory: %v, want one", dirs)
	}
	if fi, err := os.Stat(dirs[0]); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("the run output directory: %v, %v; want mode 0700", fi, err)
	}
	if err := store.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
	if err := store.Close(); err != nil {
		t.Errorf("a second Close = %v", err)
	}
	if _, err := os.Stat(dirs[0]); !os.IsNotExist(err) {
		t.Errorf("the directory outlived the application: %v", err)
	}

	cfg.Backend = app.BackendFake
	if store, _ := app.NewOutputStore(cfg, log); store == nil || store.Store == nil {
		t.Error("the fake backend keeps no output")
	} else if _, ok := store.Store.(*fake.OutputStore); !ok {
		t.Errorf("the fake backend keeps output in %T, want memory", store.Store)
	}

	cfg.Backend, cfg.OutputBudget = app.BackendTmux, 0
	if store, err := app.NewOutputStore(cfg, log); store == nil || store.Store != nil || err != nil {
		t.Errorf("a budget of 0: %v, %v; want no store", store, err)
	}

	// A state directory that cannot be made keeps nothing, and starts.
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o600)
	t.Setenv("XDG_STATE_HOME", file)
	cfg.OutputBudget = 1 << 20
	if store, err := app.NewOutputStore(cfg, log); store == nil || store.Store != nil || err != nil {
		t.Errorf("an unusable state directory: %v, %v; want no store, no error", store, err)
	}
}
