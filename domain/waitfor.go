package domain

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// matchWindow is how much recent raw output wait_for_text matches against:
// enough for a pattern split across any number of writes, bounded so that
// a long wait over a chatty pane costs bounded memory and time.
const matchWindow = 256 << 10

// WaitForText waits until new output of the pane matches one of
// req.Patterns (substrings, or RE2 regular expressions with req.Regex),
// matching on text with escape sequences removed. Text already on the
// screen when the call begins does not count — AlreadyOnScreen says it was
// there — unless new output repeats it. It waits for output after
// req.Cursor when one is given, else after the moment of the call.
//
// Without patterns, any new output that is not only escape sequences ends
// the wait (outcome matched, Matched nil).
//
// Outcomes: matched; timed_out; pane_died; cancelled; output_lost, when
// the terminal lost output that a match could have been in, or the stream
// failed (StreamFailure says why).
//
// Errors: *ArgumentError for a bad request (no pattern, an invalid regular
// expression, a bad cursor); wrapped ports errors from the terminal.
func (s *Service) WaitForText(ctx context.Context, req WaitForTextRequest) (WaitForTextResult, error) {
	if req.TimeoutMs < 0 {
		return WaitForTextResult{}, &ArgumentError{Field: "timeoutMs", Reason: "must be at least 1"}
	}
	if req.MaxLines < 0 {
		return WaitForTextResult{}, &ArgumentError{Field: "maxLines", Reason: "must be at least 1"}
	}
	match, err := compilePatterns(req.Patterns, req.Regex)
	if err != nil {
		return WaitForTextResult{}, err
	}
	info, err := s.term.Pane(ctx, req.PaneID)
	if err != nil {
		return WaitForTextResult{}, fmt.Errorf("describe pane %s: %w", req.PaneID, err)
	}
	var start *cursor
	if req.Cursor != "" {
		c, err := s.checkCursor(req.Cursor, info)
		if err != nil {
			return WaitForTextResult{}, err
		}
		start = &c
	}
	stream, err := s.follow(ctx, info)
	if err != nil {
		return WaitForTextResult{}, err
	}
	c := cursor{Instance: s.instance, Pane: info.ID, Generation: info.Generation, Offset: stream.End()}
	if start != nil {
		if start.Offset > c.Offset {
			return WaitForTextResult{}, &ArgumentError{Field: "cursor", Reason: "points past the end of the pane's output; call without a cursor to start again"}
		}
		c.Offset = start.Offset
	}
	timeout := s.effectiveTimeout(req.TimeoutMs)
	res := WaitForTextResult{PaneID: info.ID, EffectiveTimeoutMs: timeout.Milliseconds()}
	if screen, err := s.CapturePane(ctx, CaptureRequest{PaneID: info.ID}); err == nil && len(req.Patterns) > 0 {
		_, res.AlreadyOnScreen = match(screen.Text)
	}

	tail := NewTail(s.maxLines(req.MaxLines), s.cfg.MaxResultBytes)
	out := NewTextNormalizer(tail)
	var window []byte
	w := s.newWaiter(timeout, req.Progress)
	defer w.stop()
	for res.Outcome == "" {
		chunk := stream.ReadFrom(c.Offset)
		res.MissedBytes += chunk.Missed
		if len(chunk.Data) > 0 {
			out.Write(chunk.Data)
			window = append(window, chunk.Data...)
			if len(window) > matchWindow {
				window = append(window[:0], window[len(window)-matchWindow:]...)
			}
			c.Offset = chunk.Offset + int64(len(chunk.Data))
			if p, ok := match(NormalizeTerminalText(window)); ok {
				res.Outcome = WaitMatched
				if len(req.Patterns) > 0 {
					res.Matched = &p
				}
				break
			}
		} else if chunk.Offset > c.Offset {
			c.Offset = chunk.Offset
		}
		switch {
		case chunk.Missed > 0:
			res.Outcome = WaitOutputLost
		case chunk.Ended != nil && (errors.Is(chunk.Ended, ports.ErrPaneDead) || errors.Is(chunk.Ended, ports.ErrPaneNotFound)):
			res.Outcome = WaitPaneDied
		case chunk.Ended != nil:
			why := chunk.Ended.Error()
			res.Outcome, res.StreamFailure = WaitOutputLost, &why
		}
		if res.Outcome != "" {
			break
		}
		select {
		case <-stream.Changed():
		case <-w.ticks():
			w.report()
		case <-w.done():
			res.Outcome = WaitTimedOut
		case <-ctx.Done():
			res.Outcome = WaitCancelled
		}
	}
	out.Flush()
	t := tail.Result()
	res.Output, res.DroppedLines, res.OmittedBytes, res.ReturnedBytes = t.Text, t.DroppedLines, t.OmittedBytes, t.ReturnedBytes
	res.Cursor = c.String()
	if screen, err := s.CapturePane(context.WithoutCancel(ctx), CaptureRequest{PaneID: info.ID, MaxLines: req.MaxLines}); err == nil {
		res.Screen = screen.Text
		res.ScreenClamped = screen.DroppedLines > 0 || screen.OmittedBytes > 0
	}
	return res, nil
}

// compilePatterns returns a matcher that reports the first pattern, as
// given, found in a text.
func compilePatterns(patterns []string, regex bool) (func(string) (string, bool), error) {
	if len(patterns) == 0 {
		// Without patterns, any new output ends the wait.
		return func(text string) (string, bool) { return "", text != "" }, nil
	}
	if !regex {
		for _, p := range patterns {
			if p == "" {
				return nil, &ArgumentError{Field: "patterns", Reason: "holds an empty pattern, which would match anything"}
			}
		}
		return func(text string) (string, bool) {
			for _, p := range patterns {
				if strings.Contains(text, p) {
					return p, true
				}
			}
			return "", false
		}, nil
	}
	res := make([]*regexp.Regexp, len(patterns))
	for i, p := range patterns {
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, &ArgumentError{Field: "patterns", Reason: fmt.Sprintf("%q is not an RE2 regular expression: %v", p, err)}
		}
		res[i] = re
	}
	return func(text string) (string, bool) {
		for i, re := range res {
			if re.MatchString(text) {
				return patterns[i], true
			}
		}
		return "", false
	}, nil
}
