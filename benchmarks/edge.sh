#!/usr/bin/env bash
# The master's HTTP edge: what a post costs the server's core through an asynchronous servlet and
# through a Jetty core handler, each with its answer handed to a pool thread (as the master's peers'
# threads do) or written on Jetty's own thread (granary.bench.wire.EdgeBench; benchmarks/RESULTS.md,
# "What the edge costs per post").
#
#   benchmarks/edge.sh          the seven variants (stream: a long-lived request per peer, its messages as
#                               frames of the bodies), RUNS (3) rounds, alternated; the server pinned to
#                               core 0 in a child JVM, the load generator to core 1
#   EDGE_ARGS="--peers=2000 --connections=500 --seconds=20 --body=200" benchmarks/edge.sh
#   SKIP_BUILD=1 reuses benchmarks/target/benchmarks.jar
# Prints one EDGE-JSON line per run; logs in benchmarks/target/edge/.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  mvn -q -B -DskipTests -pl benchmarks -am package
fi
out=benchmarks/target/edge
mkdir -p "$out"
log="$out/$(date +%Y%m%d-%H%M%S).log"
echo "uptime before: $(uptime)" | tee "$log"
for r in $(seq 1 "${RUNS:-3}"); do
  for v in "--handler=servlet" "--handler=core" "--handler=servlet --inline" "--handler=core --inline" "--handler=stream" "--handler=stream --inline" "--handler=servlet-stream"; do
    # shellcheck disable=SC2086
    taskset -c "${LOADGEN_CPUS:-1}" java -Xmx1g -Xms1g -XX:+UseParallelGC -cp benchmarks/target/benchmarks.jar \
      granary.bench.wire.EdgeBench $v --server-cpus="${SERVER_CPUS:-0}" ${EDGE_ARGS:---seconds=20} 2>/dev/null \
      | grep EDGE-JSON | tee -a "$log"
  done
done
