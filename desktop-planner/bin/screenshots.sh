#!/usr/bin/env bash
# Takes a screenshot of each planner screen in a real window under Xvfb, for a reviewer to look at
# (docs/planner.md, "Screenshots"). Needs a build (mvn -B -ntp -DskipTests package) and Debian's
# xvfb, libgtk-3-0 and imagemagick. Starts a real master with the demo cluster (traffic for the live
# view) and the article's quota table in force, then the planner once per screen; every process it
# starts is stopped by its PID at the end, also on failure.
#
#   desktop-planner/bin/screenshots.sh [OUT_DIR]      (default desktop-planner/target/screenshots)
#   SCREENS="whatif live" ... takes only those; SIZES="1024x768" only that screen size (default: 1024x768
#   and 1600x1000, the smallest the planner is made for and a desktop's); KEEP=1 keeps the processes'
#   output (its folder is printed). Pictures are OUT_DIR/SIZE/SCREEN.png.
#
# A shot is taken once the planner says its window has been drawn ("planner: drawn", after layout and a
# rendered frame) and the screen's own milestone was reached; the what-if has WHATIF_SECONDS (default
# 600) for its replay. Xvfb is stopped with TERM so that it removes its /tmp/.X<n>-lock, and the lock of
# a display this script started is removed if Xvfb could not.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$root/desktop-planner/target/screenshots}
planner=$root/desktop-planner/target/granary-planner.jar
standalone=$root/features/standalone/target/granary-standalone.jar
trace=$root/bundles/granary.sim/src/test/resources/traces/alibaba-v2017-batch-task/batch_task.csv.gz
examples=$root/desktop-planner/examples
spans='default:5000,0-9:15000'
for f in "$planner" "$standalone" "$trace"; do
  [ -f "$f" ] || { echo "screenshots: $f is missing: build first (mvn -B -ntp -DskipTests package)" >&2; exit 2; }
done
for tool in Xvfb import; do
  command -v "$tool" >/dev/null || { echo "screenshots: $tool is missing: apt-get install xvfb libgtk-3-0 imagemagick" >&2; exit 2; }
done
mkdir -p "$out"
work=$(mktemp -d)
pids=()
xvfb=
display=
stop_xvfb() {
  if [ -n "$xvfb" ]; then
    kill -TERM "$xvfb" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$xvfb" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$xvfb" 2>/dev/null || true
    wait "$xvfb" 2>/dev/null || true
    # the lock names the server's PID: remove only ours
    if [ -n "$display" ] && [ -e "/tmp/.X$display-lock" ] && [ "$(tr -d ' \n' <"/tmp/.X$display-lock")" = "$xvfb" ]; then
      rm -f "/tmp/.X$display-lock" "/tmp/.X11-unix/X$display"
    fi
    xvfb=
  fi
}
cleanup() {
  stop_xvfb
  # the master first: the end of its input stops it (--piped), so that it removes what it made
  exec 3>&- 2>/dev/null || true
  if [ -n "${master_pid:-}" ]; then
    for _ in $(seq 100); do kill -0 "$master_pid" 2>/dev/null || break; sleep 0.1; done
  fi
  for p in "${pids[@]:-}"; do [ -n "$p" ] && kill -9 "$p" 2>/dev/null || true; done
  if [ "${KEEP:-0}" = 1 ]; then echo "screenshots: output kept in $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

# wait_for FILE PATTERN SECONDS: until FILE has a line matching PATTERN, or fail
wait_for() {
  local deadline=$((SECONDS + $3))
  until grep -qE "$2" "$1" 2>/dev/null; do
    if [ $SECONDS -ge $deadline ]; then
      echo "screenshots: no '$2' in $1 within $3 s:" >&2; tail -20 "$1" >&2; exit 1
    fi
    sleep 0.2
  done
}

# the master: its standard input is a FIFO held open by this script (--piped stops at end of input)
mkfifo "$work/in"
# the master runs in the work dir: its audit log and other files go there, not into the repository
# every Java process started here keeps its temporary files in the work dir, removed at the end even
# after a kill -9 (the runtime's framework cache, the what-if's table files)
(cd "$work" && exec java -Djava.io.tmpdir="$work" -jar "$standalone" --piped --listen=127.0.0.1:0 --secret="$work/secret" \
  "--config=granary.policy.quota:tableFile=$examples/article-table.json,workerSpans=$spans" \
  '--config=granary.demo:groups=group1|group2|group3' \
  <"$work/in" >"$work/master.out" 2>"$work/master.err") &
master_pid=$!
pids+=($master_pid)
exec 3>"$work/in"
wait_for "$work/master.err" 'granary: listening on http://127\.0\.0\.1:[0-9]+' 90
port=$(grep -oE 'listening on http://127\.0\.0\.1:[0-9]+' "$work/master.err" | head -1 | grep -oE '[0-9]+$')
java -Djava.io.tmpdir="$work" -jar "$standalone" --secret="$work/secret" --issue-token=admin/screenshots >"$work/admin.token"
master=http://127.0.0.1:$port

# shot SIZE NAME SIGNAL SECONDS ARGS...: runs the planner, waits until its window is drawn and its SIGNAL
# line is on standard output, takes the shot
shot() {
  local size=$1 name=$2 signal=$3 seconds=$4; shift 4
  case " ${SCREENS:-table whatif push live} " in *" $name "*) ;; *) return 0 ;; esac
  mkdir -p "$out/$size"
  DISPLAY=:$display java -Djava.io.tmpdir="$work" -jar "$planner" --master="$master" --token-file="$work/admin.token" "$@" \
    >"$work/$size-$name.out" 2>"$work/$size-$name.err" &
  local pid=$!
  pids+=($pid)
  wait_for "$work/$size-$name.out" 'planner: drawn' 90
  wait_for "$work/$size-$name.out" "$signal" "$seconds"
  sleep 2   # the frames after the milestone: the charts and the heatmap are drawn from it
  import -display :$display -window root "$out/$size/$name.png"
  kill -9 $pid 2>/dev/null || true
  wait $pid 2>/dev/null || true
  echo "screenshots: $out/$size/$name.png"
}

for size in ${SIZES:-1024x768 1600x1000}; do
  # a free X display
  display=99
  while [ -e /tmp/.X$display-lock ]; do display=$((display + 1)); done
  Xvfb :$display -screen 0 "${size}x24" -nolisten tcp >"$work/xvfb-$size.log" 2>&1 &
  xvfb=$!
  for _ in $(seq 50); do [ -e /tmp/.X11-unix/X$display ] && break; sleep 0.1; done

  shot "$size" table 'planner: drawn' 90 --table="$examples/draft-table.json" --worker-spans="$spans" --tab=table
  shot "$size" whatif 'planner: what-if (finished|failed)' "${WHATIF_SECONDS:-600}" --table="$examples/draft-table.json" \
    --worker-spans="$spans" --trace="$trace" --max-jobs=150 --tab=whatif --act=whatif
  shot "$size" push 'planner: push (reviewed|refused)' 90 --table="$examples/draft-table.json" --worker-spans="$spans" \
    --tab=push --act=acknowledge,preview
  shot "$size" live 'planner: live (streaming|failed)' 90 --tab=live
  stop_xvfb
done
