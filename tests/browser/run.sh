#!/bin/bash
# The browser test: every kind of results directory gets its report (`sitesim report`),
# and each report page and SVG is loaded in headless Chromium (tests/browser/check.py):
# no script or loading error, every image drawn, nothing wider than the page, no text
# outside its SVG's canvas.
#
#   cargo build && bash tests/browser/run.sh
#
# Needs Chromium (Debian's chromium, installed with apt-get when absent, as root) and
# ../shared/workloads (the KTH log). SITESIM names the binary (default: the debug build,
# under CARGO_TARGET_DIR if set). The results live in a temporary directory, kept and
# named on failure.
set -euo pipefail

cd "$(dirname "$0")/../.."
ROOT=$PWD
SITESIM=${SITESIM:-${CARGO_TARGET_DIR:-target}/debug/sitesim}
case $SITESIM in /*) ;; *) SITESIM=$ROOT/$SITESIM ;; esac
KTH=$ROOT/../shared/workloads/KTH-SP2-1996-2.swf
[ -f "$KTH" ] || { echo "browser-test: $KTH is missing (the test needs ../shared/workloads)" >&2; exit 1; }

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
  echo "browser-test: installing chromium"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null
  CHROMIUM=$(command -v chromium)
fi

WORK=$(mktemp -d)
trap 'echo "browser-test: FAILED; the results are in $WORK" >&2' ERR
q() { "$SITESIM" -q "$@" >/dev/null; }
q replay --swf "$KTH" --out "$WORK/replay" --report
q feedback --swf "$KTH" --out "$WORK/feedback" --report
q resample --swf "$KTH" --replications 8 --weeks 4 --out "$WORK/resample" --report
q calibrate --swf "$KTH" --replications 8 --weeks 4 --out "$WORK/calibrate"
q run --replications 4 --set duration=8w --out "$WORK/scenario" --report
q run scenarios/creasy-alpha.toml --replications 2 --set duration=4w --out "$WORK/experiment" --report
q report "$WORK/replay" --colour class --schedule-from 30d --schedule-length 2d
q replay --swf "$KTH" --scheduler fcfs --out "$WORK/replay-fcfs"
q report "$WORK/replay" "$WORK/replay-fcfs" --out "$WORK/compare"
q analyze --swf "$KTH" --report --out "$WORK/analyze"
python3 tests/browser/check.py "$CHROMIUM" \
  "$WORK/replay/report" "$WORK/feedback/report" "$WORK/resample/report" \
  "$WORK/calibrate/report" "$WORK/scenario/report" "$WORK/experiment/report" \
  "$WORK/compare" "$WORK/analyze/report"
rm -rf "$WORK"
echo "browser-test: passed"
