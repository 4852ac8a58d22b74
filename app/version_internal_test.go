package app

import (
	"runtime/debug"
	"testing"
)

func TestVersionPrefersTheLinkedOneThenTheModuleThenTheCommit(t *testing.T) {
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	build := func(mod string, settings []debug.BuildSetting) *debug.BuildInfo {
		return &debug.BuildInfo{Main: debug.Module{Path: "github.com/tmux-mcp/tmux-mcp", Version: mod}, Settings: settings}
	}
	const rev = "94c696b1e2d3f4a5b6c7d8e9f0a1b2c3d4e5f6a7"
	for _, tc := range []struct {
		name, linked string
		bi           *debug.BuildInfo
		want         string
	}{
		{"linked by make build", "v1.2.0-3-g94c696b", build("v1.1.0", vcs(rev, "false")), "v1.2.0-3-g94c696b"},
		{"go install at a tag", "", build("v1.2.0", nil), "v1.2.0"},
		{"pseudo-version from the repository", "", build("v0.0.0-20261201083800-94c696b1e2d3", vcs(rev, "false")), "v0.0.0-20261201083800-94c696b1e2d3"},
		{"commit only", "", build("(devel)", vcs(rev, "false")), "devel-94c696b1e2d3"},
		{"commit with changes", "", build("(devel)", vcs(rev, "true")), "devel-94c696b1e2d3-dirty"},
		{"nothing recorded", "", build("(devel)", nil), "devel"},
		{"no build information", "", nil, "devel"},
	} {
		if got := versionOf(tc.linked, tc.bi); got != tc.want {
			t.Errorf("%s: versionOf = %q, want %q", tc.name, got, tc.want)
		}
	}
}
