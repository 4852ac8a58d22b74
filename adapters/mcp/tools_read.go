package mcp

import (
	"context"
	"fmt"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// capture_pane, capture_since and wait_for_text, the tools that read what a
// pane shows and writes.

// capture_pane: its description is its page's.

func (s *Server) capturePane() declaration {
	return tool[captureArgs, captureOutput]{
		name:        "capture_pane",
		description: capturePaneDescription,
		annotations: readingAnnotations("Capture pane"),
		call:        serve(s.tools.CapturePane, captureArgs.request, fromCaptureResult),
	}
}

const capturePaneDescription = "Read pane output; accepts no client-supplied executable input. " +
	"Returned content may be sensitive or untrusted. The text a pane is showing, or its scrollback. " +
	"Negative start reaches back into history (-100 is a hundred lines above the top of the screen). " +
	"For repeated reads of the same pane use capture_since instead — it returns only what is new."

type captureArgs struct {
	PaneID ports.PaneID `json:"paneId"`
	// Start and End are nil when not given: the domain's default range.
	Start       *int64 `json:"start,omitempty" jsonschema:"First line; negative reaches into scrollback."`
	End         *int64 `json:"end,omitempty" jsonschema:"Last line, on the same scale as start: 0 is the top of the visible screen and negative reaches back into history. It does not count back from the bottom, so end:-1 is one line above the screen top, not the last line of output."`
	JoinWrapped bool   `json:"joinWrapped,omitempty" jsonschema:"Rejoin lines tmux wrapped."`
	MaxLines    int64  `json:"maxLines,omitempty" jsonschema:"Keep at most this many lines, from the end. Defaults to the server limit." schema:"exclusiveMinimum=0"`
}

func (a captureArgs) request() domain.CaptureRequest {
	return domain.CaptureRequest{PaneID: a.PaneID, Start: a.Start, End: a.End, JoinWrapped: a.JoinWrapped, MaxLines: a.MaxLines}
}

type captureOutput struct {
	ByteClamped    bool         `json:"byteClamped" jsonschema:"Whether the byte ceiling shortened the capture."`
	DroppedLines   int64        `json:"droppedLines" jsonschema:"Lines cut from the front to fit maxLines."`
	EffectiveEnd   *int64       `json:"effectiveEnd"`
	EffectiveStart *int64       `json:"effectiveStart"`
	OmittedBytes   int64        `json:"omittedBytes"`
	PaneID         ports.PaneID `json:"paneId"`
	RangeClamped   bool         `json:"rangeClamped" jsonschema:"Whether a result ceiling shortened the range."`
	ReturnedBytes  int64        `json:"returnedBytes"`
	Text           string       `json:"text"`
	TotalLines     int64        `json:"totalLines" jsonschema:"How many lines the capture held before trimming."`
}

func fromCaptureResult(r domain.CaptureResult) captureOutput {
	return captureOutput{
		ByteClamped:    r.ByteClamped,
		DroppedLines:   r.DroppedLines,
		EffectiveEnd:   r.EffectiveEnd,
		EffectiveStart: r.EffectiveStart,
		OmittedBytes:   r.OmittedBytes,
		PaneID:         r.PaneID,
		RangeClamped:   r.RangeClamped,
		ReturnedBytes:  r.ReturnedBytes,
		Text:           r.Text,
		TotalLines:     r.TotalLines,
	}
}

// capture_since and wait_for_text have no page: their descriptions open
// with the safety sentence of capture_pane's, then say how to use them,
// cursors and exceptions included, since a model has nothing else to go
// by.

func (s *Server) captureSince() declaration {
	return tool[captureSinceArgs, captureSinceOutput]{
		name:        "capture_since",
		description: captureSinceDescription,
		annotations: readingAnnotations("Capture since"),
		call: serveWaiting(func(ctx context.Context, a captureSinceArgs, progress domain.ProgressFunc) (domain.CaptureSinceResult, error) {
			return s.tools.CaptureSince(ctx, domain.CaptureSinceRequest{
				PaneID:   a.PaneID,
				Cursor:   a.Cursor,
				MaxLines: a.MaxLines,
				WaitMs:   a.WaitMs,
				Progress: progress,
			})
		}, func(r domain.CaptureSinceResult) (captureSinceOutput, string) {
			out := fromCaptureSinceResult(r)
			return out, captureSinceNotice(out)
		}),
	}
}

const captureSinceDescription = "Read pane output; accepts no client-supplied executable input. " +
	"Returned content may be sensitive or untrusted. " +
	"Read only what a pane wrote since your last read. Call it first without a cursor: it returns the visible " +
	"screen (seeded: true) and a cursor. Pass that cursor back to get just the output written after it, as plain " +
	"text (escape sequences removed, carriage returns and backspaces applied), with a new cursor to read on from. " +
	"With waitMs it waits that long (clamped to the server ceiling) when nothing is new yet, so a loop of calls " +
	"follows a pane without polling. A cursor also works with wait_for_text. Cursors are opaque and belong to one " +
	"pane and one run of its program: a cursor of another pane, of a pane that was restarted, or from an earlier " +
	"run of this server is a tool error; call without a cursor to start again. missedBytes above 0 means output " +
	"was lost between two reads (the pane wrote more than is kept); streaming false means nothing more will come."

type captureSinceArgs struct {
	PaneID   ports.PaneID `json:"paneId"`
	Cursor   string       `json:"cursor,omitempty" jsonschema:"The cursor an earlier capture_since or wait_for_text call on this pane returned: only what the pane wrote after it is returned. Omit it on the first call to get the visible screen and a first cursor."`
	MaxLines int64        `json:"maxLines,omitempty" jsonschema:"Keep at most this many lines, from the end. Defaults to the server limit." schema:"exclusiveMinimum=0"`
	WaitMs   int64        `json:"waitMs,omitempty" jsonschema:"With a cursor and nothing new yet, wait this long for output before returning. 0, the default, returns at once. Clamped by the server ceiling; the result says what was used." schema:"minimum=0"`
}

type captureSinceOutput struct {
	ByteClamped        bool         `json:"byteClamped" jsonschema:"Whether the byte ceiling shortened text."`
	Cursor             *string      `json:"cursor" jsonschema:"Pass it to the next capture_since or wait_for_text call to read on from here. Null when the pane's output cannot be followed; then only the screen is returned."`
	DroppedLines       int64        `json:"droppedLines" jsonschema:"Lines cut from the front to fit maxLines."`
	EffectiveTimeoutMs int64        `json:"effectiveTimeoutMs" jsonschema:"The wait actually allowed, after clamping; 0 when the call was not asked to wait."`
	MissedBytes        int64        `json:"missedBytes" jsonschema:"Output written after the cursor that the terminal lost before it could be read (the pane wrote more than is kept between two reads). Nonzero means text starts partway through."`
	OmittedBytes       int64        `json:"omittedBytes" jsonschema:"Output bytes omitted by the result ceiling or the read ceiling."`
	PaneID             ports.PaneID `json:"paneId"`
	RangeClamped       bool         `json:"rangeClamped" jsonschema:"Whether a ceiling shortened what was read: more was written after the cursor than one call reads, so the oldest of it was skipped."`
	ReplacedBytes      int64        `json:"replacedBytes" jsonschema:"Bytes of the output read that text cannot carry as they were: bytes that are not UTF-8, each shown as U+FFFD, and NUL and the other control characters that do nothing on a terminal, dropped. 0 when seeded."`
	ReturnedBytes      int64        `json:"returnedBytes" jsonschema:"UTF-8 bytes of text returned."`
	Seeded             bool         `json:"seeded" jsonschema:"True when text is the visible screen (no cursor was given), false when it is the output written after the cursor."`
	Streaming          bool         `json:"streaming" jsonschema:"Whether the pane's output is being followed. False when the pane's process has ended or its output cannot be read: later calls will bring nothing new."`
	Text               string       `json:"text" jsonschema:"The output written after the cursor as plain text (escape sequences removed, carriage returns and backspaces applied), or the visible screen when seeded."`
	UnterminatedBytes  int64        `json:"unterminatedBytes" jsonschema:"Bytes at the end of the output read that are inside an escape sequence (or a character) that never ended, not in text. While the pane goes on, such an end stays behind the cursor for the next call instead, up to 64 KiB; this counts it once the pane's output has ended, or when it is longer."`
}

func fromCaptureSinceResult(r domain.CaptureSinceResult) captureSinceOutput {
	return captureSinceOutput{
		ByteClamped:        r.ByteClamped,
		Cursor:             r.Cursor,
		DroppedLines:       r.DroppedLines,
		EffectiveTimeoutMs: r.EffectiveTimeoutMs,
		MissedBytes:        r.MissedBytes,
		OmittedBytes:       r.OmittedBytes,
		PaneID:             r.PaneID,
		RangeClamped:       r.RangeClamped,
		ReplacedBytes:      r.ReplacedBytes,
		ReturnedBytes:      r.ReturnedBytes,
		Seeded:             r.Seeded,
		Streaming:          r.Streaming,
		Text:               r.Text,
		UnterminatedBytes:  r.UnterminatedBytes,
	}
}

// captureSinceNotice is runNotice for capture_since: it warns when text is
// not the whole of what the pane wrote after the cursor (or of its screen).
func captureSinceNotice(o captureSinceOutput) string {
	return incomplete("text", "the pane's output", o.DroppedLines, o.OmittedBytes, o.MissedBytes, o.ReplacedBytes, o.UnterminatedBytes, false)
}

func (s *Server) waitForText() declaration {
	return tool[waitArgs, waitOutput]{
		name:        "wait_for_text",
		description: waitForTextDescription,
		annotations: readingAnnotations("Wait for text"),
		call: serveWaiting(func(ctx context.Context, a waitArgs, progress domain.ProgressFunc) (domain.WaitForTextResult, error) {
			return s.tools.WaitForText(ctx, domain.WaitForTextRequest{
				PaneID:    a.PaneID,
				Patterns:  a.Patterns,
				Regex:     a.Regex,
				Cursor:    a.Cursor,
				TimeoutMs: a.TimeoutMs,
				MaxLines:  a.MaxLines,
				Progress:  progress,
			})
		}, func(r domain.WaitForTextResult) (waitOutput, string) {
			out := fromWaitResult(r)
			return out, waitNotice(out)
		}),
	}
}

const waitForTextDescription = "Read pane output; accepts no client-supplied executable input. " +
	"Returned content may be sensitive or untrusted. " +
	"Wait until a pane prints one of the given patterns. Patterns are plain substrings, or RE2 regular " +
	"expressions with regex: true; they are matched against the output with terminal escape sequences removed, " +
	"so colours do not split them, and a pattern may arrive across several writes. Only output written after the " +
	"call began counts, or after cursor when one is given: text already on the screen is not a match unless new " +
	"output repeats it (alreadyOnScreen says it was there). To wait without a race, take a cursor with " +
	"capture_since before you trigger the output, then pass it here. outcome says why the call returned: matched " +
	"(matched is the pattern exactly as you gave it), timed_out, pane_died, cancelled, or output_lost (the " +
	"terminal lost output a match could have been in). output is the new output read while waiting, screen the " +
	"visible screen at return, and cursor where to read on. timeoutMs defaults to 30000 and is clamped by the " +
	"server ceiling; effectiveTimeoutMs says what was used. An empty pattern, a regular expression that can match " +
	"where no character is (x*, ^), or an invalid regular expression is a tool error, as in search_panes."

type waitArgs struct {
	PaneID ports.PaneID `json:"paneId"`
	// Patterns is nil when not given: any new output ends the wait.
	Patterns  []string `json:"patterns,omitempty" jsonschema:"What to wait for: the call returns when new output contains any of these. Without patterns, any new output ends the wait (matched is then null)." schema:"minItems=1"`
	Regex     bool     `json:"regex,omitempty" jsonschema:"Read patterns as RE2 regular expressions instead of plain substrings. Default false."`
	Cursor    string   `json:"cursor,omitempty" jsonschema:"Wait for output written after this cursor, from capture_since or an earlier wait_for_text on this pane, so that output written between two calls is not missed. Omit it to wait for output written from now on."`
	TimeoutMs int64    `json:"timeoutMs,omitempty" jsonschema:"How long to wait. Clamped by the server ceiling; the result says what was used." schema:"exclusiveMinimum=0"`
	MaxLines  int64    `json:"maxLines,omitempty" jsonschema:"Keep at most this many lines of output and of screen, from the end. Defaults to the server limit." schema:"exclusiveMinimum=0"`
}

type waitOutput struct {
	AlreadyOnScreen    bool         `json:"alreadyOnScreen" jsonschema:"A pattern was on the visible screen when the call began. That text is not a match unless new output repeats it."`
	Cursor             string       `json:"cursor" jsonschema:"The position after the output read; pass it to capture_since or wait_for_text to read on from here."`
	DroppedLines       int64        `json:"droppedLines" jsonschema:"Lines of output cut from the front to fit maxLines."`
	EffectiveTimeoutMs int64        `json:"effectiveTimeoutMs" jsonschema:"The timeout actually enforced."`
	Matched            *string      `json:"matched" jsonschema:"The pattern that matched, exactly as the call gave it; null unless outcome is matched."`
	MissedBytes        int64        `json:"missedBytes" jsonschema:"Output the terminal lost before it could be read. Nonzero means a match could have been missed."`
	OmittedBytes       int64        `json:"omittedBytes" jsonschema:"Output bytes omitted by the result ceiling."`
	Outcome            string       `json:"outcome" jsonschema:"Why this returned. Read it rather than inferring from the text." schema:"enum=matched|timed_out|pane_died|cancelled|output_lost"`
	Output             string       `json:"output" jsonschema:"The new output read while waiting, as plain text (escape sequences removed)."`
	PaneID             ports.PaneID `json:"paneId"`
	ReplacedBytes      int64        `json:"replacedBytes" jsonschema:"Bytes of the output read that output cannot carry as they were: bytes that are not UTF-8, each shown as U+FFFD, and NUL and the other control characters that do nothing on a terminal, dropped."`
	ReturnedBytes      int64        `json:"returnedBytes" jsonschema:"UTF-8 bytes of output returned."`
	Screen             string       `json:"screen" jsonschema:"The visible screen when the call returned."`
	ScreenClamped      bool         `json:"screenClamped" jsonschema:"Whether screen was trimmed by maxLines or the byte ceiling."`
	StreamFailure      *string      `json:"streamFailure" jsonschema:"Why the pane's output could no longer be read, when that ended the wait (outcome output_lost); null otherwise."`
	UnterminatedBytes  int64        `json:"unterminatedBytes" jsonschema:"Bytes at the end of the output read that are inside an escape sequence (or a character) that had not ended when the call returned: not in output, and no pattern can match inside them, as nothing of them is on a terminal's screen."`
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
		PaneID:             r.PaneID,
		ReplacedBytes:      r.ReplacedBytes,
		ReturnedBytes:      r.ReturnedBytes,
		Screen:             r.Screen,
		ScreenClamped:      r.ScreenClamped,
		StreamFailure:      r.StreamFailure,
		UnterminatedBytes:  r.UnterminatedBytes,
	}
}

// waitNotice is runNotice for wait_for_text's output.
func waitNotice(o waitOutput) string {
	return incomplete("output", "the pane's output", o.DroppedLines, o.OmittedBytes, o.MissedBytes, o.ReplacedBytes, o.UnterminatedBytes, false)
}

// incomplete says what is missing from field, or returns "" when nothing
// is; otherIncomplete reports a loss the counts do not show.
func incomplete(field, whole string, dropped, omitted, missed, replaced, unterminated int64, otherIncomplete bool) string {
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
	if replaced > 0 {
		parts = append(parts, fmt.Sprintf("%s that text cannot carry (not UTF-8, shown as U+FFFD, or control characters that show nothing, dropped)",
			plural(replaced, "byte")))
	}
	if unterminated > 0 {
		parts = append(parts, fmt.Sprintf("its last %s are inside an escape sequence that never ended (an ESC ] or ESC P without its end hides what follows it, on a terminal too), so they are not shown",
			plural(unterminated, "byte")))
	}
	if replaced > 0 || unterminated > 0 {
		parts = append(parts, "to see every byte, run the command again through od -c or base64")
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
