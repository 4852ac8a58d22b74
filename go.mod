module github.com/tmux-mcp/tmux-mcp

go 1.26.8

require github.com/golang/mock v1.6.0
