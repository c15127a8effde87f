#!/usr/bin/env bash
# Whole-engine throughput in a YARN-comparable shape (see granary.sim.bench.Throughput):
#   benchmarks/throughput.sh N A K Q [--runs R] [--warmup W] [--scale [--swap-to ORDER]] [--unit-order fifo|fair] [--why-ledger on|off]
# N nodes of 64 cores / 256 GiB, Q leaf queues, A applications each asking K containers of
# 1 core / 2 GiB; nodes report their free capacity in turns like heartbeats. Builds what it needs,
# runs warm-ups and measured runs (details on stderr), and prints last, on stdout:
#   granary nodes=N apps=A containers=K queues=Q allocs_per_s=X wall_s=Y      (median run)
# JVM options: JAVA_OPTS (default -Xms4g -Xmx4g -XX:+AlwaysPreTouch; give more heap for 10^6 apps).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$#" -lt 4 ]; then
  echo "Usage: benchmarks/throughput.sh N A K Q [--runs R] [--warmup W] [--scale [--swap-to ORDER]] [--unit-order fifo|fair] [--why-ledger on|off]" >&2
  exit 2
fi
# the runnable simulator with every policy of the build (features/standalone/target/granary-sim.jar)
mvn -q -B -DskipTests package >&2
exec java ${JAVA_OPTS:--Xms4g -Xmx4g -XX:+AlwaysPreTouch} -cp features/standalone/target/granary-sim.jar \
  granary.sim.bench.Throughput "$@"
