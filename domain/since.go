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
		// Not in the middle of a character, which would read as bytes
		// that are not UTF-8.
		for i := 0; i < utf8.UTFMax-1 && !utf8.RuneStart(data[skipped]); i++ {
			skipped++
		}
		data = data[skipped:]
		res.RangeClamped = true
	}
	tr, loss, keep := sinceText(data, chunk.Ended != nil, s.maxLines(req.MaxLines), s.cfg.MaxResultBytes)
	next := c
	next.Offset = chunk.Offset + skipped + int64(keep)
	cur := next.String()
	res.Cursor = &cur
	res.Text = tr.Text
	res.DroppedLines = tr.DroppedLines
	res.OmittedBytes = tr.OmittedBytes + skipped
	res.ByteClamped = tr.OmittedBytes > 0
	res.MissedBytes = chunk.Missed
	res.ReplacedBytes, res.UnterminatedBytes = loss.Replaced, loss.Unterminated
	s.lost(info.ID, chunk.Missed, "capture_since read it")
	res.ReturnedBytes = tr.ReturnedBytes
	if chunk.Ended != nil {
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

// maxHeld bounds the unfinished escape sequence (or character) at the end
// of what capture_since reads that it holds back behind the cursor, for a
// later call to read whole once it has ended. A longer one, which no
// program that means it as an escape sequence writes, is handed out: the
// text shows none of it and unterminatedBytes counts it, and the next call
// reads on after it, as tmux itself gives up a string after a while.
const maxHeld = 64 << 10

// sinceText normalizes data, a pane's output after a cursor, into the
// call's text (kept within maxLines and maxBytes), and says what of data
// the text does not carry and how many of its bytes were used. An escape
// sequence or a character that data ends in the middle of is not used
// (unless it is longer than maxHeld, or no more output will come: ended):
// it stays behind the cursor, so that the next call reads it whole rather
// than cut in two.
func sinceText(data []byte, ended bool, maxLines, maxBytes int) (termtext.TailResult, termtext.Loss, int) {
	t := termtext.NewTail(maxLines, maxBytes)
	norm := termtext.NewNormalizer(t)
	norm.Write(data)
	norm.Flush()
	loss := norm.Loss()
	held := loss.Unterminated
	if held == 0 || held > maxHeld || ended {
		return t.Result(), loss, len(data)
	}
	// Once more without the unfinished end, so that a control carried
	// out inside it (a line feed inside a CSI) is carried out once, by
	// the call that reads the sequence whole.
	keep := len(data) - int(held)
	t = termtext.NewTail(maxLines, maxBytes)
	norm = termtext.NewNormalizer(t)
	norm.Write(data[:keep])
	norm.Flush()
	// What the prefix seems to leave unfinished is a string the first
	// pass saw ended by the ESC that begins the held sequence.
	return t.Result(), termtext.Loss{Replaced: norm.Loss().Replaced}, keep
}
