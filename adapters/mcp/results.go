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

type captureSinceOutput struct {
	ByteClamped        bool    `json:"byteClamped"`
	Cursor             *string `json:"cursor"`
	DroppedLines       int64   `json:"droppedLines"`
	EffectiveTimeoutMs int64   `json:"effectiveTimeoutMs"`
	MissedBytes        int64   `json:"missedBytes"`
	OmittedBytes       int64   `json:"omittedBytes"`
	PaneID             string  `json:"paneId"`
	RangeClamped       bool    `json:"rangeClamped"`
	ReturnedBytes      int64   `json:"returnedBytes"`
	Seeded             bool    `json:"seeded"`
	Streaming          bool    `json:"streaming"`
	Text               string  `json:"text"`
}

type waitOutput struct {
	AlreadyOnScreen    bool    `json:"alreadyOnScreen"`
	Cursor             string  `json:"cursor"`
	DroppedLines       int64   `json:"droppedLines"`
	EffectiveTimeoutMs int64   `json:"effectiveTimeoutMs"`
	Matched            *string `json:"matched"`
	MissedBytes        int64   `json:"missedBytes"`
	OmittedBytes       int64   `json:"omittedBytes"`
	Outcome            string  `json:"outcome"`
	Output             string  `json:"output"`
	PaneID             string  `json:"paneId"`
	ReturnedBytes      int64   `json:"returnedBytes"`
	Screen             string  `json:"screen"`
	ScreenClamped      bool    `json:"screenClamped"`
	StreamFailure      *string `json:"streamFailure"`
}

type sendKeysOutput struct {
	Attended        bool     `json:"attended"`
	PaneID          string   `json:"paneId"`
	ResolvedPaneIDs []string `json:"resolvedPaneIds"`
	Sent            []string `json:"sent"`
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

func fromCaptureSinceResult(r domain.CaptureSinceResult) captureSinceOutput {
	return captureSinceOutput{
		ByteClamped:        r.ByteClamped,
		Cursor:             r.Cursor,
		DroppedLines:       r.DroppedLines,
		EffectiveTimeoutMs: r.EffectiveTimeoutMs,
		MissedBytes:        r.MissedBytes,
		OmittedBytes:       r.OmittedBytes,
		PaneID:             string(r.PaneID),
		RangeClamped:       r.RangeClamped,
		ReturnedBytes:      r.ReturnedBytes,
		Seeded:             r.Seeded,
		Streaming:          r.Streaming,
		Text:               r.Text,
	}
}

func fromWaitResult(r domain.WaitForTextResult) waitOutput {
	matched := r.Matched
	// As with exitStatus: only a match is reported as one, whatever else
	// the domain had at hand.
	if r.Outcome != domain.WaitMatched {
		matched = nil
	}
	return waitOutput{
		AlreadyOnScreen:    r.AlreadyOnScreen,
		Cursor:             r.Cursor,
		DroppedLines:       r.DroppedLines,
		EffectiveTimeoutMs: r.EffectiveTimeoutMs,
		Matched:            matched,
		MissedBytes:        r.MissedBytes,
		OmittedBytes:       r.OmittedBytes,
		Outcome:            string(r.Outcome),
		Output:             r.Output,
		PaneID:             string(r.PaneID),
		ReturnedBytes:      r.ReturnedBytes,
		Screen:             r.Screen,
		ScreenClamped:      r.ScreenClamped,
		StreamFailure:      r.StreamFailure,
	}
}

func fromSendKeysResult(r domain.SendKeysResult) sendKeysOutput {
	// Arrays are never null: the schema says array, and a client should
	// not have to tell "nothing" from "unknown".
	resolved := make([]string, len(r.ResolvedPaneIDs))
	for i, id := range r.ResolvedPaneIDs {
		resolved[i] = string(id)
	}
	sent := append([]string{}, r.Sent...)
	return sendKeysOutput{Attended: r.Attended, PaneID: string(r.PaneID), ResolvedPaneIDs: resolved, Sent: sent}
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
//
// It also says what the structured half has no field for: that the
// command never started (and will not run later), that it started only
// as it was being withdrawn, and that output was dropped because the
// pane's process was replaced.
func runNotice(o runOutput, r domain.RunResult) string {
	var notice []string
	switch {
	case r.NotStarted:
		notice = append(notice, "Notice: the command never started (the pane's shell did not run the typed line: it may be busy, still starting, or inside an open quote); it was withdrawn and will not run later. Look at the pane with capture_pane before trying again.")
	case r.Raced:
		notice = append(notice, "Notice: the command started only as it was being withdrawn at the deadline, and C-c was sent to the pane at that moment; it may have been interrupted or may still run.")
	}
	if r.UnattributedBytes > 0 {
		notice = append(notice, fmt.Sprintf("Notice: the pane's process was replaced while the command ran; %s read since it was last seen to be the same process were dropped, as they may be the new process's.",
			plural(r.UnattributedBytes, "byte")))
	}
	if n := incomplete("output", "the command's output", o.DroppedLines, o.OmittedBytes, o.MissedBytes, !o.OutputComplete && r.UnattributedBytes == 0); n != "" {
		notice = append(notice, n)
	}
	if o.ForeignOutputSuspected {
		notice = append(notice, "Notice: markers that this command's frame did not print were seen in its output (another writer, a recording of earlier commands, or an end marker the command printed itself); they were removed and nothing else was, so the output may hold text that is not this command's.")
	}
	if o.Outcome == string(domain.OutcomeTimedOut) && o.StillRunning {
		notice = append(notice, "Notice: the command may still be running, and the pane stays reserved until it ends; send_keys C-c interrupts it.")
	}
	return strings.Join(notice, " ")
}

// captureSinceNotice is runNotice for capture_since: it warns when text is
// not the whole of what the pane wrote after the cursor (or of its screen).
func captureSinceNotice(o captureSinceOutput) string {
	return incomplete("text", "the pane's output", o.DroppedLines, o.OmittedBytes, o.MissedBytes, false)
}

// waitNotice is runNotice for wait_for_text's output.
func waitNotice(o waitOutput) string {
	return incomplete("output", "the pane's output", o.DroppedLines, o.OmittedBytes, o.MissedBytes, false)
}

// incomplete says what is missing from field, or returns "" when nothing
// is; otherIncomplete reports a loss the counts do not show.
func incomplete(field, whole string, dropped, omitted, missed int64, otherIncomplete bool) string {
	var parts []string
	if dropped > 0 {
		parts = append(parts, fmt.Sprintf("%s from the start withheld by maxLines (read them from the pane's history with capture_pane, or give a larger maxLines next time)",
			plural(dropped, "line")))
	}
	if omitted > 0 {
		parts = append(parts, fmt.Sprintf("%s cut by the result size ceiling", plural(omitted, "byte")))
	}
	if missed > 0 {
		parts = append(parts, fmt.Sprintf("%s lost by the terminal before they could be read, so the %s starts partway through",
			plural(missed, "byte"), field))
	}
	if otherIncomplete && len(parts) == 0 {
		parts = append(parts, "some of "+whole+" is missing")
	}
	if len(parts) == 0 {
		return ""
	}
	return "Notice: the " + field + " is incomplete: " + strings.Join(parts, "; ") + "."
}

func plural(n int64, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}
