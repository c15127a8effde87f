#!/usr/bin/env bash
# The demo cluster of the README's first command, as real processes on loopback: one master (the
# standalone runtime), three node agents and one job master running a job of real shell tasks in
# waves. Prints each role's lines with its name in front, then the master's view, and cleans up.
#
#   features/standalone/bin/triangle.sh [TASKS] [AGENTS]     (defaults: 30 tasks, 3 agents)
#
# Needs the jars of `mvn -DskipTests package`. Everything listens on 127.0.0.1 only; every process
# started here is stopped on exit, also on Ctrl-C. The work directory (secret, tokens, agents'
# checkpoints and worker logs) is printed at the start and kept for a look afterwards.
set -euo pipefail
tasks="${1:-30}"
agents="${2:-3}"
root="$(cd "$(dirname "$0")/../../.." && pwd)"
master_jar="$root/features/standalone/target/granary-standalone.jar"
agent_jar="$root/features/agent/target/granary-agent.jar"
jm_jar="$root/features/jobmaster/target/granary-jobmaster.jar"
for jar in "$master_jar" "$agent_jar" "$jm_jar"; do
  [ -f "$jar" ] || { echo "missing $jar: build first with: mvn -B -ntp -DskipTests package" >&2; exit 2; }
done
work="$(mktemp -d "${TMPDIR:-/tmp}/granary-triangle.XXXXXX")"
echo "== work directory: $work"
pids=()
cleanup() {
  exec 3>&- 2>/dev/null || true
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for _ in $(seq 1 40); do   # at most 10 s for them to stop, then force
    alive=0
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ "$alive" = 0 ] && break
    sleep 0.25
  done
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
}
trap cleanup EXIT INT TERM

secret="$work/granary.secret"
issue() { java -Djava.io.tmpdir="$work" -jar "$master_jar" --secret="$secret" --create-secret --issue-token="$1" > "$2"; }
issue job-master/jm-demo "$work/jm.token"
for i in $(seq 1 "$agents"); do issue "agent/n$i" "$work/n$i.token"; done

mkfifo "$work/console"
java -Djava.io.tmpdir="$work" -jar "$master_jar" --demo=false --piped --listen=127.0.0.1:0 --secret="$secret" \
  < "$work/console" > >(sed -u 's/^/[master] /') 2> "$work/master.err" &
pids+=($!)
exec 3> "$work/console"
url=""
for _ in $(seq 1 240); do
  url="$(grep -o 'https\?://127\.0\.0\.1:[0-9]*' "$work/master.err" | head -1 || true)"
  [ -n "$url" ] && break
  sleep 0.25
done
[ -n "$url" ] || { echo "the master did not start; its log:" >&2; cat "$work/master.err" >&2; exit 3; }
echo "== master listening on $url"

for i in $(seq 1 "$agents"); do
  java -Djava.io.tmpdir="$work" -jar "$agent_jar" --master="$url" --node="n$i" --room="room-$(( (i + 1) % 2 + 1 ))" \
    --capacity=cpu=400,mem=4096 --token-file="$work/n$i.token" --work-dir="$work/n$i" \
    > >(sed -u "s/^/[agent n$i] /") 2>&1 &
  pids+=($!)
done

echo "== job master: $tasks tasks of 1 s on $agents agents of 4 slots"
set +e
java -Djava.io.tmpdir="$work" -jar "$jm_jar" --master="$url" --token-file="$work/jm.token" --state="$work/jm.state" --id=jm-demo --job=demo --tasks="$tasks" \
  --slot=cpu=100,mem=256 --command='sleep 1; echo "task $GRANARY_TASK of $GRANARY_TASKS done on $GRANARY_NODE"' \
  2>&1 | sed -u 's/^/[job master] /'
code=${PIPESTATUS[0]}
set -e
echo "== job master exited with $code; the master's view:"
printf 'granary:agents\ngranary:jobmasters\ngranary:status\n' >&3
exec 3>&-
for _ in $(seq 1 60); do kill -0 "${pids[0]}" 2>/dev/null || break; sleep 0.25; done
exit "$code"
