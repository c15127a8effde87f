#!/usr/bin/env bash
# Recovery: a master killed with every slot granted and started again empty with a recovery window;
# time to full service (granary.bench.wire.RecoveryLoad; benchmarks/RESULTS.md, "Recovery").
#
#   benchmarks/recovery.sh                 N = 1000 10000 agents (10 slots each: 10,000 / 100,000 grants), 3 runs each
#   benchmarks/recovery.sh 1000            the agent counts you give
#   RUNS=1 benchmarks/recovery.sh 10000    runs per N (the table shows medians)
#   RECOVERY_ARGS="--window=30 --settle=2" benchmarks/recovery.sh 1000     more RecoveryLoad options
#   benchmarks/recovery.sh --help          this text
#
# Per run: java -Xmx2g -Djava.util.concurrent.ForkJoinPool.common.parallelism=4 -cp benchmarks/target/benchmarks.jar granary.bench.wire.RecoveryLoad --agents=N $RECOVERY_ARGS
# The master is WireMaster (ProtocolMaster + JdkHttpServer over the engine with the fifo policy) in a
# child JVM (-Xmx2g) on 127.0.0.1 and a free port; it is killed (destroyForcibly) and a fresh one with
# the window (default 60 s, settle 2 s) starts on the same port. With
# RECOVERY_ARGS="--runtime=features/standalone/target/granary-standalone.jar" the master is the runtime
# (its default policies; the peers over HTTP/2, which 20,000 agents need: over HTTP/1.1 they hold 40,000
# sockets), its window set with --config=granary.recovery:..., its times read from granary:recovery. Each run is bounded by `timeout`
# (RUN_TIMEOUT seconds, default 1800); the master child ends with the load generator (end of its input,
# and a shutdown hook). SKIP_BUILD=1 reuses the jar. Logs: benchmarks/target/recovery/<time>-N-<run>.log
set -euo pipefail
if [ "${1:-}" = --help ] || [ "${1:-}" = -h ]; then
  sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
  exit 0
fi
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  mvn -q -B -ntp -o -DskipTests -pl benchmarks -am package
fi
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true   # 10,000 agents hold ~20,000 sockets (both ends)
out=benchmarks/target/recovery
mkdir -p "$out"
stamp=$(date +%Y%m%d-%H%M%S)
ns=("$@")
[ ${#ns[@]} -gt 0 ] || ns=(1000 10000)
runs=${RUNS:-3}
# On 2 cores the common pool has parallelism 1, and CompletableFuture then starts a new thread for
# every async completion (the JDK HttpClient's): with 10,000 agents the load generator spent its CPU
# creating threads. A larger common pool avoids that.
fjp="-Djava.util.concurrent.ForkJoinPool.common.parallelism=${FJP:-4}"
rows=()
for n in "${ns[@]}"; do
  for r in $(seq 1 "$runs"); do
    log="$out/$stamp-$n-$r.log"
    echo "== RecoveryLoad --agents=$n ${RECOVERY_ARGS:-} run $r/$runs  (load: $(uptime | sed 's/.*load average: //'); log: $log)" >&2
    timeout -k 10 "${RUN_TIMEOUT:-1800}" java -Xmx2g $fjp -cp benchmarks/target/benchmarks.jar granary.bench.wire.RecoveryLoad \
      --agents="$n" ${RECOVERY_ARGS:-} > "$log" 2>&1 || echo "run failed (exit $?)" >&2
    grep -v 'poll failed\|post heartbeat' "$log" | tail -12 >&2
    line="$(grep -o 'RECOVERY-JSON .*' "$log" | tail -1 | cut -d' ' -f2-)"
    rows+=("${line:-{\"agents\":$n,\"failed\":\"no result (see $log)\"}}")
  done
done
printf '%s\n' "${rows[@]}" | python3 -c '
import json, statistics, sys
cols = [("grants", "grants"), ("window_s", "window s"), ("all_agents_registered_s", "all registered s"),
        ("window_due_s", "window due s"), ("recovering_false_s", "recovering() false s"),
        ("all_caps_whole_s", "all caps whole s"), ("full_service_s", "full service s"),
        ("full_service_after_window_s", "full service − window due s"), ("online_slots_lost_at_agents", "online lost")]
by = {}
for line in sys.stdin:
    line = line.strip()
    if line:
        r, _ = json.JSONDecoder().raw_decode(line)  # a stderr line may follow on the same line
        by.setdefault(r.get("agents"), []).append(r)
print("| agents | runs ok | " + " | ".join(c[1] for c in cols) + " |")
print("|---|---|" + "---|" * len(cols))
for n, rs in by.items():
    ok = [r for r in rs if "failed" not in r]
    def med(k):
        v = [r[k] for r in ok if isinstance(r.get(k), (int, float)) and r[k] >= 0]
        return "%g" % statistics.median(v) if v else "-"
    print("| %s | %d/%d | " % (n, len(ok), len(rs)) + " | ".join(med(k) for k, _ in cols) + " |")
'
