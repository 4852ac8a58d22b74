package tmux

import (
	"bytes"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/adapters/clock"
	"github.com/tmux-mcp/tmux-mcp/adapters/random"
	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/domain/lifecycle"
	"github.com/tmux-mcp/tmux-mcp/domain/writers"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// Leases on real tmux. Two Terminal values on one socket stand for two
// server processes: they share nothing but the tmux server.

func TestLeaseKeepsASecondProcessOut(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	p := s.session("main", bashCmd)
	a, b := s.terminal(Options{}), s.terminal(Options{})
	ctx := testContext(t)

	// The expiry is reckoned on the tmux server's clock, in whole seconds.
	before := time.Now().Truncate(time.Second)
	if ok, holder, err := a.TryAcquire(ctx, p, "server-a", time.Hour); !ok || holder != "" || err != nil {
		t.Fatalf("a.TryAcquire = %v, %q, %v; want the pane", ok, holder, err)
	}
	owner := strings.TrimSpace(s.tmux("show-options", "-p", "-v", "-t", string(p), LeaseOwnerOption))
	ms := strings.TrimSpace(s.tmux("show-options", "-p", "-v", "-t", string(p), LeaseExpiryOption))
	expiry, _ := strconv.ParseInt(ms, 10, 64)
	if owner != "server-a" || expiry < before.Add(time.Hour).UnixMilli() || expiry > time.Now().Add(time.Hour).UnixMilli() {
		t.Errorf("lease = %q %q, want server-a and the Unix ms an hour from now", owner, ms)
	}

	if ok, holder, err := b.TryAcquire(ctx, p, "server-b", time.Hour); ok || holder != "server-a" || err != nil {
		t.Fatalf("b.TryAcquire = %v, %q, %v; want refused, held by server-a", ok, holder, err)
	}
	if err := b.Release(ctx, p, "server-b"); err != nil {
		t.Fatalf("b.Release of a lease it does not hold: %v", err)
	}
	if err := a.Renew(ctx, p, "server-a", time.Hour); err != nil {
		t.Fatalf("a.Renew: %v", err)
	}
	if err := a.Release(ctx, p, "server-a"); err != nil {
		t.Fatal(err)
	}
	if v := strings.TrimSpace(s.tmux("show-options", "-p", "-q", "-v", "-t", string(p), LeaseOwnerOption)); v != "" {
		t.Errorf("%s = %q after Release, want it unset", LeaseOwnerOption, v)
	}
	if ok, _, err := b.TryAcquire(ctx, p, "server-b", time.Hour); !ok || err != nil {
		t.Fatalf("b.TryAcquire of the released pane = %v, %v", ok, err)
	}
	if err := a.Renew(ctx, p, "server-a", time.Hour); !errors.Is(err, ports.ErrLeaseLost) {
		t.Errorf("a.Renew of a pane b holds: err = %v, want ErrLeaseLost", err)
	}
}

// AcquireAndDescribe leases as TryAcquire does and describes the pane as
// Pane does, in one command list.
func TestAcquireAndDescribeIsTryAcquireThenPane(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	p := s.session("main", bashCmd)
	s.waitPrompt(p)
	a, b := s.terminal(Options{}), s.terminal(Options{})
	ctx := testContext(t)

	ok, holder, info, err := a.AcquireAndDescribe(ctx, p, "server-a", time.Hour)
	if !ok || holder != "" || err != nil {
		t.Fatalf("AcquireAndDescribe = %v, %q, %v; want the pane", ok, holder, err)
	}
	want, err := a.Pane(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(info, want) {
		t.Errorf("described %+v\nwant as Pane: %+v", info, want)
	}
	if owner := strings.TrimSpace(s.tmux("show-options", "-p", "-v", "-t", string(p), LeaseOwnerOption)); owner != "server-a" {
		t.Errorf("lease owner %q, want server-a", owner)
	}
	ok, holder, info, err = b.AcquireAndDescribe(ctx, p, "server-b", time.Hour)
	if ok || holder != "server-a" || err != nil || info.ID != "" {
		t.Errorf("b.AcquireAndDescribe = %v, %q, %+v, %v; want refused, held by server-a, no description", ok, holder, info, err)
	}
	if _, _, _, err := a.AcquireAndDescribe(ctx, "%999", "server-a", time.Hour); !errors.Is(err, ports.ErrPaneNotFound) {
		t.Errorf("AcquireAndDescribe of no pane: %v, want ErrPaneNotFound", err)
	}
}

func TestLeaseOfADeadOwnerIsTakenOverOnceExpired(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	p := s.session("main", bashCmd)
	term := s.terminal(Options{})
	ctx := testContext(t)

	setLease := func(owner string, expiry int64) {
		s.tmux("set-option", "-p", "-t", string(p), LeaseOwnerOption, owner)
		s.tmux("set-option", "-p", "-t", string(p), LeaseExpiryOption, strconv.FormatInt(expiry, 10))
	}
	setLease("crashed-server", time.Now().Add(time.Hour).UnixMilli())
	if ok, holder, err := term.TryAcquire(ctx, p, "me", time.Minute); ok || holder != "crashed-server" || err != nil {
		t.Fatalf("TryAcquire against a live lease = %v, %q, %v; want refused, held by crashed-server", ok, holder, err)
	}
	// tmux's clock reads whole seconds: a lease that expired a second ago
	// has expired by it too.
	setLease("crashed-server", time.Now().Add(-time.Second).UnixMilli())
	if ok, _, err := term.TryAcquire(ctx, p, "me", time.Minute); !ok || err != nil {
		t.Fatalf("TryAcquire against an expired lease = %v, %v; want it taken over", ok, err)
	}
}

func TestLeaseGoesToExactlyOneOfManyAskingAtOnce(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	p := s.session("main", bashCmd)
	terms := []*Terminal{s.terminal(Options{}), s.terminal(Options{})}
	ctx := testContext(t)

	const askers = 8
	var wg sync.WaitGroup
	results := make([]bool, askers)
	errs := make([]error, askers)
	start := make(chan struct{})
	for i := range askers {
		wg.Go(func() {
			<-start
			results[i], _, errs[i] = terms[i%2].TryAcquire(ctx, p, "owner-"+strconv.Itoa(i), time.Hour)
		})
	}
	close(start)
	wg.Wait()
	winners := 0
	for i, ok := range results {
		if errs[i] != nil {
			t.Errorf("asker %d: %v", i, errs[i])
		}
		if ok {
			winners++
		}
	}
	if winners != 1 {
		t.Errorf("%d askers got the pane, want exactly 1", winners)
	}
}

func TestLeaseErrors(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	p := s.session("main", bashCmd)
	term := s.terminal(Options{})
	ctx := testContext(t)
	if _, _, err := term.TryAcquire(ctx, "%999", "me", time.Minute); !errors.Is(err, ports.ErrPaneNotFound) {
		t.Errorf("TryAcquire of an unknown pane: err = %v, want ErrPaneNotFound", err)
	}
	if err := term.Renew(ctx, "%999", "me", time.Minute); !errors.Is(err, ports.ErrPaneNotFound) {
		t.Errorf("Renew of an unknown pane: err = %v, want ErrPaneNotFound", err)
	}
	if err := term.Release(ctx, "%999", "me"); err != nil {
		t.Errorf("Release of an unknown pane: %v, want nil", err)
	}
	for _, owner := range []string{"", " padded", "two\nlines", "a,b", "x}y", "#(touch)", "a;b", strings.Repeat("x", 129)} {
		if _, _, err := term.TryAcquire(ctx, p, owner, time.Minute); err == nil {
			t.Errorf("TryAcquire with owner %q succeeded", owner)
		}
	}
	// A refused owner changes nothing.
	if ok, _, err := term.TryAcquire(ctx, p, "me", time.Minute); !ok || err != nil {
		t.Errorf("TryAcquire after the failures = %v, %v", ok, err)
	}
}

func TestTwoServersOnOneSocketNeverWriteIntoOnePaneAtOnce(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	p := s.session("main", bashCmd)
	s.waitPrompt(p)
	ta, tb := s.terminal(Options{}), s.terminal(Options{})
	a, _ := leasingService(t, ta, "server-a")
	b, bLife := leasingService(t, tb, "server-b")
	ctx := testContext(t)

	res, err := a.RunShellCommand(ctx, domain.RunRequest{PaneID: p, Command: "sleep 30", TimeoutMs: 300})
	if err != nil || res.Outcome != domain.OutcomeTimedOut || !res.StillRunning {
		t.Fatalf("a's run = %+v, %v; want timed_out, still running", res, err)
	}
	_, paste := b.PasteText(ctx, domain.PasteRequest{PaneID: p, Text: "echo intruder", Enter: true})
	_, kill := bLife.KillPane(ctx, lifecycle.KillPaneRequest{PaneID: p})
	for tool, err := range map[string]error{"paste_text": paste, "kill_pane": kill} {
		if !errors.Is(err, fault.ErrBusy) || !strings.Contains(err.Error(), "another tmux-mcp process (owner server-a)") {
			t.Errorf("b's %s while a's command runs: err = %v, want busy naming server-a", tool, err)
		}
	}

	// a stops its command; its lease goes once the command has ended.
	if _, err := a.SendKeys(ctx, domain.SendKeysRequest{PaneID: p, Keys: "C-c"}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-a.Released(p):
	case <-ctx.Done():
		t.Fatal("a never released the pane after C-c")
	}
	if v := strings.TrimSpace(s.tmux("show-options", "-p", "-q", "-v", "-t", string(p), LeaseOwnerOption)); v != "" {
		t.Errorf("lease %q left after a's command ended", v)
	}
	if _, err := b.PasteText(ctx, domain.PasteRequest{PaneID: p, Text: "echo mine"}); err != nil {
		t.Errorf("b's paste once the pane is free: %v", err)
	}
}

// leasingService returns the pane tools' and the lifecycle tools'
// Services of one server process on term, leasing panes as owner for a
// minute at a time; they are closed when the test ends.
func leasingService(t *testing.T, term *Terminal, owner string) (*domain.Service, *lifecycle.Service) {
	clk := clock.New()
	pool := writers.NewPool(writers.NewLeases(term, clk, owner, time.Minute))
	svc := domain.NewService(term, clk, random.New(), domain.DefaultConfig(), domain.WithWriters(pool))
	t.Cleanup(func() { svc.Close(); pool.Close() })
	return svc, lifecycle.New(lifecycle.FromManager(term), term, pool, svc.ExpectStartingShell)
}

// A write takes the lease, describes the pane and opens its output. When
// a control client already records the pane, the lease's command list
// also confirms that client's hold on it, so opening the output asks tmux
// nothing more: one round trip for the three. What the stream promises
// holds all the same: every byte written after OpenOutput returns is in it.
func TestAcquireAndDescribeSparesTheOutputItsRoundTrip(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	echoBack := []string{"sh", "-c", "read x; echo got-$x; exec sleep 600"}
	p := s.session("one", echoBack)
	// No poll of the recorded panes may fall into what is counted.
	term := s.terminal(Options{PollInterval: time.Hour})
	ctx := testContext(t)
	first, err := term.OpenOutput(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	first.Close()

	before := term.controlLines.Load()
	ok, _, info, err := term.AcquireAndDescribe(ctx, p, "server-a", time.Hour)
	if err != nil || !ok || info.ID != p {
		t.Fatalf("AcquireAndDescribe = %v, %+v, %v; want the pane", ok, info, err)
	}
	stream, err := term.OpenOutput(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	if n := term.controlLines.Load() - before; n != 1 {
		t.Errorf("the lease, the description and opening the output took %d command lines, want 1", n)
	}
	from := stream.End()
	if err := term.SendText(ctx, p, "it\n"); err != nil {
		t.Fatal(err)
	}
	data, missed, _ := readUntil(t, stream, from, "the reply", contains("got-it"))
	if missed != 0 || !bytes.Contains(data, []byte("got-it\r\n")) {
		t.Errorf("read %q with %d missed, want the reply", data, missed)
	}

	// The confirmation serves one opening: the next asks for itself.
	before = term.controlLines.Load()
	again, err := term.OpenOutput(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	again.Close()
	if n := term.controlLines.Load() - before; n != 1 {
		t.Errorf("an OpenOutput after the confirmed one took %d command lines, want its own check, 1", n)
	}
}

// A pane that leaves the recording client's session between the lease and
// opening its output is followed there, as any recorded pane is: what it
// writes after OpenOutput returns is in the stream, or counted as missed,
// never silently lost.
func TestAConfirmedPaneMovedBeforeItsOutputOpensIsFollowed(t *testing.T) {
	t.Parallel()
	s, term, p := movablePane(t)
	ctx := testContext(t)
	first, err := term.OpenOutput(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	first.Close()
	if ok, _, _, err := term.AcquireAndDescribe(ctx, p, "server-a", time.Hour); err != nil || !ok {
		t.Fatalf("AcquireAndDescribe = %v, %v; want the pane", ok, err)
	}
	s.tmux("break-pane", "-d", "-s", string(p), "-t", "two:")
	stream, err := term.OpenOutput(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	from := stream.End()
	if err := term.SendText(ctx, p, "echo moved-$((4*4))\n"); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(10 * time.Second)
	var data []byte
	for {
		c := stream.ReadFrom(from)
		data = append(data, c.Data...)
		from = c.Offset + int64(len(c.Data))
		if bytes.Contains(data, []byte("moved-16\r\n")) || c.Missed > 0 {
			return
		}
		if c.Ended != nil {
			t.Fatalf("stream ended: %v", c.Ended)
		}
		select {
		case <-stream.Changed():
		case <-deadline:
			t.Fatalf("after 10 s the stream holds %q and counts nothing missed: the output after the move was lost silently", data)
		}
	}
}
