package mcp

import (
	"embed"
	"fmt"
)

// The schemas of the lifecycle tools, until they are declared with typed
// arguments and results as the pane tools are.
//
//go:embed schemas/*.json
var schemaFiles embed.FS

// loadSchemas reads and resolves the embedded schemas of tool. An error
// means that an embedded file is broken, which is a programming error.
func loadSchemas(tool string) (*toolSchemas, error) {
	in, err := schemaFiles.ReadFile("schemas/" + tool + ".input.json")
	if err != nil {
		return nil, err
	}
	out, err := schemaFiles.ReadFile("schemas/" + tool + ".output.json")
	if err != nil {
		return nil, err
	}
	ts, err := resolveSchemas(in, out)
	if err != nil {
		return nil, fmt.Errorf("schemas of %s: %w", tool, err)
	}
	return ts, nil
}
