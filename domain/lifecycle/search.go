package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/domain/pattern"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// Bounds of search_panes.
const (
	DefaultSearchMatches = 100       // rows returned when a call gives no bound
	MaxSearchMatches     = 1000      // the most rows one call returns
	MaxSearchLineBytes   = 512       // the most of one row's text returned
	MaxSearchBytes       = 256 << 10 // the most text one call returns, all rows together
	MaxSearchRows        = 100_000   // the most rows of one pane searched, its newest
)

// SearchPanes looks for text in the visible screens of the panes of one
// session or of all, and in the rows above them with History: each pane's
// rows as the terminal shows them (Capture: no escape sequences, no
// trailing blanks, wrapped rows not joined), matched one row at a time.
// It reports the matching rows of each pane with their row numbers, the
// first MaxMatches of them in listing order, top to bottom, within
// MaxSearchBytes of text, each row cut to MaxSearchLineBytes around its
// first match. Reading is never refused: nothing is held, and a pane that
// is gone before its rows are read is skipped.
//
// Errors: *fault.ArgumentError for patterns that pattern.Compile refuses
// (none, one that matches without a character, a regular expression that
// RE2 does not accept) or a negative bound; wrapped ports
// errors (ErrNotFound for an unknown session, ErrUnavailable); ctx's.
func (s *Service) SearchPanes(ctx context.Context, req SearchPanesRequest) (SearchPanesResult, error) {
	l, err := require("search_panes", s.b.Lister)
	if err != nil {
		return SearchPanesResult{}, err
	}
	set, err := pattern.Compile(req.Patterns, req.Regex)
	if err != nil {
		return SearchPanesResult{}, err
	}
	res := SearchPanesResult{Panes: []PaneMatches{}, MaxMatches: req.MaxMatches}
	switch {
	case req.MaxMatches < 0:
		return SearchPanesResult{}, &fault.ArgumentError{Field: "maxMatches", Reason: "must be at least 1"}
	case req.MaxMatches == 0:
		res.MaxMatches = DefaultSearchMatches
	case req.MaxMatches > MaxSearchMatches:
		res.MaxMatches = MaxSearchMatches
	}
	panes, err := l.ListPanes(ctx, ports.PaneFilter{Session: req.Session})
	if err != nil {
		if req.Session != "" {
			return SearchPanesResult{}, fmt.Errorf("search the panes of session %s: %w", req.Session, err)
		}
		return SearchPanesResult{}, fmt.Errorf("search the panes: %w", err)
	}
	bytes := 0
	for _, p := range panes {
		if err := ctx.Err(); err != nil {
			return SearchPanesResult{}, err
		}
		rows, first, clamped, err := s.rowsOf(ctx, p.ID, p.Height, req.History)
		switch {
		case errors.Is(err, ports.ErrPaneNotFound):
			res.PanesGone++
			continue
		case err != nil:
			return SearchPanesResult{}, err
		}
		res.PanesSearched++
		res.RangeClamped = res.RangeClamped || clamped
		found := PaneMatches{PaneID: p.ID, Session: p.Session, Window: p.Window}
		for i, row := range rows {
			matched, at, ok := set.Find(row)
			if !ok {
				continue
			}
			text, cut := around(row, at)
			if res.Matches == res.MaxMatches || bytes+len(text) > MaxSearchBytes {
				res.Truncated = true
				break
			}
			found.Lines = append(found.Lines, LineMatch{Row: first + i, Text: text, Cut: cut, Pattern: matched})
			res.Matches++
			bytes += len(text)
		}
		if len(found.Lines) > 0 {
			res.Panes = append(res.Panes, found)
		}
		if res.Truncated {
			break
		}
	}
	return res, nil
}

// rowsOf reads the pane's visible screen, height rows as listed (0: not
// known), and its history too with history, at most the newest
// MaxSearchRows rows. It returns them with the number of the first, and
// whether rows were left out to keep within MaxSearchRows.
func (s *Service) rowsOf(ctx context.Context, id ports.PaneID, height int, history bool) (rows []string, first int, clamped bool, err error) {
	last := height - 1
	if history || height <= 0 {
		// How far back the history reaches (and how high a screen the
		// listing did not tell is) takes describing the pane; a screen of
		// known height is read with one capture.
		info, err := s.panes.Pane(ctx, id)
		if err != nil {
			return nil, 0, false, err
		}
		last = info.Height - 1
		if history {
			first = -info.HistorySize
		}
	}
	if last-first+1 > MaxSearchRows {
		first, clamped = last-MaxSearchRows+1, true
	}
	if first > last {
		return nil, 0, clamped, nil
	}
	// The backend's errors name the pane and what was done.
	rows, err = s.panes.Capture(ctx, id, ports.CaptureRange{Start: first, End: last})
	if err != nil {
		return nil, 0, false, err
	}
	return rows, first, clamped, nil
}

// around returns the row, or when it is longer than MaxSearchLineBytes the
// part of it that holds the match starting at byte at, a little of what
// comes before the match first, cut at character boundaries.
func around(row string, at int) (string, bool) {
	if len(row) <= MaxSearchLineBytes {
		return row, false
	}
	start := max(0, at-MaxSearchLineBytes/4)
	end := min(len(row), start+MaxSearchLineBytes)
	start = max(0, end-MaxSearchLineBytes)
	for start < end && !utf8.RuneStart(row[start]) {
		start++
	}
	for end < len(row) && end > start && !utf8.RuneStart(row[end]) {
		end--
	}
	return row[start:end], true
}
