#!/usr/bin/env bash
# The desktop planner's live view under load (granary.planner.live.FramesBench, a main in the
# planner's test sources; benchmarks/RESULTS.md, "Planner live view").
#
#   benchmarks/planner-frames.sh                       10,000 nodes in 100 rooms, 100,000 decisions/s, 20 s
#   benchmarks/planner-frames.sh --seconds=60 --png=/tmp/view.png     other FramesBench options
#   benchmarks/planner-frames.sh --help                this text
#
# A fake master serves a made-up allocation stream over loopback HTTP (grants and releases at
# --rate a second, a usage sample of a fifth of the nodes every second); the real view model and
# view read it in a headless JavaFX stage (Monocle, software pipeline), the same parser, model,
# coalescer and heatmap as the application. After a warm-up it prints one FRAMES line: the heatmap's
# redraw time p50/p99 (on the FX thread), frames shown a second, events applied a second, and how
# far the view is behind the stream. Options: --nodes --rooms --rate --seconds --warmup --width
# --height --png. SKIP_BUILD=1 reuses the compiled classes and desktop-planner/target/classpath.txt.
set -euo pipefail
if [ "${1:-}" = --help ] || [ "${1:-}" = -h ]; then
  sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
  exit 0
fi
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  # test-compile, not package: the benchmark is a test-source main; the class path comes from Maven
  mvn -q -B -ntp test-compile dependency:build-classpath -pl desktop-planner -am \
    -Dmdep.outputFile=target/classpath.txt -Dmdep.includeScope=test
fi
cd desktop-planner
exec java -Xmx1g -cp "target/test-classes:target/classes:$(cat target/classpath.txt)" \
  granary.planner.live.FramesBench "$@"
