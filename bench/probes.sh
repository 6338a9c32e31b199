#!/usr/bin/env bash
# bench/probes.sh: what the stage-3 path probes cost. Scans `pvrdma-doctor
# lab serve --scenario healthy --hosts N --rtt 5ms --cmd-latency 20ms` (the
# settings of RESULTS.md series 2) with --probe-waits (vmkping takes as long
# as on a real host: its packets' interval, round trips and -W waits) with
# two builds: this tree and a base commit (default main), each with
# --no-probes (the series-2 scan) and with its default probes. Prints a
# markdown table of median wall times.
#
# With --bad-port HOST=MTU (repeatable) the lab's modelled network carries
# only MTU-byte frames through that host's switch port: its pairs are
# searched (the rounds of this tree against the base's search).
#
#   bench/probes.sh [--base REV] [--sizes "20 100"] [--runs 5] [--bad-port esx0002=4321]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BASE=main
SIZES="20 100"
RUNS=5
BAD=()
while [ $# -gt 0 ]; do
  case "$1" in
    --base) BASE="$2"; shift ;;
    --bad-port) BAD+=(--bad-port "$2"); shift ;;
    --sizes) SIZES="$2"; shift ;;
    --runs) RUNS="$2"; shift ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
W=$(mktemp -d /tmp/pvprobes.XXXXXX)
LAB_PID=""
cleanup() { [ -n "$LAB_PID" ] && kill "$LAB_PID" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$W"; }
trap cleanup EXIT
log() { printf '[probes %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

log "building this tree and $BASE"
(cd "$ROOT" && go build -o "$W/new" ./cmd/pvrdma-doctor)
mkdir -p "$W/base-src"
(cd "$ROOT" && git archive "$BASE") | tar -x -C "$W/base-src"
(cd "$W/base-src" && go build -o "$W/old" ./cmd/pvrdma-doctor)

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

echo "| hosts | build | probes | wall (s), median of $RUNS (min-max) | probe commands per host |"
echo "|---:|---|---|---:|---:|"
for n in $SIZES; do
  d="$W/lab-$n"; mkdir -p "$d"
  pw="probes$$"
  "$W/new" lab serve --scenario healthy --hosts "$n" --rtt 5ms --cmd-latency 20ms --probe-waits "${BAD[@]}" \
    --no-vcenter --password "$pw" --out-dir "$d" > "$d/serve.log" 2>&1 &
  LAB_PID=$!
  for _ in $(seq 600); do
    [ -f "$d/known_hosts" ] && [ "$(grep -vc '^#' "$d/known_hosts")" -ge "$n" ] && break
    sleep 0.1
  done
  # The builds and modes alternate run by run (the machine's load moves
  # between minutes): medians and the spread (min-max) of RUNS each.
  for r in $(seq "$RUNS"); do
    for build in old new; do
      for probes in ${PROBE_MODES:-off default}; do
        flags=(--output json)
        [ "$probes" = off ] && flags+=(--no-probes)
        [ "$r" = 1 ] && : > "$d/times-$build-$probes"
        start=$(date +%s.%N)
        PW="$pw" "$W/$build" scan --hosts-file "$d/hosts.txt" --known-hosts "$d/known_hosts" --password-env PW \
          "${flags[@]}" > "$d/report-$build-$probes.json" 2> "$d/stderr" || true
        end=$(date +%s.%N)
        echo "$end - $start" | bc >> "$d/times-$build-$probes"
      done
    done
  done
  for build in old new; do
    for probes in ${PROBE_MODES:-off default}; do
      per=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); h=r["hosts"]; print(round(sum(sum(1 for c in x.get("commands",[]) if c["command"].startswith("vmkping")) for x in h)/len(h),1))' "$d/report-$build-$probes.json")
      label=$build; [ "$build" = old ] && label="$BASE"
      [ "$build" = new ] && label="this tree"
      t="$d/times-$build-$probes"
      printf '| %s | %s | %s | %.2f (%.2f-%.2f) | %s |\n' "$n" "$label" "$probes" "$(median < "$t")" "$(sort -n "$t" | head -1)" "$(sort -n "$t" | tail -1)" "$per"
    done
  done
  kill "$LAB_PID"; wait "$LAB_PID" 2>/dev/null || true; LAB_PID=""
done
