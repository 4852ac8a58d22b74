package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// stdioConn is the SDK's connection of the stdio transport. stdioIn reads
// and decodes each line once and hands its messages to Read; Write encodes
// each message of the SDK once and writes it through stdioOut, which learns
// from the message itself which call it answers. (The SDK's own stdio
// connection would read the line again through a pipe, in a goroutine of
// its own, and decode it twice more; stdioOut would decode its replies
// again to find their ids.)
//
// Batches, which protocol versions before 2025-06-18 allow, are answered
// with one array holding the replies to the batch's calls, in their order,
// written once every call is answered. Its notifications are not waited
// for (the SDK's connection waits for a reply to them too, which never
// comes, so a batch holding one was never answered).
type stdioConn struct {
	out *stdioOut

	lines     chan []jsonrpc.Message // the messages of one line: one, or a batch's
	inputDone chan struct{}          // closed once no more lines will come
	endOnce   sync.Once
	closed    chan struct{} // closed by Close
	closeOnce sync.Once

	queue []jsonrpc.Message // the rest of the batch being read; only Read uses it

	mu      sync.Mutex
	batches []*replyBatch // batches with calls not answered yet
}

// A replyBatch collects the replies to the calls of one batch.
type replyBatch struct {
	index   map[jsonrpc.ID]int // the position of each call's reply
	replies []*jsonrpc.Response
	left    int // calls not answered yet
}

func newStdioConn(out *stdioOut) *stdioConn {
	return &stdioConn{out: out, lines: make(chan []jsonrpc.Message), inputDone: make(chan struct{}), closed: make(chan struct{})}
}

// transport returns a transport whose one connection is c.
func (c *stdioConn) transport() sdk.Transport { return connTransport{c} }

type connTransport struct{ c *stdioConn }

func (t connTransport) Connect(context.Context) (sdk.Connection, error) { return t.c, nil }

// deliver hands the messages of one line to the SDK, and waits until it
// takes them; batch says they came as a batch, calls are its calls. It
// reports false when the connection is closed: they will not be answered.
func (c *stdioConn) deliver(msgs []jsonrpc.Message, batch bool, calls []*jsonrpc.Request) bool {
	if batch && len(calls) > 0 {
		b := &replyBatch{index: make(map[jsonrpc.ID]int, len(calls)), replies: make([]*jsonrpc.Response, len(calls)), left: len(calls)}
		for i, call := range calls {
			b.index[call.ID] = i
		}
		c.mu.Lock()
		c.batches = append(c.batches, b)
		c.mu.Unlock()
	}
	select {
	case c.lines <- msgs:
		return true
	case <-c.closed:
		return false
	}
}

// endInput tells the SDK that no more messages will come: Read returns
// io.EOF once it has taken those delivered.
func (c *stdioConn) endInput() { c.endOnce.Do(func() { close(c.inputDone) }) }

// Read returns the next message stdioIn read.
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(c.queue) > 0 {
		msg := c.queue[0]
		c.queue = c.queue[1:]
		return msg, nil
	}
	select {
	case msgs := <-c.lines:
		c.queue = msgs[1:]
		return msgs[0], nil
	case <-c.inputDone:
		return nil, io.EOF
	case <-c.closed:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Write writes msg, or, when it answers a call of a batch, keeps it until
// the batch is answered and then writes the batch's replies.
func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if reply, ok := msg.(*jsonrpc.Response); ok {
		if reply.Error != nil {
			reply.Error = c.out.wireError(reply.Error)
		}
		if replies, inBatch := c.batched(reply); inBatch {
			if replies == nil {
				return nil
			}
			raws := make([]json.RawMessage, len(replies))
			for i, r := range replies {
				data, err := encodeReply(r)
				if err != nil {
					return fmt.Errorf("encode a reply of a batch: %w", err)
				}
				raws[i] = data
			}
			data, err := json.Marshal(raws)
			if err != nil {
				return fmt.Errorf("encode a batch of replies: %w", err)
			}
			return c.out.write(data, replies...)
		}
		data, err := encodeReply(reply)
		if err != nil {
			return fmt.Errorf("encode a reply: %w", err)
		}
		return c.out.write(data, reply)
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encode a message: %w", err)
	}
	return c.out.write(data)
}

// encodeReply is jsonrpc.EncodeMessage for a reply, without encoding its
// result a second time: the SDK made the result with encoding/json, so it
// is valid and compact already, while EncodeMessage would check and compact
// it again, byte by byte (a pass over every reply, and a tool's result is
// up to a megabyte). A reply that is not that plain result is left to
// EncodeMessage, and so is a result with a line feed in it, which the
// line-per-message framing could not carry.
func encodeReply(r *jsonrpc.Response) ([]byte, error) {
	if r.Error != nil || len(r.Result) == 0 || !r.ID.IsValid() || bytes.IndexByte(r.Result, '\n') >= 0 {
		return jsonrpc.EncodeMessage(r)
	}
	id, err := encode(r.ID.Raw())
	if err != nil {
		return nil, err
	}
	const head, mid = `{"jsonrpc":"2.0","id":`, `,"result":`
	data := make([]byte, 0, len(head)+len(id)+len(mid)+len(r.Result)+1)
	data = append(append(append(append(data, head...), id...), mid...), r.Result...)
	return append(data, '}'), nil
}

// batched files reply with its batch: inBatch says it answers a call of
// one, and replies, when not nil, are all the batch's replies, in the
// order of its calls, now that reply was the last.
func (c *stdioConn) batched(reply *jsonrpc.Response) (replies []*jsonrpc.Response, inBatch bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, b := range c.batches {
		at, ok := b.index[reply.ID]
		if !ok || b.replies[at] != nil {
			continue
		}
		b.replies[at] = reply
		if b.left--; b.left > 0 {
			return nil, true
		}
		c.batches = append(c.batches[:i], c.batches[i+1:]...)
		return b.replies, true
	}
	return nil, false
}

// Close unblocks Read and makes deliver give up; stdioOut is ServeStdio's
// to close.
func (c *stdioConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return nil
}

// SessionID is empty: a stdio session has no id.
func (c *stdioConn) SessionID() string { return "" }
