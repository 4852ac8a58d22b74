module github.com/tmux-mcp/tmux-mcp

go 1.26

require github.com/golang/mock v1.6.0

require (
	github.com/modelcontextprotocol/go-sdk v1.8.0 // indirect
	go.uber.org/dig v1.19.0 // indirect
	go.uber.org/fx v1.24.0 // indirect
	go.uber.org/multierr v1.10.0 // indirect
	go.uber.org/zap v1.28.0 // indirect
	golang.org/x/sys v0.41.0 // indirect
)
