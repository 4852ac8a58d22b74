package lifecycle_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/golang/mock/gomock"

	"github.com/tmux-mcp/tmux-mcp/adapters/fake"
	"github.com/tmux-mcp/tmux-mcp/adapters/mocks"
	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/domain/lifecycle"
	"github.com/tmux-mcp/tmux-mcp/domain/writers"
	"github.com/tmux-mcp/tmux-mcp/ports"
)

// search_panes on the layout of lifecycle_test.go. Each pane starts with
// its prompt on row 0; what a test injects follows on the rows below.

// hits lists a result as "pane row text" lines, in order.
func hits(res lifecycle.SearchPanesResult) []string {
	var out []string
	for _, p := range res.Panes {
		for _, m := range p.Lines {
			out = append(out, fmt.Sprintf("%s %d %s", p.PaneID, m.Row, m.Text))
		}
	}
	return out
}

func (l *layout) search(req lifecycle.SearchPanesRequest) lifecycle.SearchPanesResult {
	l.t.Helper()
	res, err := l.life.SearchPanes(l.ctx, req)
	if err != nil {
		l.t.Fatalf("SearchPanes(%+v): %v", req, err)
	}
	return res
}

func TestSearchPanesFindsRowsOnEveryScreen(t *testing.T) {
	l := newLayout(t)
	l.term.Inject(l.top, []byte("\r\nok 1\r\nerror: disk full\r\nok 2"))
	l.term.Inject(l.logs, []byte("\r\nstarting\r\nfatal error in main"))

	res := l.search(lifecycle.SearchPanesRequest{Patterns: []string{"error"}})
	want := []string{"%0 2 error: disk full", "%2 2 fatal error in main"}
	if got := hits(res); !equalStrings(got, want) {
		t.Errorf("hits = %q, want %q", got, want)
	}
	if res.PanesSearched != 3 || res.PanesGone != 0 || res.Matches != 2 || res.Truncated || res.RangeClamped || res.MaxMatches != lifecycle.DefaultSearchMatches {
		t.Errorf("result = %+v; want 3 panes searched, 2 matches, nothing cut short, the default bound", res)
	}
	p := res.Panes[1]
	if p.Session.Name != "work" || p.Window.ID != "@1" || p.Lines[0].Pattern != "error" || p.Lines[0].Cut {
		t.Errorf("match in %s = %+v; want its session and window, the pattern, the row whole", l.logs, p)
	}

	// Any of several patterns; each row once, with the first that matched.
	res = l.search(lifecycle.SearchPanesRequest{Patterns: []string{"fatal", "error", "ok 2"}})
	want = []string{"%0 2 error: disk full", "%0 3 ok 2", "%2 2 fatal error in main"}
	if got := hits(res); !equalStrings(got, want) {
		t.Errorf("hits of three patterns = %q, want %q", got, want)
	}
	if pat := res.Panes[1].Lines[0].Pattern; pat != "fatal" {
		t.Errorf("pattern of %q = %q, want the first that matched, fatal", res.Panes[1].Lines[0].Text, pat)
	}
}

func equalStrings(a, b []string) bool {
	return strings.Join(a, "\n") == strings.Join(b, "\n") && len(a) == len(b)
}

func TestSearchPanesReadsHistoryOnlyWhenAsked(t *testing.T) {
	l := newLayout(t)
	// %2 is 40 rows high: the marker scrolls 45 rows up, into history.
	l.term.Inject(l.logs, []byte("\r\nbuild FAILED here\r\n"+strings.Repeat("more\r\n", 45)))

	if res := l.search(lifecycle.SearchPanesRequest{Patterns: []string{"FAILED"}}); len(res.Panes) != 0 || res.PanesSearched != 3 {
		t.Errorf("screen only: %+v; want no match (the row is in history)", res)
	}
	res := l.search(lifecycle.SearchPanesRequest{Patterns: []string{"FAILED"}, History: true})
	got := hits(res)
	if len(got) != 1 || !strings.HasPrefix(got[0], "%2 -") {
		t.Fatalf("with history: %q; want the row, numbered into history", got)
	}
	// The row numbers are capture_pane's.
	row := res.Panes[0].Lines[0].Row
	rows, err := l.term.Capture(l.ctx, l.logs, ports.CaptureRange{Start: row, End: row})
	if err != nil || rows[0] != "build FAILED here" {
		t.Errorf("row %d captured = %q, %v; want the matched row", row, rows, err)
	}
}

func TestSearchPanesOfOneSession(t *testing.T) {
	l := newLayout(t)
	other, err := l.life.CreateSession(l.ctx, lifecycle.CreateSessionRequest{Name: "other"})
	if err != nil {
		t.Fatal(err)
	}
	l.term.Inject(other.Pane, []byte("\r\nneedle"))
	l.term.Inject(l.top, []byte("\r\nneedle"))
	for _, ref := range []string{"other", other.Session.ID} {
		res := l.search(lifecycle.SearchPanesRequest{Session: ref, Patterns: []string{"needle"}})
		if got := hits(res); len(got) != 1 || res.Panes[0].PaneID != other.Pane || res.PanesSearched != 1 {
			t.Errorf("session %s: %q (%d panes searched); want the match in %s alone", ref, got, res.PanesSearched, other.Pane)
		}
	}
	if _, err := l.life.SearchPanes(l.ctx, lifecycle.SearchPanesRequest{Session: "nope", Patterns: []string{"x"}}); !errors.Is(err, ports.ErrNotFound) {
		t.Errorf("an unknown session: err = %v, want ErrNotFound", err)
	}
}

func TestSearchPanesWithRegularExpressions(t *testing.T) {
	l := newLayout(t)
	l.term.Inject(l.top, []byte("\r\nexit status 0\r\nexit status 2\r\nExit Status 7"))
	res := l.search(lifecycle.SearchPanesRequest{Patterns: []string{`exit status [1-9]`, `(?i)^exit status 7$`}, Regex: true})
	want := []string{"%0 2 exit status 2", "%0 3 Exit Status 7"}
	if got := hits(res); !equalStrings(got, want) {
		t.Errorf("hits = %q, want %q", got, want)
	}
	// Without Regex the same text is a substring, brackets and all.
	if res := l.search(lifecycle.SearchPanesRequest{Patterns: []string{`exit status [1-9]`}}); len(res.Panes) != 0 {
		t.Errorf("as a substring: %q, want no match", hits(res))
	}
}

func TestSearchPanesRefusesBadArgumentsBeforeReadingAnything(t *testing.T) {
	life, _ := mockBackend(t) // any backend call fails the test
	cases := map[string]lifecycle.SearchPanesRequest{
		"no pattern":            {},
		"an empty pattern":      {Patterns: []string{"ok", ""}},
		"an empty regex":        {Patterns: []string{""}, Regex: true},
		"not RE2":               {Patterns: []string{`(unclosed`}, Regex: true},
		"a lookahead RE2 lacks": {Patterns: []string{`a(?=b)`}, Regex: true},
		"a negative bound":      {Patterns: []string{"x"}, MaxMatches: -1},
	}
	for name, req := range cases {
		var arg *fault.ArgumentError
		if _, err := life.SearchPanes(t.Context(), req); !errors.As(err, &arg) {
			t.Errorf("%s: err = %v, want an argument error", name, err)
		}
	}
}

func TestSearchPanesStopsAtMaxMatchesAndSaysSo(t *testing.T) {
	l := newLayout(t)
	l.term.Inject(l.top, []byte("\r\nhit 1\r\nhit 2\r\nhit 3"))
	l.term.Inject(l.logs, []byte("\r\nhit 4\r\nhit 5"))

	res := l.search(lifecycle.SearchPanesRequest{Patterns: []string{"hit"}, MaxMatches: 4})
	if got := hits(res); len(got) != 4 || got[3] != "%2 1 hit 4" || !res.Truncated || res.Matches != 4 || res.MaxMatches != 4 {
		t.Errorf("MaxMatches 4 of 5: %q, %+v; want the first 4 and Truncated", got, res)
	}
	res = l.search(lifecycle.SearchPanesRequest{Patterns: []string{"hit"}, MaxMatches: 5})
	if len(hits(res)) != 5 || res.Truncated {
		t.Errorf("MaxMatches 5 of 5: %+v; want all, not truncated", res)
	}
	res = l.search(lifecycle.SearchPanesRequest{Patterns: []string{"hit"}, MaxMatches: lifecycle.MaxSearchMatches + 1})
	if res.MaxMatches != lifecycle.MaxSearchMatches || len(hits(res)) != 5 {
		t.Errorf("a bound above the ceiling: %+v; want the ceiling applied", res)
	}
}

func TestSearchPanesCutsLongRowsAroundTheMatch(t *testing.T) {
	l := newLayout(t)
	wide, err := l.life.CreateSession(l.ctx, lifecycle.CreateSessionRequest{Name: "wide", Width: 3000, Height: 5})
	if err != nil {
		t.Fatal(err)
	}
	row := strings.Repeat("é", 1000) + "NEEDLE" + strings.Repeat("x", 1000)
	l.term.Inject(wide.Pane, []byte("\r\n"+row))

	res := l.search(lifecycle.SearchPanesRequest{Session: "wide", Patterns: []string{"NEEDLE"}})
	if len(res.Panes) != 1 {
		t.Fatalf("result = %+v", res)
	}
	m := res.Panes[0].Lines[0]
	if !m.Cut || len(m.Text) > lifecycle.MaxSearchLineBytes || !strings.Contains(m.Text, "NEEDLE") ||
		!strings.Contains(m.Text, "é") || !strings.Contains(row, m.Text) {
		t.Errorf("match = cut %v, %d bytes %q; want at most %d bytes of the row around NEEDLE, whole characters",
			m.Cut, len(m.Text), m.Text, lifecycle.MaxSearchLineBytes)
	}
}

func TestSearchPanesKeepsItsResultWithinMaxSearchBytes(t *testing.T) {
	l := newLayout(t)
	wide, err := l.life.CreateSession(l.ctx, lifecycle.CreateSessionRequest{Name: "wide", Width: 1000, Height: 5})
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("x", 600) + " hit"
	l.term.Inject(wide.Pane, []byte(strings.Repeat("\r\n"+long, 800)))

	res := l.search(lifecycle.SearchPanesRequest{Session: "wide", Patterns: []string{"hit"}, History: true, MaxMatches: lifecycle.MaxSearchMatches})
	total := 0
	for _, m := range res.Panes[0].Lines {
		total += len(m.Text)
	}
	if !res.Truncated || total > lifecycle.MaxSearchBytes || res.Matches != lifecycle.MaxSearchBytes/lifecycle.MaxSearchLineBytes {
		t.Errorf("%d matches, %d bytes, truncated %v; want as many %d-byte rows as fit in %d bytes, and Truncated",
			res.Matches, total, res.Truncated, lifecycle.MaxSearchLineBytes, lifecycle.MaxSearchBytes)
	}
}

// Reading is never refused and holds nothing: a busy or watched pane is
// searched, and no write is kept waiting.
func TestSearchPanesIsReadOnly(t *testing.T) {
	l := newLayout(t)
	l.term.Attach(l.top, "/dev/pts/3")
	l.term.Inject(l.top, []byte("\r\nwatched hit"))
	l.hang(l.logs, "tail -f log")
	sentBefore := len(l.term.Sent(l.top))

	res := l.search(lifecycle.SearchPanesRequest{Patterns: []string{"hit", "tail -f"}})
	if got := hits(res); len(got) != 2 {
		t.Errorf("hits = %q; want the watched pane's row and the busy pane's", got)
	}
	if len(l.term.Sent(l.top)) != sentBefore {
		t.Error("the search sent input to a pane")
	}
	if holder, _, held := l.pool.Lookup(l.top); held {
		t.Errorf("%s held by %q after a search", l.top, holder)
	}
}

// A pane listed but gone before its rows are read is skipped.
func TestSearchPanesSkipsAPaneThatIsGone(t *testing.T) {
	term := fake.New()
	live := term.AddPane(fake.PaneSpec{})
	term.Inject(live, []byte("\r\nhit"))
	mgr := mocks.NewMockManager(gomock.NewController(t))
	mgr.EXPECT().ListPanes(gomock.Any(), ports.PaneFilter{}).Return([]ports.PaneSummary{{ID: "%7"}, {ID: live}}, nil)
	life := lifecycle.New(lifecycle.FromManager(mgr), term, writers.NewPool(nil), nil)

	res, err := life.SearchPanes(t.Context(), lifecycle.SearchPanesRequest{Patterns: []string{"hit"}})
	if err != nil {
		t.Fatalf("a pane gone during the search: %v; want it skipped", err)
	}
	if res.PanesGone != 1 || res.PanesSearched != 1 || len(res.Panes) != 1 || res.Panes[0].PaneID != live {
		t.Errorf("result = %+v; want %%7 counted gone and %s searched", res, live)
	}
}

// A pane's history is searched up to MaxSearchRows, its newest rows.
func TestSearchPanesSearchesTheNewestMaxSearchRowsOfAPane(t *testing.T) {
	ctrl := gomock.NewController(t)
	mgr, term := mocks.NewMockManager(ctrl), mocks.NewMockTerminal(ctrl)
	life := lifecycle.New(lifecycle.FromManager(mgr), term, writers.NewPool(nil), nil)
	mgr.EXPECT().ListPanes(gomock.Any(), ports.PaneFilter{}).Return([]ports.PaneSummary{{ID: "%1"}}, nil)
	term.EXPECT().Pane(gomock.Any(), ports.PaneID("%1")).Return(ports.PaneInfo{ID: "%1", Height: 24, HistorySize: 250_000}, nil)
	first := 23 - lifecycle.MaxSearchRows + 1
	term.EXPECT().Capture(gomock.Any(), ports.PaneID("%1"), ports.CaptureRange{Start: first, End: 23}).
		Return(append([]string{"oldest searched hit"}, make([]string, lifecycle.MaxSearchRows-1)...), nil)

	res, err := life.SearchPanes(t.Context(), lifecycle.SearchPanesRequest{Patterns: []string{"hit"}, History: true})
	if err != nil {
		t.Fatal(err)
	}
	if !res.RangeClamped || len(res.Panes) != 1 || res.Panes[0].Lines[0].Row != first {
		t.Errorf("result = %+v; want RangeClamped and the match numbered %d", res, first)
	}
}

func TestSearchPanesWithoutAListerIsUnsupported(t *testing.T) {
	life := lifecycle.New(lifecycle.Backend{}, fake.New(), writers.NewPool(nil), nil)
	if _, err := life.SearchPanes(t.Context(), lifecycle.SearchPanesRequest{Patterns: []string{"x"}}); !errors.Is(err, ports.ErrUnsupported) {
		t.Errorf("err = %v, want ErrUnsupported", err)
	}
}

// onePane is a search over one pane, %1, described as info, whose capture
// of r returns rows: what the search asked for is what gomock checks.
func onePane(t *testing.T, info ports.PaneInfo, r ports.CaptureRange, rows []string) *lifecycle.Service {
	ctrl := gomock.NewController(t)
	mgr, term := mocks.NewMockManager(ctrl), mocks.NewMockTerminal(ctrl)
	mgr.EXPECT().ListPanes(gomock.Any(), ports.PaneFilter{}).Return([]ports.PaneSummary{{ID: "%1"}}, nil)
	term.EXPECT().Pane(gomock.Any(), ports.PaneID("%1")).Return(info, nil)
	term.EXPECT().Capture(gomock.Any(), ports.PaneID("%1"), r).Return(rows, nil)
	return lifecycle.New(lifecycle.FromManager(mgr), term, writers.NewPool(nil), nil)
}

// A pane of exactly MaxSearchRows rows, screen and history, is read
// whole; one row more and its oldest is left out, and the result says so.
func TestSearchPanesReadsAPaneOfMaxSearchRowsWhole(t *testing.T) {
	for _, c := range []struct {
		history int
		first   int
		clamped bool
	}{{lifecycle.MaxSearchRows - 24, 24 - lifecycle.MaxSearchRows, false}, {lifecycle.MaxSearchRows - 23, 24 - lifecycle.MaxSearchRows, true}} {
		info := ports.PaneInfo{ID: "%1", Height: 24, HistorySize: c.history}
		life := onePane(t, info, ports.CaptureRange{Start: c.first, End: 23},
			append([]string{"oldest hit"}, make([]string, 23-c.first)...))
		res, err := life.SearchPanes(t.Context(), lifecycle.SearchPanesRequest{Patterns: []string{"hit"}, History: true})
		if err != nil {
			t.Fatal(err)
		}
		if res.RangeClamped != c.clamped || len(res.Panes) != 1 || res.Panes[0].Lines[0].Row != c.first {
			t.Errorf("%d rows: result = %+v; want the match at row %d, rangeClamped %v", 24+c.history, res, c.first, c.clamped)
		}
	}
}

// A pane of one row, with no history, has that row searched.
func TestSearchPanesReadsAOneRowPane(t *testing.T) {
	life := onePane(t, ports.PaneInfo{ID: "%1", Height: 1}, ports.CaptureRange{Start: 0, End: 0}, []string{"the only hit"})
	res, err := life.SearchPanes(t.Context(), lifecycle.SearchPanesRequest{Patterns: []string{"hit"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := hits(res); !equalStrings(got, []string{"%1 0 the only hit"}) {
		t.Errorf("hits = %q, want row 0", got)
	}
}

// A row of exactly MaxSearchLineBytes bytes comes back whole; a longer
// one is cut at character boundaries on both sides, whatever characters
// stand where the cut falls.
func TestSearchPanesCutsRowsOnlyPastTheBoundAndAtCharacters(t *testing.T) {
	exact := strings.Repeat("x", lifecycle.MaxSearchLineBytes-3) + "hit"
	for _, c := range []struct {
		name, row string
		cut       bool
	}{
		{"a row of the bound", exact, false},
		{"a row one byte longer", "y" + exact, true},
		// Three-byte characters where the cuts fall: inside one at the
		// start in the first two, inside one at the end in the third.
		{"wide characters on both sides", strings.Repeat("€", 400) + "hit" + strings.Repeat("€", 400), true},
		{"wide characters then narrow", strings.Repeat("€", 60) + "hit" + strings.Repeat("z", 2000), true},
		{"narrow then wide characters", strings.Repeat("z", 2000) + "hit!" + strings.Repeat("€", 400), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			life := onePane(t, ports.PaneInfo{ID: "%1", Height: 1}, ports.CaptureRange{Start: 0, End: 0}, []string{c.row})
			res, err := life.SearchPanes(t.Context(), lifecycle.SearchPanesRequest{Patterns: []string{"hit"}})
			if err != nil || len(res.Panes) != 1 {
				t.Fatalf("result = %+v, %v", res, err)
			}
			m := res.Panes[0].Lines[0]
			if m.Cut != c.cut || len(m.Text) > lifecycle.MaxSearchLineBytes || !strings.Contains(m.Text, "hit") ||
				!strings.Contains(c.row, m.Text) || !utf8.ValidString(m.Text) {
				t.Errorf("cut %v, %d bytes %q; want cut %v, at most %d bytes around the match, whole characters",
					m.Cut, len(m.Text), m.Text, c.cut, lifecycle.MaxSearchLineBytes)
			}
			if !c.cut && m.Text != c.row {
				t.Errorf("text %q, want the row whole", m.Text)
			}
		})
	}
}

// A search of one session that cannot be listed says which session.
func TestSearchPanesOfASessionThatCannotBeListedNamesIt(t *testing.T) {
	ctrl := gomock.NewController(t)
	mgr := mocks.NewMockManager(ctrl)
	gone := fmt.Errorf("listing failed: %w", ports.ErrUnavailable)
	mgr.EXPECT().ListPanes(gomock.Any(), ports.PaneFilter{Session: "build"}).Return(nil, gone)
	mgr.EXPECT().ListPanes(gomock.Any(), ports.PaneFilter{}).Return(nil, gone)
	life := lifecycle.New(lifecycle.FromManager(mgr), mocks.NewMockTerminal(ctrl), writers.NewPool(nil), nil)
	_, err := life.SearchPanes(t.Context(), lifecycle.SearchPanesRequest{Session: "build", Patterns: []string{"x"}})
	if !errors.Is(err, ports.ErrUnavailable) || !strings.HasPrefix(err.Error(), "search the panes of session build: ") {
		t.Errorf("err = %v; want the listing's error, naming session build", err)
	}
	_, err = life.SearchPanes(t.Context(), lifecycle.SearchPanesRequest{Patterns: []string{"x"}})
	if !errors.Is(err, ports.ErrUnavailable) || err.Error() != "search the panes: listing failed: "+ports.ErrUnavailable.Error() {
		t.Errorf("err = %v; want the listing's error, naming no session", err)
	}
}

// A search of the screens reads each with one capture of the height the
// listing gave, describing no pane; one that reaches into history still
// describes each pane first, to know how far back it goes, as it does a
// pane whose height the listing did not give.
func TestSearchPanesReadsEachScreenWithOneCapture(t *testing.T) {
	ctrl := gomock.NewController(t)
	mgr, term := mocks.NewMockManager(ctrl), mocks.NewMockTerminal(ctrl)
	life := lifecycle.New(lifecycle.FromManager(mgr), term, writers.NewPool(nil), nil)
	mgr.EXPECT().ListPanes(gomock.Any(), ports.PaneFilter{}).Return([]ports.PaneSummary{{ID: "%1", Height: 2}, {ID: "%2", Height: 2}}, nil).Times(2)
	term.EXPECT().Capture(gomock.Any(), ports.PaneID("%1"), ports.CaptureRange{Start: 0, End: 1}).Return([]string{"$ make", "a hit"}, nil)
	term.EXPECT().Capture(gomock.Any(), ports.PaneID("%2"), ports.CaptureRange{Start: 0, End: 1}).
		Return(nil, fmt.Errorf("capture pane %%2: %w", ports.ErrPaneNotFound))

	res, err := life.SearchPanes(t.Context(), lifecycle.SearchPanesRequest{Patterns: []string{"hit"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := hits(res); !equalStrings(got, []string{"%1 1 a hit"}) || res.PanesSearched != 1 || res.PanesGone != 1 {
		t.Errorf("hits = %q, result %+v; want row 1 of %%1, and %%2 counted gone", got, res)
	}

	term.EXPECT().Pane(gomock.Any(), gomock.Any()).Return(ports.PaneInfo{Height: 2, HistorySize: 1}, nil).Times(2)
	term.EXPECT().Capture(gomock.Any(), gomock.Any(), ports.CaptureRange{Start: -1, End: 1}).
		Return([]string{"old hit", "$ make", "a hit"}, nil).Times(2)
	if res, err = life.SearchPanes(t.Context(), lifecycle.SearchPanesRequest{Patterns: []string{"hit"}, History: true}); err != nil {
		t.Fatal(err)
	}
	if res.Matches != 4 {
		t.Errorf("history search: %d matches, want 4 (two rows in each pane)", res.Matches)
	}
}

// A screen taller than MaxSearchRows has its newest rows searched,
// numbered as on the screen.
func TestSearchPanesHoldsAScreenToMaxSearchRows(t *testing.T) {
	ctrl := gomock.NewController(t)
	mgr, term := mocks.NewMockManager(ctrl), mocks.NewMockTerminal(ctrl)
	life := lifecycle.New(lifecycle.FromManager(mgr), term, writers.NewPool(nil), nil)
	height := lifecycle.MaxSearchRows + 1
	mgr.EXPECT().ListPanes(gomock.Any(), ports.PaneFilter{}).Return([]ports.PaneSummary{{ID: "%1", Height: height}}, nil)
	rows := make([]string, lifecycle.MaxSearchRows)
	rows[0], rows[len(rows)-1] = "oldest searched hit", "newest hit"
	term.EXPECT().Capture(gomock.Any(), ports.PaneID("%1"), ports.CaptureRange{Start: 1, End: height - 1}).Return(rows, nil)

	res, err := life.SearchPanes(t.Context(), lifecycle.SearchPanesRequest{Patterns: []string{"hit"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"%1 1 oldest searched hit", fmt.Sprintf("%%1 %d newest hit", lifecycle.MaxSearchRows)}
	if got := hits(res); !equalStrings(got, want) || !res.RangeClamped {
		t.Errorf("hits = %q, rangeClamped %v; want %q and rangeClamped", got, res.RangeClamped, want)
	}
}
