package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Messages whose text is not what the client wrote
//
// JSON text is UTF-8 (RFC 8259, 8.1), and the strings MCP carries are
// Unicode text. Go's JSON decoder, which both transports use, reads a byte
// that is not UTF-8, and a \u escape of half a UTF-16 surrogate pair
// ("\ud800" alone), as U+FFFD without a word: a tools/call whose command
// held one ran a command the client never sent (echo ��), and a paste
// pasted other text. Rather than guess, both transports ask textProblem
// of every message before anything reads it, and refuse one it finds
// fault with, so that nothing is done: stdio on the message's line, HTTP
// with 400 as the SDK refuses requests it cannot take. The answer is a
// JSON-RPC invalid-request error (refusedText) under the call's id where
// it can be read, so that the client's call ends rather than waits.

// textProblem says what in msg, a JSON text that decodes, does not stand
// for the Unicode text its client meant, or returns "" when nothing does:
// a byte that is not UTF-8, or an escape of a UTF-16 surrogate that is not
// half of a pair. Offsets count bytes of msg from 0. It relies on msg
// being JSON: a backslash is then always inside a string.
func textProblem(msg []byte) string {
	if utf8.Valid(msg) && bytes.IndexByte(msg, '\\') < 0 {
		return ""
	}
	for i := 0; i < len(msg); {
		switch c := msg[i]; {
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(msg[i:])
			if r == utf8.RuneError && size == 1 {
				return fmt.Sprintf("byte %d of the message, 0x%02x, is not UTF-8", i, c)
			}
			i += size
		case c == '\\':
			r, ok := surrogateAt(msg, i)
			switch {
			case !ok:
				// An escape of one character (\" or \\, which must not
				// be read as the start of another), or the \u of one that
				// is no surrogate, whose digits are plain bytes.
				i += 2
			case r <= 0xdbff:
				// High: a low half must follow, as the next escape.
				if lo, ok := surrogateAt(msg, i+6); ok && lo >= 0xdc00 {
					i += 12
					continue
				}
				fallthrough
			default:
				return fmt.Sprintf("the escape %s at byte %d of the message is half of a UTF-16 surrogate pair, which stands for no character", msg[i:i+6], i)
			}
		default:
			i++
		}
	}
	return ""
}

// surrogateAt returns the UTF-16 surrogate that the escape \uXXXX at msg[i]
// stands for, if there is such an escape there and it is one.
func surrogateAt(msg []byte, i int) (rune, bool) {
	if i+6 > len(msg) || msg[i] != '\\' || msg[i+1] != 'u' {
		return 0, false
	}
	var r rune
	for _, h := range msg[i+2 : i+6] {
		switch {
		case h >= '0' && h <= '9':
			r = r<<4 | rune(h-'0')
		case h >= 'a' && h <= 'f':
			r = r<<4 | rune(h-'a'+10)
		case h >= 'A' && h <= 'F':
			r = r<<4 | rune(h-'A'+10)
		default:
			return 0, false
		}
	}
	return r, r >= 0xd800 && r <= 0xdfff
}

// refusedText is the message of the error that answers a message
// textProblem found fault with.
func refusedText(problem string) string {
	return "Invalid Request: " + problem + "; JSON text must be UTF-8 and its strings Unicode text, " +
		"and the server does not guess what was meant: nothing was done. Send text as UTF-8 (binary data " +
		"cannot be typed or pasted as it is: encode it, as base64 for instance, and decode it in the command)"
}

// refusedTextID is the id a refusal of msg goes under: that of a call,
// else none (JSON-RPC's null).
func refusedTextID(msg jsonrpc.Message) jsonrpc.ID {
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
		return req.ID
	}
	return jsonrpc.ID{}
}

// refuseAlteredText answers, over HTTP, a POST whose JSON-RPC message (or
// batch) textProblem finds fault with, and passes every other request on
// to next untouched. A body that is not JSON, or too long, is next's to
// answer.
func refuseAlteredText(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, MaxMessageBytes+1))
		if err != nil {
			http.Error(w, "Bad Request: the request body could not be read", http.StatusBadRequest)
			return
		}
		r.Body = bodyReader{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
		if len(body) > MaxMessageBytes {
			next.ServeHTTP(w, r)
			return
		}
		problem := textProblem(body)
		if problem == "" || !json.Valid(body) {
			next.ServeHTTP(w, r)
			return
		}
		var id jsonrpc.ID
		if msg, err := jsonrpc.DecodeMessage(body); err == nil {
			id = refusedTextID(msg)
		}
		data, err := json.Marshal(struct {
			JSONRPC string         `json:"jsonrpc"`
			ID      any            `json:"id"`
			Error   *jsonrpc.Error `json:"error"`
		}{"2.0", id.Raw(), &jsonrpc.Error{Code: codeInvalidRequest, Message: refusedText(problem)}})
		if err != nil {
			http.Error(w, "Bad Request: "+problem, http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write(data)
	})
}

// bodyReader is a request body read from r, closed as c.
type bodyReader struct {
	io.Reader
	c io.Closer
}

func (b bodyReader) Close() error { return b.c.Close() }
