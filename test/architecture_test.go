package test

import (
	"os/exec"
	"strings"
	"testing"
)

// The dependency rule, checked on the real import graph: the domain and the
// ports are pure (standard library, and domain may use ports); adapters
// never reach into the wiring; only the wiring and the binary know fx.
func TestDependencyRule(t *testing.T) {
	const mod = "github.com/tmux-mcp/tmux-mcp"
	out, err := exec.Command("go", "list", "-deps=false", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", mod+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	pkgs := parseImports(string(out))
	if len(pkgs) < 4 {
		t.Fatalf("go list found only %d packages; the check would prove nothing", len(pkgs))
	}
	for _, v := range checkRules(mod, pkgs) {
		t.Error(v)
	}
}

// The rules themselves are tested on made-up graphs, so a rule that could
// never fire would be noticed.
func TestDependencyRuleCatchesViolations(t *testing.T) {
	const mod = "example.com/m"
	cases := map[string]map[string][]string{
		"domain imports a module":   {mod + "/domain": {"fmt", "go.uber.org/zap"}},
		"domain imports an adapter": {mod + "/domain": {mod + "/adapters/tmux"}},
		"ports import the domain":   {mod + "/ports": {mod + "/domain"}},
		"adapter imports app":       {mod + "/adapters/mcp": {mod + "/app"}},
		"adapter imports fx":        {mod + "/adapters/tmux": {"go.uber.org/fx"}},
		"test helper imports fx":    {mod + "/test/contract": {"go.uber.org/fx"}},
		"domain imports os/exec":    {mod + "/domain": {"os/exec"}},
		"ports import net/http":     {mod + "/ports": {"net/http"}},
	}
	for name, g := range cases {
		if len(checkRules(mod, g)) == 0 {
			t.Errorf("%s: no violation reported", name)
		}
	}
	ok := map[string][]string{
		mod + "/domain":       {"fmt", mod + "/ports"},
		mod + "/ports":        {"context", "time"},
		mod + "/app":          {"go.uber.org/fx", mod + "/adapters/tmux"},
		mod + "/cmd/tmux-mcp": {"go.uber.org/fx", mod + "/app"},
	}
	if v := checkRules(mod, ok); len(v) != 0 {
		t.Errorf("a clean graph was flagged: %v", v)
	}
}

func parseImports(out string) map[string][]string {
	pkgs := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		pkgs[f[0]] = f[1:]
	}
	return pkgs
}

// I/O packages the pure layers must not touch: their only way out is a port.
var ioPackages = []string{"os", "os/exec", "net", "net/http", "syscall", "io/ioutil", "os/signal"}

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
			if imp == "go.uber.org/fx" || strings.HasPrefix(imp, "go.uber.org/fx/") {
				if !in(pkg, "app") && !in(pkg, "cmd") {
					bad = append(bad, pkg+" imports fx: only app/ and cmd/ may")
				}
			}
		}
	}
	return bad
}
