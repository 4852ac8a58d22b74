# tmux-mcp — see README.md. Every target works on a fresh clone.
GO      ?= go
BIN     := bin/tmux-mcp
ARGS    ?=
PKG     := ./...
COVER_MIN := 90

.PHONY: build run demo test test-unit cover bench generate lint clean

build:
	@$(GO) build -trimpath -o $(BIN) ./cmd/tmux-mcp

# Starts the server on stdio. With no socket named it starts a private tmux
# server and session of its own and removes them on exit.
run: build
	@$(BIN) $(ARGS)

# Starts the server on stdio on the in-memory backend: one scripted bash
# pane, %0, and no tmux. For trying a client without touching real panes.
demo: build
	@$(BIN) -backend fake $(ARGS)

# Everything: unit tests, real-tmux tests on private sockets, end-to-end
# tests through the built binary, and the static checks.
test: lint
	$(GO) test -count=1 $(PKG)
	@$(MAKE) --no-print-directory conformance

# The generic server scenarios of the official MCP conformance suite, run
# against the built binary on the fake backend over HTTP on a free loopback
# port. Needs npx (Node.js): skipped, with a message, without it.
.PHONY: conformance
conformance: build
	sh test/conformance/run.sh $(BIN)

# Unit tests only: no tmux, no processes; passes with tmux absent from PATH.
test-unit:
	$(GO) test -count=1 -short $(PKG)

# Statement coverage of the domain, which must stay at or above COVER_MIN.
cover:
	@mkdir -p bin
	$(GO) test -count=1 -short -coverprofile=bin/domain.cover ./domain/
	@$(GO) tool cover -func=bin/domain.cover | awk -v min=$(COVER_MIN) \
	  '/^total:/ { pct=$$3; sub("%","",pct); print "domain statement coverage: " $$3; \
	  if (pct+0 < min) { print "below the " min "% floor"; exit 1 } }'

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...
	@$(GO) build -trimpath -o $(BIN) ./cmd/tmux-mcp
	$(GO) run ./test/bench -bin $(BIN) $(BENCH_FLAGS)

generate:
	$(GO) generate ./...

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKG)

clean:
	rm -rf bin
