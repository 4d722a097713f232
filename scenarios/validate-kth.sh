#!/usr/bin/env bash
# Reproduces the runs behind docs/VALIDATION.md, "KTH SP2: EASY and conservative":
# open-loop replay of the KTH SP2 log (100 processors) with its own estimates, under each policy and each overrun policy.
# Prints mean wait, mean response and mean bounded slowdown (both forms), utilization.
# Usage: scenarios/validate-kth.sh [path/to/KTH-SP2-1996-2.swf]
set -euo pipefail
cd "$(dirname "$0")/.."
LOG=${1:-../shared/workloads/KTH-SP2-1996-2.swf}
cargo build --release -q
mean() { awk -v k="$1" '$1 == k { print $3; exit }'; }
printf '| overrun | policy | mean wait (s) | mean response (s) | mean bsld, clamped | mean bsld, unclamped | utilization |\n'
printf '|---|---|---|---|---|---|---|\n'
for overrun in kill extend overrun; do
  for policy in fcfs easy conservative; do
    c=$(target/release/sitesim replay --swf "$LOG" --scheduler "$policy" --overrun "$overrun")
    u=$(target/release/sitesim replay --swf "$LOG" --scheduler "$policy" --overrun "$overrun" --bsld unclamped)
    util=$(awk '$1 == "utilization" { print $2; exit }' <<<"$c")
    printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$overrun" "$policy" \
      "$(mean wait <<<"$c")" "$(mean response <<<"$c")" "$(mean bsld <<<"$c")" \
      "$(mean bsld <<<"$u")" "$util"
  done
done
