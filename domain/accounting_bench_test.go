package domain_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/domain/termtext"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// Benchmarks of truncation accounting: what the domain does with a result
// that is longer than maxLines or the byte ceiling. BenchmarkTail (in
// tail_test.go) covers many short lines cut by maxLines; these cover the
// byte ceiling and capture_pane's path.

// BenchmarkTailByteCeiling streams 10 MB of 100 KB lines into a Tail with
// the server's limits: 200 lines are 20 MB, so the 1,000,000-byte ceiling,
// not maxLines, decides what is kept, and the Tail must keep dropping the
// front of its buffer.
func BenchmarkTailByteCeiling(b *testing.B) {
	line := []byte(strings.Repeat("y", 100<<10-1) + "\n")
	const total = 10 << 20
	b.SetBytes(total)
	b.ReportAllocs()
	for b.Loop() {
		tail := termtext.NewTail(domain.DefaultMaxResultLines, domain.MaxResultBytes)
		for written := 0; written < total; written += len(line) {
			tail.Write(line)
		}
		if r := tail.Result(); r.ReturnedBytes > domain.MaxResultBytes || r.OmittedBytes == 0 {
			b.Fatalf("returned %d bytes, omitted %d; want the byte ceiling to cut", r.ReturnedBytes, r.OmittedBytes)
		}
	}
}

// BenchmarkTailOneLongLine streams 10 MB without a line break (a minified
// file printed whole, say), of which the Tail keeps the last 1,000,000
// bytes.
func BenchmarkTailOneLongLine(b *testing.B) {
	chunk := []byte(strings.Repeat("z", 32<<10))
	const total = 10 << 20
	b.SetBytes(total)
	b.ReportAllocs()
	for b.Loop() {
		tail := termtext.NewTail(domain.DefaultMaxResultLines, domain.MaxResultBytes)
		for written := 0; written < total; written += len(chunk) {
			tail.Write(chunk)
		}
		if r := tail.Result(); r.TotalLines != 1 || r.ReturnedBytes != domain.MaxResultBytes {
			b.Fatalf("lines %d, returned %d bytes; want 1 line cut to the ceiling", r.TotalLines, r.ReturnedBytes)
		}
	}
}

// rowsTerminal is a Terminal whose one pane holds a fixed screen and
// history: enough for CapturePane.
type rowsTerminal struct {
	ports.Terminal
	info ports.PaneInfo
	rows []string // history then screen, oldest first
}

func (t rowsTerminal) Pane(context.Context, ports.PaneID) (ports.PaneInfo, error) { return t.info, nil }

func (t rowsTerminal) Capture(_ context.Context, _ ports.PaneID, r ports.CaptureRange) ([]string, error) {
	top := t.info.HistorySize // index of row 0 in t.rows
	return t.rows[top+r.Start : top+r.End+1], nil
}

// BenchmarkCapturePaneAccounting is capture_pane of 10,000 history rows
// without the terminal's cost: joining the rows and accounting for
// maxLines and the byte ceiling, once with every row kept (maxLines
// 10000) and once with the default maxLines, which drops most of them.
func BenchmarkCapturePaneAccounting(b *testing.B) {
	const history, height = 20_000, 50
	rows := make([]string, history+height)
	for i := range rows {
		rows[i] = "row " + strconv.Itoa(i) + strings.Repeat(" of a 10,000-row capture.", 3)
	}
	term := rowsTerminal{info: ports.PaneInfo{ID: "%1", Height: height, Width: 200, HistorySize: history}, rows: rows}
	svc := domain.NewService(term, fake.NewClock(time.Unix(0, 0)), fake.NewIDs(), domain.DefaultConfig())
	start, end := int64(-10_000), int64(-1)
	for _, tt := range []struct {
		name     string
		maxLines int64
		dropped  int64
	}{
		{"all rows kept", 10_000, 0},
		{"default maxLines", 0, 10_000 - domain.DefaultMaxResultLines},
	} {
		b.Run(tt.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				res, err := svc.CapturePane(context.Background(), domain.CaptureRequest{PaneID: "%1", Start: &start, End: &end, MaxLines: tt.maxLines})
				if err != nil {
					b.Fatal(err)
				}
				if res.TotalLines != 10_000 || res.DroppedLines != tt.dropped {
					b.Fatalf("total %d, dropped %d; want 10000, %d", res.TotalLines, res.DroppedLines, tt.dropped)
				}
			}
		})
	}
}
