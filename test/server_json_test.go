package test

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/tmux-mcp/tmux-mcp/app"
)

// server.json is the entry of tmux-mcp in the MCP registry. It must be
// valid in the registry's format, whose JSON schema (the 2025-12-11 one,
// as the registry publishes it) is kept in testdata/registry, and it must
// describe the release the VERSION file names, as the npm package does.

// registrySchema is the registry's schema for server.json, resolved.
func registrySchema(t *testing.T) (*jsonschema.Resolved, string) {
	t.Helper()
	data, err := os.ReadFile("testdata/registry/server.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatalf("the registry's schema: %v", err)
	}
	r, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("resolve the registry's schema: %v", err)
	}
	return r, s.ID
}

// readJSON decodes the file at path into a generic value, as a validator
// sees it.
func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return v
}

// releaseVersion is the next (or current) release, as the VERSION file
// holds it.
func releaseVersion(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("../VERSION")
	if err != nil {
		t.Fatal(err)
	}
	v := strings.TrimSpace(string(data))
	if !regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+$`).MatchString(v) {
		t.Fatalf("VERSION holds %q; want X.Y.Z", v)
	}
	return v
}

func TestServerJSONIsValidInTheRegistryFormat(t *testing.T) {
	schema, id := registrySchema(t)
	entry := readJSON(t, "../server.json")
	if err := schema.Validate(entry); err != nil {
		t.Errorf("server.json is not valid in the registry's format: %v", err)
	}
	if entry["$schema"] != id {
		t.Errorf("server.json says its $schema is %v; the schema kept in testdata is %s", entry["$schema"], id)
	}
}

// The schema check can fail: entries the registry refuses are refused here.
func TestRegistrySchemaRefusesBadEntries(t *testing.T) {
	schema, _ := registrySchema(t)
	for name, change := range map[string]func(map[string]any){
		"no name":                     func(e map[string]any) { delete(e, "name") },
		"a name with no namespace":    func(e map[string]any) { e["name"] = "tmux-mcp" },
		"a description over 100":      func(e map[string]any) { e["description"] = strings.Repeat("x", 101) },
		"no version":                  func(e map[string]any) { delete(e, "version") },
		"a package with no transport": func(e map[string]any) { delete(e["packages"].([]any)[0].(map[string]any), "transport") },
		"a package version latest": func(e map[string]any) {
			e["packages"].([]any)[0].(map[string]any)["version"] = "latest"
		},
	} {
		entry := readJSON(t, "../server.json")
		change(entry)
		if err := schema.Validate(entry); err == nil {
			t.Errorf("%s: the schema accepted it", name)
		}
	}
}

// One version everywhere: server.json and its npm package, and the npm
// manifest with every platform package it depends on, are at the VERSION
// file's release; the names the registry checks against each other agree.
func TestServerJSONAndNPMManifestFollowVERSION(t *testing.T) {
	version := releaseVersion(t)
	entry := readJSON(t, "../server.json")
	manifest := readJSON(t, "../packaging/npm/package.json")

	if entry["version"] != version {
		t.Errorf("server.json version %v; VERSION says %s", entry["version"], version)
	}
	if manifest["version"] != version {
		t.Errorf("packaging/npm/package.json version %v; VERSION says %s", manifest["version"], version)
	}
	if manifest["mcpName"] != entry["name"] {
		t.Errorf("the npm manifest's mcpName %v is not server.json's name %v; the registry checks that they match", manifest["mcpName"], entry["name"])
	}
	deps, _ := manifest["optionalDependencies"].(map[string]any)
	var platforms []string
	for name, v := range deps {
		platforms = append(platforms, name)
		if v != version {
			t.Errorf("the npm manifest depends on %s@%v; VERSION says %s", name, v, version)
		}
	}
	slices.Sort(platforms)
	if want := []string{"@tmux-mcp/darwin-arm64", "@tmux-mcp/darwin-x64", "@tmux-mcp/linux-arm64", "@tmux-mcp/linux-x64"}; !slices.Equal(platforms, want) {
		t.Errorf("the npm manifest's platform packages are %v, want %v", platforms, want)
	}

	var npm map[string]any
	for _, p := range entry["packages"].([]any) {
		if p := p.(map[string]any); p["registryType"] == "npm" {
			npm = p
		}
	}
	if npm == nil {
		t.Fatal("server.json lists no npm package")
	}
	if npm["identifier"] != manifest["name"] || npm["version"] != version {
		t.Errorf("server.json's npm package is %v@%v; want %v@%s", npm["identifier"], npm["version"], manifest["name"], version)
	}

	// The release archives are goreleaser's, at the tag of this version.
	meta := entry["_meta"].(map[string]any)["io.modelcontextprotocol.registry/publisher-provided"].(map[string]any)
	archives := meta["releaseArchives"].(map[string]any)
	base := "https://github.com/tmux-mcp/tmux-mcp/releases/download/v" + version + "/"
	want := map[string]any{"checksums": base + "SHA256SUMS"}
	for _, target := range []string{"linux-amd64", "linux-arm64", "darwin-amd64", "darwin-arm64"} {
		goos, arch, _ := strings.Cut(target, "-")
		want[target] = fmt.Sprintf("%stmux-mcp_%s_%s_%s.tar.gz", base, version, goos, arch)
	}
	for k, v := range want {
		if archives[k] != v {
			t.Errorf("server.json's release archive %s is %v, want %v", k, archives[k], v)
		}
	}
	if len(archives) != len(want) {
		t.Errorf("server.json lists the release archives %v, want exactly %v", archives, want)
	}
	goreleaser, err := os.ReadFile("../.goreleaser.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		`name_template: "{{ .ProjectName }}_{{ .Version }}_{{ .Os }}_{{ .Arch }}"`,
		"name_template: SHA256SUMS",
		"project_name: tmux-mcp",
	} {
		if !strings.Contains(string(goreleaser), line) {
			t.Errorf(".goreleaser.yaml has no %q, which the archive names in server.json assume", line)
		}
	}
}

// The variables server.json offers a client to set are ones the server
// reads.
func TestServerJSONNamesOnlyVariablesTheServerReads(t *testing.T) {
	known := []string{app.EnvSocketName, app.EnvSocketPath, app.EnvTmuxBin, app.EnvSafety, app.EnvWaitMaxSeconds,
		app.EnvMaxResultLines, app.EnvToken, app.EnvSSH, app.EnvSSHConfig, app.EnvTools}
	entry := readJSON(t, "../server.json")
	n := 0
	for _, p := range entry["packages"].([]any) {
		vars, _ := p.(map[string]any)["environmentVariables"].([]any)
		for _, v := range vars {
			n++
			if name := v.(map[string]any)["name"]; !slices.Contains(known, name.(string)) {
				t.Errorf("server.json offers %v, which the server does not read", name)
			}
		}
	}
	if n == 0 {
		t.Error("server.json offers no variable; the check would prove nothing")
	}
}
