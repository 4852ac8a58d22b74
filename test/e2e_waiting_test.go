package test

import (
	"context"
	"encoding/base64"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
)

// The end-to-end test of the waiting and input tools — capture_since,
// wait_for_text and send_keys — on the same footing as the three specified
// tools' (see e2e_inmemory_test.go): a real MCP client, the real domain,
// the fake terminal and clock. Time moves only once the server is seen
// waiting on the clock.

type sinceOutput struct {
	ByteClamped        bool    `json:"byteClamped"`
	Cursor             *string `json:"cursor"`
	DroppedLines       int64   `json:"droppedLines"`
	EffectiveTimeoutMs int64   `json:"effectiveTimeoutMs"`
	MissedBytes        int64   `json:"missedBytes"`
	OmittedBytes       int64   `json:"omittedBytes"`
	PaneID             string  `json:"paneId"`
	RangeClamped       bool    `json:"rangeClamped"`
	ReplacedBytes      int64   `json:"replacedBytes"`
	ReturnedBytes      int64   `json:"returnedBytes"`
	Seeded             bool    `json:"seeded"`
	Streaming          bool    `json:"streaming"`
	Text               string  `json:"text"`
	UnterminatedBytes  int64   `json:"unterminatedBytes"`
}

var sinceFields = []string{"byteClamped", "cursor", "droppedLines", "effectiveTimeoutMs", "missedBytes", "omittedBytes",
	"paneId", "rangeClamped", "replacedBytes", "returnedBytes", "seeded", "streaming", "text", "unterminatedBytes"}

func decodeSince(t *testing.T, res *sdk.CallToolResult) sinceOutput {
	t.Helper()
	var out sinceOutput
	decode(t, res, sinceFields, &out)
	return out
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
	ReplacedBytes      int64   `json:"replacedBytes"`
	ReturnedBytes      int64   `json:"returnedBytes"`
	Screen             string  `json:"screen"`
	ScreenClamped      bool    `json:"screenClamped"`
	StreamFailure      *string `json:"streamFailure"`
	UnterminatedBytes  int64   `json:"unterminatedBytes"`
}

var waitFields = []string{"alreadyOnScreen", "cursor", "droppedLines", "effectiveTimeoutMs", "matched", "missedBytes",
	"omittedBytes", "outcome", "output", "paneId", "replacedBytes", "returnedBytes", "screen", "screenClamped", "streamFailure",
	"unterminatedBytes"}

func decodeWait(t *testing.T, res *sdk.CallToolResult) waitOutput {
	t.Helper()
	var out waitOutput
	decode(t, res, waitFields, &out)
	return out
}

type keysOutput struct {
	Attended        bool     `json:"attended"`
	PaneID          string   `json:"paneId"`
	ResolvedPaneIDs []string `json:"resolvedPaneIds"`
	Sent            []string `json:"sent"`
}

var keysFields = []string{"attended", "paneId", "resolvedPaneIds", "sent"}

func decodeKeys(t *testing.T, res *sdk.CallToolResult) keysOutput {
	t.Helper()
	var out keysOutput
	decode(t, res, keysFields, &out)
	return out
}

// waitTimers is how many timers a waiting capture_since or wait_for_text
// holds without a progress token: its deadline.
const waitTimers = 1

// seed calls capture_since without a cursor and returns the first cursor.
func (e *inmem) seed(pane string) string {
	e.t.Helper()
	out := decodeSince(e.t, e.call("capture_since", map[string]any{"paneId": pane}))
	if !out.Seeded || out.Cursor == nil {
		e.t.Fatalf("capture_since without a cursor = %+v, want seeded with a cursor", out)
	}
	return *out.Cursor
}

// startWithProgress is start with a progress token.
func (e *inmem) startWithProgress(tool string, args map[string]any, token string) <-chan *sdk.CallToolResult {
	params := &sdk.CallToolParams{Name: tool, Arguments: args}
	params.SetProgressToken(token)
	out := make(chan *sdk.CallToolResult, 1)
	go func() {
		res, err := e.cs.CallTool(context.Background(), params)
		if err != nil {
			e.t.Errorf("%s: protocol error %v", tool, err)
		}
		out <- res
	}()
	return out
}

// turnOver makes sure that a call waiting with a progress token, holding
// timers timers, has read everything the pane wrote so far. It moves the
// clock one progress tick and waits for the call to arm its next tick,
// twice: between handling two ticks the call's loop reads the stream.
func (e *inmem) turnOver(timers int) {
	e.t.Helper()
	for range 2 {
		e.clock.Advance(time.Second)
		e.awaitWaiting(timers)
	}
}

// forgeCursor returns cur moved delta bytes on. No client can make such a
// cursor; the test knows the format (domain/cursor.go) only to check that
// the server refuses one.
func forgeCursor(t *testing.T, cur string, delta int64) string {
	t.Helper()
	raw, err := base64.RawURLEncoding.DecodeString(cur)
	if err != nil {
		t.Fatalf("cursor %q: %v", cur, err)
	}
	f := strings.Split(string(raw), "\x1f")
	off, err := strconv.ParseInt(f[len(f)-1], 10, 64)
	if err != nil {
		t.Fatalf("cursor %q: offset: %v", raw, err)
	}
	f[len(f)-1] = strconv.FormatInt(off+delta, 10)
	return base64.RawURLEncoding.EncodeToString([]byte(strings.Join(f, "\x1f")))
}

func TestInMemoryCaptureSinceSeedsThenReturnsOnlyNewOutput(t *testing.T) {
	e := newInmem(t)
	e.term.Inject("%0", []byte("old line\r\n"))

	first := decodeSince(t, e.call("capture_since", map[string]any{"paneId": "%0"}))
	if !strings.HasPrefix(first.Text, "$ old line\n") || !first.Seeded || !first.Streaming || first.Cursor == nil ||
		first.ReturnedBytes != int64(len(first.Text)) || first.EffectiveTimeoutMs != 0 || first.MissedBytes != 0 {
		t.Fatalf("seeding capture_since = %+v, want the screen and a cursor", first)
	}

	e.term.Inject("%0", []byte("new line\r\n"))
	next := decodeSince(t, e.call("capture_since", map[string]any{"paneId": "%0", "cursor": *first.Cursor}))
	if next.Text != "new line\n" || next.Seeded || !next.Streaming || next.ReturnedBytes != 9 || next.Cursor == nil ||
		*next.Cursor == *first.Cursor {
		t.Errorf("capture_since after the first cursor = %+v, want only the new line and a new cursor", next)
	}

	// Nothing new: no text, and the same position.
	again := decodeSince(t, e.call("capture_since", map[string]any{"paneId": "%0", "cursor": *next.Cursor}))
	if again.Text != "" || again.Cursor == nil || *again.Cursor != *next.Cursor {
		t.Errorf("capture_since with nothing new = %+v, want no text and cursor %s", again, *next.Cursor)
	}

	// A cursor is the client's: the first one still reads from where it was.
	if replay := decodeSince(t, e.call("capture_since", map[string]any{"paneId": "%0", "cursor": *first.Cursor})); replay.Text != "new line\n" {
		t.Errorf("capture_since with the first cursor again = %q, want %q", replay.Text, "new line\n")
	}
}

func TestInMemoryCaptureSinceTextIsPlain(t *testing.T) {
	e := newInmem(t)
	cur := e.seed("%0")
	// Colours, a title, a progress line redrawn with \r, and an escape
	// sequence cut in two by the end of a write.
	e.term.Inject("%0", []byte("\x1b[31mred\x1b[0m plain\r\n\x1b]0;title\x07 50%\r100%\r\nabc\x1b[3"))
	out := decodeSince(t, e.call("capture_since", map[string]any{"paneId": "%0", "cursor": cur}))
	if out.Text != "red plain\n100%\nabc" {
		t.Errorf("text = %q, want %q", out.Text, "red plain\n100%\nabc")
	}
	// The unfinished sequence stays behind the cursor and is removed whole
	// once it ends.
	e.term.Inject("%0", []byte("1mbold\x1b[0m\r\n"))
	if out = decodeSince(t, e.call("capture_since", map[string]any{"paneId": "%0", "cursor": *out.Cursor})); out.Text != "bold\n" {
		t.Errorf("text after the rest of the sequence = %q, want %q", out.Text, "bold\n")
	}
}

func TestInMemoryCaptureSinceReportsLostOutput(t *testing.T) {
	e := newInmem(t)
	cur := e.seed("%0")
	e.term.LoseOutput("%0", 100)
	e.term.Inject("%0", []byte("after\r\n"))
	res := e.call("capture_since", map[string]any{"paneId": "%0", "cursor": cur})
	out := decodeSince(t, res)
	if out.MissedBytes != 100 || out.Text != "after\n" || !out.Streaming {
		t.Errorf("capture_since across lost output = %+v, want 100 missed bytes, then %q", out, "after\n")
	}
	if len(res.Content) != 2 || !strings.Contains(res.Content[1].(*sdk.TextContent).Text, "100 bytes lost") {
		t.Errorf("content = %v, want the JSON and a notice of the 100 lost bytes", res.Content)
	}
}

func TestInMemoryCaptureSinceWaitsForOutput(t *testing.T) {
	e := newInmem(t)
	cur := e.seed("%0")
	done := e.start("capture_since", map[string]any{"paneId": "%0", "cursor": cur, "waitMs": 5000})
	e.awaitWaiting(waitTimers)
	e.term.Inject("%0", []byte("late\r\n"))
	out := decodeSince(t, <-done)
	if out.Text != "late\n" || out.EffectiveTimeoutMs != 5000 {
		t.Errorf("capture_since waiting for output = %+v, want %q after waiting up to 5000 ms", out, "late\n")
	}
}

func TestInMemoryCaptureSinceWaitIsClampedAndEnds(t *testing.T) {
	e := newInmem(t)
	cur := e.seed("%0")
	// The ceiling is 60 s: a longer wait is clamped, not refused.
	done := e.start("capture_since", map[string]any{"paneId": "%0", "cursor": cur, "waitMs": 90000})
	e.awaitWaiting(waitTimers)
	e.clock.Advance(60 * time.Second)
	out := decodeSince(t, <-done)
	if out.Text != "" || out.EffectiveTimeoutMs != 60000 || out.Cursor == nil || *out.Cursor != cur {
		t.Errorf("capture_since that waited in vain = %+v, want no text, 60000 ms and the same cursor", out)
	}
}

func TestInMemoryCaptureSinceCancelledReturnsWhatItHas(t *testing.T) {
	e := newInmem(t)
	cur := e.seed("%0")
	out := decodeSince(t, e.cancelled("capture_since", map[string]any{"paneId": "%0", "cursor": cur, "waitMs": 30000}, waitTimers))
	if out.Text != "" || out.Cursor == nil || *out.Cursor != cur {
		t.Errorf("cancelled capture_since = %+v, want no text and the same cursor", out)
	}
}

func TestInMemoryBadCursorsAreToolErrors(t *testing.T) {
	const restart = "call without a cursor to start again"
	tests := []struct {
		name   string
		cursor func(e *inmem) string
		says   []string
	}{
		{"another pane's", func(e *inmem) string { e.term.AddPane(fake.PaneSpec{}); return e.seed("%1") },
			[]string{"belongs to pane %1, not %0"}},
		{"a restarted pane's", func(e *inmem) string { c := e.seed("%0"); e.term.Respawn("%0"); return c },
			[]string{"restarted", restart}},
		{"garbage", func(*inmem) string { return "not-a-cursor" },
			[]string{"not a cursor this server issued", restart}},
		{"a position not yet written", func(e *inmem) string { return forgeCursor(e.t, e.seed("%0"), 1000) },
			[]string{"past the end", restart}},
		{"from another run of the server", func(e *inmem) string {
			// A second server on the same terminal stands for a restart.
			return newInmemOn(e.t, e.term, e.clock).seed("%0")
		}, []string{"earlier run", restart}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newInmem(t)
			cur := tt.cursor(e)
			for _, c := range []struct {
				tool string
				args map[string]any
			}{
				{"capture_since", map[string]any{"paneId": "%0", "cursor": cur}},
				{"wait_for_text", map[string]any{"paneId": "%0", "cursor": cur, "patterns": []string{"x"}}},
			} {
				msg := errorText(t, e.call(c.tool, c.args))
				for _, s := range append(tt.says, "invalid cursor") {
					if !strings.Contains(msg, s) {
						t.Errorf("%s with %s cursor: %q lacks %q", c.tool, tt.name, msg, s)
					}
				}
			}
		})
	}
}

func TestInMemoryWaitForTextMatchesAPatternSplitAcrossWrites(t *testing.T) {
	e := newInmem(t)
	done := e.startWithProgress("wait_for_text", map[string]any{"paneId": "%0", "patterns": []string{"BUILD OK"}, "timeoutMs": 10000}, "split")
	e.awaitWaiting(waitTimers + 1) // and the progress tick
	e.term.Inject("%0", []byte("BUILD O"))
	e.turnOver(waitTimers + 1) // the call has read "BUILD O", and found no match
	e.term.Inject("%0", []byte("K\r\n"))
	out := decodeWait(t, <-done)
	if out.Outcome != "matched" || out.Matched == nil || *out.Matched != "BUILD OK" || out.Output != "BUILD OK\n" ||
		out.AlreadyOnScreen || out.EffectiveTimeoutMs != 10000 || out.StreamFailure != nil {
		t.Errorf("wait_for_text = %+v (matched %v), want BUILD OK matched in new output", out, derefS(out.Matched))
	}
	if !strings.Contains(out.Screen, "BUILD OK") {
		t.Errorf("screen = %q, want the screen at return", out.Screen)
	}
}

func TestInMemoryWaitForTextMatchesTextWithoutEscapeSequences(t *testing.T) {
	e := newInmem(t)
	done := e.start("wait_for_text", map[string]any{"paneId": "%0", "patterns": []string{"tests passed"}})
	e.awaitWaiting(waitTimers)
	e.term.Inject("%0", []byte("12 \x1b[1;32mtests\x1b[0m passed\r\n"))
	if out := decodeWait(t, <-done); out.Outcome != "matched" || out.Output != "12 tests passed\n" {
		t.Errorf("wait_for_text = %+v, want a match on the text without its colours", out)
	}
}

func TestInMemoryWaitForTextReportsThePatternAsGiven(t *testing.T) {
	tests := []struct {
		name     string
		patterns []string
		regex    bool
		output   string
		matched  string
	}{
		{"the substring that appeared", []string{"FAIL", "PASS"}, false, "PASS\r\n", "PASS"},
		{"a regular expression, not the text", []string{`^never$`, `exit code \d+`}, true, "exit code 42\r\n", `exit code \d+`},
		{"regex syntax is literal without regex", []string{`a.c`, `a+c`}, false, "abc a+c\r\n", `a+c`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newInmem(t)
			done := e.start("wait_for_text", map[string]any{"paneId": "%0", "patterns": tt.patterns, "regex": tt.regex})
			e.awaitWaiting(waitTimers)
			e.term.Inject("%0", []byte(tt.output))
			out := decodeWait(t, <-done)
			if out.Outcome != "matched" || out.Matched == nil || *out.Matched != tt.matched {
				t.Errorf("wait_for_text = %+v (matched %v), want %q matched", out, derefS(out.Matched), tt.matched)
			}
		})
	}
}

func TestInMemoryWaitForTextIgnoresStaleScreenText(t *testing.T) {
	e := newInmem(t)
	e.term.Inject("%0", []byte("READY\r\n"))
	done := e.start("wait_for_text", map[string]any{"paneId": "%0", "patterns": []string{"READY"}, "timeoutMs": 2000})
	e.awaitWaiting(waitTimers)
	e.clock.Advance(2 * time.Second)
	out := decodeWait(t, <-done)
	if out.Outcome != "timed_out" || !out.AlreadyOnScreen || out.Matched != nil || out.EffectiveTimeoutMs != 2000 ||
		!strings.Contains(out.Screen, "READY") {
		t.Errorf("wait_for_text for text already on screen = %+v, want timed_out with alreadyOnScreen", out)
	}

	// New output that repeats it is a match.
	done = e.start("wait_for_text", map[string]any{"paneId": "%0", "patterns": []string{"READY"}, "timeoutMs": 2000})
	e.awaitWaiting(waitTimers)
	e.term.Inject("%0", []byte("READY\r\n"))
	if out = decodeWait(t, <-done); out.Outcome != "matched" || !out.AlreadyOnScreen {
		t.Errorf("wait_for_text for repeated text = %+v, want matched, alreadyOnScreen", out)
	}
}

func TestInMemoryWaitForTextFromACursorMissesNothing(t *testing.T) {
	e := newInmem(t)
	// Take a cursor, then trigger the output, then wait: output that came
	// before the wait began still counts.
	cur := e.seed("%0")
	e.term.Inject("%0", []byte("DONE\r\n"))
	out := decodeWait(t, e.call("wait_for_text", map[string]any{"paneId": "%0", "patterns": []string{"DONE"}, "cursor": cur}))
	if out.Outcome != "matched" || out.Output != "DONE\n" {
		t.Fatalf("wait_for_text from a cursor = %+v, want DONE matched without waiting", out)
	}
	// Its cursor reads on from after the match.
	e.term.Inject("%0", []byte("next\r\n"))
	if next := decodeSince(t, e.call("capture_since", map[string]any{"paneId": "%0", "cursor": out.Cursor})); next.Text != "next\n" {
		t.Errorf("capture_since from wait_for_text's cursor = %q, want %q", next.Text, "next\n")
	}
}

func TestInMemoryWaitForTextOutcomes(t *testing.T) {
	tests := []struct {
		name    string
		end     func(e *inmem)
		outcome string
		missed  int64
	}{
		{"pane_died", func(e *inmem) { e.term.KillPane("%0") }, "pane_died", 0},
		{"pane removed", func(e *inmem) { e.term.RemovePane("%0") }, "pane_died", 0},
		{"output_lost", func(e *inmem) { e.term.LoseOutput("%0", 64) }, "output_lost", 64},
		{"timed_out", func(e *inmem) { e.clock.Advance(30 * time.Second) }, "timed_out", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newInmem(t)
			done := e.start("wait_for_text", map[string]any{"paneId": "%0", "patterns": []string{"never printed"}})
			e.awaitWaiting(waitTimers)
			tt.end(e)
			out := decodeWait(t, <-done)
			if out.Outcome != tt.outcome || out.Matched != nil || out.MissedBytes != tt.missed || out.EffectiveTimeoutMs != 30000 {
				t.Errorf("wait_for_text = %+v, want outcome %s, no match, %d missed bytes", out, tt.outcome, tt.missed)
			}
		})
	}
}

func TestInMemoryWaitForTextCancelled(t *testing.T) {
	e := newInmem(t)
	e.term.Inject("%0", []byte("partial "))
	out := decodeWait(t, e.cancelled("wait_for_text", map[string]any{"paneId": "%0", "patterns": []string{"never printed"}}, waitTimers))
	if out.Outcome != "cancelled" || out.Matched != nil || !strings.Contains(out.Screen, "partial") {
		t.Errorf("cancelled wait_for_text = %+v, want outcome cancelled with the screen", out)
	}
}

func TestInMemoryWaitForTextArgumentErrors(t *testing.T) {
	e := newInmem(t)
	tests := []struct {
		args map[string]any
		says []string
	}{
		{map[string]any{"paneId": "%0", "patterns": []string{"("}, "regex": true}, []string{"patterns", "RE2"}},
		{map[string]any{"paneId": "%0", "patterns": []string{""}}, []string{"patterns", "empty"}},
		{map[string]any{"paneId": "%9", "patterns": []string{"x"}}, []string{"%9", "not found"}},
	}
	for _, tt := range tests {
		msg := errorText(t, e.call("wait_for_text", tt.args))
		for _, s := range tt.says {
			if !strings.Contains(msg, s) {
				t.Errorf("wait_for_text %v: %q lacks %q", tt.args, msg, s)
			}
		}
	}
}

func TestInMemorySendKeysPressesNamedKeys(t *testing.T) {
	e := newInmem(t)
	e.term.SetCommand("%0", "vim") // swallows input; Sent shows what reached it
	out := decodeKeys(t, e.call("send_keys", map[string]any{"paneId": "%0", "keys": "escape :  w q"}))
	want := keysOutput{PaneID: "%0", ResolvedPaneIDs: []string{"%0"}, Sent: []string{"Escape", ":", "w", "q", "Enter"}}
	if !sameKeysOutput(out, want) {
		t.Errorf("send_keys = %+v, want %+v", out, want)
	}
	if got, want := e.term.Sent("%0"), []fake.Input{
		{Kind: fake.InputKeys, Keys: []string{"Escape", ":", "w", "q"}},
		{Kind: fake.InputKeys, Keys: []string{"Enter"}},
	}; !sameInputs(got, want) {
		t.Errorf("sent %+v, want %+v", got, want)
	}
}

func TestInMemorySendKeysReachesTheShell(t *testing.T) {
	e := newInmem(t)
	e.term.SetAttended("%0", true)
	out := decodeKeys(t, e.call("send_keys", map[string]any{"paneId": "%0", "keys": "e c h o Space h i"}))
	if !out.Attended || out.Sent[len(out.Sent)-1] != "Enter" {
		t.Errorf("send_keys = %+v, want attended and Enter pressed by default", out)
	}
	var screen captureOutput
	decode(t, e.call("capture_pane", map[string]any{"paneId": "%0"}), captureFields, &screen)
	if !strings.HasPrefix(screen.Text, "$ echo hi\nhi\n$\n") {
		t.Errorf("screen = %q, want the typed command run", screen.Text)
	}
}

func TestInMemorySendKeysWithoutEnter(t *testing.T) {
	e := newInmem(t)
	out := decodeKeys(t, e.call("send_keys", map[string]any{"paneId": "%0", "keys": "l s", "enter": false}))
	if want := []string{"l", "s"}; !slices.Equal(out.Sent, want) {
		t.Errorf("sent = %q, want %q", out.Sent, want)
	}
	if got, want := e.term.Sent("%0"), []fake.Input{{Kind: fake.InputKeys, Keys: []string{"l", "s"}}}; !sameInputs(got, want) {
		t.Errorf("sent %+v, want %+v", got, want)
	}
}

func TestInMemorySendKeysLiteral(t *testing.T) {
	e := newInmem(t)
	out := decodeKeys(t, e.call("send_keys", map[string]any{"paneId": "%0", "keys": "echo C-c Enter", "literal": true}))
	if want := []string{"echo C-c Enter", "Enter"}; !slices.Equal(out.Sent, want) {
		t.Errorf("sent = %q, want %q", out.Sent, want)
	}
	if got, want := e.term.Sent("%0"), []fake.Input{
		{Kind: fake.InputText, Text: "echo C-c Enter"},
		{Kind: fake.InputKeys, Keys: []string{"Enter"}},
	}; !sameInputs(got, want) {
		t.Errorf("sent %+v, want %+v", got, want)
	}
}

func TestInMemorySendKeysRefusesAnUnknownKeyAndSendsNothing(t *testing.T) {
	e := newInmem(t)
	msg := errorText(t, e.call("send_keys", map[string]any{"paneId": "%0", "keys": "C-c Bogus Enter"}))
	for _, s := range []string{`"Bogus"`, "not a key name", "literal", "paste_text"} {
		if !strings.Contains(msg, s) {
			t.Errorf("error %q lacks %q", msg, s)
		}
	}
	if sent := e.term.Sent("%0"); len(sent) != 0 {
		t.Errorf("an unknown key, yet input was sent: %+v", sent)
	}
}

// send_keys reaches a pane's mode, so that an agent can leave copy mode
// with the server's own tools; every other write stays refused there.
func TestInMemorySendKeysLeavesCopyMode(t *testing.T) {
	e := newInmem(t)
	e.term.SetMode("%0", "copy-mode")
	msg := errorText(t, e.call("paste_text", map[string]any{"paneId": "%0", "text": "x"}))
	for _, s := range []string{"copy-mode", "send_keys", `"q"`, "enter: false"} {
		if !strings.Contains(msg, s) {
			t.Errorf("paste refusal %q lacks %q", msg, s)
		}
	}
	res := e.call("send_keys", map[string]any{"paneId": "%0", "keys": "q", "enter": false})
	if res.IsError {
		t.Fatalf("send_keys q in copy mode: %s", errorText(t, res))
	}
	if sent := e.term.Sent("%0"); len(sent) != 1 || !slices.Equal(sent[0].Keys, []string{"q"}) {
		t.Errorf("sent %+v, want q alone", sent)
	}
}

func TestInMemorySendKeysRefusals(t *testing.T) {
	tests := []struct {
		name  string
		setup func(e *inmem)
		force bool
		says  []string
	}{
		{"watched", func(e *inmem) { e.term.Attach("%0", "/dev/pts/3") }, false, []string{"watching", "/dev/pts/3"}},
		{"watched, even with force", func(e *inmem) { e.term.Attach("%0", "/dev/pts/3") }, true, []string{"watching", "force does not"}},
		{"synchronized", func(e *inmem) { e.term.AddPane(fake.PaneSpec{}); e.term.Synchronize("%0", "%1") }, false, []string{"synchronized", "%1"}},
		{"the server's own pane", func(e *inmem) { e.term.SetSelf("%0") }, false, []string{"this server itself", "force: true"}},
		{"dead", func(e *inmem) { e.term.KillPane("%0") }, false, []string{"dead"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newInmem(t)
			tt.setup(e)
			msg := errorText(t, e.call("send_keys", map[string]any{"paneId": "%0", "keys": "C-c", "force": tt.force}))
			for _, s := range append(tt.says, "refused", "%0") {
				if !strings.Contains(msg, s) {
					t.Errorf("refusal %q lacks %q", msg, s)
				}
			}
			if sent := e.term.Sent("%0"); len(sent) != 0 {
				t.Errorf("refused, yet input was sent: %+v", sent)
			}
		})
	}
}

func TestInMemorySendKeysToTheServersOwnPaneWithForce(t *testing.T) {
	e := newInmem(t)
	e.term.SetSelf("%0")
	if out := decodeKeys(t, e.call("send_keys", map[string]any{"paneId": "%0", "keys": "C-l", "enter": false, "force": true})); !slices.Equal(out.Sent, []string{"C-l"}) {
		t.Errorf("forced send_keys = %+v", out)
	}
}

func TestInMemorySendKeysToABusyPaneIsRefusedWhileTheCallWaits(t *testing.T) {
	e := newInmem(t)
	done := e.start("run_shell_command", map[string]any{"paneId": "%0", "command": "sleep 100", "timeoutMs": 1000})
	e.awaitWaiting(runTimers)
	// While run_shell_command's call still waits, even C-c is refused: the
	// caller that ran the command is the one to decide.
	for _, keys := range []string{"q", "C-c"} {
		msg := errorText(t, e.call("send_keys", map[string]any{"paneId": "%0", "keys": keys}))
		for _, s := range []string{"%0", "busy", `"sleep 100"`} {
			if !strings.Contains(msg, s) {
				t.Errorf("send_keys %s to a busy pane: %q lacks %q", keys, msg, s)
			}
		}
	}
	e.clock.Advance(time.Second)
	if out := decodeRun(t, <-done); out.Outcome != "timed_out" {
		t.Errorf("run = %+v, want timed_out", out)
	}
	if sent := e.term.Sent("%0"); len(sent) != 1 { // the framed command, ending in its Enter
		t.Errorf("input reached the busy pane: %+v", sent)
	}
}

func TestInMemorySendKeysInterruptsACommandWhoseCallReturned(t *testing.T) {
	command := "echo started; sleep 100"
	tests := []struct {
		outcome string
		run     func(e *inmem) *sdk.CallToolResult
	}{
		{"timed_out", func(e *inmem) *sdk.CallToolResult {
			done := e.start("run_shell_command", map[string]any{"paneId": "%0", "command": command, "timeoutMs": 1000})
			e.awaitWaiting(runTimers)
			e.clock.Advance(time.Second)
			return <-done
		}},
		{"cancelled", func(e *inmem) *sdk.CallToolResult {
			return e.cancelled("run_shell_command", map[string]any{"paneId": "%0", "command": command}, runTimers)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.outcome, func(t *testing.T) {
			e := newInmem(t)
			if out := decodeRun(t, tt.run(e)); out.Outcome != tt.outcome || !out.StillRunning {
				t.Fatalf("run = %+v, want %s and still running", out, tt.outcome)
			}

			// Only interrupt keys, as key names, get through.
			for _, args := range []map[string]any{
				{"paneId": "%0", "keys": "q"},
				{"paneId": "%0", "keys": "C-c q"},
				{"paneId": "%0", "keys": "C-c", "literal": true},
			} {
				msg := errorText(t, e.call("send_keys", args))
				if !strings.Contains(msg, "busy") || !strings.Contains(msg, tt.outcome) {
					t.Errorf("send_keys %v to a pane whose command outlived its call: %q, want busy", args, msg)
				}
			}
			// The server follows the command on: its one timer checks that
			// the pane lives.
			e.awaitWaiting(1)
			out := decodeKeys(t, e.call("send_keys", map[string]any{"paneId": "%0", "keys": "C-c"}))
			if want := (keysOutput{PaneID: "%0", ResolvedPaneIDs: []string{"%0"}, Sent: []string{"C-c"}}); !sameKeysOutput(out, want) {
				t.Errorf("interrupting send_keys = %+v, want %+v (no Enter)", out, want)
			}
			sent := e.term.Sent("%0")
			if last := sent[len(sent)-1]; len(sent) != 2 || last.Kind != fake.InputKeys || !slices.Equal(last.Keys, []string{"C-c"}) {
				t.Errorf("sent %+v, want the framed command (with its Enter) and C-c alone", sent)
			}

			// The command ends with 130 and the server stops following it,
			// releasing the pane: the next command runs.
			e.awaitNoTimers()
			next := decodeRun(t, e.call("run_shell_command", map[string]any{"paneId": "%0", "command": "echo after"}))
			if next.Outcome != "completed" || next.Output != "after" {
				t.Errorf("run after the interrupt = %+v, want it to complete", next)
			}
		})
	}
}

func TestInMemoryWaitingToolsReportProgress(t *testing.T) {
	tests := []struct {
		tool   string
		args   func(e *inmem) map[string]any
		timers int
		finish func(e *inmem)
	}{
		{
			tool: "run_shell_command",
			args: func(*inmem) map[string]any {
				return map[string]any{"command": "sleep 5; echo done", "timeoutMs": 10000}
			},
			timers: runTimers + 1,
			finish: func(e *inmem) { e.clock.Advance(3 * time.Second) },
		},
		{
			tool:   "capture_since",
			args:   func(e *inmem) map[string]any { return map[string]any{"cursor": e.seed("%0"), "waitMs": 10000} },
			timers: waitTimers + 1,
			finish: func(e *inmem) { e.term.Inject("%0", []byte("done\r\n")) },
		},
		{
			tool:   "wait_for_text",
			args:   func(*inmem) map[string]any { return map[string]any{"patterns": []string{"done"}, "timeoutMs": 10000} },
			timers: waitTimers + 1,
			finish: func(e *inmem) { e.term.Inject("%0", []byte("done\r\n")) },
		},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			notes := make(chan *sdk.ProgressNotificationParams, 16)
			e := newInmemWith(t, &sdk.ClientOptions{
				ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
					notes <- req.Params
				},
			})
			args := tt.args(e)
			args["paneId"] = "%0"
			done := e.startWithProgress(tt.tool, args, "p-"+tt.tool)
			// One notification per second of waiting, well within the
			// contract's every 2 s.
			for _, want := range []float64{1000, 2000} {
				e.awaitWaiting(tt.timers)
				e.clock.Advance(time.Second)
				n := <-notes
				if n.ProgressToken != "p-"+tt.tool || n.Progress != want || n.Total != 10000 {
					t.Errorf("progress = %+v, want %v of 10000 ms for token p-%s", n, want, tt.tool)
				}
			}
			e.awaitWaiting(tt.timers)
			tt.finish(e)
			res := <-done
			if res.IsError {
				t.Fatalf("%s: %s", tt.tool, errorText(t, res))
			}
			if text := res.Content[0].(*sdk.TextContent).Text; !strings.Contains(text, `done`) {
				t.Errorf("%s result = %s, want the output that ended the wait", tt.tool, text)
			}
		})
	}
}

// awaitNoTimers returns once no timer is pending on the clock: every call
// and every command the server followed has stopped waiting. The clock
// tells when timers are made, not when they go, so this polls; it fails the
// test rather than hang.
func (e *inmem) awaitNoTimers() {
	e.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for e.clock.PendingTimers() > 0 {
		if time.Now().After(deadline) {
			e.t.Fatalf("the server still waits on %d timers", e.clock.PendingTimers())
		}
		runtime.Gosched()
	}
}

func sameKeysOutput(a, b keysOutput) bool {
	return a.Attended == b.Attended && a.PaneID == b.PaneID && slices.Equal(a.ResolvedPaneIDs, b.ResolvedPaneIDs) && slices.Equal(a.Sent, b.Sent)
}

func derefS(p *string) any {
	if p == nil {
		return nil
	}
	return *p
}

func TestInMemoryCaptureSinceOfADeadPane(t *testing.T) {
	e := newInmem(t)
	e.term.KillPane("%0")
	out := decodeSince(t, e.call("capture_since", map[string]any{"paneId": "%0"}))
	if !out.Seeded || out.Streaming {
		t.Errorf("capture_since of a dead pane = %+v, want the screen, not streaming", out)
	}
}

func TestInMemoryCaptureSinceReadsALastWordBeforeDeath(t *testing.T) {
	e := newInmem(t)
	cur := e.seed("%0")
	e.term.Inject("%0", []byte("last words\r\n"))
	e.term.KillPane("%0")
	out := decodeSince(t, e.call("capture_since", map[string]any{"paneId": "%0", "cursor": cur}))
	if out.Text != "last words\n" || out.MissedBytes != 0 || out.Streaming {
		t.Errorf("capture_since after the pane died = %+v, want its last words, nothing missed, not streaming", out)
	}
}

func TestInMemoryWaitForTextFindsALastWordBeforeDeath(t *testing.T) {
	e := newInmem(t)
	cur := e.seed("%0")
	e.term.Inject("%0", []byte("last words\r\n"))
	e.term.KillPane("%0")
	out := decodeWait(t, e.call("wait_for_text", map[string]any{"paneId": "%0", "patterns": []string{"last words"}, "cursor": cur}))
	if out.Outcome != "matched" || out.MissedBytes != 0 {
		t.Errorf("wait_for_text after the pane died = %+v, want its last words matched, nothing missed", out)
	}
}

// wait_for_command on the fake, where its logic is the domain's: a
// command whose run_shell_command call timed out is waited for again and
// again (a wait that runs out, one that is cancelled, then the end with
// its exit status and all its output), and then nothing of ours runs in
// the pane.
func TestInMemoryWaitForCommandFinishesACommandThatOutlivedItsCall(t *testing.T) {
	e := newInmem(t)
	done := e.start("run_shell_command", map[string]any{"paneId": "%0", "command": "echo started; sleep 10; echo done; exit 4", "timeoutMs": 1000})
	e.awaitWaiting(runTimers)
	e.clock.Advance(time.Second)
	res := <-done
	checkRun(t, decodeRun(t, res), runOutput{Outcome: "timed_out", StillRunning: true, Output: "started", ReturnedBytes: 7,
		OutputComplete: true, PaneID: "%0", EffectiveTimeoutMs: 1000})
	if tc, ok := res.Content[len(res.Content)-1].(*sdk.TextContent); len(res.Content) != 2 || !ok ||
		!strings.Contains(tc.Text, "wait_for_command with paneId %0") {
		t.Errorf("the timed-out run's text %v does not name wait_for_command", res.Content)
	}

	// The server follows the command on: one timer, checking that the pane
	// lives; a wait adds its deadline.
	e.awaitWaiting(1)
	done = e.start("wait_for_command", map[string]any{"paneId": "%0", "timeoutMs": 2000})
	e.awaitWaiting(runTimers)
	e.clock.Advance(2 * time.Second)
	checkRun(t, decodeRun(t, <-done), runOutput{Outcome: "timed_out", StillRunning: true, Output: "started", ReturnedBytes: 7,
		OutputComplete: true, PaneID: "%0", EffectiveTimeoutMs: 2000})

	checkRun(t, decodeRun(t, e.cancelled("wait_for_command", map[string]any{"paneId": "%0"}, runTimers)),
		runOutput{Outcome: "cancelled", StillRunning: true, Output: "started", ReturnedBytes: 7, OutputComplete: true, PaneID: "%0",
			EffectiveTimeoutMs: 30000})

	e.awaitWaiting(1)
	done = e.start("wait_for_command", map[string]any{"paneId": "%0", "maxLines": 1})
	e.awaitWaiting(runTimers)
	e.clock.Advance(7 * time.Second) // the sleep ends
	checkRun(t, decodeRun(t, <-done), runOutput{Outcome: "completed", ExitStatus: status(4), Output: "done", ReturnedBytes: 4,
		DroppedLines: 1, PaneID: "%0", EffectiveTimeoutMs: 30000})

	msg := errorText(t, e.call("wait_for_command", map[string]any{"paneId": "%0"}))
	if !strings.Contains(msg, "no command of this server runs in the pane") || !strings.Contains(msg, "use run_shell_command") {
		t.Errorf("wait_for_command with nothing running: %q", msg)
	}
	if out := decodeRun(t, e.call("run_shell_command", map[string]any{"paneId": "%0", "command": "echo free"})); out.Output != "free" {
		t.Errorf("the pane is not free after the end: %+v", out)
	}
}
