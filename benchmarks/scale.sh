#!/usr/bin/env bash
# Issue 11, scale: 100,000 nodes with 1,000,000 waiting units in at most 2 GiB of heap
# (benchmarks/RESULTS.md, "Issue 11: swap pause and scale"). Runs the whole-engine throughput runner
# (granary.sim.bench.Throughput, see benchmarks/throughput.sh) with -Xmx2g and --scale: it submits
# 10^6 applications of one container each to 100,000 dark nodes, prints the used heap after a full GC
# with every unit waiting (heap_mb, beside the limit heap_max_mb), the pause of a unit-order swap over
# all of them and back, then lets the nodes report and prints the throughput (allocs/s, median).
#   benchmarks/scale.sh [--swap-to fair|submitwindow|sjf] [--runs R] [--warmup W]
# Defaults: swap FIFO -> FAIR -> FIFO, 3 measured runs after 1 warm-up (each run builds the state
# anew: about a minute per run on 2 vCPUs). Not part of `mvn verify`.
set -euo pipefail
cd "$(dirname "$0")/.."
args=("$@")
if [[ " ${args[*]} " != *" --runs "* ]]; then args+=(--runs 3); fi
if [[ " ${args[*]} " != *" --warmup "* ]]; then args+=(--warmup 1); fi
JAVA_OPTS="${JAVA_OPTS:--Xms2g -Xmx2g -XX:+AlwaysPreTouch}" \
  exec benchmarks/throughput.sh 100000 1000000 1 10 --scale "${args[@]}"
