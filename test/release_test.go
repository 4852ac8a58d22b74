package test

import (
	"bufio"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/test/gate"
)

// What a person building a release gets from the Makefile: make build
// stamps the version git gives, and make dist builds static binaries with
// their checksums.

// needMake skips a test that runs make in a git checkout of the project.
func needMake(t *testing.T) {
	t.Helper()
	gate.Real(t, "make and the Go toolchain")
	gate.Need(t, "make")
	if err := exec.Command("git", "-C", "..", "rev-parse", "--git-dir").Run(); err != nil {
		t.Skip("not a git checkout: make build stamps no version")
	}
}

// makeIn runs make in the project's root with args and returns its output.
func makeIn(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command("make", append([]string{"-s", "-C", ".."}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// gitVersion is what make build stamps, worked out here from git and the
// VERSION file as the Makefile's comment states the rule: X.Y.Z on a clean
// checkout of the tag vX.Y.Z, else the VERSION file's next release, -dev,
// the revision and .dirty with uncommitted changes.
func gitVersion(t *testing.T) string {
	t.Helper()
	git := func(args ...string) (string, error) {
		out, err := exec.Command("git", append([]string{"-C", ".."}, args...)...).Output()
		return strings.TrimSpace(string(out)), err
	}
	status, err := git("status", "--porcelain", "--untracked-files=no")
	if err != nil {
		t.Fatalf("git status: %v", err)
	}
	if tag, err := git("describe", "--tags", "--exact-match", "--match", "v[0-9]*"); err == nil && status == "" {
		return strings.TrimPrefix(tag, "v")
	}
	next, err := os.ReadFile("../VERSION")
	if err != nil {
		t.Fatal(err)
	}
	rev, err := git("rev-parse", "--short=7", "HEAD")
	if err != nil {
		t.Fatalf("git rev-parse: %v", err)
	}
	v := strings.TrimSpace(string(next)) + "-dev.g" + rev
	if status != "" {
		v += ".dirty"
	}
	return v
}

// initializeVersion starts bin on the fake backend, initializes a session
// and returns the serverInfo.version of the reply.
func initializeVersion(t *testing.T, bin string) string {
	t.Helper()
	cmd := exec.Command(bin, "-backend", "fake")
	cmd.Stdin = strings.NewReader(rpcInitialize(1) + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s -backend fake: %v", bin, err)
	}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var reply struct {
			ID     int `json:"id"`
			Result struct {
				ServerInfo struct {
					Name, Version string
				} `json:"serverInfo"`
			} `json:"result"`
		}
		if json.Unmarshal(sc.Bytes(), &reply) == nil && reply.ID == 1 {
			return reply.Result.ServerInfo.Version
		}
	}
	t.Fatalf("no initialize reply in %q", out)
	return ""
}

func printedVersion(t *testing.T, bin string) string {
	t.Helper()
	out, err := exec.Command(bin, "-version").Output()
	if err != nil {
		t.Fatalf("%s -version: %v", bin, err)
	}
	v, ok := strings.CutPrefix(strings.TrimSpace(string(out)), "tmux-mcp ")
	if !ok {
		t.Fatalf("-version printed %q, want \"tmux-mcp <version>\"", out)
	}
	return v
}

func TestMakeBuildStampsTheVersionThatInitializeReports(t *testing.T) {
	t.Parallel()
	needMake(t)
	bin := filepath.Join(t.TempDir(), "tmux-mcp")
	want := gitVersion(t)
	makeIn(t, "build", "BIN="+bin)
	if got := printedVersion(t, bin); got != want {
		t.Errorf("make build; tmux-mcp -version = %q, want %q from git", got, want)
	}
	if got := initializeVersion(t, bin); got != want {
		t.Errorf("serverInfo.version in the initialize reply = %q, want %q", got, want)
	}
}

func TestMakeDistBuildsStaticBinariesWithChecksums(t *testing.T) {
	t.Parallel()
	needMake(t)
	if plan := makeIn(t, "-n", "dist", "DIST="+t.TempDir()); !strings.Contains(plan, "linux/amd64 linux/arm64 darwin/amd64 darwin/arm64") {
		t.Errorf("make dist does not build the four release targets by default:\n%s", plan)
	}
	// The native target, which can be run, and one for another system,
	// which shows that the code builds there.
	dist := t.TempDir()
	native := "linux/" + runtime.GOARCH
	if runtime.GOOS != "linux" {
		native = runtime.GOOS + "/" + runtime.GOARCH
	}
	start := time.Now()
	makeIn(t, "dist", "DIST="+dist, "DIST_TARGETS="+native+" darwin/arm64")
	t.Logf("make dist of two targets took %v", time.Since(start))

	sums, err := os.ReadFile(filepath.Join(dist, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(sums)), "\n") {
		sum, name, ok := strings.Cut(line, "  ")
		if !ok {
			t.Fatalf("SHA256SUMS line %q is not \"<sum>  <file>\"", line)
		}
		listed[name] = sum
	}
	for _, target := range []string{native, "darwin/arm64"} {
		name := "tmux-mcp-" + strings.ReplaceAll(target, "/", "-")
		data, err := os.ReadFile(filepath.Join(dist, name))
		if err != nil {
			t.Errorf("make dist made no %s: %v", name, err)
			continue
		}
		if sum := sha256.Sum256(data); listed[name] != hex.EncodeToString(sum[:]) {
			t.Errorf("SHA256SUMS says %q for %s, want its digest %x", listed[name], name, sum)
		}
	}
	bin := filepath.Join(dist, "tmux-mcp-"+strings.ReplaceAll(native, "/", "-"))
	if runtime.GOOS == "linux" {
		checkStatic(t, bin)
	}
	if got, want := printedVersion(t, bin), gitVersion(t); got != want {
		t.Errorf("the dist binary's version = %q, want %q", got, want)
	}
}

// checkStatic fails the test unless the ELF file at path asks for no
// dynamic loader and no shared library.
func checkStatic(t *testing.T, path string) {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			interp, _ := io.ReadAll(p.Open())
			t.Errorf("%s asks for the dynamic loader %s; want a static binary", path, strings.TrimRight(string(interp), "\x00"))
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		t.Errorf("%s needs the shared libraries %v; want a static binary", path, libs)
	}
}

// make demo serves the in-memory backend: its pane %0 runs commands with
// no tmux involved.
func TestMakeDemoServesTheFakeBackend(t *testing.T) {
	t.Parallel()
	needMake(t)
	bin := filepath.Join(t.TempDir(), "tmux-mcp")
	cmd := exec.Command("make", "-s", "-C", "..", "demo", "BIN="+bin)
	cmd.Stdin = strings.NewReader(rpcInitialize(1) + "\n" + rpcInitialized + "\n" + rpcRun(2, "printf from-the-demo") + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("make demo: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), `"id":2,"result"`) || !strings.Contains(string(out), `\"output\":\"from-the-demo\"`) {
		t.Errorf("make demo answered:\n%s\nwant run_shell_command's reply with the command's output", out)
	}
}
