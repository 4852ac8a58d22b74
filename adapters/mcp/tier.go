package mcp

import (
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// A Tier is a safety tier (CONTRACT.md, "Server settings", -safety): which
// tools a Server offers. Each tier offers the tools of the tiers below it:
//
//   - TierReadonly: the reading tools, those annotated readOnlyHint.
//   - TierMutating: also the tools that write to panes or create, select,
//     resize and rename; those annotated neither read-only nor
//     destructive.
//   - TierDestructive: also the tools that kill or clear, those annotated
//     destructiveHint.
//
// A tool's tier is derived from its annotations (TierOf), never listed
// apart from them, so that what a client is told about a tool and whether
// a tier offers it cannot disagree. A tool above the Server's tier is not
// registered at all: it is neither listed nor callable, and a call to it
// is an unknown tool, like a call to a tool that does not exist.
type Tier string

// The tiers, from the least to the most permissive.
const (
	TierReadonly    Tier = "readonly"
	TierMutating    Tier = "mutating"
	TierDestructive Tier = "destructive"
)

// DefaultTier is the tier of a Server whose Options name none, as of a
// server started without -safety.
const DefaultTier = TierMutating

// rank orders the tiers; 0 is not a tier.
func (t Tier) rank() int {
	switch t {
	case TierReadonly:
		return 1
	case TierMutating:
		return 2
	case TierDestructive:
		return 3
	}
	return 0
}

// Valid reports whether t is one of the three tiers.
func (t Tier) Valid() bool { return t.rank() > 0 }

// Offers reports whether a Server at tier t offers a tool of tier tool.
// An invalid tier offers nothing.
func (t Tier) Offers(tool Tier) bool { return t.Valid() && tool.Valid() && tool.rank() <= t.rank() }

// TierOf returns the tier of a tool with annotations a: readonly when it
// is read-only, destructive when it may be destructive, mutating
// otherwise. Missing annotations, or a missing destructiveHint, count as
// the MCP defaults do: not read-only, destructive.
func TierOf(a *sdk.ToolAnnotations) Tier {
	switch {
	case a == nil:
		return TierDestructive
	case a.ReadOnlyHint:
		return TierReadonly
	case a.DestructiveHint == nil || *a.DestructiveHint:
		return TierDestructive
	}
	return TierMutating
}

// tierOrDefault returns t, DefaultTier for "", and panics for anything
// else: the application validates the setting before it gets here, so an
// unknown tier is a programming error, and serving every tool for it
// would fail open.
func tierOrDefault(t Tier) Tier {
	if t == "" {
		return DefaultTier
	}
	if !t.Valid() {
		panic(fmt.Sprintf("mcp: unknown safety tier %q", t))
	}
	return t
}
