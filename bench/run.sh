#!/usr/bin/env bash
# bench/run.sh: scan speed of pvrdma-doctor side by side with the tools
# admins use today, against real OpenSSH sshd hosts, plus pvrdma-doctor's
# scaling series against the in-process lab. Writes bench/RESULTS.md and
# bench/scan-time.png / .svg (see bench/README section in RESULTS.md).
#
#   bench/run.sh            full run (about 15 minutes on 2 cores)
#   bench/run.sh --smoke    3 hosts, 1 run, each tool once; writes to a temp
#                           dir, not to bench/ (what CI may call)
# Options: --sizes "10 20 50 100" --lab-sizes "10 30 100 300 1000"
#          --runs 5 --seq-runs 3 --rtt 5ms --cmd-latency 20ms --out FILE --keep
#
# Needs root for the network namespaces and the unprivileged sshd user;
# without root it falls back to loopback (and says so in the results).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SMOKE=0
SIZES="10 20 50 100"
LAB_SIZES="10 30 100 300 1000"
RUNS=5
SEQ_RUNS=3       # the sequential loop is slow: fewer runs, 1 run above SEQ_MAX_FULL hosts,
SEQ_MAX_FULL=10  # none above SEQ_MAX hosts (about 0.25 s per command per host here)
SEQ_MAX=20
LAB_RUNS=5
RTT=5ms
CMD_LAT=20ms
OUT="$ROOT/bench/RESULTS.md"
KEEP=0
while [ $# -gt 0 ]; do
  case "$1" in
    --smoke) SMOKE=1 ;;
    --sizes) SIZES="$2"; shift ;;
    --lab-sizes) LAB_SIZES="$2"; shift ;;
    --runs) RUNS="$2"; shift ;;
    --seq-runs) SEQ_RUNS="$2"; shift ;;
    --lab-runs) LAB_RUNS="$2"; shift ;;
    --rtt) RTT="$2"; shift ;;
    --cmd-latency) CMD_LAT="$2"; shift ;;
    --out) OUT="$2"; shift ;;
    --keep) KEEP=1 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
W=$(mktemp -d /tmp/pvbench.XXXXXX)
chmod 755 "$W"
if [ "$SMOKE" = 1 ]; then
  SIZES=3; LAB_SIZES=3; RUNS=1; SEQ_RUNS=1; LAB_RUNS=1
  OUT="$W/RESULTS.md"
fi
CHART_DIR=$(dirname "$OUT")
log() { printf '[bench %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

# ---------------------------------------------------------------- deps
need=()
have() { command -v "$1" >/dev/null 2>&1; }
have sshd || [ -x /usr/sbin/sshd ] || need+=(openssh-server)
have ssh || need+=(openssh-client)
have ssh-keygen || need+=(openssh-client)
have parallel-ssh || need+=(pssh)
have ansible || need+=(ansible)
[ -x /usr/bin/time ] || need+=(time)
have ip || need+=(iproute2)
have gnuplot || need+=(gnuplot-nox)
have python3 || need+=(python3)
have go || { echo "bench: go is required" >&2; exit 1; }
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then echo "bench: missing ${need[*]} and not root to install them" >&2; exit 1; fi
  log "installing ${need[*]}"
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
SSHD=$(command -v sshd || echo /usr/sbin/sshd)

# ---------------------------------------------------------------- cleanup
NSH="" NSC=""
cleanup() {
  set +e
  for pf in "$W"/pids/*; do [ -f "$pf" ] && kill "$(cat "$pf")" 2>/dev/null; done
  for pf in "$W"/h/*/sshd.pid; do [ -f "$pf" ] && kill "$(cat "$pf")" 2>/dev/null; done
  sleep 0.3
  [ -n "$NSH" ] && ip netns del "$NSH" 2>/dev/null
  [ -n "$NSC" ] && ip netns del "$NSC" 2>/dev/null
  if [ "$KEEP" = 1 ]; then log "kept $W"; else rm -rf "$W"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir -p "$W/pids" "$W/bin" "$W/data" "$W/out"

# ---------------------------------------------------------------- build
log "building pvrdma-doctor and benchtool"
(cd "$ROOT" && go build -o "$W/bin/pvrdma-doctor" ./cmd/pvrdma-doctor && go build -o "$W/bin/benchtool" ./bench/benchtool)
PD="$W/bin/pvrdma-doctor"
BT="$W/bin/benchtool"

# ---------------------------------------------------------------- network
IN_H=() IN_C=()
NETMODE="loopback (127.0.0.1)"
HADDR=127.0.0.1
if [ "$(id -u)" = 0 ] && ip netns add "pvbh$$" 2>/dev/null; then
  NSH="pvbh$$"; NSC="pvbc$$"
  ip netns add "$NSC"
  ip link add "pvbh$$" netns "$NSH" type veth peer name "pvbc$$" netns "$NSC"
  ip -n "$NSH" addr add 10.200.0.2/24 dev "pvbh$$"
  ip -n "$NSC" addr add 10.200.0.1/24 dev "pvbc$$"
  for ns in "$NSH" "$NSC"; do ip -n "$ns" link set lo up; done
  ip -n "$NSH" link set "pvbh$$" up
  ip -n "$NSC" link set "pvbc$$" up
  IN_H=(ip netns exec "$NSH"); IN_C=(ip netns exec "$NSC")
  HADDR=10.200.0.2
  NETMODE="two network namespaces joined by a veth pair (clients 10.200.0.1, hosts 10.200.0.2)"
  if ip netns exec "$NSH" tc qdisc add dev "pvbh$$" root netem delay 1ms 2>/dev/null; then
    ip netns exec "$NSH" tc qdisc del dev "pvbh$$" root
    NETEM="available (not used: the delay proxy below is used for every tool alike)"
  else
    NETEM="not available in this kernel (CONFIG_NET_SCH_NETEM off)"
  fi
else
  NETEM="not tried (no root or no netns)"
fi

# ---------------------------------------------------------------- hosts
if [ "$(id -u)" = 0 ]; then
  HUSER=pvrdma-bench
  if ! id "$HUSER" >/dev/null 2>&1; then
    useradd --system --create-home --home-dir /var/lib/pvrdma-bench --shell /bin/sh "$HUSER"
  fi
  AS_HUSER=(runuser -u "$HUSER" --)
else
  HUSER=$(id -un); AS_HUSER=()
fi
NMAX=0; for n in $SIZES; do [ "$n" -gt "$NMAX" ] && NMAX=$n; done
log "generating $NMAX host folders (fixtures.Fleet of healthy)"
"$BT" hosts -scenario healthy -n "$NMAX" -out "$W/fleet"
mapfile -t NAMES < "$W/fleet/names"
for c in $("$BT" standin-names); do ln -s "$ROOT/fixtures/standin/esxi-command" "$W/bin/$c"; done
chmod -R a+rX "$W/fleet" "$W/bin"
chmod a+rx "$ROOT/fixtures/standin/esxi-command" 2>/dev/null || true
ssh-keygen -q -t ed25519 -N '' -C bench-client -f "$W/client"
cp "$W/client.pub" "$W/authorized_keys"; chmod 644 "$W/authorized_keys"
: > "$W/known_hosts"; : > "$W/proxy.map"
log "starting $NMAX sshd instances ($NETMODE) and the delay proxy (RTT $RTT)"
for i in $(seq 1 "$NMAX"); do
  name=${NAMES[$((i-1))]}; d="$W/h/$i"; mkdir -p "$d"
  ssh-keygen -q -t ed25519 -N '' -C "$name" -f "$d/hostkey"
  cat > "$d/sshd_config" <<EOF
Port $((30000+i))
ListenAddress 127.0.0.1
HostKey $d/hostkey
PidFile $d/sshd.pid
AuthorizedKeysFile $W/authorized_keys
StrictModes no
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
LogLevel VERBOSE
MaxStartups 1000
MaxSessions 10
UseDNS no
PrintMotd no
PrintLastLog no
PermitTTY no
Subsystem sftp internal-sftp
SetEnv PVRDMA_SCENARIO_DIR=$W/fleet/scenario PVRDMA_SCENARIO_HOST=$name PATH=$W/bin:/usr/bin:/bin
EOF
  : > "$d/log"
  [ "$(id -u)" = 0 ] && chown -R "$HUSER" "$d"
  echo "[$HADDR]:$((20000+i)) $(cut -d' ' -f1,2 "$d/hostkey.pub")" >> "$W/known_hosts"
  echo "$HADDR:$((20000+i)) 127.0.0.1:$((30000+i))" >> "$W/proxy.map"
  "${IN_H[@]}" "${AS_HUSER[@]}" "$SSHD" -f "$d/sshd_config" -E "$d/log"
done
"${IN_H[@]}" "$BT" proxy -rtt "$RTT" -map "$W/proxy.map" -ready "$W/proxy.ready" &
echo $! > "$W/pids/proxy"
for _ in $(seq 100); do [ -f "$W/proxy.ready" ] && [ -f "$W/h/$NMAX/sshd.pid" ] && break; sleep 0.1; done
[ -f "$W/proxy.ready" ] || { echo "bench: delay proxy did not start" >&2; exit 1; }

cat > "$W/ssh_config" <<EOF
Host *
  User $HUSER
  IdentityFile $W/client
  IdentitiesOnly yes
  UserKnownHostsFile $W/known_hosts
  GlobalKnownHostsFile /dev/null
  StrictHostKeyChecking yes
  BatchMode yes
  ControlMaster no
  ControlPath none
  LogLevel ERROR
  ConnectTimeout 60
EOF

# ---------------------------------------------------------------- tools
# Each tool script takes N and an output dir; it is timed by /usr/bin/time.
joined() { paste -sd';' "$1" | sed 's/;/ ; /g'; }

cat > "$W/tool-seq.sh" <<EOF
#!/bin/bash
# One ssh per command per host, one host after the other.
n=\$1; out=\$2; i=0
while read -r name; do
  i=\$((i+1)); [ \$i -gt \$n ] && break
  while read -r cmd; do
    ssh -n -F $W/ssh_config -p \$((20000+i)) $HADDR "\$cmd" >> "\$out/\$name.txt" 2>&1 || true
  done < $W/fleet/cmds/\$name
done < $W/fleet/names
EOF

# parallel-ssh: one joined command line per host; hosts with different
# command sets (stage 2 depends on the host) go in separate groups, all
# groups at once.
cat > "$W/tool-pssh.sh" <<EOF
#!/bin/bash
n=\$1; out=\$2; i=0; rm -rf $W/pssh-groups; mkdir -p $W/pssh-groups
while read -r name; do
  i=\$((i+1)); [ \$i -gt \$n ] && break
  g=\$(md5sum < $W/fleet/cmds/\$name | cut -c1-12)
  echo "$HADDR:\$((20000+i))" >> $W/pssh-groups/\$g.hosts
  cp $W/fleet/cmds/\$name $W/pssh-groups/\$g.cmds
done < $W/fleet/names
for h in $W/pssh-groups/*.hosts; do
  g=\${h%.hosts}
  parallel-ssh -h \$h -p \$n -t 300 -x "-F $W/ssh_config" -o "\$out" "\$(paste -sd';' \$g.cmds | sed 's/;/ ; /g')" > /dev/null &
done
wait
EOF

# ansible ad hoc, raw module, forks = hosts; each host's command line is a
# host variable, so one invocation covers every host.
cat > "$W/tool-ansible.sh" <<EOF
#!/bin/bash
n=\$1; out=\$2; i=0; inv=$W/ansible-inv.yml
echo "all:" > \$inv; echo "  hosts:" >> \$inv
while read -r name; do
  i=\$((i+1)); [ \$i -gt \$n ] && break
  echo "    \$name:" >> \$inv
  echo "      ansible_host: $HADDR" >> \$inv
  echo "      ansible_port: \$((20000+i))" >> \$inv
  # YAML single quotes: a quote in the command (cat '<.vmx path>') is doubled.
  echo "      pvcmd: '\$(paste -sd';' $W/fleet/cmds/\$name | sed "s/;/ ; /g; s/'/''/g")'" >> \$inv
done < $W/fleet/names
export ANSIBLE_CONFIG=$W/ansible.cfg ANSIBLE_HOST_KEY_CHECKING=True ANSIBLE_REMOTE_USER=$HUSER \
  ANSIBLE_PRIVATE_KEY_FILE=$W/client ANSIBLE_SSH_ARGS="-F $W/ssh_config" ANSIBLE_FORKS=\$n \
  ANSIBLE_LOCAL_TEMP=$W/ansible-tmp ANSIBLE_NOCOLOR=1 ANSIBLE_SSH_USETTY=False ANSIBLE_LOAD_CALLBACK_PLUGINS=0 \
  ANSIBLE_DEPRECATION_WARNINGS=0 ANSIBLE_CONTROL_PATH_DIR=$W/ansible-cp HOME=$W/ansible-home
mkdir -p $W/ansible-home
ansible all -i \$inv -m raw -a '{{ pvcmd }}' -o > "\$out/ansible.txt" 2>&1
EOF
: > "$W/ansible.cfg"

cat > "$W/tool-pvrdma-doctor.sh" <<EOF
#!/bin/bash
n=\$1; out=\$2
hosts=\$(for i in \$(seq 1 \$n); do printf '%s:%d\n' $HADDR \$((20000+i)); done | paste -sd,)
$PD scan --hosts "\$hosts" --user $HUSER -i $W/client --known-hosts $W/known_hosts \
  --no-probes --output json > "\$out/report.json" 2> "\$out/stderr.txt"
rc=\$?
# 0 = clean, 3/4 = findings; 5 (incomplete) or others are failures.
case \$rc in 0|3|4) exit 0 ;; *) echo "pvrdma-doctor exit \$rc" >&2; cat "\$out/stderr.txt" >&2; exit 1 ;; esac
EOF
chmod +x "$W"/tool-*.sh

# counts "Connection from" (TCP) and "Accepted publickey" (SSH logins) per
# host log, hosts 1..N: prints "conn_min conn_max auth_min auth_max".
count_logs() {
  local n=$1 i
  for i in $(seq 1 "$n"); do
    printf '%s %s\n' "$(grep -c 'Connection from' "$W/h/$i/log" || true)" "$(grep -c 'Accepted publickey' "$W/h/$i/log" || true)"
  done
}
delta_counts() { # before-file after-file
  paste "$1" "$2" | awk 'NR==1{cmin=cmax=$3-$1; amin=amax=$4-$2}
    {c=$3-$1; a=$4-$2; if(c<cmin)cmin=c; if(c>cmax)cmax=c; if(a<amin)amin=a; if(a>amax)amax=a}
    END{print cmin, cmax, amin, amax}'
}

# hosts_collected REPORT.json: how many hosts the JSON report has as collected.
hosts_collected() {
  python3 -c 'import json,sys
try: r=json.load(open(sys.argv[1]))
except Exception: print(0); sys.exit()
print(sum(1 for h in r.get("hosts") or [] if h.get("status")=="collected"))' "$1"
}
check_output() { # tool n outdir: sanity-check that every host answered
  local tool=$1 n=$2 o=$3 got
  case $tool in
    seq) got=$(grep -l 'Product' "$o"/*.txt 2>/dev/null | wc -l) ;;
    pssh) got=$(grep -l 'Product' "$o"/* 2>/dev/null | wc -l) ;;
    ansible) got=$(grep -c 'Product' "$o/ansible.txt" || true) ;;
    pvrdma-doctor) got=$(hosts_collected "$o/report.json") ;;
  esac
  if [ "$got" != "$n" ]; then
    echo "bench: $tool at $n hosts: only $got of $n hosts answered completely (output in $o)" >&2
    KEEP=1; return 1
  fi
}

# pvrdma-doctor logs in to sshd with the client key (-i); without that flag
# in this build its sshd series is skipped (and RESULTS.md says so).
TOOLS="pvrdma-doctor pssh ansible seq"
if ! "$PD" scan --help 2>&1 | grep -qE -- '(^|[ ,])-i[, ]'; then
  TOOLS="pssh ansible seq"; echo "pvrdma-doctor scan has no -i (key file) flag in this build" > "$W/data/pd-skipped"
  log "pvrdma-doctor scan has no -i flag: skipping its sshd series"
fi
TSV="$W/data/compare.tsv"
printf 'tool\thosts\trun\twall_s\tuser_s\tsys_s\tmaxrss_kb\tconn_min\tconn_max\tauth_min\tauth_max\n' > "$TSV"
for n in $SIZES; do
  for tool in $TOOLS; do
    runs=$RUNS
    if [ "$tool" = seq ]; then runs=$SEQ_RUNS; [ "$n" -gt "$SEQ_MAX_FULL" ] && runs=1; [ "$n" -gt "$SEQ_MAX" ] && continue; fi
    for r in $(seq 1 "$runs"); do
      o="$W/out/$tool-$n-$r"; mkdir -p "$o"
      count_logs "$n" > "$W/before"
      "${IN_C[@]}" /usr/bin/time -f '%e %U %S %M' -o "$W/time" "$W/tool-$tool.sh" "$n" "$o" || true
      sleep 0.3 # let sshd write its last log lines
      count_logs "$n" > "$W/after"
      check_output "$tool" "$n" "$o" || exit 1
      read -r wall usr sys rss < <(tail -1 "$W/time")
      read -r cmin cmax amin amax < <(delta_counts "$W/before" "$W/after")
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$tool" "$n" "$r" "$wall" "$usr" "$sys" "$rss" "$cmin" "$cmax" "$amin" "$amax" >> "$TSV"
      log "$tool n=$n run $r: ${wall}s wall, ${usr}+${sys}s cpu, ${rss} KB, conns/host $cmin-$cmax, logins/host $amin-$amax"
      rm -rf "$o"
    done
  done
done

# ---------------------------------------------------------------- lab series
# pvrdma-doctor alone against `pvrdma-doctor lab serve` (its own process,
# simulated RTT and command latency in the lab's SSH servers), then one
# more scan per size against benchtool lab (the same lab package) for the
# per-host TCP connection and handshake counters, which lab serve does not
# print.
LTSV="$W/data/lab.tsv"
printf 'hosts\trun\twall_s\tuser_s\tsys_s\tmaxrss_kb\tlab_cpu_s\n' > "$LTSV"
ATSV="$W/data/analyze.tsv"
printf 'hosts\trun\twall_s\tuser_s\tsys_s\tmaxrss_kb\n' > "$ATSV"
: > "$W/data/labstats.tsv"
HOSTS_FILE_FLAG=0
"$PD" scan --help 2>&1 | grep -q -- '--hosts-file' && HOSTS_FILE_FLAG=1
lab_scan() { # dir n hostsfile(name addr lines) [extra scan flags] -> sets wall usr sys rss
  local d=$1 n=$2 hf=$3 rc=0 got; shift 3
  local target=(--hosts "$(awk '!/^#/ && NF {print $NF}' "$hf" | paste -sd,)")
  [ "$HOSTS_FILE_FLAG" = 1 ] && target=(--hosts-file "$hf")
  PVRDMA_BENCH_PW=$(cat "$d/password") /usr/bin/time -f '%e %U %S %M' -o "$W/time" \
    "$PD" scan "${target[@]}" --password-env PVRDMA_BENCH_PW --known-hosts "$d/known_hosts" \
    --no-probes --output json "$@" > "$d/report.json" 2> "$d/stderr" || rc=$?
  got=$(hosts_collected "$d/report.json")
  if { [ $rc != 0 ] && [ $rc != 3 ] && [ $rc != 4 ]; } || [ "$got" != "$n" ]; then
    { echo "scan of $n lab hosts: exit $rc, $got of $n hosts collected; first error:"; grep -m1 -i 'warn\|error' "$d/stderr"; } > "$W/data/lab-failed"
    cat "$W/data/lab-failed" >&2
    return 1
  fi
  read -r wall usr sys rss < <(tail -1 "$W/time")
}
proc_cpu_ticks() { # pid: user+system CPU of the process, in clock ticks
  awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0
}
wait_file_lines() { # file n: wait until file has n non-comment lines
  for _ in $(seq 600); do
    [ -f "$1" ] && [ "$(grep -vc '^#' "$1" 2>/dev/null)" -ge "$2" ] && return 0; sleep 0.1
  done
  echo "bench: $1 not ready" >&2; exit 1
}
for n in $LAB_SIZES; do
  d="$W/lab-$n"; mkdir -p "$d"
  printf 'bench%s' "$$" > "$d/password"
  # --no-vcenter: the scans do not use it, and the simulated vCenter
  # builds its inventory in the lab's process after the hosts are served
  # (27 s of CPU at 1,000 hosts), on the cores the timed scans use.
  "$PD" lab serve --scenario healthy --hosts "$n" --rtt "$RTT" --cmd-latency "$CMD_LAT" --no-vcenter \
    --password "$(cat "$d/password")" --out-dir "$d" > "$d/serve.log" 2>&1 &
  echo $! > "$W/pids/lab"
  wait_file_lines "$d/known_hosts" "$n"
  for r in $(seq 1 "$LAB_RUNS"); do
    lab0=$(proc_cpu_ticks "$(cat "$W/pids/lab")")
    lab_scan "$d" "$n" "$d/hosts.txt" || break 2
    labcpu=$(awk -v a="$lab0" -v b="$(proc_cpu_ticks "$(cat "$W/pids/lab")")" -v hz="$(getconf CLK_TCK)" 'BEGIN{printf "%.2f", (b-a)/hz}')
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "$r" "$wall" "$usr" "$sys" "$rss" "$labcpu" >> "$LTSV"
    log "lab n=$n run $r: ${wall}s wall, ${usr}+${sys}s cpu, ${rss} KB, lab ${labcpu}s cpu"
  done
  [ -f "$W/data/lab-failed" ] && { kill "$(cat "$W/pids/lab")"; break; }
  # One more scan writes a bundle (untimed); analyze of it is timed.
  lab_scan "$d" "$n" "$d/hosts.txt" --bundle "$d/bundle.tar.gz" || { kill "$(cat "$W/pids/lab")"; break; }
  kill "$(cat "$W/pids/lab")"; wait "$(cat "$W/pids/lab")" 2>/dev/null || true
  rm -f "$W/pids/lab"
  for r in $(seq 1 "$LAB_RUNS"); do
    rc=0
    /usr/bin/time -f '%e %U %S %M' -o "$W/time" "$PD" analyze "$d/bundle.tar.gz" --output json > "$d/analyze.json" 2> "$d/analyze.err" || rc=$?
    if { [ $rc != 0 ] && [ $rc != 3 ] && [ $rc != 4 ]; } || [ "$(hosts_collected "$d/analyze.json")" != "$n" ]; then
      { echo "analyze of the $n-host bundle: exit $rc"; head -3 "$d/analyze.err"; } > "$W/data/lab-failed"; cat "$W/data/lab-failed" >&2; break 2
    fi
    read -r wall usr sys rss < <(tail -1 "$W/time")
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "$r" "$wall" "$usr" "$sys" "$rss" >> "$ATSV"
    log "analyze n=$n run $r: ${wall}s wall, ${usr}+${sys}s cpu, ${rss} KB"
  done
  # Counted run.
  c="$W/labc-$n"; mkdir -p "$c"
  "$BT" lab -n "$n" -rtt "$RTT" -cmd-latency "$CMD_LAT" -out "$c" &
  echo $! > "$W/pids/lab"
  wait_file_lines "$c/ready" 1
  awk '{print $1, $1}' "$c/hosts" > "$c/hosts.txt"
  lab_scan "$c" "$n" "$c/hosts.txt" || break
  kill "$(cat "$W/pids/lab")"; wait "$(cat "$W/pids/lab")" 2>/dev/null || true
  rm -f "$W/pids/lab"
  [ -f "$W/data/lab-failed" ] && break
  printf '%s\t%s\n' "$n" "$(cat "$c/stats")" >> "$W/data/labstats.tsv"
done

# ---------------------------------------------------------------- Go benchmarks
GOBENCH="$W/data/gobench.txt"
if [ "$SMOKE" = 1 ]; then BT_X=1x; else BT_X=5x; fi
log "go benchmarks (collect and analyze at 1,000 hosts; analysis of healthy and faulty fleets at 100 and 1,000)"
(cd "$ROOT" && go test -run '^$' -bench 'Collect1000Hosts|Analyze1000Hosts|AnalyzeFleets' -benchtime "$BT_X" -benchmem ./bench/) > "$GOBENCH" 2>&1 || { cat "$GOBENCH" >&2; exit 1; }

# ---------------------------------------------------------------- fleet-size series
# The faulty fleet beside the healthy one (scan, --bundle, analyze), the
# TUI series and the near-cap bundle (bench/series.sh); the allocation
# table reads the AnalyzeFleets lines of the Go benchmarks above.
mkdir -p "$W/data/series"
cp "$GOBENCH" "$W/data/series/alloc.txt"
CAP_HOSTS=10; [ "$SMOKE" = 1 ] && CAP_HOSTS=2
SERIES_LIST="fleet cap"; command -v tmux >/dev/null 2>&1 && SERIES_LIST="fleet tui cap"
log "fleet-size series: $SERIES_LIST (sizes $LAB_SIZES)"
"$ROOT/bench/series.sh" --sizes "$LAB_SIZES" --runs "$LAB_RUNS" --series "$SERIES_LIST" --cap-hosts "$CAP_HOSTS" \
  --rtt "$RTT" --cmd-latency "$CMD_LAT" --bin "$PD" --out-dir "$W/data/series"

# ---------------------------------------------------------------- results
log "writing $OUT"
"$ROOT/bench/report.sh" "$W" "$OUT" "$CHART_DIR" "$SMOKE" \
  "RTT=$RTT" "CMD_LAT=$CMD_LAT" "NETMODE=$NETMODE" "NETEM=$NETEM" "HUSER=$HUSER" "LOAD_START=$LOAD_START" \
  "RUNS=$RUNS" "SEQ_RUNS=$SEQ_RUNS" "SEQ_MAX_FULL=$SEQ_MAX_FULL" "SEQ_MAX=$SEQ_MAX" "LAB_RUNS=$LAB_RUNS"
if [ "$SMOKE" = 1 ]; then cat "$OUT"; log "smoke run OK"; fi
