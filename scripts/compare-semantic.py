#!/usr/bin/env python3
"""Compares two output trees of scripts/compare-outputs.sh by meaning rather than bytes.

    scripts/compare-semantic.py BEFORE AFTER

For the changes of issue 14 that alter bytes but not results: JSON keys in another
order; experiment run records whose `metrics` object became top-level figures; the
throughput of experiments in jobs per week where it was in jobs per day (x 7);
`replications.csv` written in full precision where it was rounded; a `sessions`
statistic added to replicated summaries. Every number present on both sides must agree
(relative 1e-9, or the old file's rounding); printed text may gain lines but keeps
every old one, in order (the table of statistics over replications, which gained a unit
column, is compared through summary.json). Reports (SVG, HTML) and the sweep, whose
form changed, are listed, not compared. Exit status 1 on any difference."""
import csv, json, math, os, sys

before, after = sys.argv[1], sys.argv[2]
problems = []

def close(a, b, rounding):
    if isinstance(a, bool) or isinstance(b, bool) or not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
        return a == b
    if isinstance(a, float) and math.isnan(a) and isinstance(b, float) and math.isnan(b):
        return True
    return abs(a - b) <= max(rounding, 1e-9 * max(abs(a), abs(b)))

def normalize_record(d):
    """An experiment run record, old (nested `metrics`, jobs/day) or new, as one dict."""
    if isinstance(d, dict) and "metrics" in d and "point" in d:
        d = dict(d)
        m = dict(d.pop("metrics"))
        if "jobs_per_day" in m:
            m["jobs_per_week"] = m.pop("jobs_per_day") * 7
        d.update(m)
    return d

def normalize_stats(stats):
    out = {}
    for s in stats:
        s = dict(s)
        if s["metric"] == "jobs_per_day":
            s["metric"] = "jobs_per_week"
            for k in ("mean", "sd", "ci95", "min", "max"):
                s[k] *= 7
            s["histogram"] = [dict(b, lo=b["lo"] * 7, hi=b["hi"] * 7) for b in s["histogram"]]
        out[s["metric"]] = s
    return out

def compare(a, b, where, rounding=0.0):
    a, b = normalize_record(a), normalize_record(b)
    if isinstance(a, dict) and isinstance(b, dict):
        for k in a:
            if k not in b:
                # A run record leaves out jobs narrowed to the machine when there are none.
                if not (k == "narrowed_jobs" and a[k] == 0):
                    problems.append(f"{where}: '{k}' is gone")
            elif k in ("stats",) and isinstance(a[k], list):
                sa, sb = normalize_stats(a[k]), normalize_stats(b[k])
                for m in sa:
                    if m not in sb:
                        problems.append(f"{where}.stats: '{m}' is gone")
                    else:
                        compare(sa[m], sb[m], f"{where}.stats.{m}", rounding)
            else:
                compare(a[k], b[k], f"{where}.{k}", rounding)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            problems.append(f"{where}: {len(a)} items, now {len(b)}")
        for i, (x, y) in enumerate(zip(a, b)):
            compare(x, y, f"{where}[{i}]", rounding)
    elif not close(a, b, rounding):
        problems.append(f"{where}: {a!r} is now {b!r}")

def number(text):
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text

def decimals(text):
    return 0.5 * 10 ** -len(text.split(".")[1]) if "." in text and "e" not in text.lower() else 0.0

def compare_csv(pa, pb, where):
    with open(pa, newline="") as f:
        ra = list(csv.DictReader(f))
    with open(pb, newline="") as f:
        rb = list(csv.DictReader(f))
    if len(ra) != len(rb):
        problems.append(f"{where}: {len(ra)} rows, now {len(rb)}")
    for i, (x, y) in enumerate(zip(ra, rb)):
        if "jobs_per_day" in x:
            x["jobs_per_week"] = repr(float(x.pop("jobs_per_day")) * 7)
        for k, v in x.items():
            if k not in y:
                problems.append(f"{where} row {i}: column '{k}' is gone")
            elif not close(number(v), number(y[k]), decimals(v)):
                problems.append(f"{where} row {i} {k}: {v} is now {y[k]}")

# The rows of the terminal table of statistics over replications (it gained a unit column;
# the same numbers are compared in summary.json).
STATS_ROWS = {"metric", "jobs_per_week", "proc_hours_per_week", "utilization", "mean_wait",
              "mean_response", "mean_bsld", "sessions", "jobs_per_session", "session_hours",
              "frustrated"}

compared = skipped = 0
for root, _, files in os.walk(before):
    for name in sorted(files):
        pa = os.path.join(root, name)
        rel = os.path.relpath(pa, before)
        pb = os.path.join(after, rel)
        if rel.startswith("sweep") or "/report/" in rel or name.endswith((".svg", ".html")):
            skipped += 1
            continue
        if not os.path.exists(pb):
            problems.append(f"{rel}: missing")
            continue
        compared += 1
        if open(pa, "rb").read() == open(pb, "rb").read():
            continue
        if name.endswith(".json"):
            compare(json.load(open(pa)), json.load(open(pb)), rel)
        elif name.endswith(".csv"):
            compare_csv(pa, pb, rel)
        else:
            # Printed text may gain lines (the `sessions` statistic, an experiment's table
            # of means); every old line must still be there, in order.
            new = iter(open(pb).read().splitlines())
            for line in open(pa).read().splitlines():
                if line.split()[:1] and line.split()[0] in STATS_ROWS:
                    continue  # the table of statistics: now with units, its numbers in summary.json
                if not any(line == n for n in new):
                    problems.append(f"{rel}: the line '{line}' is gone or changed")
                    break
print(f"compare-semantic: {compared} files compared, {skipped} reports and sweep files listed only")
for p in problems:
    print("  " + p)
sys.exit(1 if problems else 0)
