#!/usr/bin/env python3
"""Prints JMH JSON results (-rf json) as Markdown tables, one per benchmark class.

Usage: benchmarks/jmh-table.py RESULT.json [MORE.json ...]
Columns: parameters, mode, count, score ± error (99.9% CI, as JMH reports it), unit; for sample-time
results also the median (p50) and p99 of the individual op times.
"""
import collections
import json
import sys


def fmt(x):
    if x != x:  # NaN
        return "n/a"
    if abs(x) >= 100:
        return f"{x:,.0f}"
    if abs(x) >= 10:
        return f"{x:.1f}"
    return f"{x:.2f}"


rows = collections.OrderedDict()
for path in sys.argv[1:]:
    for r in json.load(open(path)):
        cls, method = r["benchmark"].rsplit(".", 1)
        rows.setdefault(cls.rsplit(".", 1)[1], []).append((method, r))

for cls, items in rows.items():
    params = sorted({k for _, r in items for k in (r.get("params") or {})})
    sample = any(r["mode"] == "sample" for _, r in items)
    head = ["method"] + params + ["mode", "cnt", "score", "error (99.9%)", "unit"] + (["p50", "p99"] if sample else [])
    print(f"### {cls}\n")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for method, r in items:
        m = r["primaryMetric"]
        p = r.get("params") or {}
        line = [method] + [p.get(k, "") for k in params] + [r["mode"], str(len(m.get("rawData", [[]])[0]) if r["mode"] != "sample" else "")]
        line += [fmt(m["score"]), "± " + fmt(m["scoreError"]), m["scoreUnit"]]
        if sample:
            pc = m.get("scorePercentiles", {})
            line += [fmt(pc.get("50.0", float("nan"))), fmt(pc.get("99.0", float("nan")))] if r["mode"] == "sample" else ["", ""]
        print("| " + " | ".join(line) + " |")
    print()
