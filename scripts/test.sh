#!/usr/bin/env bash
# The one test command (README, `make test`, .ci/run): installs what the
# integration tests need when missing, then lint, all tests (real SSH lab, vcsim,
# OpenSSH sshd), the race detector on the concurrent packages,
# and a short run of every fuzz target.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/test-deps.sh
echo "== lint"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './.git/*'))
if [ -n "$unformatted" ]; then echo "gofmt needed:"; echo "$unformatted"; exit 1; fi
go vet ./...
echo "== tests"
go test -count=1 ./...
echo "== race"
go test -count=1 -race ./collect/... ./internal/sshrun/... ./fixtures/... ./vcenter/...
echo "== fuzz (${FUZZTIME:-3s} per target)"
./scripts/fuzz.sh "${FUZZTIME:-3s}"
echo "all tests passed"
