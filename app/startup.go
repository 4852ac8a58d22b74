package app

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"syscall"

	"go.uber.org/dig"
	"go.uber.org/fx/fxevent"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/tmux-mcp/tmux-mcp/adapters/tmux"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// StartError is why the server did not start, said for the person who
// started it: the cause, and what to do about it. The constructors of the
// application return one where they know more than the error beneath
// (which setting is at fault, and the fix); Explain finds it under fx's
// chain of the constructors that needed it.
type StartError struct {
	Cause string // what went wrong, naming the setting or program
	Fix   string // what to do; empty when the cause says it
	// Setting says a setting is wrong (exit status 2), rather than
	// something the server needs being missing or out of reach (1).
	Setting bool
	Err     error // what failed beneath, for errors.Is; may be nil
}

func (e *StartError) Error() string {
	if e.Fix == "" {
		return e.Cause
	}
	return e.Cause + ": " + e.Fix
}

func (e *StartError) Unwrap() error { return e.Err }

// Explain returns what Main prints when the server does not start (one
// or two lines, without the "tmux-mcp: " prefix) and the exit status: the
// *StartError under err when there is one; else the error fx's chain of
// constructors ends with, which is the real failure, never the chain. A
// setting refused as the server started (ErrInvalidSetting) exits 2, like
// one refused before; anything else 1.
func Explain(err error) (msg string, code int) {
	var se *StartError
	if errors.As(err, &se) {
		if se.Setting || errors.Is(se.Err, ErrInvalidSetting) {
			return se.Error(), ExitUsage
		}
		return se.Error(), ExitFailure
	}
	root := dig.RootCause(err)
	var sshErr *tmux.SSHError
	switch {
	case errors.As(root, &sshErr):
		return sshErr.Error(), ExitFailure
	case errors.Is(root, ErrInvalidSetting):
		return root.Error(), ExitUsage
	}
	return root.Error(), ExitFailure
}

// tmuxNotFound explains a tmux binary that cannot be run.
func tmuxNotFound(bin string, err error) *StartError {
	if bin == "" {
		return &StartError{Cause: "tmux not found on PATH",
			Fix: "install it (apt-get install tmux, brew install tmux) or pass -tmux-bin PATH " +
				"(a desktop app may not see your shell's PATH; `command -v tmux` prints the path)", Err: err}
	}
	return &StartError{Cause: fmt.Sprintf("-tmux-bin %q: %v", bin, rootOf(err)),
		Fix: "name the tmux binary (`command -v tmux` prints its path), or leave -tmux-bin out to use tmux on PATH", Err: err}
}

// checkLocalPrograms looks for the programs a local tmux backend runs
// before it runs any: the tmux binary, and the -shell a private server is
// to run, so that neither is reported as a failure deep in tmux.
func checkLocalPrograms(cfg Config) error {
	bin := cfg.TmuxBin
	if bin == "" {
		bin = "tmux"
	}
	if _, err := exec.LookPath(bin); err != nil {
		return tmuxNotFound(cfg.TmuxBin, err)
	}
	if cfg.Shell != "" {
		if _, err := exec.LookPath(cfg.Shell); err != nil {
			return &StartError{Cause: fmt.Sprintf("-shell %q: %v", cfg.Shell, rootOf(err)),
				Fix:     "name an installed shell (bash, zsh, dash, ksh, fish, sh) or its path, or leave -shell out for your login shell",
				Setting: true, Err: err}
		}
	}
	return nil
}

// unavailable is a backend that could not be reached at the start, such
// as a tmux too old: the adapter's error says what, and doctor checks the
// rest.
func unavailable(err error) error {
	if !errors.Is(err, ports.ErrUnavailable) {
		return err
	}
	return &StartError{Cause: err.Error(), Fix: "`tmux-mcp doctor` checks what the server needs", Err: err}
}

// listenError explains an address the HTTP transport cannot listen on.
func listenError(addr string, err error) *StartError {
	fix := "choose another address with -listen, such as " + DefaultListen
	if errors.Is(err, syscall.EADDRINUSE) {
		fix = "another program listens there (another tmux-mcp?); stop it or choose another port with -listen"
	}
	return &StartError{Cause: fmt.Sprintf("-listen %s: %v", addr, rootOf(err)), Fix: fix, Setting: true, Err: err}
}

// rootOf is the innermost error under err that still says something:
// what an *fs.PathError, *exec.Error, *os.SyscallError or *net.OpError holds, beneath the
// operation and path the caller names itself.
func rootOf(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err // the caller names the path
	}
	var ee *exec.Error
	if errors.As(err, &ee) {
		return ee.Err
	}
	var se *os.SyscallError
	if errors.As(err, &se) {
		return se.Err
	}
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Err != nil {
		return oe.Err
	}
	return err
}

// quietStartErrors is fx's event logger without the events that carry a
// failure of the start: Main reports those itself, as Explain says them,
// where fx would log its whole chain of constructors.
type quietStartErrors struct{ fxevent.Logger }

// NewFxLogger returns fx's event logger on z. fx's own chatter (every
// provide and invoke) goes out at debug level, below what NewLogger
// writes; a failure of the start is left to Main (see quietStartErrors),
// and the other errors still show.
func NewFxLogger(z *zap.Logger) fxevent.Logger {
	l := &fxevent.ZapLogger{Logger: z}
	l.UseLogLevel(zapcore.DebugLevel)
	return quietStartErrors{l}
}

func (q quietStartErrors) LogEvent(e fxevent.Event) {
	switch e := e.(type) {
	case *fxevent.Invoked:
		if e.Err != nil {
			return
		}
	case *fxevent.Provided:
		if e.Err != nil {
			return
		}
	case *fxevent.Run:
		if e.Err != nil {
			return
		}
	case *fxevent.Started:
		if e.Err != nil {
			return
		}
	case *fxevent.OnStartExecuted:
		if e.Err != nil {
			return
		}
	case *fxevent.RollingBack:
		return
	}
	q.Logger.LogEvent(e)
}
