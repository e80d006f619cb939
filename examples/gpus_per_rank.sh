#!/bin/sh
# gpus_per_rank.sh - a site wrapper that gives each rank of a node its own
# GPUs, as a batch system's prolog or a cluster's mpirun wrapper does:
#
#   mpirun -np 4 gpus_per_rank.sh hipsvm run -r 'rep.%h.%r.json' -- ./app
#   srun -n 4 gpus_per_rank.sh hipsvm run -r 'rep.%h.%r.json' -- ./app
#
# The node-local rank comes from the launcher (Open MPI, Slurm, MPICH/Hydra,
# PMIx); rank L gets GPUs L*N .. L*N+N-1 of its node.
#   GPUS_PER_RANK  N, 1 by default
#   GPU_VAR        the variable set: HIP_VISIBLE_DEVICES (default) or
#                  ROCR_VISIBLE_DEVICES (ROCr's filter, below HIP's)
set -eu
lr=${OMPI_COMM_WORLD_LOCAL_RANK:-${SLURM_LOCALID:-${MPI_LOCALRANKID:-${PMIX_LOCAL_RANK:-}}}}
if [ -z "$lr" ]; then
	echo "gpus_per_rank.sh: no node-local rank from the launcher; GPUs left as they are" >&2
	exec "$@"
fi
n=${GPUS_PER_RANK:-1}
var=${GPU_VAR:-HIP_VISIBLE_DEVICES}
case $var in
HIP_VISIBLE_DEVICES|ROCR_VISIBLE_DEVICES|CUDA_VISIBLE_DEVICES) ;;
*) echo "gpus_per_rank.sh: GPU_VAR=$var is not a GPU visibility variable" >&2; exit 2 ;;
esac
first=$((lr * n))
list=$first
i=1
while [ "$i" -lt "$n" ]; do
	list="$list,$((first + i))"
	i=$((i + 1))
done
export "$var=$list"
exec "$@"
