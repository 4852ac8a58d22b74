package domain

import (
	"context"
	"errors"
	"fmt"

	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/domain/pattern"
	"github.com/tmux-mcp/tmux-mcp/domain/runlog"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// MaxContext bounds read_output's context lines on each side of a match.
const MaxContext = 100

// ReadOutputRequest is a read_output call.
type ReadOutputRequest struct {
	RunID string
	// StartLine is the first line to read or search, counting from 1;
	// 0 means 1. Negative values are refused.
	StartLine int64
	// MaxLines bounds the lines returned; 0 means the server default.
	// Negative values are refused.
	MaxLines int64
	// Grep, if not empty, returns only the lines that hold it (a
	// substring, or with Regex an RE2 regular expression), with Context
	// lines on each side (at most MaxContext).
	Grep    string
	Regex   bool
	Context int64
}

// ReadOutputResult is what read_output reports.
type ReadOutputResult struct {
	RunID  string
	PaneID ports.PaneID
	// Text holds the lines, without their final line end; with Grep,
	// each as "N:line", context lines as "N-line", and "--" between
	// groups that are apart, as grep -n -C prints them.
	Text          string
	StartLine     int64
	ReturnedLines int64
	TotalLines    int64  // lines kept so far
	NextLine      *int64 // where the next page starts; nil when this one reached the end
	Searched      bool   // Grep was given
	MatchedLines  int64  // with Grep: the lines from StartLine on that match, all of them
	ReturnedBytes int64
	OmittedBytes  int64 // bytes of lines in the page that Text does not hold (longer than the ceiling)
	// StoredBytes is what the server kept of the run's output; CutBytes
	// what it did not keep, after that, and CutReason why (the budget).
	StoredBytes int64
	CutBytes    int64
	CutReason   string
	// The run's accounting, as its result last gave it.
	MissedBytes            int64
	ReplacedBytes          int64
	UnterminatedBytes      int64
	UnattributedBytes      int64
	ForeignOutputSuspected bool
	Abandoned              bool
	Unverified             bool
	// StillRunning: the command may still print; TotalLines may grow.
	StillRunning bool
	// OutputComplete: the server holds the whole of what the command
	// printed: it ended, nothing was cut, and its result lost nothing.
	OutputComplete bool
}

// ReadOutput reads a page of a run's kept output, from StartLine on, or
// the lines from there that match Grep, with context; the run is named
// by the runId a run_shell_command or wait_for_command result gave. A
// run still running is read as far as it has got.
//
// Errors: *fault.ArgumentError for a bad request, a bad pattern
// included (its field "grep"); an error wrapping ports.ErrRunNotFound for
// an id no result of this Service gave (or one older than it remembers),
// and ports.ErrRunEvicted for a run whose output was let go to keep
// within the budget.
func (s *Service) ReadOutput(ctx context.Context, req ReadOutputRequest) (ReadOutputResult, error) {
	switch {
	case req.RunID == "":
		return ReadOutputResult{}, &fault.ArgumentError{Field: "runId", Reason: "is empty; give the runId of a run_shell_command result"}
	case req.StartLine < 0:
		return ReadOutputResult{}, &fault.ArgumentError{Field: "startLine", Reason: "must be at least 1"}
	case req.MaxLines < 0:
		return ReadOutputResult{}, &fault.ArgumentError{Field: "maxLines", Reason: "must be at least 1"}
	case req.Context < 0 || req.Context > MaxContext:
		return ReadOutputResult{}, &fault.ArgumentError{Field: "context", Reason: fmt.Sprintf("must be from 0 to %d", MaxContext)}
	case req.Context > 0 && req.Grep == "":
		return ReadOutputResult{}, &fault.ArgumentError{Field: "context", Reason: "is for grep; give grep too, or leave context out"}
	case req.Regex && req.Grep == "":
		return ReadOutputResult{}, &fault.ArgumentError{Field: "regex", Reason: "is for grep; give grep too, or leave regex out"}
	}
	if err := ctx.Err(); err != nil {
		return ReadOutputResult{}, err
	}
	q := runlog.Query{RunID: req.RunID, Start: req.StartLine, MaxLines: s.maxLines(req.MaxLines),
		MaxBytes: s.cfg.MaxResultBytes, Context: int(req.Context)}
	if req.Grep != "" {
		set, err := pattern.Compile([]string{req.Grep}, req.Regex)
		if err != nil {
			var arg *fault.ArgumentError
			if errors.As(err, &arg) {
				return ReadOutputResult{}, &fault.ArgumentError{Field: "grep", Reason: arg.Reason}
			}
			return ReadOutputResult{}, err
		}
		q.Match = func(line string) bool { _, ok := set.Match(line); return ok }
	}
	p, err := s.outputs.Read(q)
	if err != nil {
		return ReadOutputResult{}, err
	}
	res := ReadOutputResult{
		RunID: p.RunID, PaneID: p.Pane, Text: p.Text,
		StartLine: p.StartLine, ReturnedLines: p.ReturnedLines, TotalLines: p.TotalLines,
		Searched: q.Match != nil, MatchedLines: p.MatchedLines,
		ReturnedBytes: p.ReturnedBytes, OmittedBytes: p.OmittedBytes,
		StoredBytes: p.StoredBytes, CutBytes: p.CutBytes, CutReason: p.CutReason,
		MissedBytes: p.Missed, ReplacedBytes: p.Replaced, UnterminatedBytes: p.Unterminated, UnattributedBytes: p.Unattributed,
		ForeignOutputSuspected: p.Foreign, Abandoned: p.Abandoned, Unverified: p.Unverified,
		StillRunning: p.Running, OutputComplete: p.Complete(),
	}
	if p.NextLine > 0 {
		res.NextLine = &p.NextLine
	}
	return res, nil
}
