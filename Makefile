# tmux-mcp — see README.md. Every target works on a fresh clone.
GO      ?= go
BIN     := bin/tmux-mcp
ARGS    ?=
PKG     := ./...
COVER_MIN := 90

.PHONY: build run demo test test-unit cover mutation bench bench-fair bench-e2e generate lint clean dist release npm

# The version stamped into the binary (tmux-mcp -version, serverInfo in the
# MCP initialize reply), the release packages, the npm packages and the
# Homebrew formula; it comes from one place. A commit that is tagged vX.Y.Z,
# with a clean tree, is version X.Y.Z. Anything else is the next release's
# version, which the VERSION file holds, plus the revision: 0.1.0-dev.g94c696b
# (.dirty appended with uncommitted changes), which sorts before 0.1.0 as
# semver, npm, dpkg and rpm order versions. Outside a git checkout it is
# VERSION-dev. Override with VERSION=....
VERSION ?= $(shell sh packaging/version.sh)
ifeq ($(strip $(VERSION)),)
$(error no version: packaging/version.sh failed, as it says above)
endif
LDFLAGS := $(if $(VERSION),-X github.com/tmux-mcp/tmux-mcp/app.version=$(VERSION))

build:
	@$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/tmux-mcp

# Starts the server on stdio. With no socket named it starts a private tmux
# server and session of its own and removes them on exit.
run: build
	@$(BIN) $(ARGS)

# Starts the server on stdio on the in-memory backend: one scripted bash
# pane, %0, and no tmux. For trying a client without touching real panes.
demo: build
	@$(BIN) -backend fake $(ARGS)

# Everything: unit tests, real-tmux tests on private sockets, end-to-end
# tests through the built binary, and the static checks. go test's output
# goes through test/summary, which prints it as go test does without -v
# and then how many tests skipped, and why; its status is go test's. In
# CI (CI=true, or TMUX_MCP_REQUIRE set: see test/gate) a test that needs a
# program .ci/run installs fails without it instead of skipping.
test: lint
	@$(GO) build -o bin/summary ./test/summary
	bin/summary $(GO) test -json -count=1 $(PKG)
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
	$(GO) test -count=1 -short -coverpkg=./domain/... -coverprofile=bin/domain.cover ./domain/...
	@$(GO) tool cover -func=bin/domain.cover | awk -v min=$(COVER_MIN) \
	  '/^total:/ { pct=$$3; sub("%","",pct); print "domain statement coverage: " $$3; \
	  if (pct+0 < min) { print "below the " min "% floor"; exit 1 } }'

# Mutation testing of every package under domain/ with gremlins: each
# mutant (a flipped comparison, a changed operator) is tested by its own
# package's tests, and the efficacy, killed / (killed + lived), must stay at
# or above MUTATION_MIN. Not part of `make test`: it takes about a quarter of
# an hour on two cores. The tests run without -short, so that the frame's mutants
# also meet real shells. -count=1 keeps the coverage run that gremlins
# times first out of the test cache: each mutant's timeout is
# MUTATION_TIMEOUT times that run, which a cached run makes a fraction of a
# second. Every test binary runs under test/mutation/exec.sh, which kills it
# once its own timeout has passed: gremlins kills only `go test`, and a
# mutant that loops while its package initialises would outlive the run and
# eat the machine's memory. The threshold is judged here, from
# bin/mutation.json, because gremlins v0.6.0 ignores its own
# --threshold-efficacy flag (the flag's value reaches it as a string).
# docs/mutation.md lists the mutants that live, and why each cannot be
# killed.
GREMLINS_VERSION ?= v0.6.0
GREMLINS         := bin/gremlins-$(GREMLINS_VERSION)/gremlins
MUTATION_MIN     ?= 90
MUTATION_WORKERS ?= 2
MUTATION_TIMEOUT ?= 10
MUTATION_PKG     ?= ./domain

$(GREMLINS):
	GOBIN=$(CURDIR)/$(dir $(GREMLINS)) $(GO) install github.com/go-gremlins/gremlins/cmd/gremlins@$(GREMLINS_VERSION)

mutation: $(GREMLINS)
	@mkdir -p bin && rm -f bin/mutation.json
	GOFLAGS="$$($(GO) env GOFLAGS) -count=1 -exec=$(CURDIR)/test/mutation/exec.sh" $(GREMLINS) unleash --workers $(MUTATION_WORKERS) \
	  --timeout-coefficient $(MUTATION_TIMEOUT) --output bin/mutation.json $(MUTATION_PKG)
	@grep -o '"file_name":"[^"]*"\|"status":"[A-Z ]*"' bin/mutation.json | awk -F'"' -v min=$(MUTATION_MIN) \
	  -v root=$(MUTATION_PKG) '\
	  $$2 == "file_name" { pkg = $$4; if (!sub("/[^/]*$$", "", pkg)) pkg = "."; next } \
	  { n[pkg, $$4]++; pkgs[pkg] = 1; if ($$4 == "KILLED") k++; if ($$4 == "LIVED") l++ } \
	  END { for (p in pkgs) { pk = n[p, "KILLED"]; pl = n[p, "LIVED"]; \
	    printf "%-20s killed %4d  lived %3d  efficacy %s\n", (p == "." ? root : root "/" p), pk, pl, \
	      (pk + pl ? sprintf("%.1f%%", 100 * pk / (pk + pl)) : "-") | "sort" } close("sort"); \
	    e = k + l ? 100 * k / (k + l) : 0; printf "efficacy over %s: %.2f%% (%d killed, %d lived)\n", root, e, k, l; \
	    if (e < min) { print "below the " min "% floor"; exit 1 } }'

# make bench: the Go benchmarks, the fair limit (each call against the same
# work by a bare control-mode client plus one MCP ping, BENCHMARKS.md) and
# the end-to-end run through the SDK client. bench-fair is the fair table
# alone (FAIR_FLAGS='-n 200' for more iterations, '-run cpu' for one row);
# bench-e2e the SDK client's run alone. None of them is part of make test.
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...
	@$(MAKE) --no-print-directory bench-fair bench-e2e

FAIR_FLAGS ?= -n 100

bench-fair:
	@$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/tmux-mcp
	$(GO) run ./test/bench -bin $(BIN) -fair $(FAIR_FLAGS)

bench-e2e:
	@$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/tmux-mcp
	$(GO) run ./test/bench -bin $(BIN) $(BENCH_FLAGS)

generate:
	$(GO) generate ./...

# gofmt, go vet and staticcheck. staticcheck is installed into bin/ on
# first use, pinned, from the Go module proxy (or the module cache), as
# gremlins is. Where one of its checks is wrong for a line, a
# //lint:ignore (or //lint:file-ignore) comment there says why.
STATICCHECK_VERSION ?= v0.8.2
STATICCHECK         := bin/staticcheck-$(STATICCHECK_VERSION)/staticcheck

$(STATICCHECK):
	GOBIN=$(CURDIR)/$(dir $(STATICCHECK)) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

lint: $(STATICCHECK)
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKG)
	$(STATICCHECK) $(PKG)

# Release binaries: static (no cgo) for each of DIST_TARGETS, named
# tmux-mcp-OS-ARCH, in DIST, with their SHA-256 digests in DIST/SHA256SUMS
# (check with: cd dist && sha256sum -c SHA256SUMS).
DIST         ?= dist
DIST_TARGETS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64

dist:
	@rm -rf $(DIST) && mkdir -p $(DIST)
	@for t in $(DIST_TARGETS); do \
	  os=$${t%/*}; arch=$${t#*/}; \
	  echo "dist: $(DIST)/tmux-mcp-$$os-$$arch ($(or $(VERSION),no version stamp))"; \
	  CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -ldflags '-s -w $(LDFLAGS)' \
	    -o $(DIST)/tmux-mcp-$$os-$$arch ./cmd/tmux-mcp || exit 1; \
	done
	@cd $(DIST) && if command -v sha256sum >/dev/null 2>&1; then sha256sum tmux-mcp-*; \
	  else shasum -a 256 tmux-mcp-*; fi > SHA256SUMS
	@cat $(DIST)/SHA256SUMS

# Release artifacts, built here and published nowhere: goreleaser, in
# snapshot mode, builds into dist/ the archives for linux and darwin on
# amd64 and arm64, SHA256SUMS, the .deb and .rpm packages (with the manual
# page test/manpage renders from -help) and the Homebrew formula, all
# stamped with VERSION (see .goreleaser.yaml). goreleaser is built from the
# Go module proxy into bin/ on first use, pinned, as staticcheck is; that
# first build takes some minutes. packaging/check-deb.sh tries the .deb,
# and docs/RELEASING.md says how a real release is made.
GORELEASER_VERSION ?= v2.15.1
GORELEASER         := bin/goreleaser-$(GORELEASER_VERSION)/goreleaser

$(GORELEASER):
	GOBIN=$(CURDIR)/$(dir $(GORELEASER)) $(GO) install github.com/goreleaser/goreleaser/v2@$(GORELEASER_VERSION)

release: $(GORELEASER)
	TMUX_MCP_VERSION=$(VERSION) $(GORELEASER) release --snapshot --clean
	@echo "release $(VERSION): $$(cd dist && ls *.tar.gz *.deb *.rpm SHA256SUMS | tr '\n' ' ')"

# The npm packages for npx -y tmux-mcp, in DIST/npm: tmux-mcp, whose bin/
# launcher runs the binary of the @tmux-mcp/OS-CPU package npm installed
# for this system, and one such package for each release binary, made from
# make release's binaries (run it first) and stamped with VERSION.
# packaging/npm/check.sh packs and installs them offline and talks MCP to
# the installed command.
npm:
	node packaging/npm/build.mjs --dist $(DIST) --version $(VERSION)

clean:
	rm -rf bin $(DIST)
