package frame

import "strings"

// Shell is a family of shells that the command framing supports. Shells of
// one family accept the same framed text (see Frame).
type Shell string

// The shell families Frame supports.
const (
	ShellBash Shell = "bash"
	ShellZsh  Shell = "zsh"
	ShellSh   Shell = "sh"  // POSIX sh: dash, ash, yash, posh
	ShellKsh  Shell = "ksh" // ksh93, mksh, pdksh, oksh
	ShellFish Shell = "fish"
)

// shellFamilies maps a program's base name, version suffix removed, to its
// family. Names not listed are not shells Frame can drive: notably rbash,
// whose restrictions forbid the redirections the frame uses, and busybox,
// which may be running any of its applets.
var shellFamilies = map[string]Shell{
	"bash":  ShellBash,
	"zsh":   ShellZsh,
	"sh":    ShellSh,
	"dash":  ShellSh,
	"ash":   ShellSh,
	"yash":  ShellSh,
	"posh":  ShellSh,
	"ksh":   ShellKsh,
	"mksh":  ShellKsh,
	"lksh":  ShellKsh,
	"pdksh": ShellKsh,
	"oksh":  ShellKsh,
	"fish":  ShellFish,
}

// ShellFor maps the name of a pane's foreground program to its shell
// family. It accepts a login shell's leading "-" ("-bash"), a path
// ("/bin/dash") and a version suffix ("zsh-5.9", "ksh93", "bash5.2").
// ok is false for any program that is not a supported shell (vim, python,
// less, an empty name).
func ShellFor(program string) (sh Shell, ok bool) {
	name := strings.TrimPrefix(program, "-")
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	name = strings.TrimRight(name, "0123456789.")
	name = strings.TrimSuffix(name, "-")
	sh, ok = shellFamilies[name]
	return sh, ok
}

// shells lists every family.
var shells = []Shell{ShellBash, ShellZsh, ShellSh, ShellKsh, ShellFish}
