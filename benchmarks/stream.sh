#!/usr/bin/env bash
# The allocation stream under load (granary.bench.stream.StreamLoad; benchmarks/RESULTS.md,
# "Allocation stream: 50 subscribers").
#
#   benchmarks/stream.sh                 50 subscribers, 3 runs of 10 s each way, 2,000 nodes
#   STREAM_ARGS="--subscribers=10 --seconds=5" benchmarks/stream.sh     other StreamLoad options
#   benchmarks/stream.sh --help          this text
#
# A real engine (fifo) grants and takes back slots as fast as it can while S subscribers read
# GET /api/v1/stream from a real Jetty over loopback; runs with no subscriber alternate with runs
# with S. The subscribers run in a child JVM under `nice -n 19`, so that on a small machine they do
# not take the server's cores (in production they are other hosts). Prints one STREAM line per run
# and the medians: granted slots/s with and without subscribers, and the stream's lag p99
# (decision -> bytes flushed to the subscriber). SKIP_BUILD=1 reuses benchmarks/target/benchmarks.jar.
set -euo pipefail
if [ "${1:-}" = --help ] || [ "${1:-}" = -h ]; then
  sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
  exit 0
fi
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  mvn -q -B -DskipTests -pl benchmarks -am package
fi
exec java -Xmx2g -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp benchmarks/target/benchmarks.jar \
  granary.bench.stream.StreamLoad ${STREAM_ARGS:-}
