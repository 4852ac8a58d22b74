package mcp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/domain"
)

// What checking a result against its output schema costs per call
// (checkResult: a decode of the result's JSON and a validation), against
// what building the result costs without it (encoding it, and the two
// halves of the content), for the two tools whose results grow with a
// pane's output, at the sizes calls return: a realistic one (a short
// build's output; a 24-row screen), the default maxLines of 200 rows of
// 80 columns, and the 1,000,000-byte ceiling. BENCHMARKS.md ("Checking
// results against their schemas") reads them.

// schemasOf returns the schemas of a declared tool, by name.
func schemasOf(b *testing.B, name string) *toolSchemas {
	b.Helper()
	for _, d := range declaredTools(b) {
		if d.name == name {
			return d.schemas
		}
	}
	b.Fatalf("no tool %s", name)
	return nil
}

// lines returns n lines of width characters of build-log text.
func lines(n, width int) string {
	var b strings.Builder
	for i := range n {
		line := fmt.Sprintf("ok   github.com/example/pkg%04d  0.%03ds  coverage: %d.%d%% of statements ", i, i%1000, i%100, i%10)
		if len(line) < width {
			line += strings.Repeat(".", width-len(line))
		}
		b.WriteString(line[:width])
		if i < n-1 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

var resultSizes = []struct {
	name string
	text string
}{
	{"realistic", lines(24, 60)},
	{"200 lines", lines(200, 80)},
	{"1 MB", lines(200, 5000)},
}

func runResult(text string) runOutput {
	status := 0
	return fromRunResult(domain.RunResult{PaneID: "%3", Outcome: domain.OutcomeCompleted, ExitStatus: &status, Output: text,
		ReturnedBytes: int64(len(text)), OutputComplete: true, EffectiveTimeoutMs: 30000})
}

func captureResult(text string) captureOutput {
	start, end := int64(0), int64(strings.Count(text, "\n"))
	return fromCaptureResult(domain.CaptureResult{PaneID: "%3", Text: text, ReturnedBytes: int64(len(text)),
		EffectiveStart: &start, EffectiveEnd: &end, TotalLines: end + 1})
}

func BenchmarkResult(b *testing.B) {
	for _, tt := range []struct {
		tool string
		out  func(string) any
	}{
		{"run_shell_command", func(s string) any { return runResult(s) }},
		{"capture_pane", func(s string) any { return captureResult(s) }},
	} {
		schemas := schemasOf(b, tt.tool)
		for _, size := range resultSizes {
			out := tt.out(size.text)
			b.Run(tt.tool+"/"+size.name+"/checked", func(b *testing.B) {
				b.SetBytes(int64(len(size.text)))
				for b.Loop() {
					if _, err := result(tt.tool, schemas, out, "", true); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run(tt.tool+"/"+size.name+"/unchecked", func(b *testing.B) {
				b.SetBytes(int64(len(size.text)))
				for b.Loop() {
					data, err := encode(out)
					if err != nil {
						b.Fatal(err)
					}
					_ = resultOf(data, "")
				}
			})
			b.Run(tt.tool+"/"+size.name+"/check alone", func(b *testing.B) {
				data, err := encode(out)
				if err != nil {
					b.Fatal(err)
				}
				b.SetBytes(int64(len(size.text)))
				for b.Loop() {
					if err := checkResult(tt.tool, schemas, data); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
