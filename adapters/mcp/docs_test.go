package mcp_test

import (
	"context"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/adapters/mcp"
)

// The README's tables of tools and prompts, and the contract's table of
// prompts, name exactly what the server declares: a new tool or prompt is
// documented where users look.

// tableNames returns the names in backticks of the first cells of the
// table that follows heading in page.
func tableNames(t *testing.T, page, heading string) []string {
	t.Helper()
	_, rest, ok := strings.Cut(page, "\n"+heading+"\n")
	if !ok {
		t.Fatalf("no heading %q", heading)
	}
	var names []string
	inTable := false
	for line := range strings.Lines(rest) {
		if !strings.HasPrefix(line, "|") {
			if inTable {
				break
			}
			continue
		}
		inTable = true
		cells := strings.Split(line, "|")
		for _, m := range regexp.MustCompile("`([a-z_]+)`").FindAllStringSubmatch(cells[1], -1) {
			names = append(names, m[1])
		}
	}
	slices.Sort(names)
	return names
}

func readPage(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestTheReadmeTablesNameEveryToolAndPrompt(t *testing.T) {
	readme := readPage(t, "../../README.md")
	if got, want := tableNames(t, readme, "## Tools"), slices.Sorted(slices.Values(mcp.ToolNames())); !slices.Equal(got, want) {
		t.Errorf("README's tools table names %v, want %v", got, want)
	}
	stub := newManageStub(t)
	cs, _ := connectWith(t, stub, mcp.Options{Manage: stub, Safety: mcp.TierDestructive})
	res, err := cs.ListPrompts(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var prompts []string
	for _, p := range res.Prompts {
		prompts = append(prompts, p.Name)
	}
	slices.Sort(prompts)
	if got := tableNames(t, readme, "### Prompts"); !slices.Equal(got, prompts) {
		t.Errorf("README's prompts table names %v, want %v", got, prompts)
	}
	if got := tableNames(t, readPage(t, docsContract), "## Prompts"); !slices.Equal(got, prompts) {
		t.Errorf("CONTRACT.md's prompts table names %v, want %v", got, prompts)
	}
}
