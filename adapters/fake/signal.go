package fake

import (
	"context"
	"fmt"
	"slices"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// SentSignal is a signal SignalGroup sent, as Signals records it.
type SentSignal struct {
	Group  int
	Signal ports.Signal
}

// SignalGroup sends sig to the process group of the command the pane's
// shell runs, the one group on its terminal besides the shell's: the
// command's job, whose pid Foreground reports while it runs. The command
// ends as a real one does: INT as C-c ends it (ignored by a Run that
// ignores interrupts), TERM, HUP and KILL with status 128+n, which a
// framed command's end marker carries, unless the frame runs in the shell
// itself and the signal is INT, which makes the shell drop the rest of the
// line (as a Run that is Untrapped). The shell's own group, or any other,
// is an error wrapping ports.ErrNoGroup and nothing is sent. With no job
// control (SetNoJobControl) it is ErrUnsupported.
func (t *Terminal) SignalGroup(ctx context.Context, id ports.PaneID, pgid int, sig ports.Signal) ([]ports.Process, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	what := "signal process group " + fmt.Sprint(pgid) + " in pane %s"
	p, err := t.lookupLive(ctx, id, what)
	if err != nil {
		return nil, err
	}
	j := p.job
	switch {
	case t.noJobs:
		return nil, fmt.Errorf(what+": %w", id, ports.ErrUnsupported)
	case sig.Number() == 0:
		return nil, fmt.Errorf(what+": no signal %q", id, sig)
	case pgid == p.pid:
		return nil, fmt.Errorf(what+": it is the pane's own process's: %w", id, ports.ErrNoGroup)
	case j == nil || j.keepsTerm || pgid != j.pid:
		return nil, fmt.Errorf(what+": %w", id, ports.ErrNoGroup)
	}
	p.signals = append(p.signals, SentSignal{Group: pgid, Signal: sig})
	command := j.fg
	if command == "" {
		command = p.shellName
	}
	procs := []ports.Process{{PID: j.pid, Command: command}}
	switch {
	case sig == ports.SignalINT && j.ignoreInt:
	case sig == ports.SignalINT && j.persist:
		j.untrapped = true
		p.interrupt()
	case sig == ports.SignalINT:
		p.interrupt()
	default:
		p.stopJob()
		if j.framed {
			p.frameEnded(j, 128+sig.Number())
		} else {
			p.emit([]byte("\r\n"))
		}
		p.prompt()
	}
	return procs, nil
}

// Signals returns the signals SignalGroup sent into the pane, in order.
func (t *Terminal) Signals(id ports.PaneID) []SentSignal {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.must(id).signals)
}

var _ ports.Signaler = (*Terminal)(nil)

// ProcessExists reports whether pid is a process of the pane's that runs
// (ports.ProcessChecker): its shell's, its command's, or its prompt's
// program's. With no job control (SetNoJobControl) it is ErrUnsupported.
func (t *Terminal) ProcessExists(ctx context.Context, id ports.PaneID, pid int) (bool, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p, err := t.lookup(ctx, id, "look for a process of pane %s")
	switch {
	case err != nil:
		return false, err
	case t.noJobs:
		return false, fmt.Errorf("look for a process of pane %s: %w", id, ports.ErrUnsupported)
	}
	return pid > 0 && (pid == p.pid || p.job != nil && pid == p.job.pid || pid == p.promptJob), nil
}

var _ ports.ProcessChecker = (*Terminal)(nil)

// NestedShellExits makes the shell that runs the pane's command exit in
// the middle of it, as a shell nested in the pane's own does when a
// command run in it (persist) runs exit: no status is written, no end
// marker printed, and the pane's own shell, another process, is back at
// its prompt.
func (t *Terminal) NestedShellExits(id ports.PaneID) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.mustLive(id)
	p.stopJob()
	p.pid = t.newPID()
	p.output("exit\n")
	p.prompt()
}
