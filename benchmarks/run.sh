#!/usr/bin/env bash
# Builds the JMH uber jar (benchmarks/target/benchmarks.jar) and runs the benchmarks.
#
#   benchmarks/run.sh                  every benchmark, with the settings RESULTS.md was made with
#   benchmarks/run.sh ARGS...          JMH with "-f 1" and your arguments, e.g.
#       benchmarks/run.sh PassivePickBench -p waiting=1000,1000000 -p layout=TAIL
#       benchmarks/run.sh FitQueueBench.tree -prof gc
#       benchmarks/run.sh PolicySwapBench.fifoToFair -prof jfr:dir=/tmp/jfr   (then benchmarks/jfr-top.py)
#   java -jar benchmarks/target/benchmarks.jar -h     every JMH option; -l lists the benchmarks
#   benchmarks/run.sh --help           this text
#
# The benchmarks (package granary.bench) reach the engine's internals only through its benchmark
# seam: granary.engine.probe and the public types of granary.engine.state (docs/architecture.md,
# "The engine").
#
# A benchmark that fails (its steady-state checks throw) stops the run with a non-zero exit code
# (JMH's -foe); the suite smoke-runs every benchmark once (BenchmarksSmokeTest).
# SKIP_BUILD=1 reuses the jar as it is. Results: benchmarks/target/jmh/{output,result}-<time>.{txt,json}.
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
jar=benchmarks/target/benchmarks.jar
out=benchmarks/target/jmh
mkdir -p "$out"
stamp=$(date +%Y%m%d-%H%M%S)
log="$out/output-$stamp.txt"

jmh() {   # jmh NAME ARGS...: one JMH run, its table to the log and the screen
  local name=$1
  shift
  echo "== java -jar $jar $*" | tee -a "$log"
  # -foe: a benchmark that fails (its checks throw) fails the run, not an empty row in a table
  java -jar "$jar" -foe true -rf json -rff "$out/result-$stamp-$name.json" "$@" 2>&1 | tee -a "$log"
}

if [ $# -gt 0 ]; then
  jmh custom -f 1 "$@"
else
  # time-based benchmarks (microseconds and nanoseconds per op): 3 warm-up and 5 measured 1 s iterations
  jmh timed -f 1 -wi 3 -i 5 -w 1s -r 1s \
    FitQueueBench FitQueueUpdateBench PassivePickBench ActivePlacementBench PolicySwapNodesBench
  # single-shot benchmarks (one policy swap of 10^6 waiting units per measured op)
  jmh swap -f 1 -wi 3 -i 10 PolicySwapBench SwapBreakdownBench
  echo
  echo "Summary (the tables above, again):"
  grep -E '^(Benchmark |[a-z.]*[A-Za-z]+Bench\.[A-Za-z]+(:p0\.50)? )' "$log" || true
fi
echo "log: $log"
