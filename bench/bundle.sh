#!/usr/bin/env bash
# bench/bundle.sh: what `scan --bundle` costs on hosts that flood near the
# output caps (issue 24): every host of the in-process lab (benchtool lab,
# its own process) answers each esxcli command with --flood bytes of
# --fill (text: lines of plain words; continuation: one value continued
# by indented lines; identifiers: lines full of what
# redaction replaces). For each size, three scans of the same lab: without
# a bundle, with --no-redact, with a redacted bundle; each timed by
# /usr/bin/time (wall seconds, CPU seconds user+system, peak RSS). "held"
# is the output the scan holds: the bytes of the hosts/ files of the
# unredacted bundle. The bundle's throughput is held / (time with the
# bundle - time without), in wall time and in CPU time (on a shared,
# loaded machine the CPU figure is the stable one).
#
#   bench/bundle.sh                          10 and 30 hosts, 3.5 MiB, text
#   bench/bundle.sh --sizes "10 30 70" --fill identifiers --bin PATH
#   bench/bundle.sh --sizes 70 --modes "none no-redact"   (held needs no-redact)
#
# Prints one TSV row per scan (hosts, fill, mode, wall_s, cpu_s, maxrss_mb,
# held_mb, bundle_mb, MB/s of held output through the bundle writer, wall
# and CPU).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SIZES="10 30"
FLOOD=3670016 # 3.5 MiB: under the 4 MiB command cap; 4 commands reach the 16 MiB host cap
FILL=text
BIN=""
MODES="none redacted no-redact"
while [ $# -gt 0 ]; do
  case "$1" in
    --sizes) SIZES="$2"; shift ;;
    --flood) FLOOD="$2"; shift ;;
    --fill) FILL="$2"; shift ;;
    --bin) BIN="$2"; shift ;;
    --modes) MODES="$2"; shift ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
[ -x /usr/bin/time ] || { echo "bench/bundle.sh: needs /usr/bin/time (Debian package time)" >&2; exit 1; }

W=$(mktemp -d /tmp/pvbundle.XXXXXX)
LABPID=""
cleanup() {
  [ -n "$LABPID" ] && kill "$LABPID" 2>/dev/null && wait "$LABPID" 2>/dev/null
  rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

(cd "$ROOT" && go build -o "$W/benchtool" ./bench/benchtool)
if [ -z "$BIN" ]; then
  (cd "$ROOT" && go build -o "$W/pvrdma-doctor" ./cmd/pvrdma-doctor)
  BIN="$W/pvrdma-doctor"
fi

printf 'hosts\tfill\tmode\twall_s\tcpu_s\tmaxrss_mb\theld_mb\tbundle_mb\tMB_per_s_wall\tMB_per_s_cpu\n'
for n in $SIZES; do
  d="$W/lab$n"; mkdir -p "$d"
  "$W/benchtool" lab -n "$n" -flood "$FLOOD" -fill "$FILL" -out "$d" &
  LABPID=$!
  for _ in $(seq 300); do [ -f "$d/ready" ] && break; sleep 0.1; done
  [ -f "$d/ready" ] || { echo "lab of $n hosts not ready" >&2; exit 1; }
  held=""; base=""; basecpu=""
  for mode in none no-redact redacted; do
    case " $MODES " in *" $mode "*) ;; *) continue ;; esac
    extra=()
    rm -f "$d"/b.tar.gz*
    case "$mode" in
      redacted) extra=(--bundle "$d/b.tar.gz") ;;
      no-redact) extra=(--bundle "$d/b.tar.gz" --no-redact) ;;
    esac
    rc=0
    PW=$(cat "$d/password") /usr/bin/time -f '%e %U %S %M' -o "$d/time" "$BIN" scan --hosts-file "$d/hosts" \
      --known-hosts "$d/known_hosts" --password-env PW --no-probes --output json "${extra[@]}" \
      > "$d/report.json" 2> "$d/stderr" || rc=$?
    if [ "$rc" != 0 ] && [ "$rc" != 3 ] && [ "$rc" != 4 ] && [ "$rc" != 5 ]; then
      echo "scan of $n hosts ($mode): exit $rc" >&2; tail -5 "$d/stderr" >&2; exit 1
    fi
    read -r wall usr sys rss < <(tail -1 "$d/time")
    cpu=$(python3 -c "print('%.2f' % ($usr+$sys))")
    bmb="-"
    if [ -f "$d/b.tar.gz" ]; then
      bmb=$(python3 -c "import os;print('%.1f'%(os.path.getsize('$d/b.tar.gz')/1e6))")
      if [ "$mode" = no-redact ]; then
        held=$(python3 - "$d/b.tar.gz" <<'EOF'
import sys, tarfile
t = tarfile.open(sys.argv[1])
print('%.1f' % (sum(m.size for m in t.getmembers() if m.name.startswith('hosts/')) / 1e6))
EOF
)
      fi
    fi
    [ "$mode" = none ] && base=$wall && basecpu=$cpu
    rate="-"; ratecpu="-"
    if [ "$mode" != none ] && [ -n "$held" ] && [ -n "$base" ]; then
      rate=$(python3 -c "d=$wall-$base; print('%.0f'%($held/d) if d>0.05 else 'inf')")
      ratecpu=$(python3 -c "d=$cpu-$basecpu; print('%.0f'%($held/d) if d>0.05 else 'inf')")
    fi
    printf '%s\t%s\t%s\t%s\t%s\t%.0f\t%s\t%s\t%s\t%s\n' "$n" "$FILL" "$mode" "$wall" "$cpu" "$(echo "$rss/1024" | bc -l)" "${held:--}" "$bmb" "$rate" "$ratecpu"
  done
  kill "$LABPID"; wait "$LABPID" 2>/dev/null || true; LABPID=""
done
