#!/usr/bin/env bash
# Takes a screenshot of each planner screen in a real window under Xvfb, for a reviewer to look at
# (docs/planner.md, "Screenshots"). Needs a build (mvn -B -ntp -DskipTests package) and Debian's
# xvfb, libgtk-3-0 and imagemagick. Starts a real master with the demo cluster (traffic for the live
# view) and the article's quota table in force, then the planner once per screen; every process it
# starts is stopped by its PID at the end, also on failure.
#
#   desktop-planner/bin/screenshots.sh [OUT_DIR]      (default desktop-planner/target/screenshots)
#   SCREENS="whatif live" ... takes only those; KEEP=1 keeps the processes' output (its folder is printed)
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
cleanup() {
  for p in "${pids[@]:-}"; do [ -n "$p" ] && kill -9 "$p" 2>/dev/null || true; done
  exec 3>&- 2>/dev/null || true
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
(cd "$work" && exec java -jar "$standalone" --piped --listen=127.0.0.1:0 --secret="$work/secret" \
  "--config=granary.policy.quota:tableFile=$examples/article-table.json,workerSpans=$spans" \
  '--config=granary.demo:groups=group1|group2|group3' \
  <"$work/in" >"$work/master.out" 2>"$work/master.err") &
pids+=($!)
exec 3>"$work/in"
wait_for "$work/master.err" 'granary: listening on http://127\.0\.0\.1:[0-9]+' 90
port=$(grep -oE 'listening on http://127\.0\.0\.1:[0-9]+' "$work/master.err" | head -1 | grep -oE '[0-9]+$')
java -jar "$standalone" --secret="$work/secret" --issue-token=admin/screenshots >"$work/admin.token"
master=http://127.0.0.1:$port

# a free X display
display=99
while [ -e /tmp/.X$display-lock ]; do display=$((display + 1)); done
Xvfb :$display -screen 0 1440x900x24 -nolisten tcp >"$work/xvfb.log" 2>&1 &
pids+=($!)
sleep 1

# shot NAME SIGNAL ARGS...: runs the planner, waits for its SIGNAL line on standard output, takes the shot
shot() {
  local name=$1 signal=$2; shift 2
  case " ${SCREENS:-table whatif push live} " in *" $name "*) ;; *) return 0 ;; esac
  DISPLAY=:$display java -jar "$planner" --master="$master" --token-file="$work/admin.token" "$@" \
    >"$work/$name.out" 2>"$work/$name.err" &
  local pid=$!
  pids+=($pid)
  wait_for "$work/$name.out" "$signal" 180
  sleep 2   # a few frames for the window manager-less X server to paint
  import -display :$display -window root "$out/$name.png"
  kill -9 $pid 2>/dev/null || true
  echo "screenshots: $out/$name.png"
}

shot table 'planner: shown' --table="$examples/draft-table.json" --worker-spans="$spans" --tab=table
shot whatif 'planner: what-if (finished|failed)' --table="$examples/draft-table.json" --worker-spans="$spans" \
  --trace="$trace" --max-jobs=400 --tab=whatif --act=whatif
shot push 'planner: push (reviewed|refused)' --table="$examples/draft-table.json" --worker-spans="$spans" --tab=push --act=preview
shot live 'planner: live (streaming|failed)' --tab=live
