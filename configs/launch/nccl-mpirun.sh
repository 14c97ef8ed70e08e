#!/bin/bash
# net.nccl under Open MPI: one process per GPU on every host of HOSTS (host:slots, slots = GPUs per host).
# Example: HOSTS=node1:8,node2:8 configs/launch/nccl-mpirun.sh --profile quick
# A build with MPI (configure summary "MPI: yes") bootstraps over MPI itself; a build without MPI falls back
# to the TCP rendezvous, for which MASTER_ADDR/MASTER_PORT and the job's secret MLBENCH_JOB_TOKEN are forwarded
# with -x.
set -euo pipefail

MLBENCH=${MLBENCH:-mlbench}
HOSTS=${HOSTS:-localhost:8}
NP=${NP:-$(echo "$HOSTS" | tr ',' '\n' | awk -F: '{n += ($2 == "" ? 1 : $2)} END {print n}')}
export MASTER_ADDR=${MASTER_ADDR:-$(echo "$HOSTS" | cut -d, -f1 | cut -d: -f1)}
export MASTER_PORT=${MASTER_PORT:-29500}
# 128 random bits as 32 hex digits, the least mlbench accepts (a shorter MLBENCH_JOB_TOKEN exits 2).
MLBENCH_JOB_TOKEN=${MLBENCH_JOB_TOKEN:-$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')}
export MLBENCH_JOB_TOKEN

# -H fills each host's slots in order, so local ranks 0..N-1 land on each host; -x forwards the NCCL settings.
exec mpirun -np "$NP" -H "$HOSTS" --bind-to none \
  -x MASTER_ADDR -x MASTER_PORT -x MLBENCH_JOB_TOKEN -x NCCL_DEBUG -x NCCL_ALGO -x NCCL_PROTO -x NCCL_IB_HCA -x NCCL_SOCKET_IFNAME \
  "$MLBENCH" nccl --timeout 300 -o "${REPORT:-nccl-cluster.json}" "$@"
