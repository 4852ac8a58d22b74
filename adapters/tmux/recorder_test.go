package tmux

import (
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// A pane's output is recorded under the recorder's lock alone: a control
// client's reader writing %output lines waits for no command, lease or
// listing that holds the Terminal's own lock.
func TestOutputIsRecordedWithoutTheTerminalsLock(t *testing.T) {
	term := &terminal{panes: map[ports.PaneID]*paneRecord{}, opts: Options{RingSize: 1 << 10}}
	c := &controlClient{}
	term.mu.Lock()
	rec := term.record("%1")
	term.rmu.Lock()
	rec.owner = c
	stream := rec.out.Open()
	term.rmu.Unlock()

	done := make(chan struct{})
	go func() {
		term.deliver(c, "%1", []byte("abc"))
		term.deliver(&controlClient{}, "%1", []byte("not the owner's"))
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("deliver waited for the Terminal's lock")
	}
	term.mu.Unlock()
	if got := stream.ReadFrom(0); string(got.Data) != "abc" {
		t.Errorf("stream read %q, want the owner's bytes", got.Data)
	}
}
