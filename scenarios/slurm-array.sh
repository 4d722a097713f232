#!/bin/bash
# Runs an experiment as a Slurm job array: task K of N runs shard K/N of the
# experiment's runs into RESULTS/shard-K; when every task has succeeded, a merge job
# merges the shards into RESULTS and writes the report (RESULTS/report/index.html).
#
#   cargo build --release
#   sbatch --array=1-8 scenarios/slurm-array.sh scenarios/creasy-alpha.toml
#   sbatch --array=1-8 scenarios/slurm-array.sh SCENARIO.toml RESULTS_DIR
#
# Arguments: the scenario, the results directory (default results/NAME) and the number
# of shards N (default: the array's size, which must then be 1-N; give N whenever the
# array is not 1-N, as when resubmitting some of its tasks). Paths are relative to the
# directory sbatch is called from. SITESIM names the binary (default
# ./target/release/sitesim); each task runs its shard on the CPUs Slurm gave it
# (--cpus-per-task, which the sbatch command line can set below the default here).
#
# Each shard's runs are written one file each as they finish, so a task that is
# preempted or hits its time limit resumes where it stopped when it is requeued
# (`--requeue`) or resubmitted. If a task fails or is cancelled, the merge job is
# cancelled with it; resubmit that task alone with N given, and it queues the merge
# again when it succeeds:
#
#   sbatch --array=5 scenarios/slurm-array.sh SCENARIO.toml RESULTS_DIR 8
#
# The highest-numbered task of each submission queues the merge, once its own shard is
# done, behind every task of its submission (`--dependency=afterok`).
#SBATCH --job-name=sitesim
#SBATCH --cpus-per-task=4
#SBATCH --time=02:00:00
#SBATCH --requeue
#SBATCH --output=slurm-%A_%a.out

set -euo pipefail

usage='usage: sbatch --array=1-N scenarios/slurm-array.sh SCENARIO.toml [RESULTS_DIR [N]]'
die() {
  echo "slurm-array.sh: $*" >&2
  exit 1
}

SCENARIO=${1:?$usage}
NAME=$(basename "$SCENARIO" .toml)
RESULTS=${2:-results/$NAME}
SITESIM=${SITESIM:-./target/release/sitesim}
[ -f "$SCENARIO" ] || die "$SCENARIO: no such scenario file (in $PWD)"
[ -x "$SITESIM" ] || die "$SITESIM: no such program (in $PWD); build it with \
cargo build --release, or set SITESIM to the sitesim binary"

# The merge job (queued by the highest task below, or by hand: sbatch
# --export=ALL,SITESIM_MERGE=1 scenarios/slurm-array.sh SCENARIO RESULTS).
if [ -n "${SITESIM_MERGE:-}" ]; then
  shopt -s nullglob
  shards=("$RESULTS"/shard-*)
  [ "${#shards[@]}" -gt 0 ] || die "no $RESULTS/shard-* to merge: run the array first"
  "$SITESIM" merge --out "$RESULTS" "${shards[@]}"
  if ! grep -Eq '"missing_runs": *0,?$' "$RESULTS/summary.json"; then
    die "$RESULTS: runs are missing from the shards; resubmit the tasks that did not \
finish (sbatch --array=K ... SCENARIO RESULTS N)"
  fi
  "$SITESIM" report "$RESULTS"
  exit 0
fi

K=${SLURM_ARRAY_TASK_ID:?$usage}
if [ -n "${3:-}" ]; then
  N=$3
elif [ "${SLURM_ARRAY_TASK_MIN:-}" = 1 ] && [ "${SLURM_ARRAY_TASK_STEP:-1}" = 1 ] &&
  [ "${SLURM_ARRAY_TASK_MAX:-}" = "${SLURM_ARRAY_TASK_COUNT:-}" ]; then
  N=$SLURM_ARRAY_TASK_MAX
else
  die "the array is not 1-N (task $K, indices ${SLURM_ARRAY_TASK_MIN:-?}-\
${SLURM_ARRAY_TASK_MAX:-?}): give the number of shards N as the third argument"
fi
if ! [[ $N =~ ^[1-9][0-9]*$ ]] || [ "$K" -lt 1 ] || [ "$K" -gt "$N" ]; then
  die "task $K is not a shard of 1-$N"
fi

# sitesim runs replications on the cores Slurm gave this task. An interrupted shard
# (SIGINT) keeps its finished runs and exits 0, so its output is checked.
export RAYON_NUM_THREADS=${SLURM_CPUS_PER_TASK:-1}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$SITESIM" run "$SCENARIO" --shard "$K/$N" --out "$RESULTS/shard-$K" | tee "$log"
if grep -q '^ *interrupted' "$log"; then
  die "shard $K/$N was interrupted; resubmit it to resume"
fi

# The highest task of this submission queues the merge behind all of them; if one of
# them fails, Slurm cancels the merge (--kill-on-invalid-dep) instead of leaving it
# pending forever. The merge job is this script again, in merge mode (a few seconds),
# in this task's partition, account and QOS.
if [ "$K" -eq "${SLURM_ARRAY_TASK_MAX:-$K}" ]; then
  where=()
  [ -z "${SLURM_JOB_PARTITION:-}" ] || where+=(--partition="$SLURM_JOB_PARTITION")
  [ -z "${SLURM_JOB_ACCOUNT:-}" ] || where+=(--account="$SLURM_JOB_ACCOUNT")
  [ -z "${SLURM_JOB_QOS:-}" ] || where+=(--qos="$SLURM_JOB_QOS")
  sbatch --dependency=afterok:"$SLURM_ARRAY_JOB_ID" --kill-on-invalid-dep=yes \
    --job-name=sitesim-merge --cpus-per-task=1 --time=00:30:00 ${where[@]+"${where[@]}"} \
    --output="slurm-${SLURM_ARRAY_JOB_ID}-merge.out" \
    --export=ALL,SITESIM_MERGE=1 \
    "$0" "$SCENARIO" "$RESULTS"
fi
