package benchkit

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"time"
)

// rpcClient is a bare JSON-RPC client of the server over stdio: it writes
// one request per line to the server's standard input and reads its
// standard output line by line, matching replies to requests by id. It
// has none of an SDK client's cost (no schema checks, no typed decoding
// before the reply is timed), so that a figure measured through it is the
// server's and the pipe's alone: the fair limit's "one MCP exchange" is
// measured the same way, as a ping.
//
// A reply is timed when its line has been read, before it is decoded.
// Requests may be in flight from many goroutines at once.
type rpcClient struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	wmu     sync.Mutex // one request line at a time
	mu      sync.Mutex
	pending map[int64]chan rpcReply
	nextID  int64
	done    chan struct{} // closed when the server's output ended
	logf    *os.File
}

// rpcReply is one reply line and when it was read.
type rpcReply struct {
	line []byte
	at   time.Time
}

// startRPC starts the server binary with args, its standard error into
// logPath, and makes the MCP handshake.
func startRPC(ctx context.Context, bin string, args []string, logPath string) (*rpcClient, error) {
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = serverEnv()
	cmd.Stderr = logf
	stdin, err := cmd.StdinPipe()
	if err != nil {
		logf.Close()
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		logf.Close()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	c := &rpcClient{cmd: cmd, stdin: stdin, pending: map[int64]chan rpcReply{}, done: make(chan struct{}), logf: logf}
	go c.read(stdout)
	init := `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"tmux-mcp-bench-rpc","version":"0"}}`
	if _, _, err := c.request(ctx, "initialize", []byte(init)); err != nil {
		c.close()
		return nil, fmt.Errorf("initialize %s: %w (log: %s)", bin, err, logPath)
	}
	if err := c.notify("notifications/initialized"); err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

// pid is the server's process id.
func (c *rpcClient) pid() int { return c.cmd.Process.Pid }

// read delivers each reply line to the request that waits for it; lines
// without a pending id (notifications, requests of the server) are
// dropped.
func (c *rpcClient) read(r io.Reader) {
	defer close(c.done)
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		line, err := br.ReadBytes('\n')
		if err != nil {
			return
		}
		at := time.Now()
		var head struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(line, &head) != nil || len(head.ID) == 0 {
			continue
		}
		id, err := strconv.ParseInt(string(head.ID), 10, 64)
		if err != nil {
			continue
		}
		c.mu.Lock()
		ch := c.pending[id]
		delete(c.pending, id)
		c.mu.Unlock()
		if ch != nil {
			ch <- rpcReply{line: line, at: at}
		}
	}
}

// notify sends a notification.
func (c *rpcClient) notify(method string) error {
	return c.write([]byte(`{"jsonrpc":"2.0","method":"` + method + `"}` + "\n"))
}

func (c *rpcClient) write(b []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := c.stdin.Write(b)
	return err
}

// request sends one request with params (JSON, or nil) and returns the
// result's JSON and the time from just before the write to the reply's
// line being read. A JSON-RPC error is an error.
func (c *rpcClient) request(ctx context.Context, method string, params []byte) (json.RawMessage, time.Duration, error) {
	ch := make(chan rpcReply, 1)
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	c.pending[id] = ch
	c.mu.Unlock()
	msg := make([]byte, 0, 64+len(params))
	msg = append(msg, `{"jsonrpc":"2.0","id":`...)
	msg = strconv.AppendInt(msg, id, 10)
	msg = append(msg, `,"method":"`...)
	msg = append(msg, method...)
	msg = append(msg, '"')
	if params != nil {
		msg = append(msg, `,"params":`...)
		msg = append(msg, params...)
	}
	msg = append(msg, "}\n"...)
	start := time.Now()
	if err := c.write(msg); err != nil {
		return nil, 0, fmt.Errorf("%s: write: %w", method, err)
	}
	var rep rpcReply
	select {
	case rep = <-ch:
	case <-c.done:
		return nil, 0, fmt.Errorf("%s: the server's output ended", method)
	case <-ctx.Done():
		return nil, 0, ctx.Err()
	}
	d := rep.at.Sub(start)
	var body struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(rep.line, &body); err != nil {
		return nil, d, fmt.Errorf("%s: reply: %w", method, err)
	}
	if body.Error != nil {
		return nil, d, fmt.Errorf("%s: JSON-RPC error %d: %s", method, body.Error.Code, body.Error.Message)
	}
	return body.Result, d, nil
}

// ping is one MCP ping.
func (c *rpcClient) ping(ctx context.Context) (time.Duration, error) {
	_, d, err := c.request(ctx, "ping", nil)
	return d, err
}

// tool is a prepared tools/call: its params encoded once, so that the
// client's own encoding is not in the timed path.
type tool struct {
	name   string
	params []byte
}

// prepare encodes a tools/call of name with args.
func prepare(name string, args map[string]any) tool {
	b, err := json.Marshal(map[string]any{"name": name, "arguments": args})
	if err != nil {
		panic(err) // the benchmark's own arguments always encode
	}
	return tool{name: name, params: b}
}

// call calls a prepared tool and returns its structured result and the
// call's time. A tool error is an error: every call the benchmark makes is
// meant to succeed.
func (c *rpcClient) call(ctx context.Context, t tool) (map[string]any, time.Duration, error) {
	res, d, err := c.request(ctx, "tools/call", t.params)
	if err != nil {
		return nil, d, fmt.Errorf("%s: %w", t.name, err)
	}
	var r struct {
		IsError           bool           `json:"isError"`
		StructuredContent map[string]any `json:"structuredContent"`
		Content           []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return nil, d, fmt.Errorf("%s: result: %w", t.name, err)
	}
	if r.IsError {
		var text string
		for _, c := range r.Content {
			text += c.Text
		}
		return nil, d, fmt.Errorf("%s: tool error: %s", t.name, text)
	}
	if r.StructuredContent == nil {
		return nil, d, errors.New(t.name + ": no structured content")
	}
	return r.StructuredContent, d, nil
}

// close ends the server's standard input, waits up to 3s for it to exit,
// then kills it.
func (c *rpcClient) close() error {
	defer c.logf.Close()
	c.stdin.Close()
	exited := make(chan error, 1)
	go func() { exited <- c.cmd.Wait() }()
	select {
	case err := <-exited:
		return err
	case <-time.After(3 * time.Second):
		_ = c.cmd.Process.Kill()
		<-exited
		return errors.New("the server was still running 3s after its stdin closed")
	}
}
