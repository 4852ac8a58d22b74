package test

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The dependency rule, checked on the real import graph: the domain and the
// ports are pure (standard library, and domain may use ports); adapters
// never reach into the wiring; only the wiring and the binary know fx.
func TestDependencyRule(t *testing.T) {
	const mod = "github.com/tmux-mcp/tmux-mcp"
	pkgs := moduleImports(t, mod)
	if len(pkgs) < 10 {
		t.Fatalf("found only %d packages; the check would prove nothing", len(pkgs))
	}
	for _, v := range checkRules(mod, pkgs) {
		t.Error(v)
	}
}

// The import graph is the one layers (and ARCHITECTURE.md) describes:
// no edge more, none less.
func TestArchitectureLayers(t *testing.T) {
	const mod = "github.com/tmux-mcp/tmux-mcp"
	pkgs := moduleImports(t, mod)
	if len(pkgs) < 10 {
		t.Fatalf("found only %d packages; the check would prove nothing", len(pkgs))
	}
	for _, v := range checkLayers(mod, pkgs, layers) {
		t.Error(v)
	}
	// The map itself obeys the rules, so that an edge added to it to
	// quiet the check above is still judged.
	for _, v := range checkRules(mod, layerGraph(mod, layers)) {
		t.Error("layers: " + v)
	}
}

// layers is the table of ARCHITECTURE.md ("The layers") as data: each
// package of the module, by its path in the module, and exactly the
// packages of the module its non-test files import. The standard library
// and third-party modules are left to checkRules. A new package, or a new
// import between packages, is an entry here and a row (or a name in a
// row) there; TestArchitectureTableMatchesTheMap holds the two to each other.
var layers = map[string][]string{
	"ports":            {},
	"domain":           {"ports", "domain/fault", "domain/frame", "domain/input", "domain/pattern", "domain/policy", "domain/runlog", "domain/termtext", "domain/writers"},
	"domain/input":     {"ports"},
	"domain/runlog":    {"ports"},
	"domain/frame":     {},
	"domain/termtext":  {},
	"domain/pattern":   {"domain/fault"},
	"domain/policy":    {"ports", "domain/fault", "domain/frame"},
	"domain/writers":   {"ports", "domain/fault"},
	"domain/lifecycle": {"ports", "domain/fault", "domain/frame", "domain/pattern", "domain/policy", "domain/writers"},
	"domain/fault":     {"ports"},

	"adapters/tmux": {"ports", "adapters/internal/outbuf", "adapters/internal/proc", "adapters/internal/screencap",
		"adapters/internal/scripts", "adapters/internal/shellinit", "adapters/internal/tty"},
	"adapters/screen":             {"ports", "adapters/internal/outbuf", "adapters/internal/proc", "adapters/internal/scripts", "adapters/internal/tty"},
	"adapters/fake":               {"ports", "domain/frame", "adapters/internal/outbuf", "adapters/internal/screencap"},
	"adapters/multihost":          {"ports"},
	"adapters/mcp":                {"ports", "domain", "domain/fault", "domain/input", "domain/lifecycle", "domain/pattern", "domain/writers", "adapters/mcp/audit", "adapters/internal/sysclock"},
	"adapters/mcp/audit":          {},
	"adapters/internal/outbuf":    {"ports"},
	"adapters/internal/scripts":   {"ports", "adapters/internal/proc"},
	"adapters/internal/shellinit": {"adapters/internal/proc"},
	"adapters/internal/tty":       {"ports"},
	"adapters/internal/screencap": {"ports"},
	"adapters/internal/proc":      {},
	"adapters/internal/sysclock":  {"ports"},
	"adapters/clock":              {"adapters/internal/sysclock"},
	"adapters/outputstore":        {"ports", "adapters/internal/proc"},
	"adapters/random":             {"ports"},
	"adapters/mocks":              {"ports"},

	"app": {"ports", "domain", "domain/lifecycle", "domain/runlog", "domain/writers", "adapters/clock", "adapters/fake", "adapters/mcp", "adapters/outputstore",
		"adapters/mcp/audit", "adapters/multihost", "adapters/random", "adapters/screen", "adapters/tmux"},
	"cmd/tmux-mcp":                  {"app", "cmd/tmux-mcp/internal/clients", "cmd/tmux-mcp/internal/doctor"},
	"cmd/tmux-mcp/internal/clients": {"app"},
	"cmd/tmux-mcp/internal/doctor":  {"app", "cmd/tmux-mcp/internal/clients"},

	"test/contract":                {"ports", "domain/frame", "domain/policy"},
	"test/gate":                    {},
	"test/sshtest":                 {"test/gate"},
	"test/tmuxtest":                {"test/gate"},
	"test/manpage":                 {"app"},
	"test/summary":                 {},
	"test/bench":                   {"test/bench/internal/benchkit"},
	"test/bench/profile":           {"app", "test/bench/internal/benchkit"},
	"test/bench/internal/benchkit": {"domain/frame", "test/sshtest", "test/tmuxtest"},
}

// layerGraph is layers as an import graph of full paths.
func layerGraph(mod string, m map[string][]string) map[string][]string {
	g := map[string][]string{}
	for pkg, imps := range m {
		g[mod+"/"+pkg] = []string{}
		for _, imp := range imps {
			g[mod+"/"+pkg] = append(g[mod+"/"+pkg], mod+"/"+imp)
		}
	}
	return g
}

// checkLayers holds the import graph pkgs (full paths) to the map m
// (paths in the module): a package with no entry, an import of the
// module the entry does not list, a listed one that no file makes, and
// an entry for no package are each reported, with what to change.
func checkLayers(mod string, pkgs map[string][]string, m map[string][]string) []string {
	var bad []string
	seen := map[string]bool{}
	for _, pkg := range slices.Sorted(maps.Keys(pkgs)) {
		rel := strings.TrimPrefix(pkg, mod+"/")
		seen[rel] = true
		imports := map[string]bool{}
		for _, imp := range pkgs[pkg] {
			if strings.HasPrefix(imp, mod+"/") {
				imports[strings.TrimPrefix(imp, mod+"/")] = true
			}
		}
		allowed, ok := m[rel]
		if !ok {
			bad = append(bad, fmt.Sprintf("package %s has no entry in layers (test/architecture_test.go) nor a row in ARCHITECTURE.md's table \"The layers\": add both, listing the packages of this module it imports: %q",
				rel, slices.Sorted(maps.Keys(imports))))
			continue
		}
		for _, imp := range slices.Sorted(maps.Keys(imports)) {
			if !slices.Contains(allowed, imp) {
				bad = append(bad, fmt.Sprintf("%s imports %s, which its entry in layers (test/architecture_test.go) and its row in ARCHITECTURE.md do not list: add it to both if the dependency rule allows it, else remove the import", rel, imp))
			}
		}
		for _, imp := range allowed {
			if !imports[imp] {
				bad = append(bad, fmt.Sprintf("layers says %s imports %s, which none of its files does: remove it there and from ARCHITECTURE.md's row", rel, imp))
			}
		}
	}
	for _, rel := range slices.Sorted(maps.Keys(m)) {
		if !seen[rel] {
			bad = append(bad, fmt.Sprintf("layers has an entry for %s, which is no package of the module with non-test files: remove it and its row in ARCHITECTURE.md", rel))
		}
	}
	return bad
}

// ARCHITECTURE.md's table of the layers says what the map says.
func TestArchitectureTableMatchesTheMap(t *testing.T) {
	md, err := os.ReadFile(filepath.Join(moduleRoot, "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	table, err := parseLayerTable(string(md))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range compareLayers(table, layers) {
		t.Error(v)
	}
}

// compareLayers reports where the table (from ARCHITECTURE.md) and the
// map m disagree.
func compareLayers(table, m map[string][]string) []string {
	var bad []string
	for _, pkg := range slices.Sorted(maps.Keys(m)) {
		row, ok := table[pkg]
		if !ok {
			bad = append(bad, fmt.Sprintf("ARCHITECTURE.md's table \"The layers\" has no row for %s: add one whose last column names %q", pkg, m[pkg]))
			continue
		}
		want, got := slices.Sorted(slices.Values(m[pkg])), slices.Sorted(slices.Values(row))
		if !slices.Equal(want, got) {
			bad = append(bad, fmt.Sprintf("ARCHITECTURE.md's row for %s names %q; layers in test/architecture_test.go says %q", pkg, got, want))
		}
	}
	for _, pkg := range slices.Sorted(maps.Keys(table)) {
		if _, ok := m[pkg]; !ok {
			bad = append(bad, fmt.Sprintf("ARCHITECTURE.md has a row for %s, which layers in test/architecture_test.go lacks", pkg))
		}
	}
	return bad
}

// parseLayerTable reads the table under the heading "## The layers": each
// row's first cell is one package, in backquotes, and the backquoted
// names of its last cell are the packages of the module it imports (the
// rest of that cell, such as "standard library" or "go-sdk", is prose).
func parseLayerTable(md string) (map[string][]string, error) {
	_, after, ok := strings.Cut(md, "\n## The layers\n")
	if !ok {
		return nil, errors.New(`ARCHITECTURE.md: no heading "## The layers"`)
	}
	quoted := regexp.MustCompile("`([^`]*)`")
	table := map[string][]string{}
	header := 0
	for line := range strings.Lines(after) {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "|") {
			if len(table) > 0 || header > 0 || strings.HasPrefix(line, "#") {
				break
			}
			continue
		}
		if header < 2 { // the header and the separator
			header++
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		first := strings.TrimSpace(cells[0])
		m := quoted.FindStringSubmatch(first)
		if len(cells) < 2 || m == nil || m[0] != first {
			return nil, fmt.Errorf("ARCHITECTURE.md, the layers: a row must start with one package in backquotes: %s", line)
		}
		pkg := strings.TrimSuffix(m[1], "/")
		if _, dup := table[pkg]; dup {
			return nil, fmt.Errorf("ARCHITECTURE.md, the layers: two rows for %s", pkg)
		}
		imports := []string{}
		for _, q := range quoted.FindAllStringSubmatch(cells[len(cells)-1], -1) {
			imports = append(imports, strings.TrimSuffix(q[1], "/"))
		}
		table[pkg] = imports
	}
	if len(table) == 0 {
		return nil, errors.New("ARCHITECTURE.md: no rows under \"## The layers\"")
	}
	return table, nil
}

// The map's check and the table's reading are tested on made-up graphs
// and tables, so that neither can pass vacuously.
func TestArchitectureChecksCatchDrift(t *testing.T) {
	const mod = "example.com/m"
	m := map[string][]string{"ports": {}, "domain": {"ports"}}
	clean := map[string][]string{mod + "/ports": {"time"}, mod + "/domain": {"fmt", mod + "/ports"}}
	if v := checkLayers(mod, clean, m); len(v) != 0 {
		t.Errorf("a graph the map describes was flagged: %v", v)
	}
	drifts := map[string]map[string][]string{
		"an import the map does not list": {mod + "/ports": {mod + "/domain"}, mod + "/domain": {mod + "/ports"}},
		"a listed import no file makes":   {mod + "/ports": {}, mod + "/domain": {"fmt"}},
		"a package the map lacks":         {mod + "/ports": {}, mod + "/domain": {mod + "/ports"}, mod + "/app": {mod + "/domain"}},
		"an entry for no package":         {mod + "/domain": {mod + "/ports"}},
	}
	for name, g := range drifts {
		if len(checkLayers(mod, g, m)) == 0 {
			t.Errorf("%s: not reported", name)
		}
	}
	if v := checkLayers(mod, drifts["a package the map lacks"], m); len(v) != 1 || !strings.Contains(v[0], "package app has no entry") {
		t.Errorf("a missing package is reported as %q, want one message naming it", v)
	}

	md := "# A\n\n## The layers\n\n| package | what | may import |\n| --- | --- | --- |\n" +
		"| `ports/` | the `Terminal` | standard library |\n" +
		"| `domain` | rules | standard library, `ports/` (its interfaces) |\n\nprose `app`\n\n| `x` | y | `z` |\n"
	table, err := parseLayerTable(md)
	if err != nil {
		t.Fatal(err)
	}
	if v := compareLayers(table, m); len(v) != 0 {
		t.Errorf("table %v read as differing from %v: %v", table, m, v)
	}
	if v := compareLayers(table, map[string][]string{"ports": {}, "domain": {"ports", "domain/fault"}, "app": {}}); len(v) != 2 {
		t.Errorf("a row that differs and a missing row: got %q", v)
	}
	for name, bad := range map[string]string{
		"no heading":            "| `ports` | a | b |\n",
		"a row without a name":  "## The layers\n| p | w | i |\n| - | - | - |\n| ports | a | b |\n",
		"two rows for one name": "## The layers\n| p | w | i |\n| - | - | - |\n| `a` | a | b |\n| `a/` | a | b |\n",
	} {
		if _, err := parseLayerTable("x\n" + bad); err == nil {
			t.Errorf("%s: read without an error", name)
		}
	}
}

// moduleRoot is the module's directory, seen from this package's.
const moduleRoot = ".."

// moduleImports returns what the non-test files of each of the module's
// packages import. It reads the files themselves, every one whatever its
// build constraints (so a superset of any one build's imports), rather
// than asking the go command: the check starts no process.
func moduleImports(t *testing.T, mod string) map[string][]string {
	t.Helper()
	pkgs := map[string][]string{}
	for dir, files := range moduleFiles(t) {
		rel, _ := filepath.Rel(moduleRoot, dir)
		pkg := mod
		if rel != "." {
			pkg += "/" + filepath.ToSlash(rel)
		}
		for _, name := range files {
			f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatalf("parse %s: %v", name, err)
			}
			for _, imp := range f.Imports {
				pkgs[pkg] = append(pkgs[pkg], strings.Trim(imp.Path.Value, `"`))
			}
		}
	}
	return pkgs
}

// moduleFiles returns the module's non-test Go files by directory,
// leaving out testdata and hidden directories as the go command does.
func moduleFiles(t *testing.T) map[string][]string {
	t.Helper()
	files := map[string][]string{}
	err := filepath.WalkDir(moduleRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != moduleRoot && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			files[filepath.Dir(path)] = append(files[filepath.Dir(path)], path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// The rules themselves are tested on made-up graphs, so a rule that could
// never fire would be noticed.
func TestDependencyRuleCatchesViolations(t *testing.T) {
	const mod = "example.com/m"
	cases := map[string]map[string][]string{
		"domain imports a module":            {mod + "/domain": {"fmt", "go.uber.org/zap"}},
		"domain imports an adapter":          {mod + "/domain": {mod + "/adapters/tmux"}},
		"ports import the domain":            {mod + "/ports": {mod + "/domain"}},
		"adapter imports app":                {mod + "/adapters/mcp": {mod + "/app"}},
		"adapter imports fx":                 {mod + "/adapters/tmux": {"go.uber.org/fx"}},
		"test helper imports fx":             {mod + "/test/contract": {"go.uber.org/fx"}},
		"domain imports os/exec":             {mod + "/domain": {"os/exec"}},
		"ports import net/http":              {mod + "/ports": {"net/http"}},
		"domain reads crypto/rand":           {mod + "/domain/frame": {"crypto/rand"}},
		"domain reads math/rand":             {mod + "/domain": {"math/rand/v2"}},
		"fake imports the service":           {mod + "/adapters/fake": {mod + "/domain"}},
		"contract suite imports the service": {mod + "/test/contract": {mod + "/domain/lifecycle"}},
		"adapter imports another adapter":    {mod + "/adapters/mcp": {mod + "/adapters/clock"}},
		"adapter imports another's part":     {mod + "/adapters/tmux": {mod + "/adapters/mcp/audit"}},
		"output store imports the service":   {mod + "/adapters/outputstore": {mod + "/domain"}},
		"run log writes files itself":        {mod + "/domain/runlog": {"os"}},
	}
	for name, g := range cases {
		if len(checkRules(mod, g)) == 0 {
			t.Errorf("%s: no violation reported", name)
		}
	}
	ok := map[string][]string{
		mod + "/domain":                    {"fmt", mod + "/ports", mod + "/domain/frame"},
		mod + "/adapters/fake":             {mod + "/domain/frame", mod + "/ports"},
		mod + "/adapters/mcp":              {mod + "/domain", mod + "/domain/lifecycle", mod + "/adapters/mcp/audit", mod + "/adapters/internal/sysclock"},
		mod + "/adapters/clock":            {mod + "/adapters/internal/sysclock"},
		mod + "/adapters/internal/scripts": {mod + "/adapters/internal/proc"},
		mod + "/ports":                     {"context", "time"},
		mod + "/domain/runlog":             {"bufio", mod + "/ports"},
		mod + "/adapters/outputstore":      {"os", mod + "/ports", mod + "/adapters/internal/proc"},
		mod + "/app":                       {"go.uber.org/fx", mod + "/adapters/tmux"},
		mod + "/cmd/tmux-mcp":              {"go.uber.org/fx", mod + "/app"},
	}
	if v := checkRules(mod, ok); len(v) != 0 {
		t.Errorf("a clean graph was flagged: %v", v)
	}
}

// I/O packages the pure layers must not touch: their only way out is a
// port. Randomness too comes through a port (ports.IDSource), so that
// tests choose it.
var ioPackages = []string{"os", "os/exec", "net", "net/http", "syscall", "io/ioutil", "os/signal",
	"crypto/rand", "math/rand", "math/rand/v2"}

// servicePackages are the use cases: only the transport, the wiring and
// the tests call them. The fake terminal and the contract suite, which
// every backend passes, know the frame's wire format (domain/frame), not
// the service that writes it.
var servicePackages = []string{"domain", "domain/lifecycle"}

// adapterOf is the adapter a package of adapters/ belongs to: its first
// two path elements in the module (adapters/mcp for adapters/mcp/audit).
func adapterOf(mod, pkg string) string {
	parts := strings.SplitN(strings.TrimPrefix(pkg, mod+"/"), "/", 3)
	return strings.Join(parts[:min(2, len(parts))], "/")
}

func checkRules(mod string, pkgs map[string][]string) []string {
	var bad []string
	in := func(pkg, layer string) bool {
		return pkg == mod+"/"+layer || strings.HasPrefix(pkg, mod+"/"+layer+"/")
	}
	for pkg, imports := range pkgs {
		for _, imp := range imports {
			thirdParty := strings.Contains(strings.SplitN(imp, "/", 2)[0], ".")
			switch {
			case in(pkg, "domain") || in(pkg, "ports"):
				own := in(imp, "ports") || (in(pkg, "domain") && in(imp, "domain"))
				if thirdParty && !own {
					bad = append(bad, pkg+" imports "+imp+": the domain and ports use only the standard library and ports")
				}
				for _, p := range ioPackages {
					if imp == p {
						bad = append(bad, pkg+" imports "+imp+": the domain and ports do no I/O except through ports")
					}
				}
			}
			if in(pkg, "adapters") && in(imp, "app") {
				bad = append(bad, pkg+" imports "+imp+": adapters never import app")
			}
			if in(pkg, "adapters") && in(imp, "adapters") && !in(imp, "adapters/internal") && adapterOf(mod, pkg) != adapterOf(mod, imp) {
				bad = append(bad, pkg+" imports "+imp+": adapters never import one another; what they share lives in adapters/internal")
			}
			if (in(pkg, "adapters") && !in(pkg, "adapters/mcp")) || in(pkg, "test/contract") {
				for _, sp := range servicePackages {
					if imp == mod+"/"+sp {
						bad = append(bad, pkg+" imports "+imp+": only the transport, the wiring and tests use the service; the wire format is domain/frame")
					}
				}
			}
			if imp == "go.uber.org/fx" || strings.HasPrefix(imp, "go.uber.org/fx/") {
				if !in(pkg, "app") && !in(pkg, "cmd") {
					bad = append(bad, pkg+" imports fx: only app/ and cmd/ may")
				}
			}
		}
	}
	return bad
}

// wallClock are the calls that read the machine's clock or make timers
// of their own: in the domain, time comes from ports.Clock only, so that
// a test moves it and every deadline is one the tests can reach.
var wallClock = map[string][]string{
	"time":    {"Now", "Since", "Until", "After", "AfterFunc", "NewTimer", "NewTicker", "Tick", "Sleep"},
	"context": {"WithTimeout", "WithDeadline", "WithTimeoutCause", "WithDeadlineCause"},
}

// The domain's own files (not its tests, which may wait on the real
// clock for a goroutine) never call the wall clock.
func TestDomainTakesTimeOnlyFromItsClock(t *testing.T) {
	files := 0
	for dir, names := range moduleFiles(t) {
		if rel, _ := filepath.Rel(moduleRoot, dir); rel != "domain" && !strings.HasPrefix(rel, "domain"+string(filepath.Separator)) {
			continue
		}
		for _, name := range names {
			src, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			files++
			for _, v := range wallClockCalls(t, name, string(src)) {
				t.Error(v)
			}
		}
	}
	if files < 10 {
		t.Fatalf("found only %d domain files; the check would prove nothing", files)
	}
}

// Only package gate reads testing.Short: it is the one switch between the
// unit tests and the tests that need the real machine.
func TestOnlyTheGateReadsTestingShort(t *testing.T) {
	err := filepath.WalkDir(moduleRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != moduleRoot && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || filepath.Base(filepath.Dir(path)) == "gate" {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.Contains(string(src), "testing.Short()") && path != filepath.Join(moduleRoot, "test", "architecture_test.go") {
			t.Errorf("%s reads testing.Short(): call gate.Real instead, so that -short has one meaning", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// The scan itself is tested on made-up files, renamed imports included.
func TestWallClockScanCatchesViolations(t *testing.T) {
	bad := map[string]string{
		"time.Now":            "package d\nimport \"time\"\nfunc f() { _ = time.Now() }",
		"a renamed time":      "package d\nimport tm \"time\"\nfunc f() { <-tm.After(1) }",
		"context.WithTimeout": "package d\nimport \"context\"\nfunc f(c context.Context) { context.WithTimeout(c, 1) }",
		"a timer as a value":  "package d\nimport \"time\"\nvar newTimer = time.NewTimer",
	}
	for name, src := range bad {
		if len(wallClockCalls(t, name+".go", src)) == 0 {
			t.Errorf("%s: not reported", name)
		}
	}
	clean := "package d\nimport (\n\"context\"\n\"time\"\n)\n" +
		"type clock interface{ Now() time.Time }\n" +
		"func f(c clock, ctx context.Context) (time.Duration, context.Context) { _ = c.Now(); ctx, _ = context.WithCancel(ctx); return time.Second, ctx }"
	if v := wallClockCalls(t, "clean.go", clean); len(v) != 0 {
		t.Errorf("a clean file was flagged: %v", v)
	}
}

// wallClockCalls returns the uses of wallClock in the Go source src.
func wallClockCalls(t *testing.T, name, src string) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("parse %s: %v", name, err)
	}
	banned := map[string][]string{} // the name a file gives a package: its banned functions
	for _, imp := range f.Imports {
		path := strings.Trim(imp.Path.Value, `"`)
		funcs, ok := wallClock[path]
		if !ok {
			continue
		}
		local := path
		if imp.Name != nil {
			local = imp.Name.Name
		}
		banned[local] = funcs
	}
	var found []string
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if x, ok := sel.X.(*ast.Ident); ok && slices.Contains(banned[x.Name], sel.Sel.Name) {
			found = append(found, fmt.Sprintf("%s: %s.%s: the domain takes time from ports.Clock", fset.Position(sel.Pos()), x.Name, sel.Sel.Name))
		}
		return true
	})
	return found
}
