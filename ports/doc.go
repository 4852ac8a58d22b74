// Package ports holds the interfaces the domain needs from the outside world
// — a Terminal (panes, input, capture, output stream, who is watching) and a
// Clock — and the small value types that cross them.
//
// Ports import nothing but the standard library and speak no multiplexer's
// language: a pane is a pane, whether tmux, GNU screen or the in-memory fake
// serves it. Every adapter that implements Terminal must pass the contract
// suite in test/contract.
package ports

//go:generate go run github.com/golang/mock/mockgen -source=terminal.go -aux_files=github.com/tmux-mcp/tmux-mcp/ports=shell.go -destination=../adapters/mocks/terminal_mock.go -package=mocks
//go:generate go run github.com/golang/mock/mockgen -source=shell.go -destination=../adapters/mocks/shell_mock.go -package=mocks
//go:generate go run github.com/golang/mock/mockgen -source=clock.go -destination=../adapters/mocks/clock_mock.go -package=mocks
//go:generate go run github.com/golang/mock/mockgen -source=ids.go -destination=../adapters/mocks/ids_mock.go -package=mocks
//go:generate go run github.com/golang/mock/mockgen -source=manager.go -destination=../adapters/mocks/manager_mock.go -package=mocks
//go:generate go run github.com/golang/mock/mockgen -source=lease.go -destination=../adapters/mocks/lease_mock.go -package=mocks
//go:generate go run github.com/golang/mock/mockgen -source=signal.go -destination=../adapters/mocks/signal_mock.go -package=mocks
//go:generate go run github.com/golang/mock/mockgen -source=input.go -destination=../adapters/mocks/input_mock.go -package=mocks
