package mcp

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmux-mcp/tmux-mcp/domain/fault"
	"github.com/tmux-mcp/tmux-mcp/domain/pattern"
)

// The prompts: the ways of working that take more than one call, written
// once for every client, in the words of this server's tools and fields.
// A prompt is offered only when the tools it cannot do without are (the
// tier, the allowlist and the backend decide), and its text names only
// tools that are offered: a step whose tool is not offered says so, or is
// left out.
//
// Their arguments are named as the tools' are (paneId, windowId, session),
// checked as the tools check them, and complete (completion.go) to the
// panes, windows and sessions there are.

// An argKind says what a prompt argument holds, for its check and its
// completion.
type argKind int

const (
	argText    argKind = iota // anything; no completion
	argPane                   // a pane id, %3
	argWindow                 // a window id, @2
	argSession                // a session's id or exact name
	argBool                   // "true" or "false"
)

type promptArg struct {
	name, title, description string
	required                 bool
	kind                     argKind
}

// A prompt is one prompt's declaration.
type prompt struct {
	name, title, description string
	args                     []promptArg
	// needs are the tools without which the prompt makes no sense.
	needs []string
	// text writes the prompt's message for the given arguments, which
	// passed their checks.
	text func(w *promptWriter, a map[string]string)
}

// promptWriter builds a prompt's text, knowing which tools the server
// offers.
type promptWriter struct {
	s *Server
	b strings.Builder
}

func (w *promptWriter) has(tool string) bool { return slices.Contains(w.s.offered, tool) }

// with returns text when tool is offered, and "" when it is not: a
// phrase that names it.
func (w *promptWriter) with(tool, text string) string {
	if w.has(tool) {
		return text
	}
	return ""
}

func (w *promptWriter) line(format string, args ...any) {
	fmt.Fprintf(&w.b, format, args...)
	w.b.WriteByte('\n')
}

// invocation is a tool call as the text shows it: the tool's name and its
// arguments as JSON, in the order given (pairs of name and value).
func invocation(tool string, kv ...any) string {
	var b strings.Builder
	b.WriteString(tool)
	b.WriteString(" {")
	for i := 0; i+1 < len(kv); i += 2 {
		if i > 0 {
			b.WriteString(", ")
		}
		k, _ := encode(kv[i]) // strings, numbers, booleans and lists of strings
		v, _ := encode(kv[i+1])
		fmt.Fprintf(&b, "%s: %s", k, v)
	}
	b.WriteString("}")
	return b.String()
}

// notOffered says that a step's tool is not offered, and why it may not
// be.
func (w *promptWriter) notOffered(tool string) string {
	return fmt.Sprintf("this server does not offer %s (its safety tier is %s; -safety and -tools decide what it offers, and some backends cannot list or shape sessions)",
		tool, w.s.tier)
}

// prompts are every prompt the package declares, in the order they are
// listed.
func (s *Server) prompts() []prompt {
	return []prompt{runAndCheckPrompt(), watchPanePrompt(), diagnosePanePrompt(), interruptProgramPrompt(), surveyPanesPrompt(), answerInputPrompt()}
}

var paneArg = promptArg{name: "paneId", title: "Pane", description: "The pane, by its id: %3 (list_panes lists them).", required: true, kind: argPane}

func runAndCheckPrompt() prompt {
	return prompt{
		name:        "run_and_check",
		title:       "Run a command and check its result",
		description: "Run a shell command in a pane with run_shell_command, follow it to its end with wait_for_command if it outlives the call, and check its exit status and whether its output is complete.",
		args: []promptArg{paneArg,
			{name: "command", title: "Command", description: "The shell command to run.", required: true},
			{name: "expect", title: "Expected result", description: "What success looks like, in words (optional): \"all tests pass\", \"prints the version\"."},
		},
		needs: []string{"run_shell_command"},
		text: func(w *promptWriter, a map[string]string) {
			pane, cmd := a["paneId"], a["command"]
			w.line("Run the command %q in pane %s with this server's tools, and check its result before relying on it.", cmd, pane)
			w.line("")
			w.line("1. Call %s. If it may take longer than 30 seconds, add timeoutMs (the server clamps it to its ceiling; effectiveTimeoutMs in the result says what was used).",
				invocation("run_shell_command", "paneId", pane, "command", cmd))
			w.line("2. If the result is a tool error, nothing ran: its text says why (the pane is busy with another command, a person is watching it, it is in copy mode, its program is not a shell, ...) and what to do. Do not retry blindly.")
			w.line("3. Read outcome:")
			w.line("   - completed: exitStatus is the command's exit status. 0 usually means success; anything else is the command failing, and output shows why.")
			if w.has("wait_for_command") {
				w.line("   - timed_out or cancelled with stillRunning true: the command still runs and holds the pane. Do not run it again. Call %s, again for as long as its result says stillRunning true, to get the rest of its output and its exit status.",
					invocation("wait_for_command", "paneId", pane))
			} else {
				w.line("   - timed_out or cancelled with stillRunning true: the command still runs and holds the pane; do not run it again. wait_for_command would wait for its end, but %s.", w.notOffered("wait_for_command"))
			}
			if w.has("send_keys") {
				w.line("     If it must stop, %s interrupts it.", invocation("send_keys", "paneId", pane, "keys", "C-c", "enter", false))
			}
			w.line("   - timed_out with stillRunning false: the command never started (a notice in the result says why) and will not run later; look at the pane%s before trying again.",
				w.with("capture_pane", " with capture_pane"))
			w.line("   - pane_died: the pane, or its program, went away; output holds what the command printed until then.")
			w.line("   - awaiting_input: the command stopped to read its terminal; input.kind and input.prompt say what it asks, and the text half what to do%s. Never guess a secret: ask the person.",
				w.with("paste_text", " (the answer_input prompt walks through it)"))
			if w.has("read_output") {
				w.line("4. Check that output is the whole story: outputComplete false means lines were withheld (droppedLines) or cut by the byte ceiling (omittedBytes), lost by the terminal (missedBytes), not carried by the text (replacedBytes: not UTF-8, or controls that show nothing) or hidden by an escape sequence that never ended (unterminatedBytes); foreignOutputSuspected true means something else printed into the pane. The text half of the result adds a notice when any of these happened. Withheld lines are not lost: the server kept the whole output, so do not run the command again to see them; call %s to page through it, or add grep (and context) to find the first error.",
					invocation("read_output", "runId", "<runId of the result>"))
			} else {
				w.line("4. Check that output is the whole story: outputComplete false means lines were withheld (droppedLines: ask for more with maxLines), cut by the byte ceiling (omittedBytes), lost by the terminal (missedBytes), not carried by the text (replacedBytes: not UTF-8, or controls that show nothing) or hidden by an escape sequence that never ended (unterminatedBytes); foreignOutputSuspected true means something else printed into the pane. The text half of the result adds a notice when any of these happened.")
			}
			if exp := a["expect"]; exp != "" {
				w.line("5. Success here means: %s. Say whether the result meets it, quoting the lines of output that show it.", exp)
			} else {
				w.line("5. Report the exit status and the lines of output that matter.")
			}
		},
	}
}

func watchPanePrompt() prompt {
	return prompt{
		name:        "watch_pane",
		title:       "Watch a pane until a condition",
		description: "Wait, with wait_for_text, until a pane prints something that matches a substring or an RE2 pattern, without missing output between calls.",
		args: []promptArg{paneArg,
			{name: "pattern", title: "Pattern", description: "What to wait for: a plain substring, or an RE2 regular expression when regex is true.", required: true},
			{name: "regex", title: "Regular expression", description: "true if pattern is an RE2 regular expression; false (the default) for a plain substring.", kind: argBool},
		},
		needs: []string{"wait_for_text"},
		text: func(w *promptWriter, a map[string]string) {
			pane, pattern, regex := a["paneId"], a["pattern"], a["regex"] == "true"
			what := "the substring"
			if regex {
				what = "the RE2 regular expression"
			}
			w.line("Watch pane %s until it prints %s %q, without missing output between calls.", pane, what, pattern)
			w.line("")
			args := []any{"paneId", pane, "patterns", []string{pattern}}
			if regex {
				args = append(args, "regex", true)
			}
			if w.has("capture_since") {
				w.line("1. Call %s: text is the visible screen now, and cursor marks where new output starts. Only output written after the cursor can match; if the screen already shows what you wait for, decide whether that is enough.",
					invocation("capture_since", "paneId", pane))
				args = append(args, "cursor", "<the cursor>", "timeoutMs", 60000)
				w.line("2. Call %s.", invocation("wait_for_text", args...))
			} else {
				args = append(args, "timeoutMs", 60000)
				w.line("1. Start the wait before the output can come: only output written after the wait begins can match.")
				w.line("2. Call %s.", invocation("wait_for_text", args...))
			}
			w.line("3. Read outcome:")
			w.line("   - matched: matched is the pattern that matched; output is the new output read while waiting, and screen the visible screen when the call returned.")
			w.line("   - timed_out: nothing matched within effectiveTimeoutMs. Call wait_for_text again with the cursor this result returned, so that nothing written between the calls is missed; stop when the task says so.")
			w.line("   - output_lost: the pane printed more than the server keeps (missedBytes) or its output could no longer be read (streamFailure), so the condition may have passed unseen: read screen%s, and decide.", w.with("capture_pane", ", or capture_pane"))
			w.line("   - pane_died: the pane's program ended; nothing more will come.")
			w.line("   - cancelled: the call was cancelled before anything matched.")
			w.line("4. alreadyOnScreen true says the pattern was on the screen when the wait began; that alone is not a match, only a new occurrence is.")
			w.line("Report what matched and the lines around it, or why nothing did.")
		},
	}
}

func diagnosePanePrompt() prompt {
	return prompt{
		name:        "diagnose_pane",
		title:       "Diagnose a failing pane",
		description: "Find out what is wrong in a pane by reading it (its state, its screen and history, whether it still prints) before writing anything to it.",
		args:        []promptArg{paneArg},
		needs:       []string{"capture_pane"},
		text: func(w *promptWriter, a map[string]string) {
			pane := a["paneId"]
			n := 0
			step := func(format string, args ...any) {
				n++
				w.line("%d. "+format, append([]any{n}, args...)...)
			}
			w.line("Find out what is wrong in pane %s. Read before you write: nothing below writes to the pane.", pane)
			w.line("")
			if w.has("get_pane_info") {
				step("Call %s. Read dead (its program exited), mode (copy-mode and the like: input goes to the mode), busy (a command of this server holds the pane: other writes are refused until it ends), watched and watchers (a person has it on screen: never write to it), isServerOwn, command (its foreground program), alsoReaches (panes its input also reaches) and historySize.",
					invocation("get_pane_info", "paneId", pane))
			}
			step("Call %s to read the screen and the 200 rows above it. Look for an error message, a stack trace, a program waiting for input (a password, a yes/no question, a pager such as less, an editor) or one that stopped printing.",
				invocation("capture_pane", "paneId", pane, "start", -200))
			if w.has("wait_for_command") && w.has("run_shell_command") {
				step("If busy names run_shell_command (or you started a command there that timed out), %s tells whether it still runs, and returns its output and, once it ended, its exit status.",
					invocation("wait_for_command", "paneId", pane, "timeoutMs", 5000))
			}
			if w.has("capture_since") && w.has("wait_for_text") {
				step("To see whether it still makes progress: %s gives a cursor; then %s with no patterns ends at the first new output (outcome matched), while timed_out means it printed nothing for 10 seconds.",
					invocation("capture_since", "paneId", pane), invocation("wait_for_text", "paneId", pane, "cursor", "<the cursor>", "timeoutMs", 10000))
			}
			var next []string
			if w.has("send_keys") {
				next = append(next, "leaving copy mode ("+invocation("send_keys", "paneId", pane, "keys", "q", "enter", false)+")",
					"answering what it asks", "interrupting it (the interrupt_program prompt)")
			}
			choices := "waiting on"
			if len(next) > 0 {
				choices = strings.Join(next, ", ") + " or waiting on"
			}
			step("Report what runs in the pane, its state and the evidence (quote the lines), and suggest the next step: %s. Write to the pane only when the user asks, and never to a pane a person is watching.",
				choices)
		},
	}
}

func interruptProgramPrompt() prompt {
	return prompt{
		name:        "interrupt_program",
		title:       "Interrupt a program gracefully",
		description: "Stop the program in a pane as gently as works: C-c, then C-\\, then ending the pane, checking after each step whether it stopped.",
		args:        []promptArg{paneArg},
		needs:       []string{"send_keys", "capture_pane"},
		text: func(w *promptWriter, a map[string]string) {
			pane := a["paneId"]
			w.line("Stop the program running in pane %s, escalating only while it still runs, and check after each step.", pane)
			w.line("")
			if w.has("get_pane_info") {
				w.line("0. Look first. %s: command is the foreground program; busy says whether a run_shell_command of this server holds the pane; watched true means a person has the pane on screen, and every write to it is refused: stop there and tell the user. %s shows what the program is doing.",
					invocation("get_pane_info", "paneId", pane), invocation("capture_pane", "paneId", pane))
			} else {
				w.line("0. Look first: %s shows what the program is doing. A pane a person has on screen refuses every write: then stop and tell the user.", invocation("capture_pane", "paneId", pane))
			}
			var check string
			switch {
			case w.has("wait_for_command") && w.has("get_pane_info"):
				check = fmt.Sprintf("if busy named run_shell_command, %s: outcome completed means it ended, and exitStatus says how (130 is the usual status after C-c); otherwise wait a few seconds and call get_pane_info again: the program has ended when command is the shell again, and capture_pane shows its prompt",
					invocation("wait_for_command", "paneId", pane, "timeoutMs", 5000))
			case w.has("wait_for_command"):
				check = fmt.Sprintf("if a run_shell_command of yours started it, %s: outcome completed means it ended, and exitStatus says how; otherwise wait a few seconds and call capture_pane: the program has ended when the shell's prompt is back",
					invocation("wait_for_command", "paneId", pane, "timeoutMs", 5000))
			default:
				check = "wait a few seconds and call capture_pane: the program has ended when the shell's prompt is back"
			}
			w.line("1. Interrupt it: %s (enter false: no Enter after the interrupt; a pane busy with a command whose call returned accepts only these interrupt keys).",
				invocation("send_keys", "paneId", pane, "keys", "C-c", "enter", false))
			w.line("   Check: %s.", check)
			w.line("2. If it still runs, quit it: %s sends SIGQUIT, which most programs obey and some answer by dumping core. Check the same way.",
				invocation("send_keys", "paneId", pane, "keys", `C-\`, "enter", false))
			last := "3"
			if w.has("signal_command") {
				w.line("3. If a run_shell_command of this server started it and it still runs, end the command and not the pane: %s sends SIGTERM to the command's own process group, never to the shell; its exit status is then 143. Check the same way.",
					invocation("signal_command", "paneId", pane, "signal", "TERM"))
				last = "4"
			}
			if w.has("kill_pane") {
				w.line("%s. If it still runs, end the pane: %s ends the pane and everything in it, for good; the pane id is gone afterwards. Ask the user first, unless they already said to.",
					last, invocation("kill_pane", "paneId", pane))
			} else {
				w.line("%s. If it still runs, the last resort would be kill_pane, but %s: tell the user that the program does not stop, with what the pane shows.",
					last, w.notOffered("kill_pane"))
			}
			w.line("Report which step stopped it and what the pane showed.")
		},
	}
}

func surveyPanesPrompt() prompt {
	return prompt{
		name:        "survey_panes",
		title:       "Survey the panes",
		description: "List the windows and panes of a session (or of a window, or of everything) and say which are busy, dead, watched or waiting, before choosing one to work in.",
		args: []promptArg{
			{name: "session", title: "Session", description: "Only this session: its id ($1) or exact name (optional; list_sessions lists them).", kind: argSession},
			{name: "windowId", title: "Window", description: "Only this window, by its id: @2 (optional; not with session).", kind: argWindow},
		},
		needs: []string{"list_panes"},
		text: func(w *promptWriter, a map[string]string) {
			var scope []any
			where := "every session"
			switch {
			case a["windowId"] != "":
				scope, where = []any{"windowId", a["windowId"]}, "window "+a["windowId"]
			case a["session"] != "":
				scope, where = []any{"session", a["session"]}, "session "+a["session"]
			}
			w.line("Survey the panes of %s before choosing one to work in.", where)
			w.line("")
			n := 0
			step := func(format string, args ...any) {
				n++
				w.line("%d. "+format, append([]any{n}, args...)...)
			}
			if w.has("list_windows") && a["windowId"] == "" {
				step("Call %s for the windows: their ids, names, sizes and which is current.", invocation("list_windows", scope...))
			}
			step("Call %s. For each pane note command (its foreground program), dead, busy (held by a command of this server), watched (a person has it on screen: never write to it), isServerOwn and its size.",
				invocation("list_panes", scope...))
			if w.has("capture_pane") {
				step("For the panes that need a closer look (dead, busy, or running a program other than a shell), %s shows their screen.",
					invocation("capture_pane", "paneId", "<its id>"))
			}
			step("Report a short table (pane id, window, command, state) and say which pane is free for new work: alive, a shell in front, not busy and not watched.")
		},
	}
}

// Argument checks, as the tools' schemas check the same arguments: an
// id with its host in front (web1:%3) is one of a server of several
// hosts (see idSchemas).
var (
	paneIDForm   = regexp.MustCompile(`^(` + hostPrefix + `)?%\d+$`)
	windowIDForm = regexp.MustCompile(`^(` + hostPrefix + `)?@\d+$`)
)

// registerPrompts adds to the SDK server the prompts whose tools are
// offered.
func (s *Server) registerPrompts() {
	for _, p := range s.prompts() {
		if !s.offers(p.needs...) {
			continue
		}
		sp := &sdk.Prompt{Name: p.name, Title: p.title, Description: p.description}
		for _, a := range p.args {
			sp.Arguments = append(sp.Arguments, &sdk.PromptArgument{Name: a.name, Title: a.title, Description: a.description, Required: a.required})
		}
		s.sdk.AddPrompt(sp, s.promptHandler(p))
		s.promptArgs[p.name] = p.args
	}
}

// offers reports whether every one of tools is offered.
func (s *Server) offers(tools ...string) bool {
	for _, t := range tools {
		if !slices.Contains(s.offered, t) {
			return false
		}
	}
	return true
}

func (s *Server) promptHandler(p prompt) sdk.PromptHandler {
	return func(_ context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
		args := req.Params.Arguments
		if err := checkPromptArgs(p, args); err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
		}
		w := &promptWriter{s: s}
		p.text(w, args)
		return &sdk.GetPromptResult{
			Description: p.description,
			Messages:    []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: strings.TrimSuffix(w.b.String(), "\n")}}},
		}, nil
	}
}

// checkPromptArgs says what is wrong with a prompt's arguments, in the
// words a tool's argument error would use.
func checkPromptArgs(p prompt, args map[string]string) error {
	for _, a := range p.args {
		v, ok := args[a.name]
		if !ok || v == "" {
			if a.required {
				return fmt.Errorf("prompt %s: argument %s is missing; it is required (%s)", p.name, a.name, a.description)
			}
			continue
		}
		var bad bool
		switch a.kind {
		case argPane:
			bad = !paneIDForm.MatchString(v)
		case argWindow:
			bad = !windowIDForm.MatchString(v)
		case argBool:
			bad = v != "true" && v != "false"
		}
		if bad {
			return fmt.Errorf("prompt %s: argument %s is %q; want %s", p.name, a.name, v, strings.TrimSuffix(a.description, "."))
		}
	}
	for name := range args {
		if !slices.ContainsFunc(p.args, func(a promptArg) bool { return a.name == name }) {
			return fmt.Errorf("prompt %s has no argument %s", p.name, name)
		}
	}
	if p.name == "survey_panes" && args["session"] != "" && args["windowId"] != "" {
		return fmt.Errorf("prompt %s: give session or windowId, not both", p.name)
	}
	if p.name == "watch_pane" {
		// As wait_for_text would refuse the pattern the prompt leads to,
		// in its words.
		var refused *fault.ArgumentError
		if _, err := pattern.Compile([]string{args["pattern"]}, args["regex"] == "true"); errors.As(err, &refused) {
			return fmt.Errorf("prompt %s: argument pattern: %s", p.name, refused.Reason)
		}
	}
	return nil
}

func answerInputPrompt() prompt {
	return prompt{
		name:        "answer_input",
		title:       "Answer a command that is waiting for input",
		description: "A run_shell_command or wait_for_command result said awaiting_input: decide who answers (never guess a secret), answer with paste_text or send_keys from this session, and follow the command to its end with wait_for_command.",
		args: []promptArg{paneArg,
			{name: "answer", title: "Answer", description: "What the user said to answer, if they did (optional). Leave it out for a secret: the user types that themselves."},
		},
		needs: []string{"wait_for_command", "paste_text", "send_keys"},
		text: func(w *promptWriter, a map[string]string) {
			pane, answer := a["paneId"], a["answer"]
			w.line("The command in pane %s is waiting for input (outcome awaiting_input). Answer it, or have the user answer it, and follow it to its end.", pane)
			w.line("")
			w.line("1. Read input.kind and input.prompt in the result, and the notice in its text half.%s",
				w.with("capture_pane", fmt.Sprintf(" %s shows the whole screen.", invocation("capture_pane", "paneId", pane))))
			w.line("2. Decide who answers:")
			w.line("   - secret (a password or passphrase; the terminal does not echo it): never guess, make one up or reuse one from the conversation. Ask the user to type it themselves in the pane (the notice says how they reach it), then go to step 4.")
			w.line("   - confirm (a yes-or-no question): answer only what the user asked of you; if the answer changes or deletes anything they did not ask for, ask them first.")
			w.line("   - line or repl: answer when the answer is yours to give; otherwise ask the user.")
			w.line("   - pager or editor: it waits for keys, not for an answer: quit it (a pager: q; vi: Escape : q ! Enter) unless you mean to use it.")
			w.line("   - unknown: look at the screen before pressing anything.")
			if answer != "" {
				w.line("   The user said to answer: %q.", answer)
			}
			w.line("3. Answer from this session, the one whose call started the command (another session is refused as busy): text with %s, keys with %s (its keys are key names; literal true types them as text).",
				invocation("paste_text", "paneId", pane, "text", "<the answer>", "enter", true), invocation("send_keys", "paneId", pane, "keys", "<keys>"))
			w.line("4. Call %s. It returns the end (completed, with exitStatus), awaiting_input again if the command asks again (a wrong password: go back to step 1), or timed_out with stillRunning true while it still runs (call it again).",
				invocation("wait_for_command", "paneId", pane))
			w.line("5. If the command should not have asked at all, stop it with %s and run it so that it does not ask (a --yes flag, its input from a file, --no-pager).",
				invocation("send_keys", "paneId", pane, "keys", "C-c", "enter", false))
		},
	}
}
