#!/bin/bash
# The performance guard: the instructions the common cases execute, counted by Valgrind's
# cachegrind (no cache simulation), against the figures committed in tests/perf/figures.
# Fails when a case grows by more than 10%, so that a feature cannot silently cost a KTH
# replay or a replication-year again (docs/PERFORMANCE.md, "The guard").
#
#   cargo build && bash tests/perf/guard.sh            # check
#   cargo build && bash tests/perf/guard.sh --update   # write the figures anew
#
# Counts are of the debug build that `cargo test` and the Python tests already compiled
# (a release build costs CI six minutes); they follow the algorithms, not the machine.
# Needs Valgrind (installed with apt-get when absent, as root) and ../shared/workloads.
# SITESIM names the binary (default: the debug build, under CARGO_TARGET_DIR if set).
set -euo pipefail

cd "$(dirname "$0")/../.."
ROOT=$PWD
FIGURES=$ROOT/tests/perf/figures
SITESIM=${SITESIM:-${CARGO_TARGET_DIR:-target}/debug/sitesim}
case $SITESIM in /*) ;; *) SITESIM=$ROOT/$SITESIM ;; esac
KTH=$ROOT/../shared/workloads/KTH-SP2-1996-2.swf
[ -f "$KTH" ] || { echo "perf-guard: $KTH is missing (the guard needs ../shared/workloads)" >&2; exit 1; }
[ -x "$SITESIM" ] || { echo "perf-guard: $SITESIM: no sitesim binary; build it first (cargo build) or set SITESIM" >&2; exit 1; }

if ! command -v valgrind >/dev/null; then
  echo "perf-guard: installing valgrind"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q valgrind >/dev/null
fi

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# The instructions `sitesim ARGS...` executes.
count() {
  valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
    "$SITESIM" -q "$@" --out "$WORK/out" 2>"$WORK/log" >/dev/null \
    || { cat "$WORK/log" >&2; echo "perf-guard: sitesim $* failed" >&2; exit 1; }
  rm -rf "$WORK/out"
  sed -n 's/.*I *refs: *\([0-9,]*\).*/\1/p' "$WORK/log" | tr -d ,
}

declare -A CASES=(
  [kth-easy-replay]="replay --swf $KTH --scheduler easy"
  [kth-replication-year]="resample --swf $KTH --replications 1 --weeks 52 --threads 1"
)

if [ "${1:-}" = --update ]; then
  : >"$FIGURES"
  for name in $(printf '%s\n' "${!CASES[@]}" | sort); do
    # shellcheck disable=SC2086
    echo "$name $(count ${CASES[$name]})" >>"$FIGURES"
  done
  cat "$FIGURES"
  exit 0
fi

status=0
while read -r name committed; do
  [ -n "${CASES[$name]:-}" ] || { echo "perf-guard: $FIGURES names an unknown case '$name'" >&2; exit 1; }
  # shellcheck disable=SC2086
  now=$(count ${CASES[$name]})
  ratio=$(awk -v a="$now" -v b="$committed" 'BEGIN { printf "%.3f", a / b }')
  if awk -v r="$ratio" 'BEGIN { exit !(r > 1.10) }'; then
    echo "perf-guard: $name executes $now instructions, $ratio x the committed $committed (limit 1.10)" >&2
    status=1
  else
    echo "perf-guard: $name $now instructions, $ratio x the committed figure"
  fi
done <"$FIGURES"
exit $status
