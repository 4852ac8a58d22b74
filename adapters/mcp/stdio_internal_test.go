package mcp

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

func TestReplyIDReadsTheIDOfRepliesOnly(t *testing.T) {
	for _, tc := range []struct {
		msg  string
		want any // nil: not a reply
	}{
		{`{"jsonrpc":"2.0","id":7,"result":{"big":"…"}}`, 7.0},
		{`{"jsonrpc":"2.0","result":{"content":[]},"id":"a-1"}`, "a-1"},
		{`{"jsonrpc":"2.0","id":3.0,"error":{"code":-32601,"message":"no"}}`, 3.0},
		{`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1}}`, nil},
		{`{"jsonrpc":"2.0","id":9,"method":"roots/list"}`, nil}, // a call of the server's
		{`{"jsonrpc":"2.0","method":"x","id":9}`, nil},
		{`{"jsonrpc":"2.0","id":9,"params":{},"method":"x"}`, nil},
		{`{"id":5}`, nil},
		{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"no"}}`, nil},
		{`[1,2]`, nil},
		{`not json`, nil},
	} {
		id, ok := replyID([]byte(tc.msg))
		switch {
		case tc.want == nil && ok:
			t.Errorf("replyID(%s) = %v; it is no reply to a call", tc.msg, id.Raw())
		case tc.want != nil:
			want, _ := jsonrpc.MakeID(tc.want)
			if !ok || id != want {
				t.Errorf("replyID(%s) = %v, %v; want %v", tc.msg, id.Raw(), ok, tc.want)
			}
		}
	}
}
