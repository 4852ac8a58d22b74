package domain

import (
	"context"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/domain/termtext"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// MaxCaptureRows is the server ceiling on the rows one capture_pane call
// reads; a longer range keeps its newest rows and says rangeClamped.
const MaxCaptureRows = 100_000

// CapturePane returns the text of a range of the pane's rows: by default
// the visible screen. Rows outside what the pane holds are left out (the
// effective range says what was read); a range longer than MaxCaptureRows
// keeps its newest rows; then maxLines and the byte ceiling trim the front.
//
// Errors: *fault.ArgumentError for a bad request; wrapped ports errors from the
// terminal. Reading is never refused for a busy or watched pane.
func (s *Service) CapturePane(ctx context.Context, req CaptureRequest) (CaptureResult, error) {
	res, _, err := s.capturePane(ctx, req)
	return res, err
}

// capturePane is CapturePane that also returns the pane's description,
// taken as the rows were read.
func (s *Service) capturePane(ctx context.Context, req CaptureRequest) (CaptureResult, ports.PaneInfo, error) {
	if req.MaxLines < 0 {
		return CaptureResult{}, ports.PaneInfo{}, &fault.ArgumentError{Field: "maxLines", Reason: "must be at least 1"}
	}
	if sc, ok := s.term.(ports.ScreenCapturer); ok && req.Start == nil && req.End == nil {
		// The default range is the screen, which such a terminal reads
		// together with the description the range is judged by.
		info, rows, err := sc.CaptureScreen(ctx, req.PaneID, req.JoinWrapped)
		if err != nil {
			return CaptureResult{}, ports.PaneInfo{}, err
		}
		res, err := s.capture(ctx, info, req, func(ports.CaptureRange) ([]string, error) { return rows, nil })
		return res, info, err
	}
	info, err := s.term.Pane(ctx, req.PaneID)
	if err != nil {
		return CaptureResult{}, ports.PaneInfo{}, err
	}
	res, err := s.capture(ctx, info, req, nil)
	return res, info, err
}

// capture is CapturePane for a pane already described, so that a call that
// has just asked the terminal about the pane does not ask again. read
// reads the rows of the range; nil is the terminal's Capture.
func (s *Service) capture(ctx context.Context, info ports.PaneInfo, req CaptureRequest, read func(ports.CaptureRange) ([]string, error)) (CaptureResult, error) {
	if read == nil {
		read = func(r ports.CaptureRange) ([]string, error) { return s.term.Capture(ctx, req.PaneID, r) }
	}
	res := CaptureResult{PaneID: req.PaneID}
	first, last := int64(0), int64(info.Height-1)
	if req.Start != nil {
		first = *req.Start
	}
	if req.End != nil {
		last = *req.End
	}
	first = max(first, -int64(info.HistorySize))
	last = min(last, int64(info.Height-1))
	if last-first+1 > MaxCaptureRows {
		first = last - MaxCaptureRows + 1
		res.RangeClamped = true
	}
	if first > last {
		return res, nil
	}
	rows, err := read(ports.CaptureRange{Start: int(first), End: int(last), JoinWrapped: req.JoinWrapped})
	if err != nil {
		// The terminal's error names the capture and the pane.
		return CaptureResult{}, err
	}
	res.EffectiveStart, res.EffectiveEnd = &first, &last
	if len(rows) == 0 {
		return res, nil
	}
	// Each row ends in a newline, as the terminal prints it, so that the
	// tail counts an empty last row as a line.
	t := termtext.TailOf(strings.Join(rows, "\n")+"\n", s.maxLines(req.MaxLines), s.cfg.MaxResultBytes)
	res.Text = t.Text
	res.TotalLines = int64(len(rows))
	res.DroppedLines = t.DroppedLines
	res.OmittedBytes = t.OmittedBytes
	res.ReturnedBytes = t.ReturnedBytes
	res.ByteClamped = t.OmittedBytes > 0
	return res, nil
}
