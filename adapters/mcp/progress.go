package mcp

import (
	"context"
	"fmt"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmux-mcp/tmux-mcp/domain"
)

// progressRelay turns a waiting call's progress reports into MCP progress
// notifications for the progress token the client gave.
//
// A domain.ProgressFunc must not block, but sending a notification writes
// to the connection, which can. So reports are handed to a goroutine that
// sends them; a report that arrives while another is being sent replaces
// any not yet sent, since only the newest matters to the client.
type progressRelay struct {
	session *sdk.ServerSession
	token   any

	mu      sync.Mutex
	pending *domain.Progress
	wake    chan struct{} // one slot: a send is due
	stop    chan struct{}
	done    chan struct{}
}

// serveWaiting is serve for a tool that waits: do gets the relay of the
// call's progress to the client (nil without a progress token), which
// sends its last report and stops before the result goes out; report
// makes the output and the notice of its text half.
func serveWaiting[In, Res, Out any](do func(ctx context.Context, in In, progress domain.ProgressFunc) (Res, error), report func(Res) (Out, string)) call[In, Out] {
	return func(ctx context.Context, req *sdk.CallToolRequest, in In) (Out, string, error) {
		progress, stop := relayProgress(ctx, req)
		r, err := do(ctx, in, progress)
		stop()
		if err != nil {
			var zero Out
			return zero, "", err
		}
		out, notice := report(r)
		return out, notice, nil
	}
}

// relayProgress returns the ProgressFunc to give the domain for req, and a
// function to call when the call returns, which sends the last report (so
// that it precedes the result) and stops the relay. Without a progress
// token it returns a nil ProgressFunc.
func relayProgress(ctx context.Context, req *sdk.CallToolRequest) (domain.ProgressFunc, func()) {
	if req.Session == nil || req.Params.GetProgressToken() == nil {
		return nil, func() {}
	}
	r := &progressRelay{
		session: req.Session,
		token:   req.Params.GetProgressToken(),
		wake:    make(chan struct{}, 1),
		stop:    make(chan struct{}),
		done:    make(chan struct{}),
	}
	go r.run(ctx)
	var once sync.Once
	return r.report, func() {
		once.Do(func() {
			close(r.stop)
			<-r.done
		})
	}
}

// report is the domain.ProgressFunc.
func (r *progressRelay) report(p domain.Progress) {
	r.mu.Lock()
	r.pending = &p
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default: // a send is already due; it will take this report
	}
}

func (r *progressRelay) run(ctx context.Context) {
	defer close(r.done)
	var last time.Duration = -1
	send := func() {
		r.mu.Lock()
		p := r.pending
		r.pending = nil
		r.mu.Unlock()
		// Progress must increase with every notification.
		if p == nil || p.Elapsed <= last {
			return
		}
		last = p.Elapsed
		// A failed send means the client is gone; the call's own result
		// will fail the same way, so there is nothing to add here.
		_ = r.session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{
			ProgressToken: r.token,
			Progress:      float64(p.Elapsed.Milliseconds()),
			Total:         float64(p.Total.Milliseconds()),
			Message:       progressMessage(*p),
		})
	}
	for {
		select {
		case <-r.wake:
			send()
		case <-r.stop:
			send()
			return
		}
	}
}

// progressMessage is a notification's message: the newest line of the
// command's output while a call waits for one (the domain cut it to
// domain.ProgressLineMax characters), else how long the call has waited.
func progressMessage(p domain.Progress) string {
	if p.Line != "" {
		return p.Line
	}
	return fmt.Sprintf("waited %s of %s", p.Elapsed.Round(time.Millisecond), p.Total.Round(time.Millisecond))
}
