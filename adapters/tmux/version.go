package tmux

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strconv"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// minMajor and minMinor are the oldest tmux this adapter supports: 3.2 added
// the control-mode client flags (ignore-size) and the list-panes
// filter it relies on.
const minMajor, minMinor = 3, 2

// checkVersion runs "tmux -V" and returns the version if it is new enough.
func checkVersion(l launcher) (string, error) {
	bin := l.bin
	if l.remote() {
		bin = l.ssh.dest + ":" + l.bin
	}
	ctx, cancel := context.WithTimeout(context.Background(), sshConnectTimeout)
	defer cancel()
	cmd, err := l.command(ctx, "-V")
	if err != nil {
		return "", err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		var exitErr *exec.ExitError
		if errors.As(err, &exitErr) {
			if lerr := l.failed("-V", exitErr.ExitCode(), stderr.String()); lerr != nil {
				return "", lerr
			}
		}
		return "", fmt.Errorf("tmux -V (%s): %w: %w", bin, err, ports.ErrUnavailable)
	}
	// A remote login shell's start-up files may print lines of their
	// own before it.
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	v := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(lines[len(lines)-1]), "tmux "))
	major, minor, ok := parseVersion(v)
	if !ok {
		return "", fmt.Errorf("tmux at %s reports version %q, which this adapter cannot read: %w", bin, v, ports.ErrUnavailable)
	}
	if major < minMajor || major == minMajor && minor < minMinor {
		return "", fmt.Errorf("tmux at %s is version %s; %d.%d or newer is required: %w", bin, v, minMajor, minMinor, ports.ErrUnavailable)
	}
	return v, nil
}

// parseVersion reads the version tmux -V prints after "tmux ": "3.3a",
// "3.2-rc2", "next-3.4", "master" (a development build, taken as new) or
// "openbsd-7.4" (OpenBSD's base tmux, which is 3.2 or newer from OpenBSD
// 6.9 on; it is mapped onto that scale).
func parseVersion(v string) (major, minor int, ok bool) {
	if v == "master" {
		return 99, 0, true
	}
	v = strings.TrimPrefix(v, "next-")
	openbsd := strings.HasPrefix(v, "openbsd-")
	v = strings.TrimPrefix(v, "openbsd-")
	dot := strings.IndexByte(v, '.')
	if dot <= 0 {
		return 0, 0, false
	}
	major, err := strconv.Atoi(v[:dot])
	if err != nil {
		return 0, 0, false
	}
	rest := v[dot+1:]
	n := 0
	for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
		n++
	}
	if n == 0 {
		return 0, 0, false
	}
	minor, _ = strconv.Atoi(rest[:n])
	if openbsd {
		if major > 6 || major == 6 && minor >= 9 {
			return minMajor, minMinor, true
		}
		return 0, 0, true
	}
	return major, minor, true
}

// utf8Flag returns -u when env's locale is not UTF-8 as tmux judges it
// (the first of LC_ALL, LC_CTYPE and LANG that is set names UTF-8).
// Without -u such a client gets every byte of its output outside
// printable ASCII as "_": the field separator of the adapter's formats and
// every non-ASCII character of a capture. The flag is left out when not
// needed so that the tmux command lines stay as they were.
func utf8Flag(env []string) []string {
	lookup := func(key string) string {
		for _, kv := range slices.Backward(env) {
			if v, ok := strings.CutPrefix(kv, key+"="); ok {
				return v
			}
		}
		return ""
	}
	locale := lookup("LC_ALL")
	if locale == "" {
		locale = lookup("LC_CTYPE")
	}
	if locale == "" {
		locale = lookup("LANG")
	}
	upper := strings.ToUpper(locale)
	if strings.Contains(upper, "UTF-8") || strings.Contains(upper, "UTF8") {
		return nil
	}
	return []string{"-u"}
}

// childEnv is env without TMUX and TMUX_PANE: the adapter names its socket
// itself, and tmux must not take a child for a nested client.
func childEnv(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if strings.HasPrefix(kv, "TMUX=") || strings.HasPrefix(kv, "TMUX_PANE=") {
			continue
		}
		out = append(out, kv)
	}
	return out
}
