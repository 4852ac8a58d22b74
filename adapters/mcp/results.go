package mcpadapter

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/domain"
)

// The output types mirror the output schemas field for field. No field has
// omitempty: the contract wants every field present, and a field shown as
// "integer | null" present as null when unknown.

type runOutput struct {
	DroppedLines           int64  `json:"droppedLines"`
	EffectiveTimeoutMs     int64  `json:"effectiveTimeoutMs"`
	ExitStatus             *int   `json:"exitStatus"`
	ForeignOutputSuspected bool   `json:"foreignOutputSuspected"`
	MissedBytes            int64  `json:"missedBytes"`
	OmittedBytes           int64  `json:"omittedBytes"`
	Outcome                string `json:"outcome"`
	Output                 string `json:"output"`
	OutputComplete         bool   `json:"outputComplete"`
	PaneID                 string `json:"paneId"`
	ReturnedBytes          int64  `json:"returnedBytes"`
	StillRunning           bool   `json:"stillRunning"`
}

type pasteOutput struct {
	Bytes  int64  `json:"bytes"`
	PaneID string `json:"paneId"`
}

type captureOutput struct {
	ByteClamped    bool   `json:"byteClamped"`
	DroppedLines   int64  `json:"droppedLines"`
	EffectiveEnd   *int64 `json:"effectiveEnd"`
	EffectiveStart *int64 `json:"effectiveStart"`
	OmittedBytes   int64  `json:"omittedBytes"`
	PaneID         string `json:"paneId"`
	RangeClamped   bool   `json:"rangeClamped"`
	ReturnedBytes  int64  `json:"returnedBytes"`
	Text           string `json:"text"`
	TotalLines     int64  `json:"totalLines"`
}

func fromRunResult(r domain.RunResult) runOutput {
	exit := r.ExitStatus
	// The contract's exit status belongs to a command seen to end; any other
	// outcome reports null even if the domain had a stale value at hand.
	if r.Outcome != domain.OutcomeCompleted {
		exit = nil
	}
	return runOutput{
		DroppedLines:           r.DroppedLines,
		EffectiveTimeoutMs:     r.EffectiveTimeoutMs,
		ExitStatus:             exit,
		ForeignOutputSuspected: r.ForeignOutputSuspected,
		MissedBytes:            r.MissedBytes,
		OmittedBytes:           r.OmittedBytes,
		Outcome:                string(r.Outcome),
		Output:                 r.Output,
		OutputComplete:         r.OutputComplete,
		PaneID:                 string(r.PaneID),
		ReturnedBytes:          r.ReturnedBytes,
		StillRunning:           r.StillRunning,
	}
}

func fromPasteResult(r domain.PasteResult) pasteOutput {
	return pasteOutput{Bytes: r.Bytes, PaneID: string(r.PaneID)}
}

func fromCaptureResult(r domain.CaptureResult) captureOutput {
	return captureOutput{
		ByteClamped:    r.ByteClamped,
		DroppedLines:   r.DroppedLines,
		EffectiveEnd:   r.EffectiveEnd,
		EffectiveStart: r.EffectiveStart,
		OmittedBytes:   r.OmittedBytes,
		PaneID:         string(r.PaneID),
		RangeClamped:   r.RangeClamped,
		ReturnedBytes:  r.ReturnedBytes,
		Text:           r.Text,
		TotalLines:     r.TotalLines,
	}
}

// encode marshals v as compact JSON without HTML escaping: the text half
// of a result is read by people and models, for whom a command's "a > b"
// should not arrive as "a \u003e b".
func encode(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return json.RawMessage(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))), nil
}

// runNotice is the notice the text half of a run_shell_command result
// carries, after the JSON, when the output is not the whole of what the
// command printed (or may hold another writer's output). A reader of the
// text alone would otherwise take the tail for the whole. It is empty when
// there is nothing to warn of.
func runNotice(o runOutput) string {
	var parts []string
	if o.DroppedLines > 0 {
		parts = append(parts, fmt.Sprintf("%s from the start withheld by maxLines (read them from the pane's history with capture_pane, or give a larger maxLines next time)",
			plural(o.DroppedLines, "line")))
	}
	if o.OmittedBytes > 0 {
		parts = append(parts, fmt.Sprintf("%s cut by the result size ceiling", plural(o.OmittedBytes, "byte")))
	}
	if o.MissedBytes > 0 {
		parts = append(parts, fmt.Sprintf("%s lost by the terminal before they could be read, so the output starts partway through",
			plural(o.MissedBytes, "byte")))
	}
	if !o.OutputComplete && len(parts) == 0 {
		parts = append(parts, "some of the command's output is missing")
	}
	var notice []string
	if len(parts) > 0 {
		notice = append(notice, "Notice: the output is incomplete: "+strings.Join(parts, "; ")+".")
	}
	if o.ForeignOutputSuspected {
		notice = append(notice, "Notice: another writer printed into this pane while the command ran; what could be attributed to it was removed, but the output may still include some of it.")
	}
	return strings.Join(notice, " ")
}

func plural(n int64, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}
