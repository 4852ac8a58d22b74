package domain

import (
	"context"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/domain/termtext"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// maxSinceRead is the most raw output one capture_since call reads. Past
// it the call keeps the newest bytes, counts the rest in omittedBytes and
// says rangeClamped: the result could not hold more than the byte ceiling
// anyway.
const maxSinceRead = 8 << 20

// CaptureSince returns what the pane wrote after req.Cursor, as plain text
// (escape sequences removed, carriage returns and backspaces applied), and
// a cursor just past it. Without a cursor it returns the visible screen
// (Seeded) and a first cursor. With one and nothing new yet, it waits up to
// req.WaitMs (clamped to the ceiling) for output.
//
// Errors: *fault.ArgumentError for a bad request or a cursor of another pane, of
// an earlier process of the pane, of an earlier server run, or past the
// end of the output; wrapped ports errors from the terminal. Reading is
// never refused for a busy or watched pane.
func (s *Service) CaptureSince(ctx context.Context, req CaptureSinceRequest) (CaptureSinceResult, error) {
	if req.MaxLines < 0 {
		return CaptureSinceResult{}, &fault.ArgumentError{Field: "maxLines", Reason: "must be at least 1"}
	}
	if req.WaitMs < 0 {
		return CaptureSinceResult{}, &fault.ArgumentError{Field: "waitMs", Reason: "must not be negative"}
	}
	info, err := s.term.Pane(ctx, req.PaneID)
	if err != nil {
		return CaptureSinceResult{}, err
	}
	if req.Cursor == "" {
		return s.seed(ctx, info, req)
	}
	c, err := s.checkCursor(req.Cursor, info)
	if err != nil {
		return CaptureSinceResult{}, err
	}
	stream, err := s.follow(ctx, info)
	if err != nil {
		return CaptureSinceResult{}, err
	}
	if end := stream.End(); c.Offset > end {
		return CaptureSinceResult{}, &fault.ArgumentError{Field: "cursor",
			Reason: fmt.Sprintf("points past the end of pane %s's output (%d > %d); call without a cursor to start again", info.ID, c.Offset, end)}
	}
	res := CaptureSinceResult{PaneID: info.ID, Streaming: true}
	if req.WaitMs > 0 {
		wait := s.effectiveTimeout(req.WaitMs)
		res.EffectiveTimeoutMs = wait.Milliseconds()
		if stream.End() == c.Offset {
			s.waitForOutput(ctx, stream, c.Offset, wait, req.Progress)
			// The stream may go on when another program replaces the
			// cursor's (tmux's respawn-pane): what came then is not the
			// cursor's to read.
			if now, err := s.term.Pane(ctx, req.PaneID); err == nil {
				if _, err := s.checkCursor(req.Cursor, now); err != nil {
					return CaptureSinceResult{}, err
				}
			}
		}
	}
	chunk := stream.ReadFrom(c.Offset)
	data, skipped := chunk.Data, int64(0)
	if len(data) > maxSinceRead {
		skipped = int64(len(data) - maxSinceRead)
		data = data[skipped:]
		res.RangeClamped = true
	}
	keep := completePrefix(data)
	t := termtext.NewTail(s.maxLines(req.MaxLines), s.cfg.MaxResultBytes)
	norm := termtext.NewNormalizer(t)
	norm.Write(data[:keep])
	norm.Flush()
	tr := t.Result()
	next := c
	next.Offset = chunk.Offset + skipped + int64(keep)
	cur := next.String()
	res.Cursor = &cur
	res.Text = tr.Text
	res.DroppedLines = tr.DroppedLines
	res.OmittedBytes = tr.OmittedBytes + skipped
	res.ByteClamped = tr.OmittedBytes > 0
	res.MissedBytes = chunk.Missed
	s.lost(info.ID, chunk.Missed, "capture_since read it")
	res.ReturnedBytes = tr.ReturnedBytes
	if chunk.Ended != nil && keep == len(data) {
		res.Streaming = false
	}
	return res, nil
}

// seed answers a capture_since call without a cursor.
func (s *Service) seed(ctx context.Context, info ports.PaneInfo, req CaptureSinceRequest) (CaptureSinceResult, error) {
	res := CaptureSinceResult{PaneID: info.ID, Seeded: true}
	// Open the stream before reading the screen, so that nothing written
	// between the two is lost: at worst it is both on the screen and after
	// the cursor.
	stream, err := s.follow(ctx, info)
	if err == nil {
		c := cursor{Instance: s.instance, Pane: info.ID, Generation: info.Generation, Offset: stream.End()}.String()
		res.Cursor = &c
		res.Streaming = stream.ReadFrom(stream.End()).Ended == nil
	}
	screen, err := s.capture(ctx, info, CaptureRequest{PaneID: info.ID, MaxLines: req.MaxLines}, nil)
	if err != nil {
		return CaptureSinceResult{}, err
	}
	res.Text = screen.Text
	res.DroppedLines = screen.DroppedLines
	res.OmittedBytes = screen.OmittedBytes
	res.ReturnedBytes = screen.ReturnedBytes
	res.ByteClamped = screen.ByteClamped
	res.RangeClamped = screen.RangeClamped
	return res, nil
}

// waitForOutput waits until the stream has bytes past offset, it ends, the
// wait is over or ctx is done, telling progress on the way.
func (s *Service) waitForOutput(ctx context.Context, stream ports.OutputStream, offset int64, wait time.Duration, progress ProgressFunc) {
	w := s.newWaiter(wait, progress)
	defer w.stop()
	in := streamReader{stream: stream, offset: offset}
	for {
		if got := in.read(); len(got.Data) > 0 || got.Missed > 0 || got.Ended() {
			return
		}
		select {
		case <-in.changed():
		case <-w.ticks():
			w.report()
		case <-w.done():
			return
		case <-ctx.Done():
			return
		}
	}
}

// completePrefix returns how much of data can be handed out without
// cutting an escape sequence or a UTF-8 character in two; the rest stays
// behind the cursor for the next call.
func completePrefix(data []byte) int {
	n := len(data)
	// An unfinished escape sequence near the end.
	const lookback = 64 << 10
	// Walk back over escapes: an unfinished one may sit inside an earlier
	// string sequence (OSC, DCS) that is itself unfinished.
	for i := len(data) - 1; i >= 0 && i >= len(data)-lookback; i-- {
		if data[i] != 0x1b {
			continue
		}
		if escapeComplete(data[i:]) {
			break
		}
		n = i
	}
	// An unfinished UTF-8 character at the end.
	for back := 1; back <= utf8.UTFMax && back <= n; back++ {
		b := data[n-back]
		if b < 0x80 {
			break
		}
		if utf8.RuneStart(b) {
			if !utf8.FullRune(data[n-back : n]) {
				n -= back
			}
			break
		}
	}
	return n
}

// escapeComplete reports whether the escape sequence at the start of seq
// (which begins with ESC) is finished.
func escapeComplete(seq []byte) bool {
	if len(seq) < 2 {
		return false
	}
	switch seq[1] {
	case '[': // CSI: parameters, then a final byte 0x40..0x7e
		for _, b := range seq[2:] {
			if b >= 0x40 && b <= 0x7e {
				return true
			}
		}
		return false
	case ']', 'P', '_', '^', 'X': // strings ended by BEL or ESC \
		for i := 2; i < len(seq); i++ {
			if seq[i] == 0x07 && seq[1] == ']' {
				return true
			}
			if seq[i] == 0x1b && i+1 < len(seq) && seq[i+1] == '\\' {
				return true
			}
		}
		return false
	case '(', ')', '*', '+', '#', '%': // designations take one more byte
		return len(seq) >= 3
	default:
		return true
	}
}
