#!/usr/bin/env bash
# Reproduces the runs behind docs/VALIDATION.md, "Estimate models on KTH": EASY and
# conservative on KTH with the log's estimates, exact ones, uniform ones (f = 2 and 4,
# mean of 10 seeds) and doubled ones, beside Mu'alem and Feitelson's Tables 3-4 (2001),
# and with the modal model of Tsafrir et al. (Tsafrir et al. 2005).
# Usage: scenarios/validate-estimates.sh [path/to/KTH-SP2-1996-2.swf]
set -euo pipefail
cd "$(dirname "$0")/.."
LOG=${1:-../shared/workloads/KTH-SP2-1996-2.swf}
cargo build --release -q
field() { awk -v k="$1" '$1 == k { print $3; exit }'; }
row() {
  local policy=$1 model=$2 seeds=$3
  local w=0 r=0 b=0
  for seed in $(seq 1 "$seeds"); do
    out=$(target/release/sitesim replay --swf "$LOG" --scheduler "$policy" --estimates "$model" --seed "$seed" --bsld unclamped)
    w=$(awk -v a="$w" -v x="$(field wait <<<"$out")" 'BEGIN { print a + x }')
    r=$(awk -v a="$r" -v x="$(field response <<<"$out")" 'BEGIN { print a + x }')
    b=$(awk -v a="$b" -v x="$(field bsld <<<"$out")" 'BEGIN { print a + x }')
  done
  awk -v p="$policy" -v m="$model" -v n="$seeds" -v w="$w" -v r="$r" -v b="$b" \
    'BEGIN { printf "| %s | %s | %d | %.0f | %.0f | %.1f |\n", p, m, n, w / n, r / n, b / n }'
}
printf '| policy | estimates | seeds | mean wait (s) | mean response (s) | mean bsld (unclamped) |\n'
printf '|---|---|---|---|---|---|\n'
for policy in easy conservative; do
  row "$policy" log 1
  row "$policy" exact 1
  row "$policy" uniform:2 10
  row "$policy" uniform:4 10
  row "$policy" scaled:2 1
  row "$policy" modal 10
done
