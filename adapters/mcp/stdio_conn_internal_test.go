package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// encodeReply writes the SDK's encoding of every reply, byte for byte,
// without its second pass over the result.
func TestEncodeReplyIsTheSDKsEncoding(t *testing.T) {
	text := "a < b && c > d\u2028\u2029 é 漢 \x1b[0m \"q\" \\ \t\n" + strings.Repeat("x", 5000)
	data, err := encode(captureResult(text))
	if err != nil {
		t.Fatal(err)
	}
	result, err := json.Marshal(resultOf(data, "a notice\nwith a line feed"))
	if err != nil {
		t.Fatal(err)
	}
	var replies []*jsonrpc.Response
	for _, v := range []any{float64(7), float64(1 << 53), "id \"with\" <quotes> \u2028 é", ""} {
		id, err := jsonrpc.MakeID(v)
		if err != nil {
			t.Fatal(err)
		}
		replies = append(replies,
			&jsonrpc.Response{ID: id, Result: result},
			&jsonrpc.Response{ID: id, Result: json.RawMessage(`{}`)},
			&jsonrpc.Response{ID: id, Result: json.RawMessage(`null`)},
			&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: -32602, Message: "bad <params>"}},
			&jsonrpc.Response{ID: id, Error: errors.New("plain")},
		)
	}
	replies = append(replies, &jsonrpc.Response{Error: &jsonrpc.Error{Code: -32700, Message: "parse error"}})
	for _, r := range replies {
		got, err := encodeReply(r)
		want, wantErr := jsonrpc.EncodeMessage(r)
		if err != nil || wantErr != nil || !bytes.Equal(got, want) {
			t.Errorf("encodeReply(%v, %.40s) = %.200s, %v;\nEncodeMessage gives %.200s, %v", r.ID.Raw(), r.Result, got, err, want, wantErr)
		}
		if bytes.IndexByte(got, '\n') >= 0 {
			t.Errorf("the reply to %v holds a line feed", r.ID.Raw())
		}
	}
}

// A result with a line feed in it, which the SDK never makes, is
// compacted onto one line all the same.
func TestEncodeReplyKeepsAReplyOnOneLine(t *testing.T) {
	id, _ := jsonrpc.MakeID(float64(3))
	got, err := encodeReply(&jsonrpc.Response{ID: id, Result: json.RawMessage("{\n\"a\": 1\n}")})
	if err != nil || string(got) != `{"jsonrpc":"2.0","id":3,"result":{"a":1}}` {
		t.Errorf("encodeReply = %s, %v", got, err)
	}
}
