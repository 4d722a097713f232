#!/usr/bin/env bash
# Runs every shipped scenario (shortened: 2 replications, 8 weeks, a warm-up of 10 weeks
# or more cut to 2) and replay, feedback, resample and sweep on KTH with one sitesim
# binary, writing each command's printed text and output files under OUT. Run it with the binaries of two commits and compare:
#
#   scripts/compare-outputs.sh OLD_BIN /tmp/before
#   scripts/compare-outputs.sh target/release/sitesim /tmp/after
#   diff -r /tmp/before /tmp/after && echo identical
#
# Run from the repository root, with ../shared beside it.
set -euo pipefail
BIN=$(realpath "${1:?usage: scripts/compare-outputs.sh SITESIM_BINARY OUT_DIR}")
OUT=${2:?usage: scripts/compare-outputs.sh SITESIM_BINARY OUT_DIR}
KTH=../shared/workloads/KTH-SP2-1996-2.swf
[ -f "$KTH" ] || {
  echo "compare-outputs: $KTH is missing (../shared must be beside the repository)" >&2
  exit 1
}
# Everything is written under one fixed folder (the scenario text and the printed paths
# name it), then moved to OUT.
FINAL=$OUT
OUT=${TMPDIR:-/tmp}/sitesim-compare-outputs
rm -rf "$OUT" "$FINAL" && mkdir -p "$OUT/scenarios"
SHORT=$(mktemp -d)
trap 'rm -rf "$SHORT"' EXIT

run() { # NAME ARGS...: the printed text in NAME.txt, files in NAME/
  local name=$1; shift
  "$BIN" "$@" --out "$OUT/$name" >"$OUT/$name.txt" 2>"$OUT/$name.err" || {
    echo "compare-outputs: $name failed: $(head -c 400 "$OUT/$name.err")" >&2
    exit 1
  }
}

for s in scenarios/*.toml; do
  name=$(basename "$s" .toml)
  dir="$OUT/scenarios/$name"
  # The shortened copy lives elsewhere: its log paths, relative to scenarios/, made absolute.
  sed -e 's/^replications = .*/replications = 2/' -e 's/^duration = .*/duration = "8w"/' \
    -e 's/^warmup = "[0-9][0-9]w"/warmup = "2w"/' \
    -e "s|^path = \"\([^/][^\"]*\)\"|path = \"$PWD/scenarios/\1\"|" \
    -e "s|^#* *dir = .*|dir = \"$dir\"|" "$s" >"$SHORT/$name.toml"
  grep -q '^\[output\]' "$SHORT/$name.toml" || printf '\n[output]\ndir = "%s"\n' "$dir" >>"$SHORT/$name.toml"
  "$BIN" run "$SHORT/$name.toml" >"$dir.txt" 2>"$dir.err" || {
    echo "compare-outputs: scenario $name failed: $(head -c 400 "$dir.err")" >&2
    exit 1
  }
  if [ -f "$OUT/scenarios/$name/experiment.json" ]; then
    "$BIN" report "$OUT/scenarios/$name" >/dev/null
  fi
done
for policy in fcfs easy conservative sjbf creasy pbas wbas time-of-day; do
  run "replay-$policy" replay --swf "$KTH" --scheduler "$policy"
done
run feedback-easy feedback --swf "$KTH" --scheduler easy
run feedback-logged feedback --swf "$KTH" --scheduler logged
run resample-easy resample --swf "$KTH" --scheduler easy --replications 4 --weeks 12
run sweep sweep --swf "$KTH" --schedulers easy --schedulers fcfs --populations 1,2 --replications 2 --weeks 8
# Wall-clock times are the only figures that differ between two runs of one binary.
find "$OUT" \( -name '*.err' -o -name '*.txt' \) -exec sed -i -E \
  -e '/ran in [0-9.]+ s$/d' -e '/^ *time +[0-9.]+ [mµ]?s/d' {} +
mv "$OUT" "$FINAL"
echo "compare-outputs: $(find "$FINAL" -type f | wc -l) files in $FINAL"
