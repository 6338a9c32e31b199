#!/usr/bin/env bash
# bench/series.sh: the fleet-size series of issue 36, each against the
# in-process lab on loopback (no root, no sshd needed):
#
#   fleet   the faulty fleet (lab serve's default scenario, mixed) beside
#           the healthy one at every lab size: `scan`, `scan --bundle` and
#           `analyze` of that bundle, each timed by /usr/bin/time; CPU per
#           host (user+system / hosts) and peak RSS per host
#   alloc   allocated bytes per host and CPU per host of the analysis of
#           both fleets (go test -bench AnalyzeFleets: the process-wide
#           allocation counter, which the CLI does not print)
#   tui     the same scan of the faulty fleet in the TUI, driven by tmux
#           (a 120x40 pane): wall time until the header shows the fleet
#           verdict, CPU of the whole session, and how long q takes to exit
#   cap     the 10-host near-cap bundle: hosts answering every esxcli
#           command with 3.5 MiB (under the 4 MiB output cap), scanned
#           without and with a redacted bundle (bench/bundle.sh), once
#           with lines of text and once with one value continued by
#           indented lines (the record parsers' worst input)
#
#   bench/series.sh --sizes "10 100 1000" --runs 3 --out-dir DIR
#   bench/series.sh --sizes 10 --runs 1 --cap-hosts 2     (a quick check)
#
# Options: --sizes "10 100 1000"   lab sizes of the fleet and tui series
#          --runs N               timed runs per size and mode (medians)
#          --series "fleet alloc tui cap"
#          --cap-hosts N          hosts of the near-cap bundle (10)
#          --cap-fills "text continuation"   what the near-cap hosts send
#          --rtt 5ms --cmd-latency 20ms   the lab's simulated latency
#          --bin PATH             pvrdma-doctor binary (default: built)
#          --out-dir DIR          where the TSVs and series.md go (default
#                                 a temp dir, printed)
# Writes DIR/fleet.tsv, alloc.txt, tui.tsv, cap.tsv and series.md (the
# tables RESULTS.md includes; run.sh calls this script and appends them).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SIZES="10 100 1000"
RUNS=3
SERIES="fleet alloc tui cap"
CAP_HOSTS=10
CAP_FILLS="text continuation"
RTT=5ms
CMD_LAT=20ms
BIN=""
OUTD=""
while [ $# -gt 0 ]; do
  case "$1" in
    --sizes) SIZES="$2"; shift ;;
    --runs) RUNS="$2"; shift ;;
    --series) SERIES="$2"; shift ;;
    --cap-hosts) CAP_HOSTS="$2"; shift ;;
    --cap-fills) CAP_FILLS="$2"; shift ;;
    --rtt) RTT="$2"; shift ;;
    --cmd-latency) CMD_LAT="$2"; shift ;;
    --bin) BIN="$2"; shift ;;
    --out-dir) OUTD="$2"; shift ;;
    -h|--help) sed -n '2,32p' "$0"; exit 0 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
want() { case " $SERIES " in *" $1 "*) return 0 ;; esac; return 1; }
[ -x /usr/bin/time ] || { echo "bench/series.sh: needs /usr/bin/time (Debian package time)" >&2; exit 1; }
command -v python3 >/dev/null || { echo "bench/series.sh: needs python3" >&2; exit 1; }

W=$(mktemp -d /tmp/pvseries.XXXXXX)
[ -n "$OUTD" ] || OUTD="$W/out"
mkdir -p "$OUTD"
LABPID="" TMUXSOCK="pvseries-$$"
cleanup() {
  set +e
  [ -n "$LABPID" ] && kill "$LABPID" 2>/dev/null && wait "$LABPID" 2>/dev/null
  command -v tmux >/dev/null && tmux -L "$TMUXSOCK" kill-server 2>/dev/null
  rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
log() { printf '[series %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

if [ -z "$BIN" ]; then
  (cd "$ROOT" && go build -o "$W/pvrdma-doctor" ./cmd/pvrdma-doctor)
  BIN="$W/pvrdma-doctor"
fi

collected() { # REPORT.json: hosts reported as collected
  python3 -c 'import json,sys
try: r=json.load(open(sys.argv[1]))
except Exception: print(0); sys.exit()
print(sum(1 for h in r.get("hosts") or [] if h.get("status")=="collected"))' "$1"
}
ok_exit() { case "$1" in 0|3|4|5) return 0 ;; esac; return 1; }

serve() { # scenario n dir: starts lab serve, waits for its hosts
  local sc=$1 n=$2 d=$3
  mkdir -p "$d"; printf 'series%s' "$$" > "$d/password"
  "$BIN" lab serve --scenario "$sc" --hosts "$n" --rtt "$RTT" --cmd-latency "$CMD_LAT" --no-vcenter \
    --password "$(cat "$d/password")" --out-dir "$d" > "$d/serve.log" 2>&1 &
  LABPID=$!
  for _ in $(seq 1200); do
    [ -f "$d/known_hosts" ] && [ "$(grep -vc '^#' "$d/known_hosts" 2>/dev/null)" -ge "$n" ] && return 0
    sleep 0.1
  done
  echo "lab of $n $sc hosts not ready" >&2; cat "$d/serve.log" >&2; exit 1
}
unserve() { [ -n "$LABPID" ] && { kill "$LABPID"; wait "$LABPID" 2>/dev/null || true; LABPID=""; }; }
scan_cmd() { # dir: the scan command line of the lab in dir (no output flag)
  printf '%q ' "$BIN" scan --hosts-file "$1/hosts.txt" --password-env PVRDMA_SERIES_PW --known-hosts "$1/known_hosts" --no-probes
}
row() { # tsv scenario n mode run wall usr sys rss
  python3 -c 'import sys
f,sc,n,mode,run,wall,usr,sys_,rss=sys.argv[1:]
n=int(n); cpu=float(usr)+float(sys_)
open(f,"a").write("%s\t%d\t%s\t%s\t%s\t%.2f\t%.2f\t%.0f\t%.1f\n"%(sc,n,mode,run,wall,cpu,cpu*1000/n,int(rss)/1024,int(rss)/n))' "$@"
}

# ---------------------------------------------------------------- fleet
if want fleet; then
  F="$OUTD/fleet.tsv"
  printf 'scenario\thosts\tmode\trun\twall_s\tcpu_s\tcpu_ms_per_host\tmaxrss_mb\tmaxrss_kb_per_host\n' > "$F"
  for n in $SIZES; do
    for sc in healthy mixed; do
      d="$W/fleet-$sc-$n"; serve "$sc" "$n" "$d"
      for mode in scan bundle; do
        for r in $(seq 1 "$RUNS"); do
          extra=(); rm -f "$d/b.tar.gz" "$d/b.tar.gz.tokens.json"
          [ "$mode" = bundle ] && extra=(--bundle "$d/b.tar.gz")
          rc=0
          PVRDMA_SERIES_PW=$(cat "$d/password") /usr/bin/time -f '%e %U %S %M' -o "$d/time" \
            $(scan_cmd "$d") --output json "${extra[@]}" > "$d/report.json" 2> "$d/stderr" || rc=$?
          if ! ok_exit "$rc" || [ "$(collected "$d/report.json")" != "$n" ]; then
            echo "$mode of $n $sc hosts: exit $rc, $(collected "$d/report.json") collected" >&2; tail -3 "$d/stderr" >&2; exit 1
          fi
          read -r wall usr sys rss < <(tail -1 "$d/time")
          row "$F" "$sc" "$n" "$mode" "$r" "$wall" "$usr" "$sys" "$rss"
          log "$sc n=$n $mode run $r: ${wall}s wall, ${usr}+${sys}s cpu"
        done
      done
      unserve
      for r in $(seq 1 "$RUNS"); do
        rc=0
        /usr/bin/time -f '%e %U %S %M' -o "$d/time" "$BIN" analyze "$d/b.tar.gz" --output json > "$d/analyze.json" 2> "$d/analyze.err" || rc=$?
        if ! ok_exit "$rc" || [ "$(collected "$d/analyze.json")" != "$n" ]; then
          echo "analyze of the $n-host $sc bundle: exit $rc" >&2; head -3 "$d/analyze.err" >&2; exit 1
        fi
        read -r wall usr sys rss < <(tail -1 "$d/time")
        row "$F" "$sc" "$n" analyze "$r" "$wall" "$usr" "$sys" "$rss"
        log "$sc n=$n analyze run $r: ${wall}s wall, ${usr}+${sys}s cpu"
      done
      rm -rf "$d"
    done
  done
fi

# ---------------------------------------------------------------- alloc
if want alloc; then
  log "go test -bench AnalyzeFleets (healthy and mixed, 100 and 1,000 hosts)"
  (cd "$ROOT" && go test -run '^$' -bench 'AnalyzeFleets' -benchtime 1x -count "$RUNS" ./bench/) > "$OUTD/alloc.txt" 2>&1 ||
    { cat "$OUTD/alloc.txt" >&2; exit 1; }
fi

# ---------------------------------------------------------------- tui
if want tui; then
  command -v tmux >/dev/null || { echo "bench/series.sh: the tui series needs tmux" >&2; exit 1; }
  T="$OUTD/tui.tsv"
  printf 'scenario\thosts\trun\tverdict_s\tcpu_s\tcpu_ms_per_host\tquit_s\n' > "$T"
  now() { python3 -c 'import time; print("%.3f" % time.time())'; }
  for n in $SIZES; do
    d="$W/tui-$n"; serve mixed "$n" "$d"
    for r in $(seq 1 "$RUNS"); do
      rm -f "$d/time" "$d/exited" "$d/pane" "$d/go"; mkfifo "$d/go"
      cmd="PVRDMA_SERIES_PW=$(cat "$d/password") /usr/bin/time -f '%e %U %S %M' -o $d/time $(scan_cmd "$d") 2>$d/stderr; touch $d/exited"
      # The session waits on a FIFO until its output is piped to a file:
      # the verdict is then watched for in that file (grep, every 50 ms),
      # not with tmux capture-pane, whose client processes took a tenth of
      # a core from a scan that is CPU-bound on 2 cores.
      tmux -L "$TMUXSOCK" -f /dev/null new-session -d -s s -x 120 -y 40 "cat $d/go >/dev/null; $cmd"
      tmux -L "$TMUXSOCK" pipe-pane -t s -o "cat >> $d/pane"
      t0=$(now)
      echo go > "$d/go"
      verdict=""
      for _ in $(seq 12000); do # 10 minutes at most
        # The header (first lines) shows the fleet verdict only once the
        # analysis of every host ended (tui/page_overview.go): seen in the
        # terminal's byte stream, then confirmed on the screen.
        if grep -aqE 'PVRDMA is|scan is INCOMPLETE|nothing was checked' "$d/pane" 2>/dev/null; then
          v=$(now)
          if tmux -L "$TMUXSOCK" capture-pane -p -t s 2>/dev/null | head -4 | grep -Eq 'PVRDMA is|scan is INCOMPLETE|nothing was checked'; then
            verdict=$v; break
          fi
        fi
        [ -f "$d/exited" ] && break
        sleep 0.05
      done
      [ -n "$verdict" ] || { echo "tui of $n hosts: no verdict on screen" >&2; tmux -L "$TMUXSOCK" capture-pane -p -t s >&2 || true; exit 1; }
      q0=$(now)
      tmux -L "$TMUXSOCK" send-keys -t s q
      for _ in $(seq 600); do [ -f "$d/exited" ] && break; sleep 0.02; done
      [ -f "$d/exited" ] || { echo "tui of $n hosts: q did not exit within 12 s" >&2; exit 1; }
      q1=$(now)
      tmux -L "$TMUXSOCK" kill-server 2>/dev/null || true
      read -r _ usr sys _ < <(tail -1 "$d/time")
      python3 -c 'import sys
f,n,r,t0,v,q0,q1,usr,sys_=sys.argv[1:]
n=int(n); cpu=float(usr)+float(sys_)
open(f,"a").write("mixed\t%d\t%s\t%.2f\t%.2f\t%.2f\t%.3f\n"%(n,r,float(v)-float(t0),cpu,cpu*1000/n,float(q1)-float(q0)))' \
        "$T" "$n" "$r" "$t0" "$verdict" "$q0" "$q1" "$usr" "$sys"
      log "tui n=$n run $r: $(tail -1 "$T" | cut -f4-7 | tr '\t' ' ') (verdict s, cpu s, cpu ms/host, quit s)"
    done
    unserve
  done
fi

# ---------------------------------------------------------------- cap
if want cap; then
  : > "$OUTD/cap.tsv"
  for fill in $CAP_FILLS; do
    log "near-cap bundle of $CAP_HOSTS hosts, $fill (bench/bundle.sh)"
    "$ROOT/bench/bundle.sh" --sizes "$CAP_HOSTS" --fill "$fill" --modes "none redacted" --bin "$BIN" > "$W/cap-$fill.tsv"
    if [ -s "$OUTD/cap.tsv" ]; then tail -n +2 "$W/cap-$fill.tsv" >> "$OUTD/cap.tsv"; else cat "$W/cap-$fill.tsv" > "$OUTD/cap.tsv"; fi
  done
fi

# ---------------------------------------------------------------- tables
python3 - "$OUTD" <<'EOF' > "$OUTD/series.md"
import csv, os, re, statistics, sys
d = sys.argv[1]
def rows(name):
    p = os.path.join(d, name)
    if not os.path.exists(p):
        return []
    with open(p) as f:
        return list(csv.DictReader(f, delimiter="\t"))
def med(xs):
    return statistics.median(float(x) for x in xs)
out = []
fl = rows("fleet.tsv")
if fl:
    out += ["### Faulty fleet beside the healthy one (lab serve, medians)", "",
            "| hosts | mode | healthy wall s | faulty wall s | faulty/healthy | healthy CPU ms/host | faulty CPU ms/host | healthy peak RSS KB/host | faulty peak RSS KB/host |",
            "|---:|---|---:|---:|---:|---:|---:|---:|---:|"]
    keys = sorted({(int(r["hosts"]), r["mode"]) for r in fl}, key=lambda k: (k[0], ["scan", "bundle", "analyze"].index(k[1])))
    for n, mode in keys:
        g = {sc: [r for r in fl if int(r["hosts"]) == n and r["mode"] == mode and r["scenario"] == sc] for sc in ("healthy", "mixed")}
        if not g["healthy"] or not g["mixed"]:
            continue
        hw, fw = med(r["wall_s"] for r in g["healthy"]), med(r["wall_s"] for r in g["mixed"])
        out.append("| %d | %s | %.2f | %.2f | %.2fx | %.2f | %.2f | %.0f | %.0f |" % (
            n, "scan --bundle" if mode == "bundle" else mode, hw, fw, fw / hw if hw else 0,
            med(r["cpu_ms_per_host"] for r in g["healthy"]), med(r["cpu_ms_per_host"] for r in g["mixed"]),
            med(r["maxrss_kb_per_host"] for r in g["healthy"]), med(r["maxrss_kb_per_host"] for r in g["mixed"])))
    out.append("")
al = os.path.join(d, "alloc.txt")
if os.path.exists(al):
    got = {}
    for line in open(al):
        m = re.match(r"BenchmarkAnalyzeFleets/(\w+)/(\d+)\S*\s.*?([\d.]+) B/host\s+([\d.]+) CPU-µs/host", line)
        if m:
            got.setdefault((m[1], int(m[2])), []).append((float(m[3]), float(m[4])))
    if got:
        out += ["### Analysis: allocated bytes and CPU per host (BenchmarkAnalyzeFleets, medians)", "",
                "| fleet | hosts | allocated KB/host | CPU µs/host |", "|---|---:|---:|---:|"]
        for (sc, n), v in sorted(got.items()):
            out.append("| %s | %d | %.0f | %.0f |" % ("faulty (mixed)" if sc == "mixed" else sc, n,
                       statistics.median(x[0] for x in v) / 1024, statistics.median(x[1] for x in v)))
        out.append("")
tu = rows("tui.tsv")
if tu:
    out += ["### TUI (tmux, faulty fleet, medians)", "",
            "| hosts | wall s to the verdict | CPU s | CPU ms/host | q to exit s |", "|---:|---:|---:|---:|---:|"]
    for n in sorted({int(r["hosts"]) for r in tu}):
        g = [r for r in tu if int(r["hosts"]) == n]
        out.append("| %d | %.2f | %.2f | %.2f | %.3f |" % (n, med(r["verdict_s"] for r in g), med(r["cpu_s"] for r in g),
                   med(r["cpu_ms_per_host"] for r in g), med(r["quit_s"] for r in g)))
    out.append("")
cp = rows("cap.tsv")
if cp:
    out += ["### Near-cap bundle (every esxcli command answers 3.5 MiB)", "",
            "| hosts | output | mode | wall s | CPU s | peak RSS MB | bundle MB |", "|---:|---|---|---:|---:|---:|---:|"]
    for r in cp:
        out.append("| %s | %s | %s | %s | %s | %s | %s |" % (r["hosts"], r["fill"], r["mode"], r["wall_s"], r["cpu_s"], r["maxrss_mb"], r["bundle_mb"]))
    out.append("")
print("\n".join(out))
EOF
log "wrote $OUTD (series.md, the TSVs)"
if [ "$OUTD" = "$W/out" ]; then cat "$OUTD/series.md"; fi
