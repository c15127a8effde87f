#!/usr/bin/env python3
"""Summarises the CPU samples of a JFR recording: the hottest methods by self time and by total time.

Usage: benchmarks/jfr-top.py RECORDING.jfr [TOP] [FILTER]
Only samples whose stack contains FILTER (default: "jmhStub", i.e. the measured benchmark loop, not
setup or teardown) are counted. Needs the JDK's `jfr` tool on the PATH.
"""
import collections
import re
import subprocess
import sys

path = sys.argv[1]
top = int(sys.argv[2]) if len(sys.argv) > 2 else 25
flt = sys.argv[3] if len(sys.argv) > 3 else "jmhStub"
text = subprocess.run(["jfr", "print", "--events", "jdk.ExecutionSample", "--stack-depth", "64", path],
                      check=True, capture_output=True, text=True).stdout
frame = re.compile(r"^\s+([\w$.<>/]+)\(.*\)\s+line:")
self_c, total_c = collections.Counter(), collections.Counter()
n = 0
for ev in text.split("jdk.ExecutionSample")[1:]:
    frames = [m.group(1) for m in (frame.match(l) for l in ev.splitlines()) if m]
    if not frames or not any(flt in f for f in frames):
        continue
    n += 1
    self_c[frames[0]] += 1
    for f in set(frames):
        total_c[f] += 1
print(f"{n} samples containing '{flt}'")
print("\nself time:")
for f, c in self_c.most_common(top):
    print(f"  {100.0 * c / n:5.1f}%  {f}")
print("\ntotal time (method on the stack):")
for f, c in total_c.most_common(top + 15):
    print(f"  {100.0 * c / n:5.1f}%  {f}")
