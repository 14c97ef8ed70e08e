#!/bin/bash
# The Slurm launch files on a real Slurm: a one-node cluster (munged, slurmctld, slurmd as root; cons_tres over
# this machine's real CPUs and memory, from slurmd -C) in a temporary folder, and `sbatch --wait` of
#   1. configs/launch/fleet-slurm.sbatch running `mlbench burnin` (45 s of the hostmem phase over about 128 MiB),
#      with the hosts expected = this node + two that never start: the fleet verdict (the job's exit status)
#      is 1 and names both as missing, and this node's burn-in report is there with its node verdict;
#   2. the same with three per-node commands on this one node (three reports, as a 3-node fleet writes): the
#      outlier analysis runs over 3 reports, no host is missing, exit 0 (--no-fail: three copies sharing two
#      cores measure each other's contention, not a bad node);
#   3. configs/launch/nccl-slurm.sbatch on one node, two tasks, no GPUs requested: with no GPU every rank
#      records net.nccl as skipped and rank 0 writes the cluster report (docs/nccl.md, "Launch modes"), exit 0.
# The three commands of job 2 are short host-memory runs (`mlbench hostmem`): three burn-ins would each size
# their pattern test to the free memory at once. About 95 s on two cores, much of it sbatch --wait polling at
# growing intervals. Every daemon is stopped and the folder removed on exit.
#
# Usage: tests/tools/slurm_test.sh PATH/TO/mlbench     (CTest: tools.slurm; exit 77 = skipped)
set -uo pipefail

MLBENCH=$(realpath "${1:?usage: slurm_test.sh PATH/TO/mlbench}")
SRC=$(cd "$(dirname "$0")/../.." && pwd)

skip() {
  echo "slurm_test: skipped: $*"
  exit 77
}
fail() {
  echo "slurm_test: FAIL: $*" >&2
  exit 1
}

[ "$(id -u)" -eq 0 ] || skip "needs root (slurmd starts jobs as any user)"
for tool in munged slurmctld slurmd sbatch sinfo scontrol python3; do
  command -v "$tool" >/dev/null || skip "$tool not installed (apt-get install slurm-wlm munge)"
done
[ -x "$MLBENCH" ] || fail "no mlbench binary at $MLBENCH"

tmp=$(mktemp -d /tmp/mlbench-slurm.XXXXXX)
chmod 755 "$tmp" # munged's socket must be reachable through it

stop_daemon() {
  local pidfile=$1 pid
  [ -s "$pidfile" ] || return 0
  pid=$(cat "$pidfile")
  kill "$pid" 2>/dev/null || return 0
  for _ in $(seq 50); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  kill -9 "$pid" 2>/dev/null
}
cleanup() {
  stop_daemon "$tmp/slurmd.pid"
  stop_daemon "$tmp/slurmctld.pid"
  stop_daemon "$tmp/munged.pid"
  rm -rf "$tmp"
}
trap cleanup EXIT

host=$(hostname -s)
node=$(slurmd -C | head -n 1) # NodeName=<host> CPUs=... RealMemory=...
read -r ctld_port slurmd_port < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*(x.getsockname()[1] for x in s))')

head -c 1024 /dev/urandom >"$tmp/munge.key"
chmod 600 "$tmp/munge.key"
munged --force --key-file="$tmp/munge.key" --socket="$tmp/munge.sock" --pid-file="$tmp/munged.pid" \
  --log-file="$tmp/munged.log" --seed-file="$tmp/munged.seed" || fail "munged did not start: $(tail -n 3 "$tmp/munged.log")"

mkdir -p "$tmp/state" "$tmp/spool"
cat >"$tmp/slurm.conf" <<EOF
ClusterName=mlbench-test
SlurmctldHost=$host
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$tmp/munge.sock
CredType=cred/munge
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
$node State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$tmp/slurm.conf

slurmctld -f "$SLURM_CONF" || fail "slurmctld did not start: $(tail -n 5 "$tmp/slurmctld.log")"
slurmd -f "$SLURM_CONF" || fail "slurmd did not start: $(tail -n 5 "$tmp/slurmd.log")"
for _ in $(seq 100); do
  [ "$(sinfo -h -n "$host" -o %T 2>/dev/null)" = idle ] && break
  sleep 0.2
done
[ "$(sinfo -h -n "$host" -o %T)" = idle ] || fail "node $host not idle after 20 s: $(sinfo -h -n "$host" -o '%T %E')"
echo "slurm_test: one-node cluster up: $node"

# sbatch --wait: the job id, then the job's exit status as sbatch's own. Sets job, rc and took (seconds).
submit() {
  rc=0
  local start=$SECONDS
  job=$(sbatch --parsable --wait --chdir="$tmp" "$@") || rc=$?
  job=${job%%;*}
  took=$((SECONDS - start))
}
# json FILE EXPR: EXPR over the file's JSON as d, printed by Python.
json() { python3 -c "import json, sys; d = json.load(open(sys.argv[1])); print($2)" "$1"; }

export MLBENCH MLBENCH_FLEET_DIR=$tmp/fleet
fleet="$SRC/configs/launch/fleet-slurm.sbatch"

# 1. One node burns in, two expected nodes never report. Its pattern test covers about 128 MiB (the share of the
# free memory that makes it) for 45 s: the burn-in refuses a duration below its timing on a sample and one
# verified pass, which take ~25 s in a sanitizer build (the pattern runs at ~35 MB/s there).
share=$(awk '/^MemAvailable:/ { printf "%.6f", 131072 / $2 }' /proc/meminfo)
MLBENCH_FLEET_EXPECT="$host,node-a,node-b" MLBENCH_FLEET_COMMAND="burnin --duration 45s --phases hostmem --host-memory-share $share" \
  submit -N 1 --gpus-per-node=0 --output="$tmp/fleet-%j.log" "$fleet"
log="$tmp/fleet-$job.log"
[ "$rc" -eq 1 ] || fail "fleet with two missing nodes: job $job exited $rc, not 1: $(cat "$log")"
grep -q "node-a  missing  no report" "$log" || fail "node-a not listed as missing: $(cat "$log")"
grep -q "fleet verdict: fail — missing: node-a, node-b (no report)" "$log" || fail "no fleet verdict: $(cat "$log")"
report="$tmp/fleet/$job/$host.json"
[ -s "$report" ] || fail "no report $report"
node=$(json "$report" "d['host']['hostname'].split('.')[0], [r['status'] for r in d['results'] if r['probe'] == 'burnin.node']")
[ "$node" = "$host ['ok']" ] || fail "report $report: host, burnin.node status = $node: $(cat "$log")"
echo "slurm_test: fleet job $job (${took} s): burn-in passed on $host, exit 1, node-a and node-b missing"

export MLBENCH_FLEET_COMMAND="hostmem --profile quick --size 96M --threads 1 --kernels triad"

# 2. Three per-node commands on the one node stand in for a 3-node fleet.
MLBENCH_FLEET_COMPARE_ARGS="--no-fail --format json -o $tmp/fleet-3.json" \
  MLBENCH_FLEET_TASKS_PER_NODE=3 submit -N 1 --gpus-per-node=0 --output="$tmp/fleet-%j.log" "$fleet"
log="$tmp/fleet-$job.log"
[ "$rc" -eq 0 ] || fail "fleet of three reports: job $job exited $rc, not 0: $(cat "$log")"
for i in 0 1 2; do [ -s "$tmp/fleet/$job/$host-$i.json" ] || fail "no report $host-$i.json in $tmp/fleet/$job: $(cat "$log")"; done
summary=$(json "$tmp/fleet-3.json" \
  "d['reports'], d['missing'], d['failed_nodes'], len(d['groups']) > 0 and all(len(g['members']) == 3 for g in d['groups'])")
[ "$summary" = "3 [] [] True" ] || fail "fleet of three reports: reports, missing, failed, members = $summary"
echo "slurm_test: fleet job $job (${took} s): 3 reports analysed, none missing, exit 0"

# 3. nccl-slurm.sbatch without GPUs.
nccl_report="$tmp/nccl-cluster.json"
MLBENCH="$MLBENCH" REPORT="$nccl_report" submit -N 1 --ntasks-per-node=2 --cpus-per-task=1 --gpus-per-node=0 \
  --output="$tmp/nccl-%j.log" "$SRC/configs/launch/nccl-slurm.sbatch"
log="$tmp/nccl-$job.log"
[ "$rc" -eq 0 ] || fail "nccl-slurm.sbatch: job $job exited $rc, not 0: $(cat "$log")"
[ -s "$nccl_report" ] || fail "nccl-slurm.sbatch wrote no $nccl_report: $(cat "$log")"
expected_status=skipped
if ls /dev/nvidia[0-9]* >/dev/null 2>&1; then expected_status=ok; fi
nccl=$(json "$nccl_report" "d['cluster']['world_size'], sorted({r['status'] for r in d['results'] if r['probe'] == 'net.nccl'})")
[ "$nccl" = "2 ['$expected_status']" ] || fail "nccl-slurm.sbatch report: world size, net.nccl statuses = $nccl (want 2 ['$expected_status'])"
echo "slurm_test: nccl job $job (${took} s): 2 ranks, net.nccl $expected_status, exit 0"
echo "slurm_test: ok"
