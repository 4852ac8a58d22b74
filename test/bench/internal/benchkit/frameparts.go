package benchkit

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tmux-mcp/tmux-mcp/domain/frame"
)

// The pane's side of a run (issue 26, item 2): what each part of the bash
// frame costs in the pane, measured from the benchmark's own control-mode
// client typing into its idle bash pane exactly what the server types (the
// line of domain/frame, with the script it sources written first), and
// the same with one part taken out, until the end marker's %output. The
// variants take turns, so that load weighs on each alike. This is the one
// place the benchmark imports a package of the server's: domain/frame is
// pure (no I/O), and the frame measured must be the frame the server
// types.

// frameVariant is one way of typing the frame: the line and the script.
type frameVariant struct {
	name string
	buys string // what the part taken out guarantees
	make func(line, script string) (string, string, bool)
}

// without returns a variant that removes part from the line or the script.
func without(name, buys string, parts ...string) frameVariant {
	return frameVariant{name: name, buys: buys, make: func(line, script string) (string, string, bool) {
		for _, p := range parts {
			switch {
			case strings.Contains(script, p):
				script = strings.Replace(script, p, "", 1)
			case strings.Contains(line, p):
				line = strings.Replace(line, p, "", 1)
			default:
				return "", "", false
			}
		}
		return line, script, true
	}}
}

// frameParts measures the variants n times each after warmup rounds and
// writes the table to w.
func (b *fairBench) frameParts(w io.Writer) error {
	if !b.wants("frame") {
		return nil
	}
	dir := "/dev/shm"
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		dir = ""
	}
	// A directory whose name is as long as the server's (internal/scripts:
	// tmux-mcp-PID-RANDOM) and a name as long (128 random bits in hex).
	dir, err := os.MkdirTemp(dir, "tmux-mcp-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "f0123456789abcdef0123456789abcde")
	short := filepath.Join(dir, "s")
	ids := frame.IDs{ID: "i0123456789abcde", Secret: "s0123456789abcde", Unread: "u0123456789abcde"}
	c := frame.Command{Shell: frame.ShellBash, IDs: ids, Text: "true"}
	files := frame.Files{Script: path}
	line, script := c.Line(files), string(c.Script(files))
	q := "'" + path + "'"
	history := "history 1 >|" + q + " 2>/dev/null; read -r __tmcp_h <" + q + "; : >|" + q + "; " +
		"case $__tmcp_h in *" + q + "*) history -d -1 2>/dev/null;; esac; unset __tmcp_h; "
	fallback := "[ -r " + q + " ] || builtin printf '\\033]7717;tmcp;X;" + ids.Unread + "\\007'; "
	preview := ": 'true'; "
	endMark := `builtin printf '\033]7717;tmcp;E;` + ids.ID + `;` + ids.Secret + `;%d\007' 0`
	variants := []frameVariant{
		{name: "floor: `(builtin printf <end marker>)` typed", make: func(string, string) (string, string, bool) {
			return "(" + endMark + ")\n", "", true
		}},
		{name: "the frame as the server types it", make: func(l, s string) (string, string, bool) { return l, s, true }},
		without("without the history step", "the typed line out of bash's history when HISTCONTROL does not ignore a leading space", history),
		without("without the unread fallback", "a shell that cannot read the script (another user, a container) told from a slow one", fallback),
		{name: "the unread fallback's text replaced by a `:` of its length", buys: "(tells the cost of the typed length from that of the test)", make: func(l, s string) (string, string, bool) {
			pad := ": " + strings.Repeat("x", len(fallback)-4) + "; "
			return strings.Replace(l, fallback, pad, 1), s, strings.Contains(l, fallback)
		}},
		without("without the preview", "the command's first line shown in the pane", preview),
		{name: "without the subshell", buys: "cd and export not outliving the call (the contract)", make: func(l, s string) (string, string, bool) {
			const sub = "(trap 'exit 130' INT; eval 'true\n'); "
			return l, strings.Replace(s, sub, "eval 'true\n'; ", 1), strings.Contains(s, sub)
		}},
		without("without the status file", "the exit status when the end marker is lost in a gap of the stream", `builtin printf '%d\n' "$__tmcp_s" >|`+q+`; `),
		without("without the xtrace guard", "no trace of the frame's own commands under set -x", "__tmcp_o=$-; set +x; ", "case $__tmcp_o in *x*) unset __tmcp_o; set -x;; *) unset __tmcp_o;; esac"),
		without("without history step, fallback and preview", "", history, fallback, preview),
		{name: "the frame with a script path of " + fmt.Sprint(len(short)) + " bytes, not " + fmt.Sprint(len(path)), buys: "(what the typed length costs: the path is typed twice)", make: func(l, s string) (string, string, bool) {
			return strings.ReplaceAll(l, path, short), strings.ReplaceAll(s, path, short), true
		}},
	}
	type result struct {
		samples []time.Duration
		ok      bool
	}
	res := make([]result, len(variants))
	lines := make([][2]string, len(variants))
	for i, v := range variants {
		l, s, ok := v.make(line, script)
		res[i].ok, lines[i] = ok, [2]string{l, s}
	}
	b.log("frame parts: %d variants, %d + %d rounds", len(variants), b.warmup, b.n)
	for round := range b.warmup + b.n {
		for k := range variants {
			i := (round + k) % len(variants)
			if !res[i].ok {
				continue
			}
			if err := b.pause(); err != nil {
				return err
			}
			p := path
			if strings.Contains(lines[i][0], short+"'") {
				p = short
			}
			d, err := b.ctl.typeFrame(b.ctx, lines[i][0], lines[i][1], p, "]7717;tmcp;E;"+ids.ID+";")
			if err != nil {
				return fmt.Errorf("frame parts, %s: %w", variants[i].name, err)
			}
			if round >= b.warmup {
				res[i].samples = append(res[i].samples, d)
			}
		}
	}
	full := percentile(res[1].samples, 50)
	fmt.Fprintf(w, "\nThe pane's side of a run in bash (%d samples each, taking turns; to the end marker's %%output):\n\n", b.n)
	fmt.Fprintln(w, "| typed | median | against the frame | what the part buys |")
	fmt.Fprintln(w, "| --- | --- | --- | --- |")
	for i, v := range variants {
		if !res[i].ok {
			fmt.Fprintf(w, "| %s | n/a: the frame has no such part now | | %s |\n", v.name, v.buys)
			continue
		}
		m := percentile(res[i].samples, 50)
		fmt.Fprintf(w, "| %s | %s | %+.2f ms | %s |\n", v.name, ms(m), float64(m-full)/float64(time.Millisecond), v.buys)
	}
	return nil
}

// typeFrame writes script (if not empty) to path, types line into the
// floor pane as the server does (send-keys -l, the line's own line feed as
// Enter) and returns the time to the %output holding mark; then it waits
// for the prompt, so that the next sample finds the shell idle.
func (c *controlClient) typeFrame(ctx context.Context, line, script, path, mark string) (time.Duration, error) {
	if script != "" {
		if err := os.WriteFile(path, []byte(script), 0o600); err != nil {
			return 0, err
		}
	}
	c.drain()
	start := time.Now()
	if err := c.write("send-keys -t " + c.pane + " -l -- " + tmuxQuote(line)); err != nil {
		return 0, err
	}
	at, err := c.awaitMarkThenPrompt(ctx, mark, "the end marker")
	if err != nil {
		return 0, err
	}
	return at.Sub(start), nil
}
