#!/usr/bin/env bash
# bench/interleave.sh: the fleet-size series (bench/series.sh) of two
# builds on one machine, interleaved: for each size and run, the previous
# build, then this one, so both see the same load. Prints a Markdown
# comparison (previous against now) and keeps the TSVs.
#
#   bench/interleave.sh --prev 5e74f0e --out-dir /tmp/inter
#   bench/interleave.sh --prev HEAD~3 --sizes 100 --tui-sizes "" --runs 1 --cap-fills ""
#
# Options: --prev REV                 the previous build (a commit; built from a
#                                     temporary git worktree)
#          --sizes "100 200 1000"     lab sizes of the fleet series
#          --tui-sizes "200"          lab sizes of the TUI series ("" skips it)
#          --runs 3                   runs per size, alternated between builds
#          --cap-hosts 10 --cap-fills "text continuation"   the near-cap bundle
#                                     (one run per build; "" skips it)
#          --out-dir DIR              TSVs and compare.md (default a temp dir)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
PREV=""
SIZES="100 200 1000"
TUI_SIZES="200"
RUNS=3
CAP_HOSTS=10
CAP_FILLS="text continuation"
OUTD=""
while [ $# -gt 0 ]; do
  case "$1" in
    --prev) PREV="$2"; shift ;;
    --sizes) SIZES="$2"; shift ;;
    --tui-sizes) TUI_SIZES="$2"; shift ;;
    --runs) RUNS="$2"; shift ;;
    --cap-hosts) CAP_HOSTS="$2"; shift ;;
    --cap-fills) CAP_FILLS="$2"; shift ;;
    --out-dir) OUTD="$2"; shift ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
[ -n "$PREV" ] || { echo "bench/interleave.sh: --prev REV is required" >&2; exit 2; }

W=$(mktemp -d /tmp/pvinter.XXXXXX)
[ -n "$OUTD" ] || OUTD="$W/out"
mkdir -p "$OUTD"
cleanup() {
  set +e
  git -C "$ROOT" worktree remove --force "$W/prev-src" 2>/dev/null
  rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
log() { printf '[interleave %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

PREV_ID=$(git -C "$ROOT" rev-parse --short "$PREV")
NOW_ID=$(git -C "$ROOT" rev-parse --short HEAD)
git -C "$ROOT" worktree add -q --detach "$W/prev-src" "$PREV_ID"
(cd "$W/prev-src" && go build -o "$W/prev" ./cmd/pvrdma-doctor)
(cd "$ROOT" && go build -o "$W/now" ./cmd/pvrdma-doctor)
printf 'previous\t%s\nnow\t%s\n' "$PREV_ID" "$NOW_ID" > "$OUTD/builds.tsv"
if [ -n "$(git -C "$ROOT" status --porcelain --untracked-files=no)" ]; then
  printf 'now-dirty\tyes\n' >> "$OUTD/builds.tsv"
fi

# each TSV of series.sh, with the build in front of every row
gather() { # build name file
  local b=$1 name=$2 f=$3
  [ -s "$f" ] || return 0
  if [ ! -s "$OUTD/$name" ]; then printf 'build\t%s\n' "$(head -1 "$f")" > "$OUTD/$name"; fi
  tail -n +2 "$f" | sed "s/^/$b\t/" >> "$OUTD/$name"
}
series() { # build out-subdir series sizes [extra]
  local b=$1 sub=$2 what=$3 sizes=$4; shift 4
  "$ROOT/bench/series.sh" --bin "$W/$b" --sizes "$sizes" --runs 1 --series "$what" --out-dir "$W/$b-$sub" "$@"
}

LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
for n in $SIZES; do
  for r in $(seq 1 "$RUNS"); do
    for b in prev now; do
      log "fleet n=$n run $r: $b"
      series "$b" "fleet-$n-$r" fleet "$n"
      gather "$b" fleet.tsv "$W/$b-fleet-$n-$r/fleet.tsv"
    done
  done
done
for n in $TUI_SIZES; do
  for r in $(seq 1 "$RUNS"); do
    for b in prev now; do
      log "tui n=$n run $r: $b"
      series "$b" "tui-$n-$r" tui "$n"
      gather "$b" tui.tsv "$W/$b-tui-$n-$r/tui.tsv"
    done
  done
done
if [ -n "$CAP_FILLS" ]; then
  for b in prev now; do
    log "near-cap bundle, $CAP_HOSTS hosts: $b"
    series "$b" cap cap 1 --cap-hosts "$CAP_HOSTS" --cap-fills "$CAP_FILLS"
    gather "$b" cap.tsv "$W/$b-cap/cap.tsv"
  done
fi
printf 'start\t%s\nend\t%s\n' "$LOAD_START" "$(cut -d' ' -f1-3 /proc/loadavg)" > "$OUTD/load.tsv"

python3 - "$OUTD" <<'EOF' > "$OUTD/compare.md"
import csv, os, statistics, sys
d = sys.argv[1]
def rows(name):
    p = os.path.join(d, name)
    if not os.path.exists(p):
        return []
    with open(p) as f:
        return list(csv.DictReader(f, delimiter="\t"))
def med(rs, k):
    xs = [float(r[k]) for r in rs]
    return statistics.median(xs) if xs else float("nan")
builds = dict(l.rstrip("\n").split("\t") for l in open(os.path.join(d, "builds.tsv")))
load = dict(l.rstrip("\n").split("\t") for l in open(os.path.join(d, "load.tsv")))
out = ["Previous = `%s`, now = `%s`%s; alternated run by run on one machine (load average %s at the start, %s at the end)." % (
    builds["previous"], builds["now"], " (with uncommitted changes)" if "now-dirty" in builds else "", load["start"], load["end"]), ""]
fl = rows("fleet.tsv")
if fl:
    out += ["#### Faulty fleet beside the healthy one (medians)", "",
            "| hosts | mode | build | healthy wall s | faulty wall s | faulty/healthy | healthy CPU ms/host | faulty CPU ms/host | faulty peak RSS KB/host |",
            "|---:|---|---|---:|---:|---:|---:|---:|---:|"]
    keys = sorted({(int(r["hosts"]), r["mode"]) for r in fl}, key=lambda k: (k[0], ["scan", "bundle", "analyze"].index(k[1])))
    for n, mode in keys:
        for b in ("prev", "now"):
            g = {sc: [r for r in fl if r["build"] == b and int(r["hosts"]) == n and r["mode"] == mode and r["scenario"] == sc] for sc in ("healthy", "mixed")}
            if not g["healthy"] or not g["mixed"]:
                continue
            hw, fw = med(g["healthy"], "wall_s"), med(g["mixed"], "wall_s")
            out.append("| %d | %s | %s | %.2f | %.2f | %.2fx | %.2f | %.2f | %.0f |" % (
                n, "scan --bundle" if mode == "bundle" else mode, "previous" if b == "prev" else "**now**", hw, fw, fw / hw if hw else 0,
                med(g["healthy"], "cpu_ms_per_host"), med(g["mixed"], "cpu_ms_per_host"), med(g["mixed"], "maxrss_kb_per_host")))
    out.append("")
tu = rows("tui.tsv")
if tu:
    out += ["#### TUI against the piped scan (faulty fleet, medians)", "",
            "| hosts | build | piped scan wall s | TUI wall s to the verdict | TUI/piped | piped CPU s | TUI CPU s | q to exit s |",
            "|---:|---|---:|---:|---:|---:|---:|---:|"]
    for n in sorted({int(r["hosts"]) for r in tu}):
        for b in ("prev", "now"):
            g = [r for r in tu if r["build"] == b and int(r["hosts"]) == n]
            p = [r for r in fl if r["build"] == b and int(r["hosts"]) == n and r["mode"] == "scan" and r["scenario"] == "mixed"]
            if not g:
                continue
            pw = med(p, "wall_s") if p else float("nan")
            out.append("| %d | %s | %.2f | %.2f | %.2fx | %.2f | %.2f | %.3f |" % (
                n, "previous" if b == "prev" else "**now**", pw, med(g, "verdict_s"), med(g, "verdict_s") / pw if p else float("nan"),
                med(p, "cpu_s") if p else float("nan"), med(g, "cpu_s"), med(g, "quit_s")))
    out.append("")
cp = rows("cap.tsv")
if cp:
    out += ["#### Near-cap bundle (every esxcli command answers 3.5 MiB; one run each)", "",
            "| hosts | output | mode | build | wall s | CPU s | peak RSS MB | bundle MB |", "|---:|---|---|---|---:|---:|---:|---:|"]
    for r in sorted(cp, key=lambda r: (r["fill"], r["mode"], r["build"] != "prev")):
        out.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (r["hosts"], r["fill"], r["mode"],
                   "previous" if r["build"] == "prev" else "**now**", r["wall_s"], r["cpu_s"], r["maxrss_mb"], r["bundle_mb"]))
    out.append("")
print("\n".join(out))
EOF
log "wrote $OUTD (compare.md, the TSVs)"
if [ "$OUTD" = "$W/out" ]; then cat "$OUTD/compare.md"; fi
