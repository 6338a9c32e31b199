#!/usr/bin/env bash
# Runs each fuzz target listed in */fuzz_targets.txt ("./pkg FuzzName" per
# line) for the given time (default 5s). Any crash fails the run.
set -euo pipefail
t=${1:-5s}
shopt -s nullglob globstar
for list in **/fuzz_targets.txt; do
  while read -r pkg name; do
    [ -z "${pkg:-}" ] || [ "${pkg:0:1}" = "#" ] && continue
    echo "fuzz $pkg $name ($t)"
    go test -run '^$' -fuzz "^${name}\$" -fuzztime "$t" "$pkg" >/tmp/fuzz.$$.log 2>&1 || { cat /tmp/fuzz.$$.log; exit 1; }
  done < "$list"
done
