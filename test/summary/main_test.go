package main

import (
	"strings"
	"testing"
)

// A stream as `go test -json` writes it: one package that passes with a
// test that skips and a subtest that skips, one that fails, one without
// tests, and one that does not build.
const stream = `{"Action":"start","Package":"m/a"}
{"Action":"run","Package":"m/a","Test":"TestOK"}
{"Action":"output","Package":"m/a","Test":"TestOK","Output":"=== RUN   TestOK\n"}
{"Action":"output","Package":"m/a","Test":"TestOK","Output":"    a_test.go:9: said nothing wrong\n"}
{"Action":"output","Package":"m/a","Test":"TestOK","Output":"--- PASS: TestOK (0.00s)\n"}
{"Action":"pass","Package":"m/a","Test":"TestOK"}
{"Action":"run","Package":"m/a","Test":"TestZsh"}
{"Action":"output","Package":"m/a","Test":"TestZsh","Output":"=== RUN   TestZsh\n"}
{"Action":"output","Package":"m/a","Test":"TestZsh","Output":"    gate.go:70: zsh is not installed\n"}
{"Action":"output","Package":"m/a","Test":"TestZsh","Output":"--- SKIP: TestZsh (0.00s)\n"}
{"Action":"skip","Package":"m/a","Test":"TestZsh"}
{"Action":"run","Package":"m/a","Test":"TestShells/zsh"}
{"Action":"output","Package":"m/a","Test":"TestShells/zsh","Output":"=== RUN   TestShells/zsh\n"}
{"Action":"output","Package":"m/a","Test":"TestShells/zsh","Output":"    gate.go:70: zsh is not installed\n"}
{"Action":"output","Package":"m/a","Test":"TestShells/zsh","Output":"    --- SKIP: TestShells/zsh (0.00s)\n"}
{"Action":"skip","Package":"m/a","Test":"TestShells/zsh"}
{"Action":"run","Package":"m/a","Test":"TestPty"}
{"Action":"output","Package":"m/a","Test":"TestPty","Output":"    pty_test.go:22: no pseudo-terminal: ENOENT\n"}
{"Action":"skip","Package":"m/a","Test":"TestPty"}
{"Action":"output","Package":"m/a","Output":"PASS\n"}
{"Action":"output","Package":"m/a","Output":"ok  \tm/a\t0.01s\n"}
{"Action":"pass","Package":"m/a"}
{"Action":"run","Package":"m/b","Test":"TestBad"}
{"Action":"output","Package":"m/b","Test":"TestBad","Output":"=== RUN   TestBad\n"}
{"Action":"output","Package":"m/b","Test":"TestBad","Output":"    b_test.go:5: got 1, want 2\n"}
{"Action":"output","Package":"m/b","Test":"TestBad","Output":"--- FAIL: TestBad (0.00s)\n"}
{"Action":"fail","Package":"m/b","Test":"TestBad"}
{"Action":"output","Package":"m/b","Output":"FAIL\n"}
{"Action":"output","Package":"m/b","Output":"FAIL\tm/b\t0.01s\n"}
{"Action":"fail","Package":"m/b"}
{"Action":"output","Package":"m/c","Output":"?   \tm/c\t[no test files]\n"}
{"Action":"skip","Package":"m/c"}
{"ImportPath":"m/d [m/d.test]","Action":"build-output","Output":"d/d.go:3:1: syntax error\n"}
not json: what a test binary printed outside the protocol
`

func TestSummaryPrintsWhatGoTestPrintsAndWhatSkipped(t *testing.T) {
	var out strings.Builder
	s := newSummary(&out)
	if err := s.read(strings.NewReader(stream)); err != nil {
		t.Fatal(err)
	}
	s.report()
	want := "ok  \tm/a\t0.01s\n" +
		"    b_test.go:5: got 1, want 2\n--- FAIL: TestBad (0.00s)\nFAIL\nFAIL\tm/b\t0.01s\n" +
		"?   \tm/c\t[no test files]\n" +
		"d/d.go:3:1: syntax error\n" +
		"not json: what a test binary printed outside the protocol\n" +
		"skipped: 3 tests\n" +
		"    2  zsh is not installed\n       (a.TestShells/zsh, a.TestZsh)\n" +
		"    1  no pseudo-terminal: ENOENT\n       (a.TestPty)\n"
	if got := out.String(); got != want {
		t.Errorf("printed:\n%s\nwant:\n%s", got, want)
	}
	if !s.failed {
		t.Error("a run with a failing test is not failed")
	}
}

func TestSummarySaysWhenNothingSkipped(t *testing.T) {
	var out strings.Builder
	s := newSummary(&out)
	if err := s.read(strings.NewReader(`{"Action":"pass","Package":"m/a"}` + "\n")); err != nil {
		t.Fatal(err)
	}
	s.report()
	if out.String() != "skipped: none\n" || s.failed {
		t.Errorf("printed %q, failed %v", out.String(), s.failed)
	}
}
