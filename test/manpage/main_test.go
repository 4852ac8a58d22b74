package main

import (
	"regexp"
	"strings"
	"testing"
)

// The page documents every flag and variable -help lists, from the
// server's own usage text.
func TestPageListsEveryFlagAndVariableOfTheServer(t *testing.T) {
	usage, err := serverUsage()
	if err != nil {
		t.Fatal(err)
	}
	page, err := render("1.2.3", usage)
	if err != nil {
		t.Fatal(err)
	}
	flags := regexp.MustCompile(`(?m)^  -([a-z][a-z0-9-]*)`).FindAllStringSubmatch(usage, -1)
	if len(flags) < 10 {
		t.Fatalf("found %d flags in -help; the check would prove little:\n%s", len(flags), usage)
	}
	for _, f := range flags {
		name := `\-` + strings.ReplaceAll(f[1], "-", `\-`)
		if !strings.Contains(string(page), ".B "+name+"\n") && !strings.Contains(string(page), ".BI "+name+` "`) {
			t.Errorf("the page has no entry for -%s", f[1])
		}
	}
	for _, v := range []string{"LIBTMUX_MCP_WAIT_MAX_SECONDS", "LIBTMUX_MCP_MAX_RESULT_LINES", "TMUX_MCP_TOKEN"} {
		if !strings.Contains(string(page), ".B "+v+"\n") {
			t.Errorf("the page has no entry for the variable %s", v)
		}
	}
	for _, want := range []string{`.TH TMUX\-MCP 1 "" "tmux-mcp 1.2.3"`, ".SH OPTIONS\n", ".SH ENVIRONMENT\n", ".SH DESCRIPTION\n"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the page lacks %q:\n%s", want, page)
		}
	}
}

// A usage text laid out otherwise than parse expects stops the release
// instead of losing lines from the page.
func TestParseRefusesWhatItCannotPlace(t *testing.T) {
	for name, usage := range map[string]string{
		"no Usage line":        "tmux-mcp [flags]\n\nWords.\n",
		"no description":       "Usage: tmux-mcp [flags]\n\n  -x\n    \tdoes x\n",
		"text before any flag": "Usage: tmux-mcp [flags]\n\nWords.\n\n    \tan orphan description\n",
	} {
		if _, _, _, err := parse(usage); err == nil {
			t.Errorf("%s: parse accepted %q", name, usage)
		}
	}
}

// A heading the usage text gains (a list of subcommands, say) becomes a
// section of its own, with its entries.
func TestNewHeadingsBecomeSections(t *testing.T) {
	usage := "Usage: tmux-mcp [flags]\n\nWords.\n\n  -x\n    \tdoes x\n\nSubcommands:\n  doctor\n    \tchecks things\n"
	page, err := render("1", usage)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{".SH SUBCOMMANDS\n.TP\n.B doctor\nchecks things\n", ".TP\n.B \\-x\ndoes x\n"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("page lacks %q:\n%s", want, page)
		}
	}
}

func TestEscapeKeepsTextPlain(t *testing.T) {
	for in, want := range map[string]string{
		`-a\b "c"`: `\-a\eb \(dqc\(dq`,
		".start":   `\&.start`,
		"'quote":   `\&'quote`,
	} {
		if got := escape(in); got != want {
			t.Errorf("escape(%q) = %q, want %q", in, got, want)
		}
	}
}

// The version reads as the binary prints it, and one that roff would
// take for markup is refused.
func TestVersionGoesInAsItIs(t *testing.T) {
	usage := "Usage: tmux-mcp [flags]\n\nWords.\n\n  -x\n    \tdoes x\n"
	page, err := render("0.1.0-dev.g94c696b", usage)
	if err != nil {
		t.Fatal(err)
	}
	if want := `"tmux-mcp 0.1.0-dev.g94c696b"`; !strings.Contains(string(page), want) {
		t.Errorf("page lacks %s:\n%s", want, page)
	}
	for _, v := range []string{"", `1\fB`, `1" "x`, ".1"} {
		if _, err := render(v, usage); err == nil {
			t.Errorf("render accepted the version %q", v)
		}
	}
}
