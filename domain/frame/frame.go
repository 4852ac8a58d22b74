package frame

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// A Command is one command framed for a shell family.
type Command struct {
	Shell Shell
	IDs
	// Text is the command as the caller gave it. It must not hold a NUL
	// byte, which no shell can take.
	Text string
	// NoPreview leaves the command out of the typed line, which then
	// shows an empty preview (" : ''"): for a line that the shell may
	// keep in its history, where no text of the command is to be. The
	// first line typed into a zsh is one (see zshHistoryHook).
	NoPreview bool
	Options
}

// Options say how a framed command runs, beyond its text (see
// persist.go).
type Options struct {
	// Persist runs the command in the shell itself, not in a child shell:
	// what it changes in the shell (directory, variables, functions,
	// options) stays for later commands and for the shell's user.
	Persist bool
	// AgentEnv sets AgentEnvironment in the child shell that runs the
	// command, so that no pager waits and git does not ask on the
	// terminal. It changes nothing with Persist: the shell's own
	// environment is its user's.
	AgentEnv bool
}

// Files are the paths of a framed command's files, as the pane's shell
// names them.
type Files struct {
	// Script is the script the typed line sources first: it empties
	// itself, and after the command holds its status (ParseStatusFile).
	Script string
	// Text and End are fish's alone (see NeedsTextFile); "" for the other
	// families. Text holds the command text, End the script the line
	// sources after the command.
	Text, End string
}

// Paths lists the files' paths, the script last.
func (f Files) Paths() []string {
	var p []string
	for _, path := range []string{f.Text, f.End, f.Script} {
		if path != "" {
			p = append(p, path)
		}
	}
	return p
}

// Stage puts the command's files where the shell can read them, through
// put (a ports.ScriptStore's PutScript), in the order that lets each name
// the ones before it, and returns their paths. On an error it returns
// the paths put so far, for the caller to remove.
func (c Command) Stage(put func(build func(path string) []byte) (string, error)) (Files, error) {
	var f Files
	var err error
	if c.NeedsTextFile() {
		if f.Text, err = put(func(string) []byte { return c.TextFile() }); err != nil {
			return f, err
		}
	}
	f.Script, err = put(func(path string) []byte {
		g := f
		g.Script = path
		return c.Script(g)
	})
	if err == nil && c.NeedsTextFile() {
		f.End, err = put(func(string) []byte { return c.EndScript(f) })
	}
	return f, err
}

// Kill is the byte Line starts with: C-u, which discards whatever is typed
// on the line already (readline, zle, fish, mksh and a canonical tty all
// read it so), so that a line left half-typed by another writer does not
// swallow the frame.
const Kill = "\x15"

// previewLen bounds the preview of the command on the typed line, in bytes.
const previewLen = 60

// family returns the shell family the command is framed for: a Shell that
// is not one of the constants is framed as ShellSh.
func (c Command) family() Shell {
	switch c.Shell {
	case ShellBash, ShellZsh, ShellKsh, ShellFish:
		return c.Shell
	}
	return ShellSh
}

// NeedsTextFile reports whether the shell runs the command text from a
// file of its own, besides the script: fish, which has no subshell and
// runs the command in a child fish. Files.Text then names that file, whose
// contents are TextFile, and Files.End a second script, EndScript, that
// prints the end marker. fish cancels the rest of a sourced script when
// the job it runs was interrupted, so the child runs from the typed line
// itself, between the two scripts; the secret travels from the first to
// the second in a global variable, which no child process sees.
func (c Command) NeedsTextFile() bool { return c.family() == ShellFish }

// TextFile returns the contents of the command's text file: the command
// and a line feed, so that a here-document on its last line ends.
func (c Command) TextFile() []byte {
	checkText(c.Text)
	return []byte(c.Text + "\n")
}

// Line returns what to type into the pane: Kill, then one line that shows
// the command's first line (unless NoPreview) and sources the script at
// f.Script (and for fish runs the command and sources f.End), printing
// the unread marker if the shell cannot read it, then a line feed, which
// every supported shell takes as Enter. The line starts with a space,
// which keeps it out of the history of bash with HISTCONTROL=ignorespace,
// of zsh with HIST_IGNORE_SPACE, of mksh and of fish; bash's script
// deletes it from the history otherwise, and zsh's sets up the hook that
// keeps every later line out (zshHistoryHook).
//
// Line panics if c.IDs is not valid or c.Text holds a NUL byte: the caller
// validates both.
func (c Command) Line(f Files) string {
	if !c.IDs.Valid() {
		panic(fmt.Sprintf("frame: ids %+v are not three different ids of 1-64 ASCII letters, digits, '_' or '-'", c.IDs))
	}
	checkText(c.Text)
	preview := Preview(c.Text)
	if c.NoPreview {
		preview = ""
	}
	return c.line(f, preview, c.Unread)
}

func (c Command) line(f Files, preview, unread string) string {
	sh := c.family()
	q := quoter(sh)
	path := q(f.Script)
	if sh == ShellFish {
		// Without the first script the command does not run; without the
		// second, the marker says so.
		mark := `builtin printf '\033]7717;tmcp;X;` + unread + `\007'`
		return Kill + " true " + q(preview) + "; source " + path + " && " + c.fishRun() + q(f.Text) +
			"; source " + q(f.End) + " || " + mark + "\n"
	}
	// The unread marker comes of a test of the script, not of sourcing it
	// ("… || mark"): bash and zsh ignore set -e in all that the left side
	// of || runs, so a command's own set -e would do nothing.
	mark := printer(sh) + ` '\033]7717;tmcp;X;` + unread + `\007'`
	source := ". "
	if sh == ShellSh || sh == ShellKsh {
		// "command" keeps a "." that cannot open its file from aborting
		// the line, as the special built-in's error does in dash and
		// mksh. (zsh's "command" runs external commands only; its ".",
		// like bash's, fails as a plain command does.)
		source = "command . "
	}
	return Kill + " : " + q(preview) + "; [ -r " + path + " ] || " + mark + "; " + source + path + "\n"
}

// printer is how the family's frame prints a marker without a line feed:
// the shell's own built-in, whatever alias or function the user gave its
// name ("builtin" in bash, zsh and fish; "command" in POSIX sh, where
// it finds built-ins first, and in ksh, whose print is the built-in that
// reads escapes).
func printer(sh Shell) string {
	switch sh {
	case ShellSh:
		return "command printf"
	case ShellKsh:
		return "command print -n"
	}
	return "builtin printf"
}

// fishChild runs fish's child shell on the text file under sh, whose trap
// makes a C-c end it with status 130 rather than by the signal: fish, like
// bash, abandons the rest of a line whose job died of SIGINT.
const fishChild = `sh -c 'trap "exit 130" INT; fish "$1"' sh `

// fishChildEnv is fishChild with AgentEnvironment exported by its sh.
const fishChildEnv = `sh -c 'trap "exit 130" INT; ` + envExport + `fish "$1"' sh `

// Script returns the script that the typed line sources from f.Script
// (see the package documentation): one line, so that every supported
// shell has read and parsed all of it before it empties its file.
//
// Script panics if c.ID or c.Secret is not a valid id, if they are equal,
// or if c.Text holds a NUL byte.
func (c Command) Script(f Files) []byte {
	if !validID(c.ID) || !validID(c.Secret) || c.ID == c.Secret {
		panic(fmt.Sprintf("frame: id %q and secret %q are not two different ids of 1-64 ASCII letters, digits, '_' or '-'", c.ID, c.Secret))
	}
	checkText(c.Text)
	return c.script(f)
}

// scriptLead is how every script of the family starts: the command that
// empties it, up to its path.
func scriptLead(sh Shell) string {
	if sh == ShellFish {
		return "true >"
	}
	return ": >|"
}

// The script follows the user's shell as little as it can: it writes its
// file with >|, which set -C (noclobber) does not refuse; it prints its
// markers with the shell's built-in whatever alias or function has the
// name (printer); and it turns xtrace (set -x) off before the start marker
// and on again only after the end marker, so that no trace of its own
// commands is taken for the command's output. The command runs without
// xtrace too: its output is what it prints, and a command that wants its
// trace sets -x itself.
func (c Command) script(f Files) []byte {
	sh := c.family()
	q := quoter(sh)
	path := q(f.Script)
	p := printer(sh)
	start := p + ` '\033]7717;tmcp;S;` + c.ID + `;%d\007' "$$"`
	// The end writes the status into the emptied script file as well as
	// into the end marker, so that an end marker lost in a gap of the
	// stream can be made up for (see ParseStatusFile).
	end := `__tmcp_s=$?; ` + p + ` '%d\n' "$__tmcp_s" >|` + path +
		`; ` + p + ` '\033]7717;tmcp;E;` + c.ID + `;` + c.Secret + `;%d\007' "$__tmcp_s"; unset __tmcp_s`
	var b strings.Builder
	b.WriteString(scriptLead(sh) + path + "; ")
	switch sh {
	case ShellFish:
		// The command runs from the typed line (see NeedsTextFile).
		b.WriteString(`set -g __tmcp_k ` + c.Secret + `; builtin printf '\033]7717;tmcp;S;` + c.ID + `;%d\007' $fish_pid` + "\n")
		return []byte(b.String())
	case ShellKsh:
		// mksh has no printf builtin, and an external printf would be the
		// pane's foreground program when the end marker arrives; print is
		// a builtin of every ksh and reads \0nnn escapes too.
		start = p + ` "\033]7717;tmcp;S;` + c.ID + `;$$\007"`
		end = `__tmcp_s=$?; command print "$__tmcp_s" >|` + path +
			`; ` + p + ` "\033]7717;tmcp;E;` + c.ID + `;` + c.Secret + `;$__tmcp_s\007"; unset __tmcp_s`
	case ShellBash:
		// bash has recorded the typed line unless told not to. Its newest
		// entry is read with builtins, through the emptied script file,
		// and deleted only when it names this script: so never an entry
		// of the user's.
		b.WriteString("history 1 >|" + path + " 2>/dev/null; read -r __tmcp_h <" + path + "; : >|" + path + "; ")
		b.WriteString("case $__tmcp_h in *" + path + "*) history -d -1 2>/dev/null;; esac; unset __tmcp_h; ")
	}
	b.WriteString("__tmcp_o=$-; set +x; ")
	if sh == ShellZsh {
		b.WriteString(zshHistoryHook)
	}
	// The subshell traps SIGINT to exit 130: an interactive bash or dash
	// whose job died of a C-c abandons the rest of the line, and the end
	// marker would never be printed.
	if c.Persist {
		b.WriteString(start + "; eval " + q(c.Text+"\n") + "; " + persistEnd(end) + "; ")
		b.WriteString(persistTail + "\n")
		return []byte(b.String())
	}
	env := ""
	if c.AgentEnv {
		env = envExport
	}
	b.WriteString(start + "; (trap 'exit 130' INT; " + env + "eval " + q(c.Text+"\n") + "); " + end + "; ")
	b.WriteString("case $__tmcp_o in *x*) unset __tmcp_o; set -x;; *) unset __tmcp_o;; esac\n")
	return []byte(b.String())
}

// zshHistoryHook keeps every later frame line out of zsh's history, the
// list and $HISTFILE alike. zsh saves a line as it accepts it, before it
// runs any of it (with SHARE_HISTORY, INC_APPEND_HISTORY or
// INC_APPEND_HISTORY_TIME into $HISTFILE too), so nothing a script does
// can take back the line that sourced it; but a zshaddhistory hook is
// called with every line before it is saved, and one that switches to a
// fresh history list of its own (fc -p, no file) has the line saved
// there, into a list that zsh drops, unwritten, as soon as the line is
// saved: nothing of it is left in the shell's list or in any file. The
// hook, first among the zshaddhistory_functions, does so for a frame's
// line only: one that starts as Line writes it (" : '") and holds the
// unread marker's text, which no line of the user's does by chance; every
// other line is left alone (it returns 0, which changes nothing). Each
// script sets it up again, which costs nothing when it is there, and
// restores it if it was taken away; it stays, defined in the shell, for
// the next server as well. Both run with zsh's own options, whatever the
// user set (emulate -L), and through builtin, whatever alias has the
// name.
const zshHistoryHook = `__tmcp_nohist() { builtin emulate -L zsh; [[ $1 == ' : '*'\033]7717;tmcp;X;'* ]] && builtin fc -p; return 0 }; ` +
	`() { builtin emulate -L zsh; (( ${zshaddhistory_functions[(Ie)__tmcp_nohist]} )) || zshaddhistory_functions=(__tmcp_nohist "${zshaddhistory_functions[@]}") }; `

// EndScript returns fish's second script, which f.End holds: it writes
// the command's status into the first script's file and prints the end
// marker with the secret that the first script left in a variable.
func (c Command) EndScript(f Files) []byte {
	if !validID(c.ID) {
		panic(fmt.Sprintf("frame: id %q is not 1-64 ASCII letters, digits, '_' or '-'", c.ID))
	}
	return []byte(`set __tmcp_s $status; builtin printf '%d\n' $__tmcp_s >` + quoter(ShellFish)(f.Script) +
		`; builtin printf '\033]7717;tmcp;E;` + c.ID + `;%s;%d\007' $__tmcp_k $__tmcp_s; set -e __tmcp_k __tmcp_s` + "\n")
}

// ParseStatusFile reads what a script's file holds once its command has
// ended: the exit status and a line feed, which the script writes there
// before its end marker. ok is false for anything else: the script not
// yet read (its contents), the command still running (empty), or bytes
// that something else wrote.
func ParseStatusFile(b []byte) (status int, ok bool) {
	digits, found := strings.CutSuffix(string(b), "\n")
	if !found {
		return 0, false
	}
	return parseStatus([]byte(digits))
}

// checkText panics on a command text no shell can take.
func checkText(text string) {
	if strings.IndexByte(text, 0) >= 0 {
		panic("frame: the command holds a NUL byte")
	}
}

// Preview returns the first line of command, cut to about 60 bytes at a
// character boundary with "…" when longer (or when more lines follow), and
// with control characters shown as "?": what the typed line shows of the
// command.
func Preview(command string) string {
	line, rest, more := strings.Cut(command, "\n")
	if !more {
		rest = ""
	}
	cut := len(line) > previewLen || strings.TrimSpace(rest) != ""
	if len(line) > previewLen {
		n := previewLen
		for n > 0 && !utf8.RuneStart(line[n]) {
			n--
		}
		line = line[:n]
	}
	line = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == utf8.RuneError {
			return '?'
		}
		return r
	}, line)
	if cut {
		line += "…"
	}
	return line
}

// quoter returns the function that quotes a word for the family: single
// quotes, in which POSIX shells take every byte as itself ("'" is written
// '\” ), and fish all but "\" and "'", which it escapes with "\".
func quoter(sh Shell) func(string) string {
	if sh == ShellFish {
		return func(s string) string {
			return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
		}
	}
	return func(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
}

// ParseLine is Line's inverse, for in-memory terminals and tests: given
// text typed into a shell of family sh (Kill and the final line feed,
// typed as "\r" or "\n", are optional), it returns the preview, the files
// and the unread id of the line. ok is false when typed is not exactly a
// line Line writes for that family.
func ParseLine(sh Shell, typed string) (preview string, f Files, unread string, ok bool) {
	preview, f, unread, _, ok = parseLine(sh, typed)
	return preview, f, unread, ok
}

// LineOptions returns the options a line that ParseLine accepts was
// written with, as far as the line tells them: for fish, whose line runs
// the command, all of them; for the other families, whose scripts do
// (ParseScript), none.
func LineOptions(sh Shell, typed string) (o Options, ok bool) {
	_, _, _, o, ok = parseLine(sh, typed)
	return o, ok
}

func parseLine(sh Shell, typed string) (preview string, f Files, unread string, o Options, ok bool) {
	for _, o := range lineOptions(sh) {
		if preview, f, unread, ok := parseLineWith(sh, o, typed); ok {
			return preview, f, unread, o, true
		}
	}
	return "", Files{}, "", Options{}, false
}

func parseLineWith(sh Shell, o Options, typed string) (preview string, f Files, unread string, ok bool) {
	typed = strings.TrimPrefix(typed, Kill)
	s := strings.TrimSuffix(strings.TrimSuffix(typed, "\n"), "\r")
	// Line's output for placeholders tells the fixed parts: each quoted
	// placeholder stands for a quoted word, the same each time it comes,
	// and U for the unread id.
	probe := strings.TrimSuffix(strings.TrimPrefix(Command{Shell: sh, Options: o}.line(Files{Script: "P", Text: "T", End: "N"}, "V", "U"), Kill), "\n")
	words := map[string]*string{"'V'": &preview, "'P'": &f.Script, "'T'": &f.Text, "'N'": &f.End}
	seen := map[string]bool{}
	const unreadAt = "U\\007"
	for {
		// The next placeholder.
		next, at := "", len(probe)
		for _, tok := range []string{"'V'", "'P'", "'T'", "'N'", unreadAt} {
			if i := strings.Index(probe, tok); i >= 0 && i < at {
				next, at = tok, i
			}
		}
		var found bool
		if s, found = strings.CutPrefix(s, probe[:at]); !found {
			return "", Files{}, "", false
		}
		probe = probe[at:]
		switch next {
		case "":
			if s != "" || unread == "" {
				return "", Files{}, "", false
			}
			return preview, f, unread, true
		case unreadAt:
			n := 0
			for n < len(s) && isIDByte(s[n]) {
				n++
			}
			if unread = s[:n]; !validID(unread) {
				return "", Files{}, "", false
			}
			s, probe = s[n:], probe[len("U"):]
			continue
		}
		word, rest, ok := cutWord(sh, s)
		if !ok || seen[next] && word != *words[next] {
			return "", Files{}, "", false
		}
		*words[next], s, seen[next] = word, rest, true
		probe = probe[len(next):]
	}
}

// ParseScript is Script's inverse, for in-memory terminals and tests: given
// the contents of a script read by a shell of family sh, it returns the
// command (with Unread empty, which a script does not hold, and Text ""
// for a family whose text is in a file of its own) and the files it names
// (the script's own path alone). ok is false when script is not exactly
// what Script writes.
func ParseScript(sh Shell, script []byte) (c Command, f Files, ok bool) {
	s := string(script)
	var found bool
	if s, found = strings.CutPrefix(s, scriptLead(sh)); !found {
		return Command{}, Files{}, false
	}
	if f.Script, _, ok = cutWord(sh, s); !ok {
		return Command{}, Files{}, false
	}
	c = Command{Shell: sh}
	// The id follows the start marker's format; the secret, the end
	// marker's, or for fish the variable's name.
	idAt, secretAt := "tmcp;S;", "tmcp;E;"
	if c.NeedsTextFile() {
		secretAt = "set -g __tmcp_k "
	}
	i, j := strings.Index(s, idAt), strings.LastIndex(s, secretAt)
	if i < 0 || j < 0 {
		return Command{}, Files{}, false
	}
	c.ID, _, _ = strings.Cut(s[i+len(idAt):], ";")
	if c.NeedsTextFile() {
		c.Secret, _, _ = strings.Cut(s[j+len(secretAt):], ";")
	} else {
		_, rest, _ := strings.Cut(s[j+len(secretAt):], ";")
		c.Secret, _, _ = strings.Cut(rest, ";")
	}
	if !validID(c.ID) || !validID(c.Secret) || c.ID == c.Secret {
		return Command{}, Files{}, false
	}
	if !c.NeedsTextFile() {
		k := strings.Index(s, "eval ")
		if k < 0 {
			return Command{}, Files{}, false
		}
		text, _, ok := cutWord(sh, s[k+len("eval "):])
		if !ok || !strings.HasSuffix(text, "\n") {
			return Command{}, Files{}, false
		}
		c.Text = text[:len(text)-1]
	}
	// Only an exact match counts, so that nothing merely resembling a
	// script is run.
	for _, o := range scriptOptions(sh) {
		c.Options = o
		if string(c.script(f)) == string(script) {
			return c, f, true
		}
	}
	return Command{}, Files{}, false
}

// cutWord takes the quoted word that s starts with, as quoter(sh) writes
// words, and returns its value and what follows it.
func cutWord(sh Shell, s string) (word, rest string, ok bool) {
	if s == "" || s[0] != '\'' {
		return "", "", false
	}
	var b strings.Builder
	if sh == ShellFish {
		for i := 1; i < len(s); i++ {
			switch c := s[i]; {
			case c == '\\' && i+1 < len(s) && (s[i+1] == '\\' || s[i+1] == '\''):
				b.WriteByte(s[i+1])
				i++
			case c == '\'':
				return b.String(), s[i+1:], true
			default:
				b.WriteByte(c)
			}
		}
		return "", "", false
	}
	// POSIX: quoted pieces joined by '\''.
	i := 1
	for {
		j := strings.IndexByte(s[i:], '\'')
		if j < 0 {
			return "", "", false
		}
		b.WriteString(s[i : i+j])
		i += j
		if !strings.HasPrefix(s[i:], `'\''`) {
			return b.String(), s[i+1:], true
		}
		b.WriteByte('\'')
		i += 4
	}
}
