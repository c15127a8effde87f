#!/usr/bin/env bash
# Wire load: simulated agents and job masters against a fresh master over loopback HTTP
# (granary.bench.wire.WireLoad; benchmarks/RESULTS.md, "Wire: agents and job masters over loopback").
#
#   benchmarks/wire.sh                  N = 1000 5000 10000 agents, 10 job masters, 30 s measured each
#   benchmarks/wire.sh 1000 2000        the agent counts you give
#   WIRE_ARGS="--seconds=10 --report=heartbeat" benchmarks/wire.sh 1000     more WireLoad options
#   WIRE_ARGS="--attack=500,2000" benchmarks/wire.sh 1000    the slow-client attack of issue 22: once the
#                                       agents are registered, 500 unauthenticated posts (headers with
#                                       Content-Length: 100000, half without Authorization, half with a
#                                       garbage token, then a body byte a second) and 2,000 idle connections
#                                       (connect, send nothing) to the master's port, from one NIO thread;
#                                       those the master answers or closes are opened again the next second;
#                                       counted by kind (401, 408, reset, closed) over the measured window
#   WIRE_ARGS="--transport=h2" benchmarks/wire.sh 1000    the peers over HTTP/2 in clear text (the default when
#                                       two sockets a peer would not fit the open-file limit): a peer's posts and
#                                       its long poll are streams of one connection (HTTP/1.1 needs two); one
#                                       connection per peer up to 8,000, more peers share them (--connections=N):
#                                       this machine allows 20,000 open files per process, at each end
#   MASTER_CPUS=0 LOADGEN_CPUS=1 benchmarks/wire.sh 1000    pin the master (WireLoad --master-cpus) and the
#                                       load generator to those cores with taskset
#   benchmarks/wire.sh --help           this text
#
# Each N runs against a fresh master in a child JVM (-Xmx1g -Xms1g -XX:+UseParallelGC: docs/operations.md, "The master's JVM"): the runtime jar
# features/standalone/target/granary-standalone.jar when it exists and takes --listen, else
# WireMaster (ProtocolMaster + JdkHttpServer over the engine with the fifo policy). The load
# generator runs with the same options. Per N it runs
#   java -Xmx1g -Xms1g -XX:+UseParallelGC -cp benchmarks/target/benchmarks.jar granary.bench.wire.WireLoad --in-process \
#        --runtime=features/standalone/target/granary-standalone.jar --agents=N $WIRE_ARGS
# and prints a table of the figures at the end (heartbeat p50/p99/max and how many took over 1 s,
# agents the master did not count live, the attack's counters). SKIP_BUILD=1 reuses the jars as
# they are. Each log starts with the machine's load (uptime) before the run.
# Logs and JSON lines: benchmarks/target/wire/<time>-N.log
set -euo pipefail
if [ "${1:-}" = --help ] || [ "${1:-}" = -h ]; then
  sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
  exit 0
fi
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  mvn -q -B -DskipTests -pl benchmarks -am package
  if [ -f features/standalone/pom.xml ] && [ ! -f features/standalone/target/granary-standalone.jar ]; then
    mvn -q -B -DskipTests -pl features/standalone -am package || echo "wire: no runtime jar; WireMaster stands in" >&2
  fi
fi
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true   # 10,000 agents hold ~20,000 sockets (both ends)
out=benchmarks/target/wire
mkdir -p "$out/tmp"   # the JVMs' temporary files (the secret), not /tmp
stamp=$(date +%Y%m%d-%H%M%S)
ns=("$@")
[ ${#ns[@]} -gt 0 ] || ns=(1000 5000 10000)
rows=()
for n in "${ns[@]}"; do
  log="$out/$stamp-$n.log"
  echo "== WireLoad --agents=$n ${WIRE_ARGS:-}  (log: $log)" >&2
  echo "uptime before: $(uptime)" | tee "$log" >&2
  pin=()
  [ -z "${LOADGEN_CPUS:-}" ] || pin=(taskset -c "$LOADGEN_CPUS")
  mcpus=()
  [ -z "${MASTER_CPUS:-}" ] || mcpus=(--master-cpus="$MASTER_CPUS")
  "${pin[@]}" java -Xmx1g -Xms1g -XX:+UseParallelGC -Djava.io.tmpdir="$out/tmp" -cp benchmarks/target/benchmarks.jar granary.bench.wire.WireLoad --in-process \
    --runtime=features/standalone/target/granary-standalone.jar --agents="$n" "${mcpus[@]}" ${WIRE_ARGS:-} 2>&1 | tee -a "$log" >&2 || true
  rows+=("$(grep -o 'WIRE-JSON .*' "$log" | tail -1 | cut -d' ' -f2-)")
done
printf '%s\n' "${rows[@]}" | python3 -c '
import json, sys
cols = [("agents", "agents"), ("heartbeat_p50_ms", "hb p50 ms"), ("heartbeat_p99_ms", "hb p99 ms"),
        ("heartbeat_max_ms", "hb max ms"), ("heartbeats_over_1s", "hb > 1 s"), ("agents_not_live_max", "not live (max)"),
        ("slots_started_per_s", "slots/s"), ("master_decided_sent_p50_ms", "decided→sent p50"),
        ("master_decided_sent_p99_ms", "decided→sent p99"), ("master_hint_sent_p99_ms", "news→hint p99"), ("master_post_p50_ms", "master post p50 ms"),
        ("master_post_p99_ms", "master post p99 ms"), ("turnaround_p50_ms", "turnaround p50 ms"),
        ("turnaround_p99_ms", "turnaround p99 ms"), ("master_cpu_s_per_s", "master cpu s/s"),
        ("master_rss_mib", "master RSS MiB"), ("loadgen_cpu_s_per_s", "loadgen cpu s/s"), ("errors", "errors"),
        ("attack_held_slow_end", "attack slow held"), ("attack_held_idle_end", "attack idle held"),
        ("attack_401", "401s"), ("attack_408", "408s"), ("attack_resets", "resets")]
print("| " + " | ".join(c[1] for c in cols) + " |")
print("|" + "---|" * len(cols))
for line in sys.stdin:
    line = line.strip()
    if not line:
        print("| (run failed) |")
        continue
    r = json.loads(line)
    print("| " + " | ".join(str(r.get(k, "")) for k, _ in cols) + " |")
'
