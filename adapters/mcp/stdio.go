package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// How the stdio transport reads, answers and ends
//
// The SDK's stdio connection fails as a whole on the first line that is not
// a JSON-RPC message, and when its input ends it cancels the calls still
// running and writes nothing more, so a client that writes its requests and
// closes its end (printf ... | tmux-mcp) gets no replies. ServeStdio
// therefore stands between the process's streams and the SDK:
//
//   - It reads the input one line at a time (MCP's stdio framing: one
//     message per line). A line that is not JSON gets a parse error
//     (-32700), one that is JSON but not a JSON-RPC message an invalid
//     request error (-32600), a second call with the id of a call still in
//     progress an invalid request error, and a line longer than
//     MaxMessageBytes an invalid request error, each with id null (or the
//     request's id, when it could be read and is free) as JSON-RPC asks;
//     so does a message whose text is not what its client wrote (bytes
//     that are not UTF-8, half a surrogate pair: see textProblem), which
//     is never handed on. The session goes on. Only well-formed messages reach the SDK, in the
//     order they came, so initialize is handled before what follows it.
//   - It counts the calls in flight: a call is in flight from the moment
//     its line is read until its reply has been written.
//   - When the input ends or ctx is done, it stops taking calls (a call
//     read later is answered at once with an error saying the server is
//     shutting down; notifications, such as a cancellation, still pass),
//     lets the calls in flight finish and writes their replies, up to
//     StdioOptions.Drain. Then it cancels the calls still running
//     (Server.Close), which return at once with what they have (outcome
//     cancelled), writes those replies too, for up to CancelGrace, and only
//     then ends the session. A second signal to stop (ctx done after the
//     input ended, or the input ending after ctx is done) or Close cancels
//     the running calls at once; their replies are still written.

// DefaultDrain is how long, by default, the calls in flight may go on once
// the session is ending, before they are cancelled.
const DefaultDrain = 30 * time.Second

// CancelGrace bounds how long the calls cancelled at the end of a drain may
// take to return and have their replies written.
const CancelGrace = 5 * time.Second

// MaxMessageBytes is the longest line ServeStdio accepts as one message,
// the SDK's own limit.
const MaxMessageBytes = sdk.DefaultMaxLineLength

// JSON-RPC error codes the transport answers with itself.
const (
	codeParseError     = jsonrpc.CodeParseError     // -32700
	codeInvalidRequest = jsonrpc.CodeInvalidRequest // -32600
	// codeShuttingDown is in the range JSON-RPC leaves to servers.
	codeShuttingDown = -32000
)

// StdioOptions configure ServeStdio. The zero value is usable.
type StdioOptions struct {
	// Drain bounds how long the calls in flight may go on once the input
	// ends or ctx is done; 0 means DefaultDrain.
	Drain time.Duration
	// Serving, if not nil, is called once the session is ready to read
	// its input.
	Serving func()
}

// ServeStdio serves one session over newline-delimited JSON-RPC, reading r
// and writing w, until r ends or ctx is done, and then until the calls in
// flight have finished and their replies have been written (see "How the
// stdio transport reads, answers and ends" above for the bounds). Nothing
// but JSON-RPC messages is written to w, and w is never closed.
//
// The error is nil when r ended or ctx was done; otherwise it says why the
// connection failed (r or w broke).
func (s *Server) ServeStdio(ctx context.Context, r io.Reader, w io.Writer, opts StdioOptions) error {
	drain := opts.Drain
	if drain <= 0 {
		drain = DefaultDrain
	}
	out := &stdioOut{w: w, inflight: map[jsonrpc.ID]string{}, changed: make(chan struct{})}
	defer out.close()
	conn := newStdioConn(out)
	defer conn.endInput()
	ss, err := s.sdk.Connect(context.Background(), conn.transport(), nil)
	if err != nil {
		return fmt.Errorf("stdio: %w", err)
	}
	sessionOver := make(chan struct{})
	var sessionErr error
	go func() {
		sessionErr = ss.Wait()
		close(sessionOver)
	}()

	if opts.Serving != nil {
		opts.Serving()
	}
	in := &stdioIn{out: out, sdk: conn, log: s.logger, ended: make(chan struct{})}
	go in.read(r)

	var hurry <-chan struct{} // the second signal to stop
	why := ""
	select {
	case <-in.ended:
		hurry, why = ctx.Done(), "stdin closed; finishing the calls in flight"
	case <-ctx.Done():
		hurry, why = in.ended, "stopping; finishing the calls in flight"
	case <-sessionOver:
	}
	out.stopCalls()
	if n := out.inFlight(); why != "" && n > 0 {
		s.logger.Info(why, "calls", n, "bound", drain)
	}

	select {
	case <-sessionOver:
	default:
		if !out.waitIdle(drain, hurry, sessionOver) {
			if n := out.inFlight(); n > 0 {
				s.logger.Warn("cancelling the calls still in flight", "calls", n)
			}
			s.Close()
			if !out.waitIdle(CancelGrace, nil, sessionOver) {
				s.logger.Error("calls did not return once cancelled; their replies are lost", "calls", out.inFlight())
			}
		}
		// With its input at an end, the SDK's session ends once it is idle.
		conn.endInput()
		select {
		case <-sessionOver:
		case <-time.After(CancelGrace):
			s.logger.Error("the MCP session did not end")
		}
	}
	if err := in.err(); err != nil {
		return fmt.Errorf("stdio: read: %w", err)
	}
	if err := out.broken(); err != nil {
		return fmt.Errorf("stdio: write: %w", err)
	}
	select {
	case <-sessionOver:
		if sessionErr != nil && !errors.Is(sessionErr, io.EOF) {
			return fmt.Errorf("stdio: %w", sessionErr)
		}
	default:
	}
	return nil
}

// stdioIn reads the input and passes well-formed messages to the SDK.
type stdioIn struct {
	out *stdioOut
	sdk *stdioConn
	log Logger

	ended   chan struct{} // closed when the input has ended
	readErr error         // why, when not io.EOF; set before ended is closed
}

// read reads r to its end, line by line.
func (in *stdioIn) read(r io.Reader) {
	defer close(in.ended)
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, tooLong, err := readLine(br, MaxMessageBytes)
		if tooLong {
			in.log.Warn("stdin line too long; answered with an error", "limit", MaxMessageBytes)
			in.out.replyError(jsonrpc.ID{}, codeInvalidRequest,
				fmt.Sprintf("Invalid Request: a message longer than %d bytes", MaxMessageBytes))
		} else if len(line) > 0 {
			in.handle(line)
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				in.readErr = err
			}
			return
		}
	}
}

// err is why the input ended, nil for its end; call it after ended is
// closed.
func (in *stdioIn) err() error {
	select {
	case <-in.ended:
		return in.readErr
	default:
		return nil
	}
}

// handle answers or passes on one line.
func (in *stdioIn) handle(line []byte) {
	line = bytes.Trim(line, " \t\r\n") // JSON's white space
	if len(line) == 0 {
		return
	}
	// The reader's buffer holds the line only until the next read, and
	// the messages decoded from it go on to the SDK.
	line = bytes.Clone(line)
	var msgs []jsonrpc.Message
	var calls []*jsonrpc.Request
	batch := line[0] == '['
	if batch {
		var raws []json.RawMessage
		if err := json.Unmarshal(line, &raws); err != nil {
			in.parseError(line)
			return
		}
		if reason := in.out.batchRefusal(len(raws)); reason != "" {
			in.out.replyError(jsonrpc.ID{}, codeInvalidRequest, "Invalid Request: "+reason)
			return
		}
		if problem := textProblem(line); problem != "" {
			in.refuseText(problem, jsonrpc.ID{})
			return
		}
		for _, raw := range raws {
			msg, err := jsonrpc.DecodeMessage(raw)
			if err != nil {
				in.out.replyError(jsonrpc.ID{}, codeInvalidRequest, "Invalid Request: a message of the batch is not a JSON-RPC message: "+err.Error())
				return
			}
			if _, ok := msg.(*jsonrpc.Request); ok {
				if problem := idProblem(raw); problem != "" {
					in.out.replyError(jsonrpc.ID{}, codeInvalidRequest, "Invalid Request: a message of the batch: "+problem)
					return
				}
			}
			msgs = append(msgs, msg)
			if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
				calls = append(calls, req)
			}
		}
	} else {
		msg, err := jsonrpc.DecodeMessage(line)
		if err != nil {
			// Told apart only now, so that a good message is read once.
			if !json.Valid(line) {
				in.parseError(line)
				return
			}
			in.out.replyError(idOf(line), codeInvalidRequest, "Invalid Request: not a JSON-RPC 2.0 message: "+err.Error())
			return
		}
		if problem := textProblem(line); problem != "" {
			in.refuseText(problem, refusedTextID(msg))
			return
		}
		if _, ok := msg.(*jsonrpc.Request); ok {
			if problem := idProblem(line); problem != "" {
				in.out.replyError(jsonrpc.ID{}, codeInvalidRequest, "Invalid Request: "+problem)
				return
			}
		}
		msgs = append(msgs, msg)
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
			calls = append(calls, req)
		}
	}
	switch refused, dup := in.out.begin(calls); {
	case refused:
		for _, c := range calls {
			in.out.replyError(c.ID, codeShuttingDown, "the server is shutting down and takes no new calls")
		}
		return
	case dup.IsValid():
		in.out.replyError(jsonrpc.ID{}, codeInvalidRequest,
			fmt.Sprintf("Invalid Request: request id %v is already in use by a call in progress", dup.Raw()))
		return
	}
	if !in.sdk.deliver(msgs, batch, calls) {
		// The session has ended; the calls will not be answered.
		in.out.end(calls)
	}
}

// refuseText answers a line whose text is not what its client wrote (see
// textProblem), under id unless that is a call's in flight.
func (in *stdioIn) refuseText(problem string, id jsonrpc.ID) {
	in.log.Warn("stdin message is not Unicode text; answered with an error", "problem", problem)
	if in.out.busy(id) {
		id = jsonrpc.ID{}
	}
	in.out.replyError(id, codeInvalidRequest, refusedText(problem))
}

// parseError answers a line that is not JSON.
func (in *stdioIn) parseError(line []byte) {
	in.log.Warn("stdin line is not JSON; answered with a parse error", "line", clip(line))
	in.out.replyError(jsonrpc.ID{}, codeParseError, "Parse error: the line is not JSON; send one JSON-RPC message per line")
}

// maxIntID bounds the integer ids answered under themselves: the SDK reads
// a number as a float64, whose integers are exact up to 2^53.
const maxIntID = 1 << 53

// idProblem says what is wrong with the id of the JSON-RPC request msg, as
// it is written, or "" when nothing is (or it has none: a notification).
// MCP ids are strings or integers, never null; a null id would make a call
// a notification, never answered, and a number with a fraction or beyond
// 2^53 would be answered under another id. It reads msg's members only up
// to the id, which clients write before the params.
func idProblem(msg []byte) string {
	dec := json.NewDecoder(bytes.NewReader(msg))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return ""
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return ""
		}
		if key != "id" {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return ""
			}
			continue
		}
		var v any
		if dec.Decode(&v) != nil {
			return ""
		}
		switch v := v.(type) {
		case nil:
			return "the request id is null, which MCP does not allow; use a string or an integer"
		case string:
			return ""
		case json.Number:
			if n, err := strconv.ParseInt(v.String(), 10, 64); err != nil || n > maxIntID || n < -maxIntID {
				return fmt.Sprintf("the request id %s is not an integer of at most 2^53; use a string or such an integer", v)
			}
			return ""
		default:
			return "the request id is neither a string nor an integer"
		}
	}
	return ""
}

// idOf returns the id of a JSON object that is not a valid JSON-RPC
// message, when it has a usable one.
func idOf(line []byte) jsonrpc.ID {
	var m struct {
		ID any `json:"id"`
	}
	if json.Unmarshal(line, &m) != nil {
		return jsonrpc.ID{}
	}
	id, err := jsonrpc.MakeID(m.ID)
	if err != nil {
		return jsonrpc.ID{}
	}
	return id
}

// readLine returns the next line of br without its line feed. A line
// longer than limit is read to its end and dropped: tooLong is true and
// line empty. err is that of the reader (io.EOF at the end), after the
// last line.
func readLine(br *bufio.Reader, limit int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > limit+1 {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimSuffix(line, []byte("\n")), tooLong, err
	}
}

// clip shortens a line for the log.
func clip(b []byte) string {
	if len(b) > 80 {
		return string(b[:80]) + "…"
	}
	return string(b)
}

// stdioOut writes the session's messages to the output, one line at a
// time, and keeps count of the calls in flight: those read whose reply has
// not been written yet.
type stdioOut struct {
	writeMu sync.Mutex
	w       io.Writer
	err     error // the first write error
	closed  bool  // ServeStdio has returned: nothing more is written

	mu         sync.Mutex
	inflight   map[jsonrpc.ID]string // method by id
	noCalls    bool                  // the session is ending: calls are refused
	changed    chan struct{}         // closed and replaced at each change of inflight
	negotiated string                // the protocol version initialize agreed
}

// write writes one message of the SDK, data, as a line, and ends the calls
// that replies, the replies it holds, answer.
func (o *stdioOut) write(data []byte, replies ...*jsonrpc.Response) error {
	o.writeMu.Lock()
	if o.closed {
		o.writeMu.Unlock()
		return io.ErrClosedPipe
	}
	_, err := o.w.Write(append(data, '\n'))
	if err != nil && o.err == nil {
		o.err = err
	}
	o.writeMu.Unlock()
	for _, r := range replies {
		o.noteReply(r)
	}
	return err
}

// close makes every later write fail without touching the output.
func (o *stdioOut) close() {
	o.writeMu.Lock()
	defer o.writeMu.Unlock()
	o.closed = true
}

func (o *stdioOut) broken() error {
	o.writeMu.Lock()
	defer o.writeMu.Unlock()
	return o.err
}

// noteReply ends the call that reply answers, if it is in flight.
func (o *stdioOut) noteReply(reply *jsonrpc.Response) {
	if !reply.ID.IsValid() {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	method, ok := o.inflight[reply.ID]
	if !ok {
		return
	}
	if method == "initialize" && reply.Error == nil {
		var result struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		if json.Unmarshal(reply.Result, &result) == nil {
			o.negotiated = result.ProtocolVersion
		}
	}
	delete(o.inflight, reply.ID)
	o.signalLocked()
}

// wireError is err as a reply carries it: with its JSON-RPC code. The SDK
// refuses a call made before the session is initialized with an error
// that has none, which would go out as code 0, not a JSON-RPC code:
// before initialize has been answered, such an error is Invalid Request,
// saying to initialize first; after, it is an internal error.
func (o *stdioOut) wireError(err error) error {
	var wire *jsonrpc.Error
	if errors.As(err, &wire) && wire.Code != 0 {
		return err
	}
	coded := &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
	if wire != nil {
		coded.Data = wire.Data
	}
	o.mu.Lock()
	if o.negotiated == "" {
		coded.Code, coded.Message = codeInvalidRequest, beforeInitialize+coded.Message
	}
	o.mu.Unlock()
	return coded
}

// replyError writes a JSON-RPC error reply of the transport's own.
func (o *stdioOut) replyError(id jsonrpc.ID, code int, message string) {
	reply := struct {
		JSONRPC string `json:"jsonrpc"`
		ID      any    `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id.Raw()}
	reply.Error.Code, reply.Error.Message = code, message
	data, err := json.Marshal(reply)
	if err != nil {
		return
	}
	o.writeMu.Lock()
	defer o.writeMu.Unlock()
	if o.closed {
		return
	}
	if _, err := o.w.Write(append(data, '\n')); err != nil && o.err == nil {
		o.err = err
	}
}

// busy reports whether id is that of a call in flight.
func (o *stdioOut) busy(id jsonrpc.ID) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	_, ok := o.inflight[id]
	return ok
}

// batchRefusal says why a batch of n messages is refused, or "".
func (o *stdioOut) batchRefusal(n int) string {
	if n == 0 {
		return "an empty batch"
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	// Protocol versions from 2025-06-18 on have no batches (and the SDK
	// would end the session on one).
	if o.negotiated >= "2025-06-18" {
		return "protocol version " + o.negotiated + " has no batches; send one message per line"
	}
	return ""
}

// begin puts calls in flight. It puts none of them when the session is
// ending (refused), or when one's id is in flight already or twice among
// them: dup is that id then.
func (o *stdioOut) begin(calls []*jsonrpc.Request) (refused bool, dup jsonrpc.ID) {
	if len(calls) == 0 {
		return false, jsonrpc.ID{}
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.noCalls {
		return true, jsonrpc.ID{}
	}
	seen := map[jsonrpc.ID]bool{}
	for _, c := range calls {
		if _, busy := o.inflight[c.ID]; busy || seen[c.ID] {
			return false, c.ID
		}
		seen[c.ID] = true
	}
	for _, c := range calls {
		o.inflight[c.ID] = c.Method
	}
	o.signalLocked()
	return false, jsonrpc.ID{}
}

// stopCalls makes begin refuse every call from now on.
func (o *stdioOut) stopCalls() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.noCalls = true
}

// end takes calls out of flight without a reply.
func (o *stdioOut) end(calls []*jsonrpc.Request) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, c := range calls {
		delete(o.inflight, c.ID)
	}
	o.signalLocked()
}

func (o *stdioOut) signalLocked() {
	close(o.changed)
	o.changed = make(chan struct{})
}

// inFlight returns the number of calls in flight.
func (o *stdioOut) inFlight() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.inflight)
}

// waitIdle waits until no call is in flight, and reports whether that
// happened within d, before hurry was closed and before the session ended
// (over closed).
func (o *stdioOut) waitIdle(d time.Duration, hurry, over <-chan struct{}) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		o.mu.Lock()
		n, changed := len(o.inflight), o.changed
		o.mu.Unlock()
		if n == 0 {
			return true
		}
		select {
		case <-changed:
		case <-timer.C:
			return false
		case <-hurry:
			return false
		case <-over:
			return false
		}
	}
}
