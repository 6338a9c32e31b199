# pvrdma-doctor — see README.md.
GO ?= go
BIN := bin/pvrdma-doctor
FUZZTIME ?= 5s

.PHONY: build test test-deps demo lint generate fuzz bench bench-fleet bench-bundle clean

build:
	$(GO) build -o $(BIN) ./cmd/pvrdma-doctor

# Everything CI runs (scripts/test.sh): installs missing test deps, lint,
# all tests (real SSH servers, OpenSSH sshd, tmux), race detector, fuzzing.
test:
	./scripts/test.sh

# Installs what the integration tests need when it is missing (Debian).
test-deps:
	@./scripts/test-deps.sh

demo:
	$(GO) run ./cmd/pvrdma-doctor demo

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

# Refreshes every generated file: the scenario outputs (fixtures/scenarios),
# docs/guide.md's command tables, the rule list in docs/rules-and-reports.md, the
# report and TUI goldens. scripts/test.sh checks it changes nothing.
generate:
	$(GO) generate ./...

# Runs every fuzz target listed in */fuzz_targets.txt for FUZZTIME each.
fuzz:
	@./scripts/fuzz.sh $(FUZZTIME)

bench:
	$(GO) test -run "^$$" -bench . -benchmem ./parse/... ./checks/... ./tui/... ./internal/bundle/...

# Scan speed against real OpenSSH hosts, side by side with a sequential
# ssh loop, parallel-ssh and ansible, plus the lab scaling series; writes
# bench/RESULTS.md and the chart. Slow (~15 min), root for netns; not in CI.
# `bench/run.sh --smoke` is the quick check (3 hosts, each tool once).
bench-fleet:
	./bench/run.sh

# What scan --bundle costs on hosts flooding near the output caps: wall
# and CPU time, bundle throughput, peak RSS at 10 and 30 hosts (~5 min).
bench-bundle:
	./bench/bundle.sh

clean:
	rm -rf bin
