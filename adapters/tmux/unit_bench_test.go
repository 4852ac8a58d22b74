package tmux

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// BenchmarkDescribeEveryPaneOfAListing is ListPanes' share of the work on
// a server of 200 panes, each in a window of its own, with three clients:
// every pane described from one listing. Parsed once, it grows with the
// panes; parsed again for every pane, as it once was, with their square.
func BenchmarkDescribeEveryPaneOfAListing(b *testing.B) {
	const panes = 200
	var lines []string
	for i := range panes {
		f := make([]string, paneFieldCount)
		for j := range f {
			f[j] = "0"
		}
		f[pID], f[pWindow], f[pCommand] = fmt.Sprintf("%%%d", i), fmt.Sprintf("@%d", i), "bash"
		lines = append(lines, "P"+sep+strings.Join(f, sep), "W"+sep+"$0"+sep+fmt.Sprintf("@%d", i))
	}
	for i := range 3 {
		f := make([]string, clientFieldCount)
		f[cName], f[cControl], f[cWindow], f[cPane], f[cFlags], f[cSession] = fmt.Sprintf("client-%d", i), "0", "@0", "%0", "attached", "$0"
		lines = append(lines, "C"+sep+strings.Join(f, sep))
	}
	out := strings.Join(lines, "\n")
	for b.Loop() {
		d := parseDescriptions(out)
		for i := range panes {
			if _, err := d.info(ports.PaneID(fmt.Sprintf("%%%d", i)), selfPane{}); err != nil {
				b.Fatal(err)
			}
		}
	}
}
