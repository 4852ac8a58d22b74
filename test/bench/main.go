// Command bench is the end-to-end benchmark of tmux-mcp: it starts a
// private tmux server, builds the server binary (or takes one, with -bin),
// drives it through a real MCP client over stdio and prints each figure
// beside its floor and target. Run it from the module with
// `go run ./test/bench` or `make bench`; BENCHMARKS.md explains the
// figures, and -help lists the flags.
//
// To profile the server, run test/bench/profile instead.
package main

import (
	"os"

	"github.com/tmux-mcp/tmux-mcp/test/bench/internal/benchkit"
)

func main() {
	os.Exit(benchkit.Main(nil))
}
