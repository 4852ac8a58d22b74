package benchkit

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmux-mcp/tmux-mcp/test/sshtest"
)

// The ssh row: run_shell_command `true` through a second server process
// that drives the same tmux server over ssh to localhost (-ssh), through
// a private sshd (test/sshtest), against the target of at most twice the
// local row's median. The second server gets a pane of its own.

// errNoSSH marks the ssh row where no private sshd can run.
var errNoSSH = errors.New("no private sshd here")

// sshRowName is the row's name, which -run matches.
const sshRowName = "run_shell_command `true` over ssh to localhost"

// localTrueRow names the row the ssh row is compared with.
const localTrueRow = "run_shell_command `true`"

// sshRow starts the sshd and the second server, and measures the row.
func (b *bench) sshRow() error {
	if b.only != nil && !b.only.MatchString(sshRowName) {
		return nil
	}
	r := row{name: sshRowName, untraced: "not traced: the -ssh server runs its tmux through ssh, not the wrapper"}
	var local *row
	for i := range b.rows {
		if b.rows[i].name == localTrueRow && len(b.rows[i].samples) > 0 {
			local = &b.rows[i]
		}
	}
	if local != nil {
		med := percentile(local.samples, 50)
		r.target = &target{
			desc: "≤ 2× local",
			met:  func(m time.Duration, _ floorMedians) bool { return m <= 2*med },
		}
		r.info = "local median " + ms(med)
	}
	var env []string
	if d := os.Getenv("TMUX_TMPDIR"); d != "" {
		env = append(env, "TMUX_TMPDIR="+d)
	}
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	d, err := sshtest.Start(ctx, sshtest.Options{Env: env})
	cancel()
	if err != nil {
		if errors.Is(err, sshtest.ErrMissing) {
			err = fmt.Errorf("%w: %v", errNoSSH, err)
		}
		r.err = err
		b.rows = append(b.rows, r)
		return nil
	}
	defer d.Stop()
	b.log("ssh: private sshd on port %d", d.Port)
	pane, err := b.tmux.newPane(b.ctx)
	if err != nil {
		return err
	}
	args := []string{"-ssh", sshtest.Host, "-ssh-config", d.ClientConfig, "-socket-name", b.tmux.Socket}
	srv, err := b.startServer(args, filepath.Join(b.dir, "server-ssh.log"))
	if err != nil {
		r.err = fmt.Errorf("start the server with -ssh: %w", err)
		b.rows = append(b.rows, r)
		return nil
	}
	defer srv.Stop()
	return b.measure(r, 3, b.n, func(int) (time.Duration, error) {
		start := time.Now()
		res, err := srv.Session.CallTool(b.ctx, &sdk.CallToolParams{Name: "run_shell_command",
			Arguments: map[string]any{"paneId": pane, "command": "true"}})
		d := time.Since(start)
		if err != nil {
			return 0, err
		}
		if res.IsError {
			return 0, fmt.Errorf("tool error: %s", resultText(res))
		}
		m, _ := res.StructuredContent.(map[string]any)
		return d, checkCompleted(m)
	})
}
