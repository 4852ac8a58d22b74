package clients

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Change is what writing an entry into a client's file does, or would do.
type Change struct {
	Path    string // the configuration file
	Exists  bool   // the file is there already
	Changed bool   // the file would change: false when the entry is already there
	Before  []byte // the file as it is (nil when it is not there)
	After   []byte // the file as it would be
	Snippet []byte // the entry alone, in the file's format, for a person to read
}

// ConfigError is a configuration file setup will not edit: not in the
// format its client reads, or holding the server in a form setup does
// not write. Nothing has been written.
type ConfigError struct {
	Path string
	Err  error
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("%s: %v; fix the file or move it away (nothing was written)", e.Path, e.Err)
}

func (e *ConfigError) Unwrap() error { return e.Err }

// Plan reads the client's file in env and returns what writing e into it
// would change, without writing. A file that is not there is made; an
// entry for ServerName already there is updated in place, its other
// settings kept.
func Plan(c Client, env Env, e Entry) (Change, error) {
	if e.HTTPEntry() && !c.HTTP {
		return Change{}, fmt.Errorf("%s's configuration file starts local servers only; set it up without --http (stdio)", c.Title)
	}
	ch := Change{Path: c.Path(env)}
	data, err := os.ReadFile(ch.Path)
	switch {
	case err == nil:
		ch.Exists, ch.Before = true, data
	case errors.Is(err, os.ErrNotExist):
	default:
		return Change{}, fmt.Errorf("read %s: %w", ch.Path, err)
	}
	if c.format == codexTOML {
		ch.After, ch.Snippet, err = planTOML(data, e)
	} else {
		ch.After, ch.Snippet, err = planJSON(c, data, e)
	}
	if err != nil {
		return Change{}, &ConfigError{Path: ch.Path, Err: err}
	}
	ch.Changed = !ch.Exists || !bytes.Equal(normalized(c, ch.Before), normalized(c, ch.After))
	if !ch.Changed {
		ch.After = ch.Before
	}
	return ch, nil
}

// Snippet is the entry e alone, as the client's file would hold it.
func Snippet(c Client, e Entry) []byte {
	var snippet []byte
	if c.format == codexTOML {
		_, snippet, _ = planTOML(nil, e)
	} else {
		_, snippet, _ = planJSON(c, nil, e)
	}
	return snippet
}

// normalized is data as setup would write it, so that a file that holds
// the entry already compares equal however it is laid out.
func normalized(c Client, data []byte) []byte {
	if c.format == codexTOML {
		return data
	}
	v, err := parseJSON(data)
	if err != nil {
		return data
	}
	return encodeJSON(v, "  ")
}

// Result is what Apply did.
type Result struct {
	Change
	Backup string // the copy of the file as it was; empty when none was made
}

// Apply writes the change planned: a backup of the file as it was
// (PATH.bak-TIME, with its mode), then the new file, made whole in a
// temporary file and renamed over the old one (through a symbolic link
// to its target), with the old file's mode or, for a new file, 0600 in
// directories made 0700. It writes nothing when the change changes
// nothing.
func Apply(ch Change, now time.Time) (Result, error) {
	r := Result{Change: ch}
	if !ch.Changed {
		return r, nil
	}
	target := ch.Path
	mode := os.FileMode(0o600)
	if ch.Exists {
		if t, err := filepath.EvalSymlinks(ch.Path); err == nil {
			target = t
		}
		fi, err := os.Stat(target)
		if err != nil {
			return r, err
		}
		mode = fi.Mode().Perm()
		if !bytes.Equal(mustRead(target), ch.Before) {
			return r, fmt.Errorf("%s changed while setup read it; run setup again", ch.Path)
		}
		r.Backup = backupName(target, now)
		if err := writeNew(r.Backup, ch.Before, mode); err != nil {
			return r, fmt.Errorf("back up %s: %w", ch.Path, err)
		}
	} else if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
		return r, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".tmp-*")
	if err != nil {
		return r, err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(ch.After); err != nil {
		tmp.Close()
		return r, err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return r, err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return r, err
	}
	if err := tmp.Close(); err != nil {
		return r, err
	}
	if err := os.Rename(tmp.Name(), target); err != nil {
		return r, err
	}
	return r, nil
}

func mustRead(path string) []byte {
	data, _ := os.ReadFile(path)
	return data
}

// backupName is PATH.bak-YYYYMMDD-HHMMSS, with -N added when that is
// taken (two runs within a second).
func backupName(path string, now time.Time) string {
	base := path + ".bak-" + now.Format("20060102-150405")
	name := base
	for i := 1; ; i++ {
		if _, err := os.Lstat(name); errors.Is(err, os.ErrNotExist) {
			return name
		}
		name = fmt.Sprintf("%s-%d", base, i)
	}
}

// writeNew writes a file that must not be there yet.
func writeNew(path string, data []byte, mode os.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// planJSON returns the JSON file data with e set as the server
// ServerName, and the entry alone.
func planJSON(c Client, data []byte, e Entry) (after, snippet []byte, err error) {
	root, err := parseJSON(data)
	if err != nil {
		return nil, nil, err
	}
	doc, ok := root.(*object)
	if !ok {
		return nil, nil, errors.New("the file is not a JSON object")
	}
	key := "mcpServers"
	if c.format == jsonServers {
		key = "servers"
	}
	servers := newObject()
	if v, ok := doc.get(key); ok {
		if servers, ok = v.(*object); !ok {
			return nil, nil, fmt.Errorf("%q is not a JSON object", key)
		}
	}
	entry := newObject()
	if v, ok := servers.get(ServerName); ok {
		if entry, ok = v.(*object); !ok {
			return nil, nil, fmt.Errorf("%s.%s is not a JSON object", key, ServerName)
		}
	}
	setJSONEntry(c, entry, e)
	servers.set(ServerName, entry)
	doc.set(key, servers)

	alone := newObject()
	one := newObject()
	one.set(ServerName, entry)
	alone.set(key, one)
	indent := "  "
	if len(bytes.TrimSpace(data)) > 0 {
		indent = detectIndent(data)
	}
	return encodeJSON(doc, indent), encodeJSON(alone, "  "), nil
}

// setJSONEntry makes entry start or reach e, keeping the keys setup does
// not write (such as env) and dropping those of the other transport.
func setJSONEntry(c Client, entry *object, e Entry) {
	if e.HTTPEntry() {
		entry.del("command")
		entry.del("args")
		if c.typed {
			entry.set("type", "http")
		}
		entry.set("url", e.URL)
		setAuthorization(entry, e.Token)
		return
	}
	entry.del("url")
	entry.del("headers")
	if c.typed {
		entry.set("type", "stdio")
	}
	entry.set("command", e.Command)
	args := make([]any, len(e.Args))
	for i, a := range e.Args {
		args[i] = a
	}
	entry.set("args", args)
}

// setAuthorization sets, or with no token removes, the entry's
// Authorization header, keeping its other headers.
func setAuthorization(entry *object, token string) {
	headers := newObject()
	if v, ok := entry.get("headers"); ok {
		if h, ok := v.(*object); ok {
			headers = h
		}
	}
	if token != "" {
		headers.set("Authorization", "Bearer "+token)
	} else {
		headers.del("Authorization")
	}
	if len(headers.keys) == 0 {
		entry.del("headers")
		return
	}
	entry.set("headers", headers)
}

// Configured is the server ServerName as the client's file in env names
// it: the command (or the URL) it starts (or reaches); ok is false when
// the file or the entry is not there.
func Configured(c Client, env Env) (target string, ok bool, err error) {
	path := c.Path(env)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	if c.format == codexTOML {
		return configuredTOML(path, data)
	}
	root, err := parseJSON(data)
	if err != nil {
		return "", false, &ConfigError{Path: path, Err: err}
	}
	key := "mcpServers"
	if c.format == jsonServers {
		key = "servers"
	}
	doc, _ := root.(*object)
	if doc == nil {
		return "", false, &ConfigError{Path: path, Err: errors.New("the file is not a JSON object")}
	}
	v, _ := doc.get(key)
	servers, _ := v.(*object)
	if servers == nil {
		return "", false, nil
	}
	v, _ = servers.get(ServerName)
	entry, _ := v.(*object)
	if entry == nil {
		return "", false, nil
	}
	for _, k := range []string{"url", "command"} {
		if v, ok := entry.get(k); ok {
			if s, ok := v.(string); ok && s != "" {
				return s, true, nil
			}
		}
	}
	return "", true, nil
}
