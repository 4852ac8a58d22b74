package test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
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
		"output store imports the service":   {mod + "/adapters/outputstore": {mod + "/domain"}},
		"run log writes files itself":        {mod + "/domain/runlog": {"os"}},
	}
	for name, g := range cases {
		if len(checkRules(mod, g)) == 0 {
			t.Errorf("%s: no violation reported", name)
		}
	}
	ok := map[string][]string{
		mod + "/domain":               {"fmt", mod + "/ports", mod + "/domain/frame"},
		mod + "/adapters/fake":        {mod + "/domain/frame", mod + "/ports"},
		mod + "/adapters/mcp":         {mod + "/domain", mod + "/domain/lifecycle"},
		mod + "/ports":                {"context", "time"},
		mod + "/domain/runlog":        {"bufio", mod + "/ports"},
		mod + "/adapters/outputstore": {"os", mod + "/ports", mod + "/adapters/internal/proc"},
		mod + "/app":                  {"go.uber.org/fx", mod + "/adapters/tmux"},
		mod + "/cmd/tmux-mcp":         {"go.uber.org/fx", mod + "/app"},
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
