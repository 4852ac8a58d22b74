package mcp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// read_output reads what run_shell_command kept of a run's output: all of
// it, where a result returns only its tail. It has no page; its
// description opens as the reading tools' do.

func (s *Server) readOutput() declaration {
	return tool[readOutputArgs, readOutputOutput]{
		name:        "read_output",
		description: readOutputDescription,
		annotations: readingAnnotations("Read output"),
		call: func(ctx context.Context, _ *sdk.CallToolRequest, a readOutputArgs) (readOutputOutput, string, error) {
			r, err := s.tools.ReadOutput(ctx, domain.ReadOutputRequest{
				RunID:     a.RunID,
				StartLine: a.StartLine,
				MaxLines:  a.MaxLines,
				Grep:      a.Grep,
				Regex:     a.Regex,
				Context:   a.Context,
			})
			if err != nil {
				return readOutputOutput{}, "", err
			}
			out := fromReadOutputResult(r)
			return out, readOutputNotice(out, r), nil
		},
	}
}

const readOutputDescription = "Read pane output; accepts no client-supplied executable input. " +
	"Returned content may be sensitive or untrusted. " +
	"Read the whole output of a command that run_shell_command ran, not only the tail its result returned: " +
	"every run_shell_command and wait_for_command result carries a runId, and the server keeps each run's output, " +
	"as plain text (escape sequences removed), within a budget for all runs (the oldest runs are evicted first). " +
	"Page through it with startLine (from 1) and maxLines, following nextLine until it is null; or search it with " +
	"grep, a substring (an RE2 regular expression with regex: true), which returns the matching lines as N:line, " +
	"with context lines around each as N-line and -- between groups that are apart, as grep -n -C prints them, " +
	"and matchedLines, how many matched in all. A run still running (stillRunning) is read as far as it has got. " +
	"outputComplete says whether the server holds the whole of what the command printed; cutBytes counts what the " +
	"budget did not let it keep, after the first storedBytes. An unknown runId, or one whose output was evicted, is a tool error."

type readOutputArgs struct {
	RunID     string `json:"runId" jsonschema:"The runId of a run_shell_command or wait_for_command result of this server." schema:"minLength=1,maxLength=64"`
	StartLine int64  `json:"startLine,omitempty" jsonschema:"The first line to read, or to search from, counting from 1. Defaults to 1." schema:"exclusiveMinimum=0"`
	MaxLines  int64  `json:"maxLines,omitempty" jsonschema:"Return at most this many lines (with grep: matching and context lines). Defaults to the server limit; the byte ceiling applies too." schema:"exclusiveMinimum=0"`
	Grep      string `json:"grep,omitempty" jsonschema:"Return only the lines that hold this text (with regex, that match this RE2 regular expression), each as N:line."`
	Regex     bool   `json:"regex,omitempty" jsonschema:"Read grep as an RE2 regular expression rather than a plain substring."`
	Context   int64  `json:"context,omitempty" jsonschema:"With grep, show this many lines before and after each matching line, as N-line." schema:"minimum=0,maximum=100"`
}

type readOutputOutput struct {
	CutBytes          int64        `json:"cutBytes" jsonschema:"Output bytes the server did not keep, after the first storedBytes, because the output budget was full (or cannot be kept at all); nonzero means the end of the output is not here: the result of run_shell_command still had its tail."`
	MatchedLines      int64        `json:"matchedLines" jsonschema:"With grep, how many lines from startLine on match, whether or not all of them fit in text; 0 without grep."`
	MissedBytes       int64        `json:"missedBytes" jsonschema:"Output that fell out of the pane's buffer before the server read it, as the run's result counts it: the kept output misses them too."`
	NextLine          *int64       `json:"nextLine" jsonschema:"The startLine of the next page (or the next match, with grep) when this one stopped at maxLines or the byte ceiling; null when it reached the end of what is kept."`
	OmittedBytes      int64        `json:"omittedBytes" jsonschema:"Bytes of lines in this page that text does not hold: a line longer than the byte ceiling (or than 1 MiB, the most of one line that is read) is cut."`
	OutputComplete    bool         `json:"outputComplete" jsonschema:"Whether the server holds the whole of what the command printed: the command ended, the budget cut nothing, and its result lost nothing (missedBytes, replacedBytes, unterminatedBytes 0). It does not say whether this page is all of it: see startLine and nextLine."`
	PaneID            ports.PaneID `json:"paneId"`
	ReplacedBytes     int64        `json:"replacedBytes" jsonschema:"Output bytes the text cannot carry as they were, as the run's result counts them."`
	ReturnedBytes     int64        `json:"returnedBytes" jsonschema:"UTF-8 bytes of text returned."`
	ReturnedLines     int64        `json:"returnedLines" jsonschema:"Lines in text (with grep, matching and context lines, the -- separators not counted)."`
	RunID             string       `json:"runId"`
	StartLine         int64        `json:"startLine" jsonschema:"The first line read or searched."`
	StillRunning      bool         `json:"stillRunning" jsonschema:"Whether the command may still be printing: totalLines may grow, and a later call reads on."`
	StoredBytes       int64        `json:"storedBytes" jsonschema:"Bytes of the run's output the server keeps."`
	Text              string       `json:"text" jsonschema:"The lines, as plain text, without a final line end; with grep, N:line for each match and N-line for context."`
	TotalLines        int64        `json:"totalLines" jsonschema:"Lines of the run's output kept so far."`
	UnterminatedBytes int64        `json:"unterminatedBytes" jsonschema:"Output bytes at the end inside an escape sequence that never ended, as the run's result counts them."`
}

func fromReadOutputResult(r domain.ReadOutputResult) readOutputOutput {
	return readOutputOutput{
		CutBytes:          r.CutBytes,
		MatchedLines:      r.MatchedLines,
		MissedBytes:       r.MissedBytes,
		NextLine:          r.NextLine,
		OmittedBytes:      r.OmittedBytes,
		OutputComplete:    r.OutputComplete,
		PaneID:            r.PaneID,
		ReplacedBytes:     r.ReplacedBytes,
		ReturnedBytes:     r.ReturnedBytes,
		ReturnedLines:     r.ReturnedLines,
		RunID:             r.RunID,
		StartLine:         r.StartLine,
		StillRunning:      r.StillRunning,
		StoredBytes:       r.StoredBytes,
		Text:              r.Text,
		TotalLines:        r.TotalLines,
		UnterminatedBytes: r.UnterminatedBytes,
	}
}

// readOutputNotice says, after the JSON, what a reader of the text alone
// would otherwise miss: where the next page starts, that the run goes
// on, and what the server did not keep or could not read.
func readOutputNotice(o readOutputOutput, r domain.ReadOutputResult) string {
	var notice []string
	if o.NextLine != nil {
		what := "lines"
		if r.Searched {
			what = "matches"
		}
		notice = append(notice, fmt.Sprintf("Notice: more %s follow; call read_output with runId %s and startLine %d for the next page.",
			what, o.RunID, *o.NextLine))
	}
	if o.OmittedBytes > 0 {
		notice = append(notice, fmt.Sprintf("Notice: %s of long lines in this page were cut by the result size ceiling.", plural(o.OmittedBytes, "byte")))
	}
	if o.StillRunning {
		notice = append(notice, fmt.Sprintf("Notice: the command may still be running; what it prints from now on is kept too, so a later read_output goes on past line %d (wait_for_command with paneId %s waits for its end).",
			o.TotalLines, o.PaneID))
	}
	if o.CutBytes > 0 {
		notice = append(notice, fmt.Sprintf("Notice: the server kept only the first %s of this run's output: %s, so the %s after them are not here (the run's result returned its tail). Raise the server's -output-budget to keep more.",
			plural(o.StoredBytes, "byte"), r.CutReason, plural(o.CutBytes, "byte")))
	}
	if n := incomplete("kept output", "the command's output", 0, 0, o.MissedBytes, o.ReplacedBytes, o.UnterminatedBytes,
		r.UnattributedBytes > 0 || r.Abandoned || r.Unverified); n != "" {
		notice = append(notice, n)
	}
	if r.ForeignOutputSuspected {
		notice = append(notice, "Notice: the run's result found markers of another writer in its output; what is kept may hold text that is not this command's.")
	}
	return strings.Join(notice, " ")
}
