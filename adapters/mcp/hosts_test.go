package mcp_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
	"github.com/tmux-mcp/tmux-mcp/adapters/mcp"
	"github.com/tmux-mcp/tmux-mcp/adapters/multihost"
	"github.com/tmux-mcp/tmux-mcp/domain"
	"github.com/tmux-mcp/tmux-mcp/domain/lifecycle"
	"github.com/tmux-mcp/tmux-mcp/domain/writers"
)

// fleet is a server of two hosts, web1 and web2, each a fake terminal
// with one bash pane (%0 on each), through the router and the real
// domain.
type fleet struct {
	fakes map[string]*fake.Terminal
	cs    *sdk.ClientSession
	c     *mcpClient
}

func newFleet(t *testing.T) *fleet {
	t.Helper()
	clock := fake.NewClock(time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC))
	f := &fleet{fakes: map[string]*fake.Terminal{}}
	var hosts []multihost.Host
	for _, name := range []string{"web1", "web2"} {
		term := fake.New(fake.WithClock(clock))
		term.AddPane(fake.PaneSpec{Command: "bash"})
		f.fakes[name] = term
		hosts = append(hosts, multihost.Host{Name: name, Destination: "deploy@" + name, Terminal: term, Manager: fake.NewManager(term), Leaser: fake.NewLeaser(clock)})
	}
	router, err := multihost.New(hosts, multihost.Options{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	pool := writers.NewPool(writers.NewLeases(router.Leaser(), clock, "test", 0))
	svc := domain.NewService(router, clock, fake.NewIDs(), domain.DefaultConfig(), domain.WithWriters(pool))
	t.Cleanup(func() { svc.Close(); pool.Close() })
	life := lifecycle.New(lifecycle.FromManager(router), router, pool, svc.ExpectStartingShell)
	f.cs, _ = connectWith(t, svc, mcp.Options{Manage: life, Hosts: router, Safety: mcp.TierDestructive, Clock: clock})
	f.c = &mcpClient{t: t, cs: f.cs}
	return f
}

func field[T any](t *testing.T, m map[string]any, key string) T {
	t.Helper()
	v, ok := m[key].(T)
	if !ok {
		t.Fatalf("%s = %#v (%T) in %v", key, m[key], m[key], m)
	}
	return v
}

func TestListHostsTellsHowEachHostFares(t *testing.T) {
	f := newFleet(t)
	hosts := field[[]any](t, f.c.ok("list_hosts", nil), "hosts")
	if len(hosts) != 2 {
		t.Fatalf("hosts = %v, want web1 and web2", hosts)
	}
	for i, name := range []string{"web1", "web2"} {
		h := hosts[i].(map[string]any)
		if h["name"] != name || h["destination"] != "deploy@"+name || h["reachable"] != true || h["error"] != nil || h["panes"] != 1.0 || h["sessions"] != 1.0 || h["since"] == nil {
			t.Errorf("host %d = %v, want %s reachable with its one session and pane", i, h, name)
		}
	}
	f.fakes["web2"].SetUnavailable(true)
	web2 := field[[]any](t, f.c.ok("list_hosts", nil), "hosts")[1].(map[string]any)
	if web2["reachable"] != false || !strings.Contains(field[string](t, web2, "error"), "unavailable") || web2["panes"] != 0.0 {
		t.Errorf("web2 down = %v, want unreachable with the error", web2)
	}
}

func TestListingsOfSeveralHostsSayEachOnesHost(t *testing.T) {
	f := newFleet(t)
	out := f.c.ok("list_panes", nil)
	panes := field[[]any](t, out, "panes")
	var got []string
	for _, p := range panes {
		p := p.(map[string]any)
		got = append(got, p["host"].(string)+" "+p["paneId"].(string)+" "+p["sessionId"].(string)+" "+p["windowId"].(string))
	}
	if want := []string{"web1 web1:%0 web1:$0 web1:@0", "web2 web2:%0 web2:$0 web2:@0"}; !slices.Equal(got, want) {
		t.Errorf("panes = %q, want %q", got, want)
	}
	if u := field[[]any](t, out, "unreachableHosts"); len(u) != 0 {
		t.Errorf("unreachableHosts = %v, want none", u)
	}
	sessions := field[[]any](t, f.c.ok("list_sessions", nil), "sessions")
	if len(sessions) != 2 || sessions[1].(map[string]any)["host"] != "web2" {
		t.Errorf("sessions = %v, want one per host, each with its host", sessions)
	}

	f.fakes["web2"].Inject("%0", []byte("disk full\r\n"))
	search := f.c.ok("search_panes", map[string]any{"patterns": []any{"disk full"}})
	matched := field[[]any](t, search, "panes")
	if len(matched) != 1 || matched[0].(map[string]any)["host"] != "web2" || matched[0].(map[string]any)["paneId"] != "web2:%0" {
		t.Errorf("search_panes = %v, want web2's pane", matched)
	}

	f.fakes["web2"].SetUnavailable(true)
	out = f.c.ok("list_panes", nil)
	if panes := field[[]any](t, out, "panes"); len(panes) != 1 || panes[0].(map[string]any)["host"] != "web1" {
		t.Errorf("panes with web2 down = %v, want web1's", panes)
	}
	u := field[[]any](t, out, "unreachableHosts")
	if len(u) != 1 || u[0].(map[string]any)["name"] != "web2" || !strings.Contains(u[0].(map[string]any)["error"].(string), "unavailable") {
		t.Errorf("unreachableHosts = %v, want web2 and why", u)
	}
	f.fakes["web2"].SetUnavailable(false)
	if panes := field[[]any](t, f.c.ok("list_panes", nil), "panes"); len(panes) != 2 {
		t.Errorf("panes once web2 is back = %v, want both hosts'", panes)
	}
}

func TestToolsOfSeveralHostsTakeIdsWithTheirHost(t *testing.T) {
	f := newFleet(t)
	res := f.c.ok("run_shell_command", map[string]any{"paneId": "web2:%0", "command": "echo hi; exit 3"})
	if res["outcome"] != "completed" || res["exitStatus"] != 3.0 || res["output"] != "hi" {
		t.Errorf("run_shell_command on web2:%%0 = %v", res)
	}
	if got := f.fakes["web2"].Commands("%0"); !slices.Equal(got, []string{"echo hi; exit 3"}) {
		t.Errorf("web2 ran %q", got)
	}
	if got := f.fakes["web1"].Commands("%0"); len(got) != 0 {
		t.Errorf("web1 ran %q, want nothing", got)
	}
	msg := f.c.toolError("capture_pane", map[string]any{"paneId": "%0"})
	if !strings.Contains(msg, "invalid paneId") || !strings.Contains(msg, "[A-Za-z0-9._-]{1,64}:%") {
		t.Errorf("a pane id without its host: %q, want it refused as an invalid paneId of the host form", msg)
	}
	made := f.c.ok("create_session", map[string]any{"name": "web2:work"})
	if !strings.HasPrefix(made["paneId"].(string), "web2:%") || made["sessionName"] != "work" {
		t.Errorf("create_session web2:work = %v, want session work on web2", made)
	}
}

func TestAServerOfOneHostSaysNoHost(t *testing.T) {
	term := fake.New()
	term.AddPane(fake.PaneSpec{Command: "bash"})
	life := lifecycle.New(lifecycle.FromManager(fake.NewManager(term)), term, writers.NewPool(nil), nil)
	svc := domain.NewService(term, term.Clock(), fake.NewIDs(), domain.DefaultConfig())
	t.Cleanup(func() { svc.Close() })
	cs, srv := connectWith(t, svc, mcp.Options{Manage: life, Safety: mcp.TierDestructive})
	if slices.Contains(srv.Offered(), "list_hosts") {
		t.Error("list_hosts offered by a server of one host")
	}
	out := (&mcpClient{t: t, cs: cs}).ok("list_panes", nil)
	if _, ok := out["unreachableHosts"]; ok {
		t.Errorf("list_panes = %v, want no unreachableHosts", out)
	}
	if p := field[[]any](t, out, "panes")[0].(map[string]any); p["paneId"] != "%0" || p["host"] != nil {
		t.Errorf("pane = %v, want %%0 and no host", p)
	}
}

func TestThePaneResourcesOfSeveralHostsNameTheHost(t *testing.T) {
	f := newFleet(t)
	f.fakes["web2"].Inject("%0", []byte("hello from web2"))
	r, err := f.cs.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: "tmux://panes/web2%3A0/content"})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Contents) != 1 || !strings.Contains(r.Contents[0].Text, "hello from web2") {
		t.Errorf("web2:%%0's screen = %+v", r.Contents)
	}
}

func TestTheInstructionsOfSeveralHostsShowTheIdForm(t *testing.T) {
	f := newFleet(t)
	ins := f.cs.InitializeResult().Instructions
	for _, want := range []string{"web1:%3", "list_hosts"} {
		if !strings.Contains(ins, want) {
			t.Errorf("instructions lack %q: %s", want, ins)
		}
	}
}

// Completion offers the panes of every host, by the host-form prefix a
// person types.
func TestCompletionOfSeveralHostsTakesTheHostPrefix(t *testing.T) {
	f := newFleet(t)
	res, err := f.cs.Complete(context.Background(), &sdk.CompleteParams{
		Ref:      &sdk.CompleteReference{Type: "ref/prompt", Name: "run_and_check"},
		Argument: sdk.CompleteParamsArgument{Name: "paneId", Value: "web2"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Completion.Values; !slices.Equal(got, []string{"web2:%0"}) {
		t.Errorf("completion of web2 = %v, want web2:%%0", got)
	}
}
