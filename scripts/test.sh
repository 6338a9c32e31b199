#!/usr/bin/env bash
# The one test command (README, `make test`, .ci/run): installs what the
# integration tests need when missing, then lint, a check that every
# generated file is up to date (go generate ./... changes nothing), all tests
# (real SSH lab, vcsim, OpenSSH sshd), the race detector on the concurrent
# packages, and a short run of every fuzz target.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/test-deps.sh
echo "== lint"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './.git/*'))
if [ -n "$unformatted" ]; then echo "gofmt needed:"; echo "$unformatted"; exit 1; fi
go vet ./...
echo "== generated files"
# One command refreshes every generated file (scenario outputs, docs/guide.md's
# command tables, the rule list in docs/, report and TUI goldens): make
# generate, i.e. go generate ./... . It must leave a committed tree as it
# was; what it changes was not regenerated.
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  tree_state() { git status --porcelain=v1 --untracked-files=all; git diff --binary | sha256sum; }
  before=$(tree_state)
  go generate ./... >/dev/null
  if [ "$(tree_state)" != "$before" ]; then
    echo "go generate ./... changed the tree: regenerate (make generate) and commit:"
    git status --short
    exit 1
  fi
else
  echo "not a git checkout: skipped"
fi
echo "== tests"
go test -count=1 ./...
echo "== race"
go test -count=1 -race ./collect/... ./internal/sshrun/... ./fixtures/... ./collect/vcenter/... ./checks/... ./internal/facts/... ./internal/parallel/... ./internal/bundle/... ./internal/offline/...
echo "== fuzz (${FUZZTIME:-3s} per target)"
./scripts/fuzz.sh "${FUZZTIME:-3s}"
echo "all tests passed"
