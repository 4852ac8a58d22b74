package audit_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/adapters/mcp/audit"
)

func decode(t *testing.T, line []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(line, &m); err != nil {
		t.Fatalf("line %q is not JSON: %v", line, err)
	}
	return m
}

func TestRecordWritesOneLineWithDigestsInsteadOfSecrets(t *testing.T) {
	var buf bytes.Buffer
	log := audit.New(&buf)
	const secret = "curl -H 'Authorization: Bearer hunter2' https://example.test"
	at := time.Date(2026, 11, 30, 12, 0, 0, 123456789, time.FixedZone("CET", 3600))
	err := log.Record(audit.Entry{
		Time: at, Tool: "run_shell_command", PaneID: "%3", Outcome: "completed",
		Duration: 1520*time.Millisecond + 700*time.Microsecond, Secret: map[string]string{"command": secret},
	})
	if err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if strings.Count(out, "\n") != 1 || !strings.HasSuffix(out, "\n") {
		t.Fatalf("output %q, want exactly one line", out)
	}
	if strings.Contains(out, "hunter2") || strings.Contains(out, "curl") {
		t.Fatalf("the command's text reached the log: %s", out)
	}
	got := decode(t, buf.Bytes())
	want := map[string]any{
		"time":       "2026-11-30T11:00:00.123456789Z",
		"tool":       "run_shell_command",
		"paneId":     "%3",
		"outcome":    "completed",
		"durationMs": 1520.0,
		"sha256":     map[string]any{"command": audit.Digest(secret)},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("line\n got %v\nwant %v", got, want)
	}
}

func TestDigestIsTheSHA256HexOfTheText(t *testing.T) {
	// printf %s abc | sha256sum
	if got := audit.Digest("abc"); got != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Errorf("Digest(abc) = %s", got)
	}
}

func TestRecordOutcomes(t *testing.T) {
	cases := []struct {
		name      string
		entry     audit.Entry
		outcome   string
		errorKind any // nil when absent
	}{
		{"tool without an outcome", audit.Entry{Tool: "list_panes"}, "ok", nil},
		{"tool's own outcome", audit.Entry{Tool: "wait_for_text", Outcome: "matched"}, "matched", nil},
		{"error overrides the outcome", audit.Entry{Tool: "paste_text", Outcome: "completed", ErrorKind: "refused",
			Secret: map[string]string{"text": "hunter2"}}, "error", "refused"},
		{"error of a tool without an outcome", audit.Entry{Tool: "kill_window", ErrorKind: "not_found"}, "error", "not_found"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := audit.New(&buf).Record(c.entry); err != nil {
				t.Fatal(err)
			}
			got := decode(t, buf.Bytes())
			if got["outcome"] != c.outcome || got["errorKind"] != c.errorKind {
				t.Errorf("outcome %v, errorKind %v; want %v, %v", got["outcome"], got["errorKind"], c.outcome, c.errorKind)
			}
			if _, ok := got["paneId"]; ok {
				t.Errorf("paneId present without a pane: %v", got)
			}
			if strings.Contains(buf.String(), "hunter2") {
				t.Errorf("a secret reached the log: %s", buf.String())
			}
		})
	}
}

func TestRecordStampsTheTimeWhenNoneIsGiven(t *testing.T) {
	var buf bytes.Buffer
	before := time.Now()
	if err := audit.New(&buf).Record(audit.Entry{Tool: "list_sessions"}); err != nil {
		t.Fatal(err)
	}
	stamp, err := time.Parse(time.RFC3339Nano, decode(t, buf.Bytes())["time"].(string))
	if err != nil || stamp.Before(before.Add(-time.Second)) || stamp.After(time.Now().Add(time.Second)) {
		t.Errorf("time = %v (%v), want about now", stamp, err)
	}
}

func TestConcurrentRecordsKeepTheirLinesWhole(t *testing.T) {
	var buf bytes.Buffer
	log := audit.New(&buf)
	const writers, each = 8, 50
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				text := strings.Repeat(fmt.Sprintf("%d-%d ", w, i), 200)
				if err := log.Record(audit.Entry{Tool: "paste_text", PaneID: "%1", Secret: map[string]string{"text": text}}); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	sc := bufio.NewScanner(&buf)
	lines := 0
	for sc.Scan() {
		decode(t, sc.Bytes())
		lines++
	}
	if lines != writers*each {
		t.Errorf("%d lines, want %d", lines, writers*each)
	}
}

func TestOpenAppendsToAPrivateFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	for _, tool := range []string{"first", "second"} {
		log, err := audit.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := log.Record(audit.Entry{Tool: tool}); err != nil {
			t.Fatal(err)
		}
		if err := log.Close(); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 2 || decode(t, []byte(lines[0]))["tool"] != "first" || decode(t, []byte(lines[1]))["tool"] != "second" {
		t.Errorf("file = %q, want the two records in order", data)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	if _, err := audit.Open(filepath.Join(t.TempDir(), "missing", "dir", "audit.jsonl")); err == nil {
		t.Error("Open in a missing directory succeeded")
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestRecordReportsTheWritersError(t *testing.T) {
	if err := audit.New(failingWriter{}).Record(audit.Entry{Tool: "kill_pane"}); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("err = %v, want the writer's", err)
	}
	var none *audit.Log
	if err := none.Record(audit.Entry{Tool: "kill_pane"}); err != nil {
		t.Errorf("a nil Log: %v, want nothing recorded and no error", err)
	}
}

func TestSecretArgsPicksTheTypedArguments(t *testing.T) {
	got := audit.SecretArgs(map[string]any{"paneId": "%1", "command": "make", "keys": "C-c", "enter": true, "text": 5})
	if len(got) != 2 || got["command"] != "make" || got["keys"] != "C-c" {
		t.Errorf("SecretArgs = %v, want command and keys only", got)
	}
	if got := audit.SecretArgs(map[string]any{"paneId": "%1"}); got != nil {
		t.Errorf("SecretArgs without secrets = %v, want nil", got)
	}
}
