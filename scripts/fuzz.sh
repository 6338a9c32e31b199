#!/usr/bin/env bash
# Runs each fuzz target listed in */fuzz_targets.txt ("./pkg FuzzName" per
# line; "./pkg *" is every fuzz target of the package's tests) for the given
# time (default 5s). Any crash fails the run.
#
# Go's fuzz coordinator sometimes ends a run with "context deadline
# exceeded" when -fuzztime expires while it waits for a worker; no input is
# failing then (a real crash prints "Failing input written to ..."). Such a
# run is retried once; a crash never is.
set -euo pipefail
t=${1:-5s}
shopt -s nullglob globstar
log=$(mktemp)
targets=$(mktemp)
trap 'rm -f "$log" "$targets"' EXIT
for list in **/fuzz_targets.txt; do
  while read -r pkg name; do
    [ -z "${pkg:-}" ] || [ "${pkg:0:1}" = "#" ] && continue
    if [ "$name" = "*" ]; then
      go test -list '^Fuzz' "$pkg" | grep '^Fuzz' | sed "s|^|$pkg |"
    else
      echo "$pkg $name"
    fi
  done < "$list"
done > "$targets"
while read -r pkg name; do
  echo "fuzz $pkg $name ($t)"
  for attempt in 1 2; do
    if go test -run '^$' -fuzz "^${name}\$" -fuzztime "$t" "$pkg" >"$log" 2>&1; then
      break
    fi
    if [ "$attempt" = 1 ] && grep -q "context deadline exceeded" "$log" && ! grep -q "Failing input written" "$log"; then
      echo "  (fuzz coordinator timed out without a failing input: retrying once)"
      continue
    fi
    cat "$log"
    exit 1
  done
done < "$targets"
