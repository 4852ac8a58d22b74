package mcp

import (
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/domain"
)

// A result whose end could have been forged says so in words too: its
// exit status is not known, and what to do about the process that reads
// the scripts.
func TestAnUnverifiedRunSaysWhyItsStatusIsNotKnown(t *testing.T) {
	r := domain.RunResult{PaneID: "%1", Outcome: domain.OutcomeCompleted, Output: "hi", Unverified: true, ForeignOutputSuspected: true}
	o := fromRunResult(r)
	if o.ExitStatus != nil || o.OutputComplete {
		t.Fatalf("structured result %+v; want exitStatus null and the output not complete", o)
	}
	n := runNotice(o, r)
	for _, want := range []string{"exit status is not known", "exitStatus null", "script", "stop it"} {
		if !strings.Contains(n, want) {
			t.Errorf("notice %q does not say %q", n, want)
		}
	}
	r.Unverified = false
	r.ForeignOutputSuspected = false
	status := 0
	r.ExitStatus, r.OutputComplete = &status, true
	if n := runNotice(fromRunResult(r), r); n != "" {
		t.Errorf("a verified, complete run has the notice %q", n)
	}
}
