package mcp

import (
	"slices"
	"strings"
)

// instructionsFor returns what the server tells a client of itself at
// initialize: its tools, named only if offered (the safety tier, the tool
// allowlist and the backend decide which are), so that a model is never
// sent to a tool it cannot call. panesNote, if not empty, is said when no
// offered tool lists the panes: how the ids are found then. hosts says
// the server serves several hosts, whose ids carry their host.
func instructionsFor(offered []string, panesNote string, hosts bool) string {
	has := func(name string) bool { return slices.Contains(offered, name) }
	var b strings.Builder
	if hosts {
		b.WriteString("Tools to work in terminal panes on several hosts. Pane ids look like web1:%3, the host first; so do window and session ids (web1:@2, web1:$1).")
		if has("list_hosts") {
			b.WriteString(" list_hosts tells which hosts there are and which can be reached now.")
		}
	} else {
		b.WriteString("Tools to work in terminal panes. Pane ids look like %3.")
	}
	// What each pane tool is for, in the order a model meets them.
	var uses []string
	for _, u := range []struct{ tool, use string }{
		{"run_shell_command", "to run a command and get exactly its output and exit status"},
		{"wait_for_command", "to wait on for one whose call returned before it ended"},
		{"read_output", "to read all of a run's output, by the runId its result gave, where the result returned only its tail"},
		{"signal_command", "to stop such a command (TERM) when C-c does not"},
		{"paste_text", "to type text into a pane exactly as given"},
		{"send_keys", "to press keys such as C-c, Escape or Up"},
		{"capture_pane", "to read what a pane shows"},
		{"capture_since", "to read only what a pane wrote since a cursor"},
		{"wait_for_text", "to wait until a pane prints something"},
	} {
		if has(u.tool) {
			uses = append(uses, u.tool+" "+u.use)
		}
	}
	if len(uses) > 0 {
		b.WriteString(" Use " + strings.Join(uses, "; ") + ".")
	}
	switch lists, describes := has("list_panes"), has("get_pane_info"); {
	case lists && describes:
		b.WriteString(" list_panes and get_pane_info tell which panes exist and which a write would be refused for.")
	case lists:
		b.WriteString(" list_panes tells which panes exist and which a write would be refused for.")
	case describes:
		b.WriteString(" get_pane_info tells whether a write to a pane would be refused, and why.")
	}
	if !has("list_panes") && panesNote != "" {
		b.WriteString(" No tool here lists the panes. " + panesNote)
	}
	var makers []string
	for _, t := range []string{"create_session", "create_window", "split_window"} {
		if has(t) {
			makers = append(makers, t)
		}
	}
	if len(makers) > 0 {
		b.WriteString(" " + andList(makers) + " make panes to work in.")
	}
	if has("get_server_info") {
		b.WriteString(" Tools above the server's safety tier (see get_server_info) are not offered.")
	} else {
		b.WriteString(" Tools above the server's safety tier are not offered.")
	}
	if has("run_shell_command") {
		b.WriteString(" A pane running a command through run_shell_command refuses other writes until the command ends")
		if has("send_keys") {
			b.WriteString(" (send_keys C-c may interrupt it once its call has returned timed_out or cancelled)")
		}
		b.WriteString(".")
	}
	return b.String()
}

// andList joins words as "a", "a and b" or "a, b and c".
func andList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}
