#!/usr/bin/env bash
# Quota scheduling on real traffic (README, "Quota scheduling on real traffic"; docs/multi-tenancy.md,
# "Choices and their defaults"): replays the whole Alibaba v2017 batch trace on 2,000 nodes of 64 cores /
# 256 GiB, jobs hashed into four groups g0..g3, under the day/night quota table
# benchmarks/quota/alibaba2017-day-night.json (a day slice 08-20 and a night slice), and prints the
# simulator's side-by-side summary:
#   benchmarks/quota.sh [compare|lookahead|restraint|walltime] [TRACE]
#   compare    fifo | quota,submitwindow | the runtime's multi-tenant default (sjf,queues,quota,gang) |
#              the same with reservation                                                   (default)
#   walltime   fifo and the runtime's default, each in a JVM of its own (no warm-up shared between
#              them), alternated RUNS times (default 3); prints each run's wall time and the medians
#   lookahead  quota,submitwindow with and without the boundary lookahead, run times learned and declared
#   restraint  quota,submitwindow with the default preemption limits, without a rate limit, and the
#              article's literal loop (emergent=hold, no minimum run time, no rate limit)
# TRACE defaults to ../shared/traces/alibaba-v2017-batch-task/batch_task.csv (the official batch_task.csv
# of cluster-trace-v2017; gzipped works too). Results also go to target/quota-<what>/.
set -euo pipefail
cd "$(dirname "$0")/.."
what="${1:-compare}"
trace="${2:-../shared/traces/alibaba-v2017-batch-task/batch_task.csv}"
mvn -q -B -DskipTests package -pl bundles/granary.policy.sjf,features/standalone -am >&2
# the runtime's default selection, as the runtime reads it (docs/multi-tenancy.md, "The multi-tenant default")
default=$(sed -n 's/^granary.engine.policies=//p' features/standalone/src/main/resources/granary-runtime.properties)
sim=(java ${JAVA_OPTS:--Xmx4g} -jar features/standalone/target/granary-sim.jar --trace "alibaba2017:$trace"
     --trace-option group=hash:4 --cluster nodes=2000,cpu=6400,mem=262144
     --quota benchmarks/quota/alibaba2017-day-night.json --no-progress)
case "$what" in
  compare)   exec "${sim[@]}" --out "target/quota-$what" --policies "fifo|quota,submitwindow|$default|$default,reservation" ;;
  lookahead) "${sim[@]}" --out "target/quota-$what" --policies 'quota,submitwindow|quota:lookahead=false,submitwindow'
             exec "${sim[@]}" --out "target/quota-$what-declared" --declare-run-times \
                  --policies 'quota,submitwindow|quota:lookahead=false,submitwindow' ;;
  restraint) exec "${sim[@]}" --out "target/quota-$what" --policies \
               'quota,submitwindow|quota:maxPreemptedPerMinute=0,submitwindow|quota:emergent=hold:minRunSeconds=0:maxPreemptedPerMinute=0,submitwindow' ;;
  walltime)
    runs=${RUNS:-3}; f=(); q=()
    for r in $(seq 1 "$runs"); do
      for set in fifo "$default"; do
        "${sim[@]}" --out "target/quota-$what-$r" --policies "$set" > /dev/null
        w=$(sed -n 's/^wall time \/ speed-up *\([0-9.]*\) s.*/\1/p' "target/quota-$what-$r/summary.txt")
        echo "run $r  $set  ${w} s  (load average $(cut -d' ' -f1 /proc/loadavg))"
        if [ "$set" = fifo ]; then f+=("$w"); else q+=("$w"); fi
      done
    done
    med() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
    mf=$(med "${f[@]}"); mq=$(med "${q[@]}")
    echo "median wall time: fifo ${mf} s, $default ${mq} s, ratio $(awk -v a="$mq" -v b="$mf" 'BEGIN {printf "%.2f", a/b}')x" ;;
  *) echo "Usage: benchmarks/quota.sh [compare|lookahead|restraint|walltime] [TRACE]" >&2; exit 2 ;;
esac
