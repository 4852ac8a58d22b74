package fake

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The fake shell's interpreter, the tiny subset of sh that "The
// interpreter" in the package documentation describes. A command line
// compiles to ops, which the shell's job runs one after another.

// op is one step of what a command does when it runs.
type op struct {
	kind    opKind
	text    string        // opOutput: what is printed
	n       int           // opStatus, opExit: the status (-1 for opExit: the last status)
	d       time.Duration // opSleep
	sink    bool          // opRead: what is read is discarded rather than printed back
	command string        // opSleep, opRead, opHang: the foreground program meanwhile
	ask     *Read         // opAsk: the read
}

type opKind int

const (
	opOutput     opKind = iota // print text; "\n" reaches the screen as "\r\n"
	opStatus                   // set the status
	opSleep                    // wait on the clock
	opRead                     // read the terminal until end of file, like cat
	opExit                     // leave with a status
	opHang                     // never end by itself
	opEcho                     // turn the tty's echo on (n=1) or off (n=0), like stty
	opOrElse                   // skip the next n ops unless the status is nonzero (||)
	opSource                   // run the script at text, like "."
	opBackground               // start text in the background, living for d (sleep N &)
	opAsk                      // read a line (or a key) of the terminal, like read (see Read)
)

// simpleCmd is one parsed command.
type simpleCmd struct {
	args             []string
	outNull, errNull bool
	orElse           bool // runs only if the command before it failed (||)
	background       bool // ends in "&": started in the background
}

// compile turns typed shell text into the ops of its commands. shell names
// the shell in error messages; pid is the shell's process id, for $$.
func compile(shell string, pid int, src string) []op {
	cmds, err := parseScript(src, pid)
	if err != nil {
		return []op{{kind: opOutput, text: shell + ": syntax error: " + err.Error() + "\n"}, {kind: opStatus, n: 2}}
	}
	var ops []op
	for _, c := range cmds {
		cops := c.ops(shell)
		if c.orElse {
			ops = append(ops, op{kind: opOrElse, n: len(cops)})
		}
		ops = append(ops, cops...)
	}
	return ops
}

func (c simpleCmd) ops(shell string) []op {
	if len(c.args) == 0 {
		return nil
	}
	out := func(s string) []op {
		if c.outNull || s == "" {
			return nil
		}
		return []op{{kind: opOutput, text: s}}
	}
	fail := func(status int, format string, a ...any) []op {
		var ops []op
		if !c.errNull {
			ops = append(ops, op{kind: opOutput, text: fmt.Sprintf(format, a...) + "\n"})
		}
		return append(ops, op{kind: opStatus, n: status})
	}
	name, args := c.args[0], c.args[1:]
	if name == "command" && len(args) > 0 {
		name, args = args[0], args[1:]
	}
	if c.background {
		// A process of the pane's terminal that outlives the command
		// (ports.ProcessWatcher), printing nothing.
		secs, err := strconv.ParseFloat(strings.Join(args, " "), 64)
		if name != "sleep" || len(args) != 1 || err != nil || secs < 0 {
			return fail(2, "%s: the fake shell runs only sleep N in the background", shell)
		}
		return []op{{kind: opBackground, text: strings.Join(c.args, " "), d: time.Duration(secs * float64(time.Second))}, {kind: opStatus}}
	}
	switch name {
	case ".", "source":
		if len(args) != 1 {
			return fail(2, "%s: .: usage: . filename", shell)
		}
		return []op{{kind: opSource, text: args[0]}}
	case "echo":
		end := "\n"
		if len(args) > 0 && args[0] == "-n" {
			args, end = args[1:], ""
		}
		return append(out(strings.Join(args, " ")+end), op{kind: opStatus})
	case "printf":
		if len(args) == 0 {
			return fail(2, "printf: usage: printf format [arguments]")
		}
		s, err := printf(args[0], args[1:])
		if err != nil {
			return append(out(s), fail(1, "printf: %v", err)...)
		}
		return append(out(s), op{kind: opStatus})
	case "true", ":":
		return []op{{kind: opStatus}}
	case "false":
		return []op{{kind: opStatus, n: 1}}
	case "exit":
		if len(args) == 0 {
			return []op{{kind: opExit, n: -1}}
		}
		n, err := strconv.Atoi(args[0])
		if err != nil {
			return append(fail(2, "%s: exit: %s: numeric argument required", shell, args[0]), op{kind: opExit, n: 2})
		}
		return []op{{kind: opExit, n: n & 0xff}}
	case "sleep":
		var secs float64
		var err error
		if len(args) == 1 {
			secs, err = strconv.ParseFloat(args[0], 64)
		}
		if len(args) != 1 || err != nil || secs < 0 {
			return fail(1, "sleep: invalid time interval")
		}
		return []op{{kind: opSleep, d: time.Duration(secs * float64(time.Second)), command: "sleep"}, {kind: opStatus}}
	case "stty":
		switch strings.Join(args, " ") {
		case "-echo":
			return []op{{kind: opEcho, n: 0}, {kind: opStatus}}
		case "echo":
			return []op{{kind: opEcho, n: 1}, {kind: opStatus}}
		}
		return fail(1, "stty: the fake shell's stty knows only echo and -echo")
	case "read":
		r := &Read{}
		for len(args) > 0 && strings.HasPrefix(args[0], "-") {
			switch args[0] {
			case "-r":
			case "-s":
				r.Secret = true
			case "-p":
				if len(args) < 2 {
					return fail(2, "%s: read: -p: option requires an argument", shell)
				}
				r.Prompt = args[1]
				args = args[1:]
			default:
				return fail(2, "%s: read: %s: the fake shell's read knows only -r, -s and -p", shell, args[0])
			}
			args = args[1:]
		}
		return []op{{kind: opAsk, ask: r}, {kind: opStatus}}
	case "cat":
		if len(args) > 0 {
			return fail(1, "cat: the fake shell's cat reads only the terminal")
		}
		return []op{{kind: opRead, sink: c.outNull, command: "cat"}, {kind: opStatus}}
	}
	return fail(127, "%s: %s: command not found", shell, name)
}

// errUnsupported marks syntax that a real shell knows but the fake's does not.
var errUnsupported = errors.New("not supported by the fake shell")

// parseScript splits src into commands and their words; pid is what $$
// expands to.
func parseScript(src string, pid int) ([]simpleCmd, error) {
	p := &parser{src: src, pid: pid}
	return p.script()
}

type parser struct {
	pid  int
	src  string
	i    int
	cmds []simpleCmd
	cur  simpleCmd
	word strings.Builder
	in   bool // a word has started (even an empty quoted one)
}

func (p *parser) script() ([]simpleCmd, error) {
	for p.i < len(p.src) {
		c := p.src[p.i]
		switch {
		case c == ' ' || c == '\t':
			p.endWord()
			p.i++
		case c == '\n' || c == ';':
			p.endCommand()
			p.i++
		case c == '#' && !p.in:
			for p.i < len(p.src) && p.src[p.i] != '\n' {
				p.i++
			}
		case c == '\'':
			j := strings.IndexByte(p.src[p.i+1:], '\'')
			if j < 0 {
				return nil, errors.New("unterminated '")
			}
			p.word.WriteString(p.src[p.i+1 : p.i+1+j])
			p.in = true
			p.i += j + 2
		case c == '"':
			if err := p.doubleQuoted(); err != nil {
				return nil, err
			}
		case c == '\\':
			if p.i+1 < len(p.src) && p.src[p.i+1] != '\n' {
				p.word.WriteByte(p.src[p.i+1])
				p.in = true
			}
			p.i += 2
		case c == '$':
			if err := p.dollar(); err != nil {
				return nil, err
			}
		case c == '>':
			if err := p.redirect(); err != nil {
				return nil, err
			}
		case strings.HasPrefix(p.src[p.i:], "||"):
			p.endCommand()
			if len(p.cmds) == 0 {
				return nil, errors.New("|| with no command before it")
			}
			p.cur.orElse = true
			p.i += 2
		case c == '&' && !strings.HasPrefix(p.src[p.i:], "&&"):
			p.cur.background = true
			p.endCommand()
			p.i++
		case c == '|' || c == '&' || c == '<' || c == '(' || c == ')' || c == '`':
			return nil, fmt.Errorf("%q: %w", c, errUnsupported)
		default:
			p.word.WriteByte(c)
			p.in = true
			p.i++
		}
	}
	p.endCommand()
	return p.cmds, nil
}

func (p *parser) endWord() {
	if p.in {
		p.cur.args = append(p.cur.args, p.word.String())
	}
	p.word.Reset()
	p.in = false
}

func (p *parser) endCommand() {
	p.endWord()
	if len(p.cur.args) > 0 || p.cur.outNull || p.cur.errNull {
		p.cmds = append(p.cmds, p.cur)
	}
	p.cur = simpleCmd{}
}

func (p *parser) doubleQuoted() error {
	p.in = true
	p.i++ // the opening quote
	for p.i < len(p.src) {
		c := p.src[p.i]
		switch {
		case c == '"':
			p.i++
			return nil
		case c == '\\' && p.i+1 < len(p.src) && strings.IndexByte("$`\"\\\n", p.src[p.i+1]) >= 0:
			if p.src[p.i+1] != '\n' {
				p.word.WriteByte(p.src[p.i+1])
			}
			p.i += 2
		case c == '$':
			if err := p.dollar(); err != nil {
				return err
			}
		case c == '`':
			return fmt.Errorf("%q: %w", c, errUnsupported)
		default:
			p.word.WriteByte(c)
			p.i++
		}
	}
	return errors.New(`unterminated "`)
}

// dollar expands $((...)); any other $ is literal, except the forms that
// would expand in a real shell, which the fake refuses rather than
// mistranslates.
func (p *parser) dollar() error {
	rest := p.src[p.i:]
	p.in = true
	switch {
	case strings.HasPrefix(rest, "$(("):
		j := strings.Index(rest, "))")
		if j < 0 {
			return errors.New("unterminated $((")
		}
		v, err := arith(rest[3:j])
		if err != nil {
			return err
		}
		p.word.WriteString(strconv.FormatInt(v, 10))
		p.i += j + 2
	case strings.HasPrefix(rest, "$$"):
		p.word.WriteString(strconv.Itoa(p.pid))
		p.i += 2
	case len(rest) > 1 && (isNameByte(rest[1]) || strings.IndexByte("({?$#!@*-", rest[1]) >= 0):
		return fmt.Errorf("%q: %w", rest[:2], errUnsupported)
	default:
		p.word.WriteByte('$')
		p.i++
	}
	return nil
}

func isNameByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// redirect reads a redirection; the word so far may name its descriptor.
func (p *parser) redirect() error {
	fd := "1"
	if w := p.word.String(); p.in && (w == "1" || w == "2") {
		fd = w
		p.word.Reset()
		p.in = false
	} else {
		p.endWord()
	}
	p.i++ // '>'
	if strings.HasPrefix(p.src[p.i:], "&") {
		j := p.i + 1
		for j < len(p.src) && p.src[j] >= '0' && p.src[j] <= '9' {
			j++
		}
		if t := p.src[p.i+1 : j]; t != "1" && t != "2" {
			return fmt.Errorf("redirection >&%s: %w", t, errUnsupported)
		}
		p.i = j
		return nil
	}
	for p.i < len(p.src) && (p.src[p.i] == ' ' || p.src[p.i] == '\t') {
		p.i++
	}
	j := p.i
	for j < len(p.src) && strings.IndexByte(" \t\n;", p.src[j]) < 0 {
		j++
	}
	if target := p.src[p.i:j]; target != "/dev/null" {
		return fmt.Errorf("redirection to %q: %w", target, errUnsupported)
	}
	if fd == "1" {
		p.cur.outNull = true
	} else {
		p.cur.errNull = true
	}
	p.i = j
	return nil
}

// arith evaluates integer arithmetic with + - * / %, unary minus and
// parentheses.
func arith(s string) (int64, error) {
	a := &arithParser{s: s}
	v, err := a.sum()
	if err == nil && a.peek() != 0 {
		err = fmt.Errorf("arithmetic: unexpected %q", a.s[a.i:])
	}
	return v, err
}

type arithParser struct {
	s string
	i int
}

// peek returns the next byte that is not blank, or 0 at the end.
func (a *arithParser) peek() byte {
	for a.i < len(a.s) && (a.s[a.i] == ' ' || a.s[a.i] == '\t' || a.s[a.i] == '\n') {
		a.i++
	}
	if a.i < len(a.s) {
		return a.s[a.i]
	}
	return 0
}

func (a *arithParser) sum() (int64, error) {
	v, err := a.product()
	for err == nil && (a.peek() == '+' || a.peek() == '-') {
		op := a.peek()
		a.i++
		var w int64
		if w, err = a.product(); op == '+' {
			v += w
		} else {
			v -= w
		}
	}
	return v, err
}

func (a *arithParser) product() (int64, error) {
	v, err := a.unary()
	for err == nil && strings.IndexByte("*/%", a.peek()) >= 0 {
		op := a.peek()
		a.i++
		var w int64
		if w, err = a.unary(); err != nil {
			break
		}
		switch {
		case op == '*':
			v *= w
		case w == 0:
			err = errors.New("arithmetic: division by 0")
		case op == '/':
			v /= w
		default:
			v %= w
		}
	}
	return v, err
}

func (a *arithParser) unary() (int64, error) {
	switch a.peek() {
	case '-':
		a.i++
		v, err := a.unary()
		return -v, err
	case '+':
		a.i++
		return a.unary()
	case '(':
		a.i++
		v, err := a.sum()
		if err == nil && a.peek() != ')' {
			err = errors.New("arithmetic: missing )")
		}
		a.i++
		return v, err
	}
	a.peek() // skips blanks
	j := a.i
	for j < len(a.s) && a.s[j] >= '0' && a.s[j] <= '9' {
		j++
	}
	if j == a.i {
		return 0, fmt.Errorf("arithmetic: expected a number at %q", a.s[a.i:])
	}
	v, err := strconv.ParseInt(a.s[a.i:j], 10, 64)
	a.i = j
	return v, err
}

// printf formats as the printf utility does, within the subset the type
// comment above lists. On an error it returns what was printed before it.
func printf(format string, args []string) (string, error) {
	var b strings.Builder
	for {
		used, err := printfOnce(&b, format, &args)
		if err != nil || len(args) == 0 || used == 0 {
			return b.String(), err
		}
	}
}

// printfOnce formats once, taking arguments from *args; it returns how
// many it took.
func printfOnce(b *strings.Builder, format string, args *[]string) (int, error) {
	used := 0
	next := func() (string, bool) {
		if len(*args) == 0 {
			return "", false
		}
		a := (*args)[0]
		*args = (*args)[1:]
		used++
		return a, true
	}
	for i := 0; i < len(format); i++ {
		c := format[i]
		switch c {
		case '\\':
			n := unescape(b, format[i+1:], false)
			i += n
		case '%':
			j := i + 1
			for j < len(format) && strings.IndexByte("-+ #0", format[j]) >= 0 {
				j++
			}
			for j < len(format) && (format[j] >= '0' && format[j] <= '9' || format[j] == '.') {
				j++
			}
			if j >= len(format) {
				return used, errors.New("missing format character")
			}
			spec, verb := format[i+1:j], format[j]
			i = j
			switch verb {
			case '%':
				b.WriteByte('%')
			case 's':
				a, _ := next()
				fmt.Fprintf(b, "%"+spec+"s", a)
			case 'b':
				a, _ := next()
				var e strings.Builder
				for k := 0; k < len(a); k++ {
					if a[k] == '\\' {
						k += unescape(&e, a[k+1:], true)
						continue
					}
					e.WriteByte(a[k])
				}
				fmt.Fprintf(b, "%"+spec+"s", e.String())
			case 'c':
				if a, _ := next(); a != "" {
					b.WriteByte(a[0])
				}
			case 'd', 'i':
				a, ok := next()
				var n int64
				if ok {
					var err error
					if n, err = strconv.ParseInt(a, 10, 64); err != nil {
						return used, fmt.Errorf("%s: invalid number", a)
					}
				}
				fmt.Fprintf(b, "%"+spec+"d", n)
			default:
				return used, fmt.Errorf("%%%c: %w", verb, errUnsupported)
			}
		default:
			b.WriteByte(c)
		}
	}
	return used, nil
}

// unescape writes the character that the escape after a backslash stands
// for and returns how many bytes of s it used. inB allows %b's octal form
// \0NNN beside the format's \NNN.
func unescape(b *strings.Builder, s string, inB bool) int {
	if s == "" {
		b.WriteByte('\\')
		return 0
	}
	if simple, ok := map[byte]byte{'n': '\n', 't': '\t', 'r': '\r', 'a': '\a', 'b': '\b', 'f': '\f', 'v': '\v', '\\': '\\', '"': '"', '\'': '\''}[s[0]]; ok {
		b.WriteByte(simple)
		return 1
	}
	digits, skip := s, 0
	if inB && s[0] == '0' {
		digits, skip = s[1:], 1
	}
	n, v := 0, 0
	for n < 3 && n < len(digits) && digits[n] >= '0' && digits[n] <= '7' {
		v = v*8 + int(digits[n]-'0')
		n++
	}
	if n == 0 && skip == 0 {
		b.WriteByte('\\')
		return 0
	}
	b.WriteByte(byte(v))
	return skip + n
}
