// Command summary runs `go test -json` and prints what go test prints
// without -v — each package's result, and the output of every test that
// fails — and then how many tests skipped, and why, so that a test that
// skips (a program not installed, a machine that cannot run it) is seen
// rather than lost among the passes. It exits with go test's status, or 1
// if a test failed all the same. `make test` runs it:
//
//	go run ./test/summary go test -json -count=1 ./...
package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path"
	"regexp"
	"slices"
	"strings"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: summary go test -json [flags] [packages]")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stderr = os.Stdin, os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "summary:", err)
		os.Exit(1)
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "summary:", err)
		os.Exit(1)
	}
	s := newSummary(os.Stdout)
	readErr := s.read(out)
	err = cmd.Wait()
	s.report()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		os.Exit(exit.ExitCode())
	case err != nil || readErr != nil:
		fmt.Fprintln(os.Stderr, "summary:", cmp.Or(err, readErr))
		os.Exit(1)
	case s.failed:
		os.Exit(1)
	}
}

// event is one line of `go test -json` (see `go doc test2json`).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

// summary follows the events of one run.
type summary struct {
	w      io.Writer
	output map[string][]string // each running test's output, by package and name
	skips  []skip
	failed bool
}

// skip is a test that skipped, and why.
type skip struct{ test, why string }

func newSummary(w io.Writer) *summary {
	return &summary{w: w, output: map[string][]string{}}
}

// read reads the events until the stream ends. A line that is not an
// event (what a test binary wrote outside the protocol) is printed.
func (s *summary) read(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Action == "" {
			fmt.Fprintln(s.w, sc.Text())
			continue
		}
		s.event(e)
	}
	return sc.Err()
}

func (s *summary) event(e event) {
	key := e.Package + " " + e.Test
	switch {
	case e.Action == "build-output":
		fmt.Fprint(s.w, e.Output)
	case e.Test == "" && e.Action == "output":
		// The package's own lines: "ok  \tpkg\t1.2s", "FAIL\tpkg", a
		// panic; not the bare PASS that only -v prints.
		if e.Output != "PASS\n" {
			fmt.Fprint(s.w, e.Output)
		}
	case e.Test == "" && e.Action == "fail":
		s.failed = true
	case e.Test == "":
		// A package's start, pass, or skip (it has no tests).
	case e.Action == "output":
		s.output[key] = append(s.output[key], e.Output)
	case e.Action == "fail":
		s.failed = true
		for _, line := range s.output[key] {
			if !strings.HasPrefix(line, "=== ") {
				fmt.Fprint(s.w, line)
			}
		}
		delete(s.output, key)
	case e.Action == "skip":
		s.skips = append(s.skips, skip{test: path.Base(e.Package) + "." + e.Test, why: reason(s.output[key])})
		delete(s.output, key)
	case e.Action == "pass":
		delete(s.output, key)
	}
}

// logPrefix is where a test's log line says it comes from.
var logPrefix = regexp.MustCompile(`^\s*[\w.-]+\.go:\d+: `)

// reason is why a test skipped: the first line it logged (t.Skip's
// message, as a rule), without the file and line.
func reason(output []string) string {
	for _, line := range output {
		if strings.HasPrefix(line, "=== ") || strings.HasPrefix(strings.TrimSpace(line), "--- ") {
			continue
		}
		if why := strings.TrimSpace(logPrefix.ReplaceAllString(line, "")); why != "" {
			return why
		}
	}
	return "(no reason given)"
}

// report prints the skipped tests, grouped by reason, most first, with a
// few of the tests of each.
func (s *summary) report() {
	if len(s.skips) == 0 {
		fmt.Fprintln(s.w, "skipped: none")
		return
	}
	tests := map[string][]string{}
	for _, sk := range s.skips {
		tests[sk.why] = append(tests[sk.why], sk.test)
	}
	reasons := slices.Collect(maps.Keys(tests))
	slices.SortFunc(reasons, func(a, b string) int {
		return cmp.Or(cmp.Compare(len(tests[b]), len(tests[a])), strings.Compare(a, b))
	})
	fmt.Fprintf(s.w, "skipped: %d %s\n", len(s.skips), plural(len(s.skips), "test", "tests"))
	for _, why := range reasons {
		names := tests[why]
		slices.Sort(names)
		shown := strings.Join(names[:min(len(names), 3)], ", ")
		if len(names) > 3 {
			shown += fmt.Sprintf(", and %d more", len(names)-3)
		}
		fmt.Fprintf(s.w, "%5d  %s\n       (%s)\n", len(names), why, shown)
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
