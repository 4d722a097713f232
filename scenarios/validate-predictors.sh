#!/usr/bin/env bash
# Reproduces the runs behind docs/VALIDATION.md, "Predictors and SJBF": SJBF with each
# predictor against EASY with estimates, as % improvement (positive is better), on one log.
# Usage: scenarios/validate-predictors.sh [LOG] [OVERRUN]   (default: KTH, kill)
set -euo pipefail
cd "$(dirname "$0")/.."
LOG=${1:-../shared/workloads/KTH-SP2-1996-2.swf}
OVERRUN=${2:-kill}
cargo build --release -q
field() { awk -v k="$1" '$1 == k { print $3; exit }'; }
accuracy() { awk '$1 == "prediction" { for (i = 1; i <= NF; i++) if ($i == "|runtime") { print $(i+3) } }'; }
ra() { awk '$1 == "prediction" { for (i = 1; i <= NF; i++) if ($i == "accuracy") { gsub(";", "", $(i+1)); print $(i+1) } }'; }
run() { target/release/sitesim replay --swf "$LOG" --overrun "$OVERRUN" "$@"; }
base=$(run --scheduler easy)
bw=$(field wait <<<"$base"); bb=$(field bsld <<<"$base")
ba=$(accuracy <<<"$base"); br=$(ra <<<"$base")
gain() { awk -v b="$1" -v x="$2" 'BEGIN { printf "%+.1f%%", 100 * (b - x) / b }'; }
rgain() { awk -v b="$1" -v x="$2" 'BEGIN { printf "%+.1f%%", 100 * (x - b) / b }'; }
printf '| scheduler | predictor | mean wait (s) | wait gain | mean bsld | bsld gain | mean abs. inaccuracy (s) | inaccuracy gain | mean rel. accuracy | accuracy gain |\n'
printf '|---|---|---|---|---|---|---|---|---|---|\n'
printf '| easy | (estimates) | %s | | %s | | %s | | %s | |\n' "$bw" "$bb" "$ba" "$br"
for p in estimate perfect infoless ruh easy++ sbh sbh-noest; do
  out=$(run --scheduler sjbf --predictor "$p")
  w=$(field wait <<<"$out"); b=$(field bsld <<<"$out"); a=$(accuracy <<<"$out"); r=$(ra <<<"$out")
  printf '| sjbf | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$p" "$w" "$(gain "$bw" "$w")" \
    "$b" "$(gain "$bb" "$b")" "$a" "$(gain "$ba" "$a")" "$r" "$(rgain "$br" "$r")"
done
