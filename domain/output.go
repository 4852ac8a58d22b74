package domain

import (
	"io"

	"github.com/tmux-mcp/tmux-mcp/domain/runlog"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// Every run's whole output is kept (package runlog), not only the tail
// its result returns: the normalized text is teed into the run's
// runlog.Writer as it goes to the result's tail, and the run's id goes
// out with each of its results, for read_output (readoutput.go).

// WithOutputStore makes the Service keep the whole output of each run in
// store, Config.OutputBudget bytes of it for all runs. Without it the
// Service keeps none: every result still carries a run id, and reading
// it says that nothing was kept.
func WithOutputStore(store ports.OutputStore) Option {
	return func(s *Service) { s.store = store }
}

// teeOutput passes text to the result's pipeline and then to the run's
// kept output, whose writer never fails.
type teeOutput struct {
	result io.Writer
	kept   *runlog.Writer
}

func (t teeOutput) Write(p []byte) (int, error) {
	n, err := t.result.Write(p)
	_, _ = t.kept.Write(p)
	return n, err
}

// keep records what res says of the run's output with the kept output,
// and gives res the run's id.
func (r *commandRun) keep(res *RunResult) {
	res.RunID = r.out.ID()
	r.out.Account(runlog.Accounting{
		Missed:       res.MissedBytes,
		Replaced:     res.ReplacedBytes,
		Unterminated: res.UnterminatedBytes,
		Unattributed: res.UnattributedBytes,
		Abandoned:    res.Abandoned,
		Unverified:   res.Unverified,
		Foreign:      res.ForeignOutputSuspected,
	})
}

// emptyRun names the output of a command that never started: there is
// none, and reading it says so.
func (s *Service) emptyRun(pane ports.PaneID) string {
	w := s.outputs.Start(s.ids.NewID(), pane)
	w.Account(runlog.Accounting{})
	w.End()
	return w.ID()
}
