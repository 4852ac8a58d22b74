package test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// readOutputOutput is read_output's structured result.
type readOutputOutput struct {
	CutBytes          int64  `json:"cutBytes"`
	MatchedLines      int64  `json:"matchedLines"`
	MissedBytes       int64  `json:"missedBytes"`
	NextLine          *int64 `json:"nextLine"`
	OmittedBytes      int64  `json:"omittedBytes"`
	OutputComplete    bool   `json:"outputComplete"`
	PaneID            string `json:"paneId"`
	ReplacedBytes     int64  `json:"replacedBytes"`
	ReturnedBytes     int64  `json:"returnedBytes"`
	ReturnedLines     int64  `json:"returnedLines"`
	RunID             string `json:"runId"`
	StartLine         int64  `json:"startLine"`
	StillRunning      bool   `json:"stillRunning"`
	StoredBytes       int64  `json:"storedBytes"`
	Text              string `json:"text"`
	TotalLines        int64  `json:"totalLines"`
	UnterminatedBytes int64  `json:"unterminatedBytes"`
}

var readOutputFields = []string{"cutBytes", "matchedLines", "missedBytes", "nextLine", "omittedBytes", "outputComplete", "paneId",
	"replacedBytes", "returnedBytes", "returnedLines", "runId", "startLine", "stillRunning", "storedBytes", "text", "totalLines",
	"unterminatedBytes"}

func decodeReadOutput(t *testing.T, res *sdk.CallToolResult) readOutputOutput {
	t.Helper()
	var out readOutputOutput
	decode(t, res, readOutputFields, &out)
	return out
}

// seq 1 100000 on real tmux through the built binary: the result returns
// its last 200 lines, and read_output reads all of it back from the
// server's private directory, a page deep in it and grepped, literal and
// regex, with context; the directory goes when the server exits.
func TestBinaryReadOutputOf100kLines(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	srv, p := newTmuxServer(t, bash)
	pane := string(p)
	b := startBinary(t, nil, "-socket-name", srv.sock)

	res := b.call(t, "run_shell_command", map[string]any{"paneId": pane, "command": "seq 1 100000", "timeoutMs": 120000})
	run := decodeRun(t, res)
	if run.Outcome != "completed" || run.DroppedLines != 100000-200 || run.RunID == "" || run.MissedBytes != 0 ||
		!strings.HasSuffix(run.Output, "\n99999\n100000") {
		t.Fatalf("seq 1 100000 = %+v", run)
	}
	if txt := res.Content[len(res.Content)-1].(*sdk.TextContent).Text; !strings.Contains(txt, "read_output with runId "+run.RunID) {
		t.Errorf("the result that withheld 99800 lines does not say how to read them: %s", txt)
	}

	// The output is in a private directory of the server's, one file.
	dirs, _ := filepath.Glob(filepath.Join(state, "tmux-mcp", "runs", "*"))
	if len(dirs) != 1 {
		t.Fatalf("run output directories %v, want the server's one", dirs)
	}
	if fi, err := os.Stat(dirs[0]); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("the run output directory: %v, %v; want mode 0700", fi, err)
	}
	// 9 one-digit lines, 90 of two digits, ..., each with its line end.
	const seqBytes = 9*2 + 90*3 + 900*4 + 9000*5 + 90000*6 + 7
	if fi, err := os.Stat(filepath.Join(dirs[0], run.RunID)); err != nil || fi.Size() != seqBytes || fi.Mode().Perm() != 0o600 {
		t.Errorf("the run's file: %v, %v; want %d bytes, mode 0600", fi, err, seqBytes)
	}

	page := decodeReadOutput(t, b.call(t, "read_output", map[string]any{"runId": run.RunID, "startLine": 50000, "maxLines": 3}))
	if page.Text != "50000\n50001\n50002" || page.NextLine == nil || *page.NextLine != 50003 || page.TotalLines != 100000 ||
		!page.OutputComplete || page.StillRunning || page.StoredBytes != seqBytes || page.PaneID != pane {
		t.Errorf("a page in the middle = %+v", page)
	}
	first := decodeReadOutput(t, b.call(t, "read_output", map[string]any{"runId": run.RunID, "maxLines": 2}))
	if first.Text != "1\n2" {
		t.Errorf("the first lines, which the result withheld: %q", first.Text)
	}

	lit := decodeReadOutput(t, b.call(t, "read_output", map[string]any{"runId": run.RunID, "grep": "77777"}))
	if lit.Text != "77777:77777" || lit.MatchedLines != 1 || lit.NextLine != nil {
		t.Errorf("grep 77777 = %+v", lit)
	}
	re := decodeReadOutput(t, b.call(t, "read_output", map[string]any{"runId": run.RunID, "grep": `^1234[0-9]$`, "regex": true,
		"context": 1, "maxLines": 5}))
	if re.Text != "12339-12339\n12340:12340\n12341:12341\n12342:12342\n12343:12343" || re.MatchedLines != 10 ||
		re.NextLine == nil || *re.NextLine != 12344 {
		t.Errorf("grep ^1234[0-9]$ with context = %+v", re)
	}

	// What read_output refuses, each a tool error that says what to do.
	for args, want := range map[string]map[string]any{
		"run not found":                 {"runId": "nosuchrun"},
		"not an RE2 regular expression": {"runId": run.RunID, "grep": "(", "regex": true},
	} {
		if msg := errorText(t, b.call(t, "read_output", want)); !strings.Contains(msg, args) {
			t.Errorf("read_output %v: %q, want it to say %q", want, msg, args)
		}
	}

	// The resource reads the same output.
	r, err := b.cs.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: "tmux://runs/" + run.RunID + "/output"})
	if err != nil {
		t.Fatal(err)
	}
	meta, _ := json.Marshal(r.Contents[0].Meta)
	if !strings.HasPrefix(r.Contents[0].Text, "1\n2\n3\n") || !strings.Contains(string(meta), `"totalLines":100000`) {
		t.Errorf("the run's resource: %.40q, _meta %s", r.Contents[0].Text, meta)
	}

	b.stop(t)
	if _, err := os.Stat(dirs[0]); !os.IsNotExist(err) {
		t.Errorf("the run output directory outlived the server: %v", err)
	}
}

// While run_shell_command waits, each progress notification's message is
// the command's newest line of output.
func TestBinaryProgressShowsTheNewestLine(t *testing.T) {
	t.Parallel()
	srv, p := newTmuxServer(t, bash)
	var mu sync.Mutex
	var messages []string
	b := startBinary(t, &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			mu.Lock()
			messages = append(messages, req.Params.Message)
			mu.Unlock()
		},
	}, "-socket-name", srv.sock)
	long := strings.Repeat("é", 250)
	params := &sdk.CallToolParams{Name: "run_shell_command", Arguments: map[string]any{"paneId": string(p),
		"command": "echo step one; sleep 1.5; echo " + long + "; sleep 1.5; echo done", "timeoutMs": 20000}}
	params.SetProgressToken("p-lines")
	res, err := b.cs.CallTool(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	if out := decodeRun(t, res); out.Outcome != "completed" {
		t.Fatalf("run = %+v", out)
	}
	mu.Lock()
	defer mu.Unlock()
	var sawStep, sawLong bool
	for _, m := range messages {
		switch {
		case m == "step one":
			sawStep = true
		case strings.HasPrefix(m, "éé"):
			if n := len([]rune(m)); n != 200 || !strings.HasSuffix(m, "…") {
				t.Errorf("a 250-character line's message is %d characters: %q", n, m)
			}
			sawLong = true
		}
	}
	if !sawStep || !sawLong {
		t.Errorf("progress messages %q; want the newest line at each", messages)
	}
}
