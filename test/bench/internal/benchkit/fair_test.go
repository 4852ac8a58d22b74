package benchkit

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/domain/frame"
)

func TestFairRatioIsTheCallsMedianOverFloorPlusPing(t *testing.T) {
	d := func(v ...int) []time.Duration {
		s := make([]time.Duration, len(v))
		for i, x := range v {
			s[i] = time.Duration(x) * time.Microsecond
		}
		return s
	}
	tests := []struct {
		name string
		row  fairRow
		want float64
	}{
		// Medians 3000, 900 and 300 µs: 3000 / 1200.
		{"medians", fairRow{calls: d(9000, 3000, 1000), floors: d(900, 100, 5000), pings: d(300, 200, 400)}, 2.5},
		{"no calls", fairRow{floors: d(1), pings: d(1)}, 0},
		{"no floor nor ping", fairRow{calls: d(5)}, 0},
	}
	for _, tt := range tests {
		if got := tt.row.ratio(); got != tt.want {
			t.Errorf("%s: ratio %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestFairTableSaysWhichTargetsAreMet(t *testing.T) {
	us := func(x int) []time.Duration { return []time.Duration{time.Duration(x) * time.Microsecond} }
	b := &fairBench{n: 1, warmup: 0, gap: time.Millisecond, idleRSS: 25e6,
		rows: []fairRow{
			{name: "fast", floorDesc: "f", target: 2.0, calls: us(2000), floors: us(700), pings: us(300)},
			{name: "slow", floorDesc: "g", target: 1.5, calls: us(1600), floors: us(700), pings: us(300)},
			{name: "broken", err: errors.New("boom")},
		},
		cpu: &cpuPerCall{calls: 10, wall: time.Millisecond, server: 300 * time.Microsecond, tmux: 600 * time.Microsecond},
	}
	var out bytes.Buffer
	b.print(&out, header{tmuxVersion: "tmux 3.4"}, "bin/tmux-mcp", 1)
	rows := map[string]string{}
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(line, "| ") {
			cells := strings.Split(line, " | ")
			rows[strings.TrimPrefix(cells[0], "| ")] = line
		}
	}
	want := map[string][]string{
		"fast":     {"| 2.00 ms |", "f: 0.70 ms", "**2.00×**", "≤ 2.0×", "| **yes** |"},
		"slow":     {"**1.60×**", "≤ 1.5×", "| no |"},
		"broken":   {"error: boom"},
		"idle RSS": {"25.0 MB", "| no |"},
	}
	for name, parts := range want {
		line, ok := rows[name]
		if !ok {
			t.Errorf("no row %q in\n%s", name, out.String())
			continue
		}
		for _, p := range parts {
			if !strings.Contains(line, p) {
				t.Errorf("row %q lacks %q: %s", name, p, line)
			}
		}
	}
	var cpu string
	for name, line := range rows {
		if strings.HasPrefix(name, "CPU per run") {
			cpu = line
		}
	}
	if !strings.Contains(cpu, "0.30 ms / 0.60 ms") || !strings.Contains(cpu, "| **yes** / no |") {
		t.Errorf("CPU row: %q", cpu)
	}
}

// A fake server on pipes: the client must match replies to requests by
// id whatever their order, drop notifications, and surface JSON-RPC and
// tool errors.
func TestRPCClientMatchesRepliesByID(t *testing.T) {
	inR, inW := io.Pipe()   // client -> server
	outR, outW := io.Pipe() // server -> client
	c := &rpcClient{stdin: inW, pending: map[int64]chan rpcReply{}, done: make(chan struct{})}
	go c.read(outR)
	go func() {
		defer outW.Close()
		sc := bufio.NewScanner(inR)
		var held []byte
		for sc.Scan() {
			var req struct {
				ID     int64  `json:"id"`
				Method string `json:"method"`
			}
			if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
				return
			}
			var rep string
			switch req.Method {
			case "ping":
				rep = `{"jsonrpc":"2.0","id":` + itoa(req.ID) + `,"result":{}}`
			case "bad":
				rep = `{"jsonrpc":"2.0","id":` + itoa(req.ID) + `,"error":{"code":-32601,"message":"no such method"}}`
			case "tools/call":
				rep = `{"jsonrpc":"2.0","id":` + itoa(req.ID) + `,"result":{"isError":true,"content":[{"type":"text","text":"pane gone"}]}}`
			case "hold":
				// Answered only after the next request's reply.
				held = []byte(`{"jsonrpc":"2.0","id":` + itoa(req.ID) + `,"result":{"which":"held"}}` + "\n")
				continue
			}
			io.WriteString(outW, `{"jsonrpc":"2.0","method":"notifications/message","params":{}}`+"\n")
			io.WriteString(outW, rep+"\n")
			if held != nil {
				outW.Write(held)
				held = nil
			}
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	heldDone := make(chan string, 1)
	go func() {
		res, _, err := c.request(ctx, "hold", nil)
		if err != nil {
			heldDone <- err.Error()
			return
		}
		heldDone <- string(res)
	}()
	// Make sure "hold" is written first.
	for {
		c.mu.Lock()
		n := len(c.pending)
		c.mu.Unlock()
		if n == 1 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	if _, _, err := c.request(ctx, "ping", nil); err != nil {
		t.Fatalf("ping: %v", err)
	}
	if got := <-heldDone; got != `{"which":"held"}` {
		t.Errorf("held request got %s", got)
	}
	if _, _, err := c.request(ctx, "bad", nil); err == nil || !strings.Contains(err.Error(), "no such method") {
		t.Errorf("JSON-RPC error: %v", err)
	}
	if _, _, err := c.call(ctx, prepare("capture_pane", map[string]any{"paneId": "%1"})); err == nil || !strings.Contains(err.Error(), "pane gone") {
		t.Errorf("tool error: %v", err)
	}
	inW.Close()
	<-c.done
	if _, _, err := c.request(ctx, "ping", nil); err == nil {
		t.Error("a request after the server's output ended succeeded")
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

func TestPrepareEncodesAToolsCall(t *testing.T) {
	p := prepare("send_keys", map[string]any{"paneId": "%3", "keys": "C-c"})
	var got struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
	}
	if err := json.Unmarshal(p.params, &got); err != nil {
		t.Fatal(err)
	}
	if got.Name != "send_keys" || got.Arguments["paneId"] != "%3" || got.Arguments["keys"] != "C-c" || p.name != "send_keys" {
		t.Errorf("prepared %s as %+v", p.params, got)
	}
}

func TestIdleRSSIsJudgedAtThePrintedPrecision(t *testing.T) {
	for _, tt := range []struct {
		rss  int64
		want bool
	}{{19_000_000, true}, {20_000_000, true}, {20_049_999, true}, {20_050_000, false}, {25_000_000, false}} {
		if got := rssMet(tt.rss); got != tt.want {
			t.Errorf("rssMet(%d) = %v (printed %s), want %v", tt.rss, got, mb(tt.rss), tt.want)
		}
	}
}

// A frame part is cut exactly where the frame has it; a part it lacks is said
// to be gone, not measured as if cut.
func TestFramePartsCutWhatTheyNameOrSayItIsGone(t *testing.T) {
	c := frame.Command{Shell: frame.ShellBash, IDs: frame.IDs{ID: "i1", Secret: "s1", Unread: "u1"}, Text: "true"}
	path := "/dev/shm/d/f"
	line, script := c.Line(frame.Files{Script: path}), string(c.Script(frame.Files{Script: path}))
	fallback := "[ -r '" + path + "' ] || builtin printf '\\033]7717;tmcp;X;u1\\007'; "
	l, s, ok := without("fallback", "", fallback).make(line, script)
	if !ok || strings.Contains(l, "[ -r") || s != script || len(l) != len(line)-len(fallback) {
		t.Errorf("without the fallback: %q, ok %v (line %q)", l, ok, line)
	}
	if _, _, ok := without("gone", "", "no such part").make(line, script); ok {
		t.Error("a part the frame lacks was reported cut")
	}
}
