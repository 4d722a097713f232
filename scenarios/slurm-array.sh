#!/bin/bash
# Runs an experiment as a Slurm job array: task K of N runs shard K/N of the
# experiment's runs into its own directory; a last job, started when every task has
# finished, merges the shards and writes the report.
#
#   sbatch --array=1-8 scenarios/slurm-array.sh scenarios/creasy-alpha.toml
#
# Each shard's runs are written one file each as they finish, so a task that is
# preempted or hits its time limit resumes where it stopped when it is requeued
# (`--requeue`), and the merge gives the same results as one process would.
#SBATCH --job-name=sitesim
#SBATCH --cpus-per-task=4
#SBATCH --time=02:00:00
#SBATCH --requeue
#SBATCH --output=slurm-%A_%a.out

set -euo pipefail

SCENARIO=${1:?usage: sbatch --array=1-N scenarios/slurm-array.sh SCENARIO.toml [RESULTS_DIR]}
NAME=$(basename "$SCENARIO" .toml)
RESULTS=${2:-results/$NAME}
SITESIM=${SITESIM:-./target/release/sitesim}
K=${SLURM_ARRAY_TASK_ID:?submit with sbatch --array=1-N}
N=${SLURM_ARRAY_TASK_COUNT:?submit with sbatch --array=1-N}

# sitesim runs replications on the cores Slurm gave this task.
export RAYON_NUM_THREADS=${SLURM_CPUS_PER_TASK:-1}
"$SITESIM" run "$SCENARIO" --shard "$K/$N" --out "$RESULTS/shard-$K"

# The last task to be submitted queues the merge behind the whole array.
if [ "$K" -eq "$N" ] && [ -z "${SITESIM_MERGE_QUEUED:-}" ]; then
  sbatch --dependency=afterok:"$SLURM_ARRAY_JOB_ID" --job-name=sitesim-merge \
    --export=ALL,SITESIM_MERGE_QUEUED=1 --wrap \
    "$SITESIM merge --out $RESULTS $(for i in $(seq 1 "$N"); do printf '%s ' "$RESULTS/shard-$i"; done) \
     && $SITESIM report $RESULTS"
fi
