package domain

import (
	"bytes"
	"context"
	"errors"

	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/domain/pattern"
	"github.com/tmux-mcp/tmux-mcp/domain/termtext"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// regexSpan is how far back in the text a regular expression's match may
// start before the newest output: enough for a pattern split across any
// number of writes, bounded so that each new chunk of a chatty pane costs
// a bounded search, not a search of everything read so far.
const regexSpan = 64 << 10

// textMatcher normalizes a pane's new output once, as it arrives, and
// searches only the part that could hold a match it has not searched yet:
// the newest text plus an overlap long enough for a match that began
// earlier.
type textMatcher struct {
	norm     *termtext.Normalizer
	done     bytes.Buffer // complete lines, the newest 2*overlap bytes at most
	searched int          // bytes of done already searched
	overlap  int
	match    func(string) (string, bool)
}

// newTextMatcher returns a matcher of set's patterns; a nil set matches
// any text (wait_for_text without patterns).
func newTextMatcher(set *pattern.Set) *textMatcher {
	m := &textMatcher{match: anyText, overlap: 1}
	if set != nil {
		m.match = set.Match
		if set.Regex() {
			m.overlap = regexSpan
		}
		for _, p := range set.Patterns() {
			m.overlap = max(m.overlap, len(p))
		}
	}
	m.norm = termtext.NewNormalizer(&m.done)
	return m
}

// anyText is the match of a wait without patterns: any new output that is
// not only escape sequences ends it.
func anyText(text string) (string, bool) { return "", text != "" }

// feed takes raw output and reports the first pattern now found in it.
func (m *textMatcher) feed(p []byte) (string, bool) {
	m.norm.Write(p)
	from := max(0, m.searched-m.overlap)
	text := make([]byte, 0, m.done.Len()-from+len(m.norm.Pending()))
	text = append(append(text, m.done.Bytes()[from:]...), m.norm.Pending()...)
	m.searched = m.done.Len()
	if n := m.done.Len(); n > 2*m.overlap+4096 {
		cut := n - m.overlap
		m.done.Next(cut)
		m.searched -= cut
	}
	return m.match(string(text))
}

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
// Errors: *fault.ArgumentError for a bad request (a pattern that
// pattern.Compile refuses, a bad cursor); wrapped ports errors from the
// terminal.
func (s *Service) WaitForText(ctx context.Context, req WaitForTextRequest) (WaitForTextResult, error) {
	if req.TimeoutMs < 0 {
		return WaitForTextResult{}, &fault.ArgumentError{Field: "timeoutMs", Reason: "must be at least 1"}
	}
	if req.MaxLines < 0 {
		return WaitForTextResult{}, &fault.ArgumentError{Field: "maxLines", Reason: "must be at least 1"}
	}
	var set *pattern.Set
	if len(req.Patterns) > 0 {
		var err error
		if set, err = pattern.Compile(req.Patterns, req.Regex); err != nil {
			return WaitForTextResult{}, err
		}
	}
	info, err := s.term.Pane(ctx, req.PaneID)
	if err != nil {
		return WaitForTextResult{}, err
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
			return WaitForTextResult{}, &fault.ArgumentError{Field: "cursor", Reason: "points past the end of the pane's output; call without a cursor to start again"}
		}
		c.Offset = start.Offset
	}
	timeout := s.effectiveTimeout(req.TimeoutMs)
	res := WaitForTextResult{PaneID: info.ID, EffectiveTimeoutMs: timeout.Milliseconds()}
	if set != nil {
		if screen, err := s.capture(ctx, info, CaptureRequest{PaneID: info.ID}, nil); err == nil {
			_, res.AlreadyOnScreen = set.Match(screen.Text)
		}
	}

	tail := termtext.NewTail(s.maxLines(req.MaxLines), s.cfg.MaxResultBytes)
	out := termtext.NewNormalizer(tail)
	matcher := newTextMatcher(set)
	w := s.newWaiter(timeout, req.Progress)
	defer w.stop()
	in := streamReader{stream: stream, offset: c.Offset}
	// A pane's stream may go on when another program replaces the one the
	// wait began with (tmux's respawn-pane); what the new one prints is
	// not the output waited for, so the wait asks now and then.
	live := s.clock.NewTimer(s.cfg.LivenessInterval)
	defer func() { live.Stop() }()
	for res.Outcome == "" {
		got := in.read()
		c.Offset = in.offset
		res.MissedBytes += got.Missed
		s.lost(info.ID, got.Missed, "wait_for_text read it")
		if len(got.Data) > 0 {
			out.Write(got.Data)
			if p, ok := matcher.feed(got.Data); ok {
				res.Outcome = WaitMatched
				if len(req.Patterns) > 0 {
					res.Matched = &p
				}
				break
			}
		}
		switch {
		case got.Missed > 0:
			res.Outcome = WaitOutputLost
		case got.Gone != nil:
			res.Outcome = WaitPaneDied
		case got.Broken != nil:
			why := got.Broken.Error()
			res.Outcome, res.StreamFailure = WaitOutputLost, &why
		}
		if res.Outcome != "" {
			break
		}
		select {
		case <-in.changed():
		case <-w.ticks():
			w.report()
		case <-live.C():
			if s.replacedSince(info) {
				res.Outcome = WaitPaneDied
			}
			live = s.clock.NewTimer(s.cfg.LivenessInterval)
		case <-w.done():
			res.Outcome = WaitTimedOut
		case <-ctx.Done():
			res.Outcome = WaitCancelled
		}
	}
	out.Flush()
	t, loss := tail.Result(), out.Loss()
	res.Output, res.DroppedLines, res.OmittedBytes, res.ReturnedBytes = t.Text, t.DroppedLines, t.OmittedBytes, t.ReturnedBytes
	res.ReplacedBytes, res.UnterminatedBytes = loss.Replaced, loss.Unterminated
	res.Cursor = c.String()
	screen, now, err := s.capturePane(context.WithoutCancel(ctx), CaptureRequest{PaneID: info.ID, MaxLines: req.MaxLines})
	if err == nil {
		res.Screen = screen.Text
		res.ScreenClamped = screen.DroppedLines > 0 || screen.OmittedBytes > 0
		if res.Outcome == WaitMatched && replaced(info, now) {
			// The match may be the new program's output.
			res.Outcome, res.Matched = WaitPaneDied, nil
		}
	}
	return res, nil
}

// replaced reports whether the pane described as then runs another
// process as described now. (A process that has exited since is not
// replaced: what it printed before is still its own.)
func replaced(then, now ports.PaneInfo) bool {
	return then.Generation != "" && now.Generation != then.Generation
}

// replacedSince asks whether the pane described as then runs another
// process now, or is gone; a terminal that cannot say now is taken to say
// no.
func (s *Service) replacedSince(then ports.PaneInfo) bool {
	ctx, cancel := s.bounded(reopenTimeout)
	defer cancel()
	now, err := s.term.Pane(ctx, then.ID)
	if errors.Is(err, ports.ErrPaneNotFound) {
		return true
	}
	return err == nil && replaced(then, now)
}
