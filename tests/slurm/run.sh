#!/bin/bash
# The Slurm test: runs scenarios/slurm-array.sh under a real, one-node Slurm on
# localhost and checks that the merged results of the job array equal one process's,
# byte for byte, also after a task was cancelled mid-way and resubmitted.
#
#   cargo build && bash tests/slurm/run.sh
#
# Needs root and Slurm (Debian's slurmctld, slurmd, slurm-client and munge, installed
# with apt-get when slurmctld is absent). Everything else lives in a temporary
# directory: a munge key and munged on its own socket, slurm.conf, the daemons' state,
# spool and logs, and the results; the daemons are stopped at the end. SITESIM names the binary (default: the debug build, under
# CARGO_TARGET_DIR if set). On failure it prints the daemons' logs and the jobs' outputs
# and keeps the temporary directory.
#
# What it checks:
#   1. sbatch --array=1-3 slurm-array.sh: every task and the merge job it queues
#      complete; each shard has runs; the merged results (runs, summary, runs.csv,
#      report) equal `sitesim run` + `sitesim report` in one process.
#   2. Resumption: in a second array, shard 2 leaves half its runs and a half-written
#      file, as a task stopped mid-way does, and hangs until scancel; the merge job is
#      then cancelled by Slurm rather than left pending. Resubmitting that task alone
#      (sbatch --array=2 ... 3) keeps the finished runs, runs the others, queues the
#      merge again, and the merged results again equal one process's.
set -euo pipefail

cd "$(dirname "$0")/../.."
ROOT=$PWD
export PATH=$PATH:/usr/sbin:/sbin
SITESIM=${SITESIM:-${CARGO_TARGET_DIR:-target}/debug/sitesim}
case $SITESIM in /*) ;; *) SITESIM=$ROOT/$SITESIM ;; esac
ARRAY=$ROOT/scenarios/slurm-array.sh
SCENARIO=$ROOT/tests/slurm/smoke.toml
TIMEOUT=${SLURM_TEST_TIMEOUT:-300} # seconds to wait for any one phase

started=$SECONDS
step() { printf '[slurm-test %3ds] %s\n' "$((SECONDS - started))" "$*"; }
fail() {
  echo "slurm-test: FAILED: $*" >&2
  exit 1
}

[ -x "$SITESIM" ] || fail "$SITESIM: no sitesim binary; build it first (cargo build) or set SITESIM"

if ! command -v slurmctld >/dev/null; then
  if ! command -v apt-get >/dev/null || [ "$(id -u)" -ne 0 ]; then
    fail "slurmctld is not installed, and only root with apt-get can install it here (apt-get install slurm-wlm)"
  fi
  step "installing Slurm (slurmctld, slurmd, slurm-client, munge) with apt-get"
  export DEBIAN_FRONTEND=noninteractive
  apt_log=$(mktemp)
  if ! { apt-get update -qq && apt-get install -y -qq --no-install-recommends \
    slurmctld slurmd slurm-client munge; } >"$apt_log" 2>&1; then
    cat "$apt_log" >&2
    fail "apt-get could not install Slurm"
  fi
  rm -f "$apt_log"
fi
[ "$(id -u)" -eq 0 ] || fail "the test runs slurmd as root (SlurmdUser=root); run it as root"

T=$(mktemp -d "${TMPDIR:-/tmp}/sitesim-slurm.XXXXXX")
chmod 755 "$T" # munged needs its socket's directories searchable by all
mkdir -p "$T/munge" "$T/run" "$T/log" "$T/state" "$T/spool" "$T/work"
chmod 700 "$T/munge"
chmod 755 "$T/run"
export SLURM_CONF=$T/slurm.conf
pids=()

dump() {
  echo "===== jobs" >&2
  squeue -h -t all -o '%i %j %T %r' >&2 2>/dev/null || true
  for f in "$T"/log/* "$T"/work/slurm-*.out; do
    [ -f "$f" ] || continue
    echo "===== $f (last 60 lines)" >&2
    tail -n 60 "$f" >&2
  done
}
cleanup() {
  local rc=$?
  set +e
  if [ "$rc" -ne 0 ]; then
    dump
  fi
  # Our jobs first (slurmstepd outlives slurmd), then the daemons we started.
  if [ "${#pids[@]}" -gt 0 ]; then
    mapfile -t jobs < <(squeue -h -o %A 2>/dev/null | sort -u)
    if [ "${#jobs[@]}" -gt 0 ]; then
      scancel "${jobs[@]}"
      sleep 2
    fi
    kill "${pids[@]}" 2>/dev/null
    wait "${pids[@]}" 2>/dev/null
  fi
  if [ -f "$T/run/munged.pid" ]; then
    kill "$(cat "$T/run/munged.pid")" 2>/dev/null
  fi
  if [ "$rc" -eq 0 ]; then
    rm -rf "$T"
  else
    echo "slurm-test: FAILED; its files are in $T" >&2
  fi
  exit "$rc"
}
trap cleanup EXIT

step "starting munged, slurmctld and slurmd in $T"
if command -v mungekey >/dev/null; then
  mungekey --create --keyfile="$T/munge/munge.key"
else
  dd if=/dev/urandom of="$T/munge/munge.key" bs=1024 count=1 status=none
fi
chmod 600 "$T/munge/munge.key"
munged --socket="$T/run/munge.socket" --key-file="$T/munge/munge.key" \
  --pid-file="$T/run/munged.pid" --log-file="$T/log/munged.log" \
  --seed-file="$T/munge/munged.seed" ||
  fail "munged did not start (see $T/log/munged.log)"

# The node as slurmd sees its hardware (CPUs, sockets, cores, memory), named localhost.
node=$(slurmd -C | head -n 1 | sed 's/^NodeName=[^ ]*/NodeName=localhost NodeAddr=127.0.0.1/')
cat >"$SLURM_CONF" <<EOF
# A one-node Slurm on localhost, for tests/slurm/run.sh: no cgroups, no accounting.
ClusterName=sitesim-test
SlurmctldHost=localhost
SlurmctldPort=16817
SlurmdPort=16818
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$T/run/munge.socket
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/run/slurmctld.pid
SlurmdPidFile=$T/run/slurmd.pid
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
MailProg=/bin/true
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MinJobAge=3600
KillWait=5
$node State=UNKNOWN
PartitionName=test Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
slurmctld -D -f "$SLURM_CONF" >"$T/log/slurmctld.log" 2>&1 &
pids+=($!)
slurmd -D -N localhost -f "$SLURM_CONF" >"$T/log/slurmd.log" 2>&1 &
pids+=($!)

# Waits up to TIMEOUT seconds for `$@` to succeed.
wait_for() {
  local what=$1
  shift
  local deadline=$((SECONDS + TIMEOUT))
  until "$@"; do
    [ "$SECONDS" -lt "$deadline" ] || fail "timed out after ${TIMEOUT}s waiting for $what"
    for p in "${pids[@]}"; do
      kill -0 "$p" 2>/dev/null || fail "a Slurm daemon stopped while waiting for $what"
    done
    sleep 1
  done
}
node_idle() { [ "$(sinfo -h -n localhost -o %T 2>/dev/null)" = idle ]; }
queue_empty() { [ -z "$(squeue -h -o %i)" ]; }
# The state of job (or array task) $1, and of the merge job queued by array $1.
state() { squeue -h -t all -j "$1" -o %T 2>/dev/null; }
merge_state() {
  squeue -h -t all -n sitesim-merge -O 'State:20,StdOut:1000' |
    awk -v out="slurm-$1-merge.out" 'substr($2, length($2) - length(out) + 1) == out { print $1 }'
}
expect_state() {
  local got
  got=$(state "$1")
  [ "$got" = "$2" ] || fail "job $1 is ${got:-gone}, not $2"
}
expect_merge() {
  local got
  got=$(merge_state "$1")
  [ "$got" = "$2" ] || fail "the merge job of array $1 is ${got:-missing}, not $2"
}
runs_in() { find "$1" -name 'r*.json' -path '*/runs/*' | wc -l; }

wait_for "the node to be idle" node_idle

# The same scenario file, read from the working directory by every job and process.
cd "$T/work"
cp "$SCENARIO" smoke.toml
export SITESIM

step "one process: sitesim run + sitesim report"
if ! { "$SITESIM" run smoke.toml --out single && "$SITESIM" report single; } >single.out 2>&1; then
  cat single.out >&2
  fail "sitesim failed on the smoke experiment in one process"
fi
total=$(runs_in single)
[ "$total" -ge 3 ] || fail "the smoke experiment has $total runs; it needs some for each of 3 shards"

compare() {
  # The shards' directories are the array's own; everything else must be identical.
  diff -r --exclude='shard-*' single "$1" ||
    fail "the merged results in $1 differ from one process's (above)"
  step "$1 equals the single process's results byte for byte ($(runs_in "$1/runs") runs, summary, runs.csv, report)"
}

# 1. The plain sweep, with relative paths from sbatch's working directory. The nodes of
# CI have 2 CPUs: the command line's --cpus-per-task=1 overrides the script's 4.
step "phase 1: sbatch --array=1-3 scenarios/slurm-array.sh smoke.toml sharded"
a1=$(sbatch --parsable --array=1-3 --cpus-per-task=1 --chdir="$T/work" "$ARRAY" smoke.toml sharded)
wait_for "array $a1 and its merge job" queue_empty
for k in 1 2 3; do
  expect_state "${a1}_$k" COMPLETED
  n=$(runs_in "sharded/shard-$k")
  [ "$n" -gt 0 ] || fail "shard $k ran no runs"
done
expect_merge "$a1" COMPLETED
[ -f sharded/report/index.html ] || fail "the merge job wrote no report"
compare sharded

# 2. Resumption. Shard 2's first attempt (a wrapper around sitesim) leaves what a task
# stopped mid-way leaves, half its runs and a half-written file, then hangs until it
# is cancelled, as a time limit or `scancel` would end it.
step "phase 2: a task cancelled mid-way, then resubmitted"
cat >crashy-sitesim <<EOF
#!/bin/bash
set -euo pipefail
if [[ " \$* " == *" --shard 2/3 "* ]] && mkdir "$T/work/crashed" 2>/dev/null; then
  out=resumed/shard-2
  "$SITESIM" "\$@"
  mapfile -t lost < <(find "\$out/runs" -name 'r*.json' | sort | tail -n +5)
  rm "\${lost[@]}"
  printf '{"point": "p0' >"\${lost[0]}.partial"
  touch "$T/work/hanging"
  exec sleep 600
fi
exec "$SITESIM" "\$@"
EOF
chmod +x crashy-sitesim
a2=$(SITESIM=$T/work/crashy-sitesim sbatch --parsable --array=1-3 --cpus-per-task=1 \
  --chdir="$T/work" "$ARRAY" smoke.toml resumed)
hanging_with_merge_queued() {
  [ -e hanging ] && [ "$(state "${a2}_3")" = COMPLETED ] && [ "$(merge_state "$a2")" = PENDING ]
}
wait_for "shard 2 to hang and the merge job to be queued" hanging_with_merge_queued
kept=$(runs_in resumed/shard-2)
if [ "$kept" -eq 0 ] || [ "$kept" -ge "$(runs_in sharded/shard-2)" ]; then
  fail "shard 2 should hold part of its runs before the resubmission, holds $kept"
fi
scancel "${a2}_2"
wait_for "the cancelled array and its merge job to end" queue_empty
expect_state "${a2}_2" CANCELLED
expect_merge "$a2" CANCELLED
[ ! -e resumed/summary.json ] || fail "a merge ran although shard 2 was cancelled"
before=$(find resumed/shard-2/runs -name 'r*.json' -exec stat -c '%n %i %Y' {} + | sort)

step "resubmitting the cancelled task: sbatch --array=2 scenarios/slurm-array.sh smoke.toml resumed 3"
a3=$(SITESIM=$T/work/crashy-sitesim sbatch --parsable --array=2 --cpus-per-task=1 \
  --chdir="$T/work" "$ARRAY" smoke.toml resumed 3)
wait_for "the resubmitted task and its merge job" queue_empty
expect_state "${a3}_2" COMPLETED
sed 's/^/    | /' "slurm-${a3}_2.out"
expect_merge "$a3" COMPLETED
after=$(find resumed/shard-2/runs -name 'r*.json' -exec stat -c '%n %i %Y' {} + | sort | head -n "$kept")
[ "$before" = "$after" ] || fail "the resubmitted task rewrote the runs it had finished"
[ -z "$(find resumed -name '*.partial')" ] || fail "a half-written file was left in resumed"
[ "$(runs_in resumed/shard-2)" -eq "$(runs_in sharded/shard-2)" ] || fail "shard 2 is incomplete"
compare resumed

step "passed"
